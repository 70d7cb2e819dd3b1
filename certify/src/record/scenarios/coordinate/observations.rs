//! Everything the coordination judge reads, as written to the pair bundle's
//! `observations.json`: after each client run, what acc's store and the workspace hold.
//!
//! Facts only: claims, messages (ids, kinds, senders and recipients, never their text),
//! sessions and the digest of the contested file. Request facts are kept for people and
//! for the one structural check of what a model was shown (a peer block naming a message).

use serde::{Deserialize, Serialize};

use crate::record::kit::observations::{HookFact, RequestFact, RunFacts, SessionFact};

/// Bumped when a field changes meaning; the judge refuses other versions.
pub const COORDINATION_SCHEMA: u32 = 1;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CoordinationObservations {
    pub schema_version: u32,
    pub platform: String,
    /// The client whose model claims, answers and releases.
    pub owner: Side,
    /// The client whose model writes, is refused, asks and writes again.
    pub asker: Side,
    pub expect: CoordinationExpect,
    /// In the order they ran.
    pub runs: Vec<RunObservation>,
}

/// One client of the pair.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Side {
    /// The adapter id whose wiring was installed (`claude-code`).
    pub adapter: String,
    /// The client's certification name (`codex-cli`).
    pub client: String,
    pub version: String,
    /// The double's wire protocol id.
    pub protocol: String,
}

/// What the scenario is about.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CoordinationExpect {
    /// The resource the owner's model claims (`file:src/**`).
    pub resource: String,
    /// The workspace-relative file the asker's model writes.
    pub target: String,
    /// The sha256 of the bytes the asker's model writes.
    pub target_sha256: String,
}

/// Which client ran, and what for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Turn {
    /// The owner's first run: claim.
    OwnerClaims,
    /// The asker's first run: write (refused), ask.
    AskerWrites,
    /// The owner's second run: answer, release.
    OwnerAnswers,
    /// The asker's second run: write.
    AskerWritesAgain,
}

impl Turn {
    /// In the order the scenario runs them.
    pub const ALL: [Turn; 4] = [
        Turn::OwnerClaims,
        Turn::AskerWrites,
        Turn::OwnerAnswers,
        Turn::AskerWritesAgain,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Turn::OwnerClaims => "owner-claims",
            Turn::AskerWrites => "asker-writes",
            Turn::OwnerAnswers => "owner-answers",
            Turn::AskerWritesAgain => "asker-writes-again",
        }
    }

    pub fn is_owner(self) -> bool {
        matches!(self, Turn::OwnerClaims | Turn::OwnerAnswers)
    }
}

/// One headless client run and the state it left.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RunObservation {
    pub turn: Turn,
    pub run: RunFacts,
    /// Every request this run's client sent its double, in arrival order.
    pub requests: Vec<RequestFact>,
    pub hooks: Option<Vec<HookFact>>,
    /// acc's store and the contested file once the client exited.
    pub after: StoreFacts,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct StoreFacts {
    /// Every session, closed ones included.
    pub sessions: Vec<SessionFact>,
    /// The live claims.
    pub claims: Vec<ClaimFact>,
    /// Every message, in the order acc recorded them.
    pub messages: Vec<MessageFact>,
    /// The contested file.
    pub target: FileState,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ClaimFact {
    pub resource: String,
    pub owner_participant_id: String,
    /// `guarded` or `advisory`.
    pub enforcement: String,
}

/// A message's envelope; its subject and body are peer text and are not kept.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct MessageFact {
    pub message_id: String,
    pub from_participant_id: String,
    pub to_participant_ids: Vec<String>,
    /// `note`, `question`, `answer`, ...
    pub kind: String,
    pub in_reply_to: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct FileState {
    /// The sha256 of its bytes; `None` when it does not exist.
    pub sha256: Option<String>,
}

impl CoordinationObservations {
    pub fn run(&self, turn: Turn) -> Option<&RunObservation> {
        self.runs.iter().find(|run| run.turn == turn)
    }
}

impl StoreFacts {
    /// The participants of the sessions `adapter`'s hooks opened.
    pub fn participants_of(&self, adapter: &str) -> Vec<&str> {
        let mut ids: Vec<&str> = self
            .sessions
            .iter()
            .filter(|s| s.harness == adapter || s.adapter_id.as_deref() == Some(adapter))
            .map(|s| s.participant_id.as_str())
            .collect();
        ids.sort_unstable();
        ids.dedup();
        ids
    }
}
