//! The normalised hook event: the only shape of client input that reaches core.
//!
//! Built by whitelisting (never by filtering) the fields an adapter reads from its client's
//! payload, so prompts, transcript paths, file contents and tool output cannot leak through.

use serde::Serialize;

/// What happened in the client, in core's vocabulary. There is deliberately no
/// `sessionResume` kind: a resume is a `SessionStart` whose binding is still open.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum EventKind {
    SessionStart,
    SessionEnd,
    Heartbeat,
    BeforeTurn,
    BeforeTool,
    AfterTool,
    TurnEnd,
    ChildStart,
    ChildEnd,
    Other,
}

impl EventKind {
    pub const ALL: [EventKind; 10] = [
        EventKind::SessionStart,
        EventKind::SessionEnd,
        EventKind::Heartbeat,
        EventKind::BeforeTurn,
        EventKind::BeforeTool,
        EventKind::AfterTool,
        EventKind::TurnEnd,
        EventKind::ChildStart,
        EventKind::ChildEnd,
        EventKind::Other,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            EventKind::SessionStart => "sessionStart",
            EventKind::SessionEnd => "sessionEnd",
            EventKind::Heartbeat => "heartbeat",
            EventKind::BeforeTurn => "beforeTurn",
            EventKind::BeforeTool => "beforeTool",
            EventKind::AfterTool => "afterTool",
            EventKind::TurnEnd => "turnEnd",
            EventKind::ChildStart => "childStart",
            EventKind::ChildEnd => "childEnd",
            EventKind::Other => "other",
        }
    }
}

/// Which guard family a tool call belongs to; decides which `guards.*` capability vouches
/// for a deny.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum ToolClass {
    Read,
    Write,
    Shell,
    Other,
}

/// The paths a tool call would write, as the adapter could read them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "state", content = "paths", rename_all = "camelCase")]
pub enum Targets {
    /// Not a tool event, or a tool that writes nothing.
    None,
    /// Paths exactly as the client named them (relative to the payload's cwd or absolute).
    /// A path ending in `/**` is written whole: a command removes, moves away or restores it
    /// (`rm -r src`, `git restore src`), so every file under it is a target. Any other path
    /// is the file (or directory entry) itself.
    Paths(Vec<String>),
    /// A shell command some of whose writes acc cannot bound: `paths` as in
    /// [`Targets::Paths`] (files it is known to write), and the paths that programs acc does
    /// not know to be read-only name or write into (`chmod 000 src/lib.rs`, `tar xf a.tar`
    /// in the directory holding a claim). Each named path may be written whole. The guard
    /// refuses a named path only inside a peer's guarded claim, naming the program.
    Named {
        paths: Vec<String>,
        named: Vec<NamedPath>,
    },
    /// A write-capable call whose targets could not be read (an opaque or unparseable shell
    /// command, a patch Codex could not parse either). `reason` names what could not be
    /// read and says how to rephrase; it holds no text of the call itself beyond a short
    /// program name. The guard decides what to do with it (deny while a peer holds a
    /// guarded claim).
    Unreadable { reason: String },
}

/// A path a program acc cannot bound may write (see [`Targets::Named`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NamedPath {
    /// The program, by its short name (never the command's text).
    pub program: String,
    /// Relative to the payload's cwd or absolute; ending in `/**` when written whole.
    pub path: String,
    /// The program writes into this directory as its working directory (an extractor, a
    /// package manager), rather than naming it as an argument.
    pub into: bool,
}

impl Targets {
    /// Targets that cannot be read, for `reason`.
    pub fn unreadable(reason: impl std::fmt::Display) -> Targets {
        Targets::Unreadable {
            reason: reason.to_string(),
        }
    }
}

