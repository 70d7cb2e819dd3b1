//! `acc-certify explain`: the verdict on every capability for one client build on one
//! platform, with the reason and the version that decided.

use acc_sdk::capabilities::Capability;
use acc_sdk::define::Declaration;
use acc_sdk::resolution::{ClientFacts, Verdict};
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

impl Explanation {
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
