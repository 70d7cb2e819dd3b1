//! Which declared capabilities the running client actually has, judged from evidence.
//!
//! Per capability: the version filter first (a row applies forward from the version that
//! recorded it; a prerelease is judged by its release triple; an unreadable version reaches
//! every row), then the platform preference, then the highest version left decides and
//! every row at it must pass, so a recorded loss wins a tie. Version before platform: a
//! loss recorded for one platform at 1.3.0 says nothing about that platform at 1.2.3.

use serde::Serialize;

use crate::capabilities::{Capability, CapabilitySet};
use crate::certification::{EvidenceRows, RowFacts};
use crate::manifest::Manifest;
use crate::version::version_order;

/// What is known about the running client.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ClientFacts {
    /// The client's version as read; `None` or unreadable text reaches every row.
    pub client_version: Option<String>,
    /// `linux-x64`, `darwin-arm64`, ...
    pub platform: String,
    /// The product running (a variant's certification name); `None` means the primary.
    pub client_name: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Reason {
    /// The manifest does not declare the capability.
    Undeclared,
    /// No row of this client for this capability (or a client the adapter does not declare).
    Unobserved,
    /// The client is older than every row.
    OlderThanEvidence,
    /// The deciding version records a failure.
    RecordedFailure,
}

impl Reason {
    pub fn as_str(self) -> &'static str {
        match self {
            Reason::Undeclared => "undeclared",
            Reason::Unobserved => "unobserved",
            Reason::OlderThanEvidence => "older-than-evidence",
            Reason::RecordedFailure => "recorded-failure",
        }
    }
}

/// The verdict on one capability: granted or not, why not, and the version that decided.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Verdict {
    pub granted: bool,
    pub reason: Option<Reason>,
    pub version: Option<String>,
}

impl Verdict {
    fn refused(reason: Reason, version: Option<&str>) -> Self {
        Self {
            granted: false,
            reason: Some(reason),
            version: version.map(str::to_owned),
        }
    }

    /// The runner's words for a refusal that names the evidence rather than the client;
    /// `None` when granted.
    pub fn refusal_text(&self, capability: Capability, facts: &ClientFacts) -> Option<String> {
        let reason = self.reason?;
        let evidence = self.version.as_deref().unwrap_or("an unknown version");
        let client = facts
            .client_version
            .as_deref()
            .unwrap_or("of an unknown version");
        Some(match reason {
            Reason::OlderThanEvidence => {
                format!(
                    "client {client} is older than {evidence}, the first version acc verified for {capability}"
                )
            }
            Reason::RecordedFailure => {
                format!("acc recorded that {capability} stopped working in {evidence}")
            }
            Reason::Undeclared => format!("this adapter does not declare {capability}"),
            Reason::Unobserved => format!("acc has no evidence for {capability} on this client"),
        })
    }
}

/// The verdict on `capability` for the client described by `facts`, from the full
/// certification or the compiled table alike.
pub fn capability_evidence<E: EvidenceRows + ?Sized>(
    manifest: &Manifest,
    certification: &E,
    facts: &ClientFacts,
    capability: Capability,
) -> Verdict {
    if !manifest.capabilities.get(capability) {
        return Verdict::refused(Reason::Undeclared, None);
    }
    let client = facts
        .client_name
        .as_deref()
        .unwrap_or(manifest.client.primary());
    if !manifest.client.declares(client) {
        return Verdict::refused(Reason::Unobserved, None);
    }
    // A variant's own line only: the primary's rows never stand in for it.
    let named: Vec<RowFacts> = certification.rows_of(client, capability.key()).collect();
    if named.is_empty() {
        return Verdict::refused(Reason::Unobserved, None);
    }
    let client_triple = facts.client_version.as_deref().and_then(version_order);
    let reachable: Vec<RowFacts> = match client_triple {
        None => named.clone(),
        Some(t) => named
            .iter()
            .copied()
            .filter(|r| version_order(r.version).is_some_and(|rv| rv <= t))
            .collect(),
    };
    let on_platform: Vec<RowFacts> = reachable
        .iter()
        .copied()
        .filter(|r| r.platform == facts.platform)
        .collect();
    let usable = if on_platform.is_empty() {
        reachable
    } else {
        on_platform
    };

    let Some(newest) = first_extreme(&usable, |a, b| a > b) else {
        let earliest = first_extreme(&named, |a, b| a < b);
        return Verdict::refused(Reason::OlderThanEvidence, earliest.map(|r| r.version));
    };
    let top = version_order(newest.version);
    let granted = usable
        .iter()
        .filter(|r| version_order(r.version) == top)
        .all(|r| r.passed);
    Verdict {
        granted,
        reason: (!granted).then_some(Reason::RecordedFailure),
        version: Some(newest.version.to_owned()),
    }
}

/// The first row whose triple beats every later one under `better` (ties keep the first).
fn first_extreme<'a>(
    rows: &[RowFacts<'a>],
    better: impl Fn(&crate::version::VersionTriple, &crate::version::VersionTriple) -> bool,
) -> Option<RowFacts<'a>> {
    let mut best: Option<(RowFacts, crate::version::VersionTriple)> = None;
    for &row in rows {
        let Some(t) = version_order(row.version) else {
            continue;
        };
        match &best {
            Some((_, bt)) if !better(&t, bt) => {}
            _ => best = Some((row, t)),
        }
    }
    best.map(|(r, _)| r)
}

/// Every capability's verdict, in canonical order.
pub fn explain_capabilities<E: EvidenceRows + ?Sized>(
    manifest: &Manifest,
    certification: &E,
    facts: &ClientFacts,
) -> Vec<(Capability, Verdict)> {
    Capability::ALL
        .into_iter()
        .map(|c| (c, capability_evidence(manifest, certification, facts, c)))
        .collect()
}

/// The full fourteen-boolean shape for the running client.
pub fn effective_capabilities<E: EvidenceRows + ?Sized>(
    manifest: &Manifest,
    certification: &E,
    facts: &ClientFacts,
) -> CapabilitySet {
    let mut set = CapabilitySet::none();
    for (cap, verdict) in explain_capabilities(manifest, certification, facts) {
        set.set(cap, verdict.granted);
    }
    set
}

#[cfg(test)]
mod tests;
