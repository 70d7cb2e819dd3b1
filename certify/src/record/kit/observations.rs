//! Everything the judge reads about one run, as written to a bundle's `observations.json`.
//!
//! Observations hold facts, not conclusions: which sessions acc's store has, which files
//! exist, what each model request carried back from tools and which acc texts it showed the
//! model. Each scenario's judge (`scenarios::judge` picks it) turns them into verdicts, so a
//! bundle can be judged again later. Sandbox paths are already replaced by `<ws>`, `<home>`, `<data>`, `<tmp>`.

use serde::{Deserialize, Serialize};

use crate::record::scenario::Scenario;

// Kept here by name: scenarios and tests import it with the observations it belongs to.
pub use crate::record::kit::run_facts::{RunFacts, ToolResultFact};

/// Bumped when a field changes meaning; the judge refuses other versions.
pub const OBSERVATIONS_SCHEMA: u32 = 1;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Observations {
    pub schema_version: u32,
    pub scenario: Scenario,
    /// The adapter id whose wiring was installed (`claude-code`).
    pub adapter: String,
    /// The client's certification name (`codex-cli`), as evidence rows name it.
    pub client: String,
    /// The exact version its binary reported.
    pub version: String,
    pub platform: String,
    /// The double's wire protocol id (`anthropic-messages`).
    pub protocol: String,
    pub run: RunFacts,
    pub expect: Expectations,
    /// Every session in acc's store after the run, the recorder's own included.
    pub sessions: Vec<SessionFact>,
    /// The peer's message in `next-turn`, with its receipt after the run.
    pub message: Option<MessageFact>,
    pub files: Vec<FileFact>,
    /// Every request the double received, in arrival order.
    pub requests: Vec<RequestFact>,
    /// What acc-hook recorded about each invocation, when the hook runtime captured them.
    pub hooks: Option<Vec<HookFact>>,
    /// For `next-turn`: the solo control of the same client run, judged with it.
    pub control: Option<Box<Observations>>,
    /// For `live-wake`: what each phase's sender was told and what the store shows.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub live: Option<crate::record::kit::facts::LiveFacts>,
    /// The targets of the writes into peers' guarded claims that acc's post-tool hook
    /// noticed during the run (`claim.write_detected`, as `acc status` lists them).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub detected_writes: Vec<String>,
    /// For `session-resume`: the store and the hooks after each of the two runs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resume: Option<crate::record::kit::facts::ResumeFacts>,
    /// For `interactive-quit`: what the store and the processes showed after the quit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quit: Option<crate::record::kit::facts::QuitFacts>,
    /// For `child-sessions`: what the double and acc's store show about the subagent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub children: Option<crate::record::kit::facts::ChildFacts>,
    /// For `heartbeat` driven in the client's terminal interface: the idle prompt.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub idle: Option<crate::record::kit::facts::IdleFacts>,
    /// For `reply-route`: the question and its answer as the store holds them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reply: Option<crate::record::kit::facts::ReplyFacts>,
}

