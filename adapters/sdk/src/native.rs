//! The native delivery contract: when acc may push a message into a running session.
//!
//! Exactly three things may refuse live delivery: the machine's own probe or per-session
//! handshake failing, a client older than the first passing capture, and a regression
//! recorded in `knownBad`. The platform is never an input here: where a capture was taken is
//! provenance, and a transport that differs on some platform is the probe's fact to report.

mod contract;
mod evaluate;
mod lease;
mod reason;

pub use contract::validate_native_delivery;
pub use evaluate::{
    Eligibility, HandshakeVerdict, Mode, VersionVerdict, evaluate_native_eligibility,
    evaluate_version_contract, validate_native_handshake,
};
pub use lease::{refused_binding, renew_lease};
pub use reason::ReasonCode;

use serde::Serialize;

use crate::version::version_order;

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Anchor {
    pub version: String,
    pub protocol_contract: String,
    /// A declared variant that alone speaks this protocol; `None` is the primary client.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub client: Option<String>,
}

impl Anchor {
    pub fn owner<'a>(&'a self, primary: &'a str) -> &'a str {
        self.client.as_deref().unwrap_or(primary)
    }
}

/// A regression of the primary client: one version, or an inclusive interval.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum KnownBad {
    Exact { version: String },
    Interval { from: String, to: String },
}

impl KnownBad {
    /// Whether `version`'s release triple is on this entry.
    pub fn covers(&self, version: &str) -> bool {
        let Some(t) = version_order(version) else {
            return false;
        };
        match self {
            KnownBad::Exact { version: v } => version_order(v) == Some(t),
            KnownBad::Interval { from, to } => {
                version_order(from).is_some_and(|f| f <= t)
                    && version_order(to).is_some_and(|e| t <= e)
            }
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ActivationKind {
    NativeConfig,
    NativeService,
}

impl ActivationKind {
    pub fn parse(text: &str) -> Option<Self> {
        match text {
            "native-config" => Some(Self::NativeConfig),
            "native-service" => Some(Self::NativeService),
            _ => None,
        }
    }
}

/// What an accepted offer puts in front of the model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum OfferKind {
    /// Carries the body; the receipt becomes `offered`.
    Message,
    /// Only makes the client run a turn; the next-turn hook shows the body.
    Wake,
}

/// Where recipient consent is read from. Only the installation record is accepted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum PolicySource {
    InstallationRecord,
}

/// A validated `nativeDelivery` declaration.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NativeDelivery {
    /// The primary client's first passing capture.
    pub minimum: String,
    pub anchors: Vec<Anchor>,
    pub known_bad: Vec<KnownBad>,
    pub activation_kinds: Vec<ActivationKind>,
    pub policy_source: PolicySource,
    pub offer_kind: OfferKind,
}

impl NativeDelivery {
    /// The primary client's anchor at the minimum.
    pub fn primary_anchor(&self, primary: &str) -> Option<&Anchor> {
        self.anchors
            .iter()
            .find(|a| a.owner(primary) == primary && a.version == self.minimum)
    }

    /// A protocol's floor: its lowest anchor, whoever owns it.
    pub fn floor_of(&self, protocol: &str) -> Option<&Anchor> {
        let mut best: Option<&Anchor> = None;
        for a in self
            .anchors
            .iter()
            .filter(|a| a.protocol_contract == protocol)
        {
            if best.is_none_or(|b| version_order(&a.version) < version_order(&b.version)) {
                best = Some(a);
            }
        }
        best
    }

    pub fn is_known_bad(&self, version: &str) -> bool {
        self.known_bad.iter().any(|k| k.covers(version))
    }
}

#[cfg(test)]
mod tests;
