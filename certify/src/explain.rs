//! `acc-certify explain`: the verdict on every capability for one client build on one
//! platform, with the reason and the version that decided.

use acc_sdk::capabilities::Capability;
use acc_sdk::define::Declaration;
use acc_sdk::resolution::{ClientFacts, Verdict};
use acc_sdk::version::version_order;
use serde_json::{Map, Value, json};

pub struct Explanation {
    pub adapter: String,
    pub client: String,
    pub facts: ClientFacts,
    pub verdicts: Vec<(Capability, Verdict)>,
}

pub fn explain(declaration: &Declaration, facts: ClientFacts) -> Explanation {
    let client = facts
        .client_name
        .clone()
        .unwrap_or_else(|| declaration.primary().to_owned());
    Explanation {
        adapter: declaration.manifest().id.to_string(),
        client,
        verdicts: declaration.explain(&facts),
        facts,
    }
}

/// How the client version was read. Resolution reaches every evidence row with a version
/// it cannot order, so a typo must not pass silently as a judgement on a real version.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum VersionReading {
    /// `X.Y.Z`, optionally with `-pre` or `+build`: rows apply from their version forward.
    Read,
    /// No version, or `unknown`.
    Unknown,
    /// Text that is not a version.
    Unreadable(String),
}

impl VersionReading {
    pub fn of(version: Option<&str>) -> VersionReading {
        match version {
            None => VersionReading::Unknown,
            Some(v) if v.eq_ignore_ascii_case("unknown") => VersionReading::Unknown,
            Some(v) if version_order(v).is_some() => VersionReading::Read,
            Some(v) => VersionReading::Unreadable(v.to_owned()),
        }
    }

    pub fn as_str(&self) -> &'static str {
        match self {
            VersionReading::Read => "read",
            VersionReading::Unknown => "unknown",
            VersionReading::Unreadable(_) => "unreadable",
        }
    }

    /// What a reader must be told, when the version does not select rows.
    pub fn note(&self) -> Option<String> {
        match self {
            VersionReading::Read => None,
            VersionReading::Unknown => Some(
                "the client version is unknown, so it reaches every evidence row (each capability is decided by its newest row)".to_owned(),
            ),
            VersionReading::Unreadable(v) => Some(format!(
                "the client version {v:?} could not be read as a version (X.Y.Z, optionally with -pre or +build), so it is judged as unknown and reaches every evidence row (each capability is decided by its newest row)"
            )),
        }
    }
}

impl Explanation {
    pub fn version_reading(&self) -> VersionReading {
        VersionReading::of(self.facts.client_version.as_deref())
    }

    pub fn json(&self) -> Value {
        let caps: Map<String, Value> = self
            .verdicts
            .iter()
            .map(|(cap, v)| {
                (cap.key().to_owned(), json!({"granted": v.granted, "reason": v.reason.map(|r| r.as_str()), "version": v.version}))
            })
            .collect();
        json!({
            "adapter": self.adapter,
            "client": self.client,
            "clientVersion": self.facts.client_version,
            "versionReading": self.version_reading().as_str(),
            "versionNote": self.version_reading().note(),
            "platform": self.facts.platform,
            "capabilities": caps,
        })
    }

    pub fn human(&self) -> String {
        let version = self.facts.client_version.as_deref().unwrap_or("unknown");
        let mut out = format!(
            "{}: {} {} on {}\n",
            self.adapter, self.client, version, self.facts.platform
        );
        if let Some(note) = self.version_reading().note() {
            out.push_str(&format!("note: {note}\n"));
        }
        out.push_str(&format!(
            "{:<28} {:<8} {:<20} {}\n",
            "CAPABILITY", "GRANTED", "REASON", "VERSION"
        ));
        for (cap, v) in &self.verdicts {
            out.push_str(&format!(
                "{:<28} {:<8} {:<20} {}\n",
                cap.key(),
                if v.granted { "yes" } else { "no" },
                v.reason.map(|r| r.as_str()).unwrap_or("-"),
                v.version.as_deref().unwrap_or("-"),
            ));
        }
        let granted = self.verdicts.iter().filter(|(_, v)| v.granted).count();
        out.push_str(&format!("{granted} of {} granted\n", self.verdicts.len()));
        out
    }
}
