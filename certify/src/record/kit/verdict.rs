//! What every judge returns ([`Verdict`], [`ControlVerdict`]) and reads through: which of
//! the double's requests were the client's own model turns, and whether observations can be
//! judged at all. Each scenario's judge is its own (`scenarios::judge` picks it).
//!
//! A failed observation is a `fail` verdict with its reasons, never a missing one: every
//! capability a scenario is about gets exactly one verdict.

use acc_sdk::capabilities::Capability;
use acc_sdk::certification::EvidenceResult;
use serde::Serialize;

use crate::doubles::Protocol;
use crate::record::kit::observations::{OBSERVATIONS_SCHEMA, Observations, RequestFact};
use crate::record::scenario::Scenario;

/// One capability's verdict from one scenario run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Verdict {
    pub capability: Capability,
    pub result: EvidenceResult,
    /// Why, in words that name no session id, path or peer text (they become limitations
    /// of failing evidence rows and must be the same on every run).
    pub reasons: Vec<String>,
}

impl Verdict {
    pub(crate) fn new(capability: Capability, failures: Vec<String>, success: &str) -> Verdict {
        if failures.is_empty() {
            Verdict {
                capability,
                result: EvidenceResult::Pass,
                reasons: vec![success.to_owned()],
            }
        } else {
            Verdict {
                capability,
                result: EvidenceResult::Fail,
                reasons: failures,
            }
        }
    }

    pub fn passed(&self) -> bool {
        self.result == EvidenceResult::Pass
    }
}

/// The negative control's outcome.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ControlVerdict {
    pub passed: bool,
    pub reasons: Vec<String>,
}

/// Why `obs` cannot be judged as `scenario`'s: another schema, or another scenario.
pub fn unusable(scenario: Scenario, obs: &Observations) -> Option<String> {
    if obs.schema_version != OBSERVATIONS_SCHEMA {
        return Some(format!(
            "observations use schema {} but this judge reads schema {OBSERVATIONS_SCHEMA}",
            obs.schema_version
        ));
    }
    (obs.scenario != scenario).then(|| {
        format!(
            "the observations are of scenario {}, not {scenario}",
            obs.scenario
        )
    })
}

/// The conversation requests (the client's own turns, not listings or side calls).
pub fn conversation_requests(obs: &Observations) -> Vec<&RequestFact> {
    let protocol = obs.protocol.parse::<Protocol>().ok();
    obs.requests
        .iter()
        .filter(|r| protocol.is_some_and(|p| is_conversation(p, &r.method, &r.path)))
        .collect()
}

/// Whether a request is one of the client's model turns under `protocol`.
pub fn is_conversation(protocol: Protocol, method: &str, path: &str) -> bool {
    method.eq_ignore_ascii_case("POST")
        && match protocol {
            Protocol::AnthropicMessages => path.trim_end_matches('/').ends_with("/v1/messages"),
            Protocol::OpenAiResponses => path.trim_end_matches('/').ends_with("/responses"),
            Protocol::GeminiGenerateContent => path.ends_with(":streamGenerateContent"),
            Protocol::OpenAiChatCompletions => path.ends_with("/chat/completions"),
        }
}
