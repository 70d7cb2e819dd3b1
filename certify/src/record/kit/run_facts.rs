//! How the client process ended, where it tried to go and what its tools answered: the
//! parts of every run's observations that scenario facts (a resumed run, a quit, an asking
//! run) carry too, below both.

use serde::{Deserialize, Serialize};

/// How the client process ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RunFacts {
    /// `None` when a signal ended it.
    pub exit_code: Option<i32>,
    pub timed_out: bool,
    /// Every address but 127.0.0.1 the client or a process it started tried to reach
    /// (absent when none, as in captures from before the network was watched); those made
    /// in the recorder's loopback-only namespace are marked refused.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub network: Vec<crate::clients::network::NetworkAttempt>,
}

impl RunFacts {
    /// Why the run cannot be evidence because it may have left 127.0.0.1, naming every
    /// target. An attempt refused inside the recorder's loopback-only namespace is no
    /// reason: it reached nothing, and a client that needed it shows so elsewhere (its model
    /// request never reached the double, and the scenario's own checks fail).
    pub fn network_problem(&self) -> Option<String> {
        let tried: Vec<String> = self
            .network
            .iter()
            .filter(|a| !a.refused)
            .map(|a| a.describe())
            .collect();
        if tried.is_empty() {
            return None;
        }
        Some(format!(
            "the client tried to reach {}, but a recording runs offline and allows only 127.0.0.1: turn that feature off in the client's base configuration",
            tried.join(", ")
        ))
    }

    /// The attempts refused inside the recorder's loopback-only namespace, described.
    pub fn refused(&self) -> Vec<String> {
        self.network
            .iter()
            .filter(|a| a.refused)
            .map(|a| a.describe())
            .collect()
    }
}

/// A tool's result as the client carried it back to the model.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ToolResultFact {
    pub call_id: String,
    pub text: String,
    pub is_error: bool,
}