/// What the scenario set up, so the judge knows what to look for without a second source.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Expectations {
    /// The peer participant holding the claim or sending the message.
    pub peer: Option<String>,
    /// The workspace-relative file the claim covers.
    pub claimed_target: Option<String>,
    /// The unclaimed file the negative control writes.
    pub free_target: Option<String>,
    /// The text acc's guard denies with (`file:src/x is claimed by peer`).
    pub deny_reason: Option<String>,
    /// The participant the client's session was pinned to.
    pub pinned_participant: Option<String>,
    /// `ACC_CERTIFY_CANDIDATES` for the run.
    pub candidates: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SessionFact {
    pub participant_id: String,
    /// What opened it: an adapter id for hook sessions, `acc-certify` for the recorder's.
    pub harness: String,
    /// `open` or `closed`.
    pub state: String,
    /// The adapter id the hook runtime stored in the session's extensions.
    pub adapter_id: Option<String>,
    pub client_name: Option<String>,
    pub client_version: Option<String>,
    /// The client's own word for why the session ended, when the hook closed it.
    pub end_reason: Option<String>,
    pub certify_candidates: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct MessageFact {
    pub message_id: String,
    pub recipient: String,
    /// The recipient's receipt while it is unresolved (`queued`, `offered`); `None` when
    /// the inbox no longer lists it.
    pub receipt_state: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct FileFact {
    /// Workspace-relative.
    pub path: String,
    pub exists: bool,
    /// The file's sha256, for a scenario that judges whether a file kept its bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sha256: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RequestFact {
    /// Arrival order at the double, from 1.
    pub n: u64,
    pub method: String,
    pub path: String,
    /// The tool results the request carries, in order: result `i` answers script step `i`.
    pub tool_results: Vec<ToolResultFact>,
    /// Every fenced `acc-peer-message` block in the text the model was shown.
    pub peer_blocks: Vec<String>,
    /// Every line of model-visible text carrying one of acc's injected headers.
    pub acc_lines: Vec<String>,
}

/// One acc-hook invocation, reduced to its shape.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct HookFact {
    /// The client's event name (from the payload, else the hook command's last argument).
    pub event: Option<String>,
    /// The normalised kind acc-hook gave it.
    pub kind: Option<String>,
    /// The tool the payload names, for tool events.
    pub tool: Option<String>,
    /// The normaliser's refusal code when it refused the payload.
    pub refusal: Option<String>,
    /// The payload's top-level key names, sorted.
    pub payload_keys: Vec<String>,
    pub outcome: OutcomeShape,
}

/// The shape of what acc-hook answered, never its text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct OutcomeShape {
    pub exit_code: Option<i64>,
    /// `empty`, `text`, or `json` with its top-level keys.
    pub stdout: StreamShape,
    pub stderr: StreamShape,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "camelCase", deny_unknown_fields)]
pub enum StreamShape {
    Empty,
    Text,
    Json { keys: Vec<String> },
}

impl StreamShape {
    /// Classifies a stream without keeping any of its text.
    pub fn of(text: &str) -> StreamShape {
        let trimmed = text.trim();
        if trimmed.is_empty() {
            return StreamShape::Empty;
        }
        match serde_json::from_str::<serde_json::Value>(trimmed) {
            Ok(serde_json::Value::Object(map)) => {
                let mut keys: Vec<String> = map.keys().cloned().collect();
                keys.sort();
                StreamShape::Json { keys }
            }
            _ => StreamShape::Text,
        }
    }
}

impl Observations {
    /// What every scenario's observations start from: the build, the protocol, how the run
    /// ended and what the scenario expected; nothing observed yet, for the runner to fill in
    /// (`Observations { sessions, ..Observations::new(…) }`).
    pub fn new(
        scenario: Scenario,
        expect: Expectations,
        tuple: &crate::record::kit::tuple::Tuple,
        protocol: crate::doubles::Protocol,
        run: RunFacts,
    ) -> Observations {
        Observations {
            schema_version: OBSERVATIONS_SCHEMA,
            scenario,
            adapter: tuple.adapter.clone(),
            client: tuple.client.clone(),
            version: tuple.version.clone(),
            platform: tuple.platform.clone(),
            protocol: protocol.id().to_owned(),
            run,
            expect,
            sessions: Vec::new(),
            message: None,
            files: Vec::new(),
            requests: Vec::new(),
            hooks: None,
            control: None,
            live: None,
            detected_writes: Vec::new(),
            resume: None,
            quit: None,
            children: None,
            idle: None,
            reply: None,
        }
    }

    pub fn file(&self, path: &str) -> Option<&FileFact> {
        self.files.iter().find(|f| f.path == path)
    }

    /// Sessions the installed adapter's hooks opened.
    pub fn adapter_sessions(&self) -> impl Iterator<Item = &SessionFact> {
        self.sessions
            .iter()
            .filter(|s| s.harness == self.adapter || s.adapter_id.as_deref() == Some(&self.adapter))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stream_shapes_keep_no_text() {
        assert_eq!(StreamShape::of(" \n"), StreamShape::Empty);
        assert_eq!(
            StreamShape::of("ACC (load the acc skill):"),
            StreamShape::Text
        );
        assert_eq!(
            StreamShape::of(r#"{"hookSpecificOutput":{"additionalContext":"secret"},"a":1}"#),
            StreamShape::Json {
                keys: vec!["a".into(), "hookSpecificOutput".into()]
            }
        );
        assert_eq!(StreamShape::of("[1,2]"), StreamShape::Text);
        let json = serde_json::to_value(StreamShape::Json {
            keys: vec!["k".into()],
        })
        .unwrap();
        assert_eq!(json, serde_json::json!({"kind": "json", "keys": ["k"]}));
    }
}