/// A tool call as the guard sees it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolCall {
    pub name: String,
    pub class: ToolClass,
    pub targets: Targets,
    /// A digest of the client's own id for this call, when its payloads name one (Claude
    /// Code's and Codex's `tool_use_id`, Kimi Code's `tool_call_id`): what pairs a post-tool
    /// hook with its own pre-tool hook when a client runs calls side by side. The client's
    /// id itself never leaves the adapter.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub call_id: Option<String>,
    /// The call can write nothing but `targets`: a shell call running only programs whose
    /// every write the reader sees (`cat`, `grep`: see
    /// [`crate::shell_targets::ShellReading`]). The guard then has nothing to watch the
    /// claimed files for once `targets` are judged. False whenever unsure. Not serialised:
    /// it is the guard's reading, not part of the event.
    #[serde(skip)]
    pub writes_only_targets: bool,
}

/// A call id longer than this is not one (ids are short tokens).
pub const MAX_CALL_ID_BYTES: usize = 256;

impl ToolCall {
    /// This call with the digest of the client's id for it, when `id` looks like one
    /// (short, no control characters); anything else is dropped, never refused: the id only
    /// pairs hooks.
    pub fn with_call_id(mut self, id: Option<&str>) -> ToolCall {
        use sha2::{Digest, Sha256};
        self.call_id = id
            .filter(|id| id.len() <= MAX_CALL_ID_BYTES && !id.chars().any(char::is_control))
            .map(|id| {
                Sha256::digest(id.as_bytes())
                    .iter()
                    .take(16)
                    .map(|b| format!("{b:02x}"))
                    .collect()
            });
        self
    }
}

/// A client hook payload, normalised. Every field is whitelisted.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NormalizedEvent {
    pub kind: EventKind,
    /// The client's own session id (never empty).
    pub session_id: String,
    /// The session's working directory as the client reported it (never empty).
    pub cwd: String,
    pub model: Option<String>,
    pub parent_session_id: Option<String>,
    pub tool: Option<ToolCall>,
    /// The client's own name for its permission mode, when its hook reports one.
    pub permission_mode: Option<String>,
    /// On `sessionEnd`, the client's own word for why.
    pub end_reason: Option<String>,
}

/// Why a payload was refused. Refusals are data errors; the hook runner turns every one
/// into fail-open.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NormalizeError {
    /// The payload is not a JSON object, or not this client's shape.
    ForeignShape(String),
    /// The event name is missing or not one this adapter recognises.
    UnknownEvent(String),
    MissingSessionId,
    MissingCwd,
    InvalidField {
        field: &'static str,
        reason: String,
    },
}

impl std::fmt::Display for NormalizeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NormalizeError::ForeignShape(why) => {
                write!(f, "payload is not this client's shape: {why}")
            }
            NormalizeError::UnknownEvent(name) => write!(f, "unknown hook event {name:?}"),
            NormalizeError::MissingSessionId => f.write_str("normalised event has no session id"),
            NormalizeError::MissingCwd => f.write_str("normalised event has no working directory"),
            NormalizeError::InvalidField { field, reason } => {
                write!(f, "invalid {field}: {reason}")
            }
        }
    }
}

impl std::error::Error for NormalizeError {}

#[cfg(test)]
mod tests {
    use super::*;

    fn call() -> ToolCall {
        ToolCall {
            name: "Bash".into(),
            class: ToolClass::Shell,
            targets: Targets::None,
            call_id: None,
            writes_only_targets: false,
        }
    }

    #[test]
    fn a_call_id_is_kept_as_a_digest_and_junk_is_dropped() {
        let a = call().with_call_id(Some("toolu_01ABC")).call_id.unwrap();
        assert_eq!(a.len(), 32);
        assert!(!a.contains("toolu"));
        assert_eq!(
            call().with_call_id(Some("toolu_01ABC")).call_id,
            Some(a.clone())
        );
        assert_ne!(call().with_call_id(Some("toolu_01ABD")).call_id, Some(a));
        for junk in [
            None,
            Some("a\nb"),
            Some(&*"x".repeat(MAX_CALL_ID_BYTES + 1)),
        ] {
            assert_eq!(call().with_call_id(junk).call_id, None, "{junk:?}");
        }
    }
}
