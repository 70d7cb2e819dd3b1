//! Grok's hook events (Grok Build 0.2.111, per its built-in documentation and real runs).
//!
//! The payload names the event in `hookEventName` in snake_case (`pre_tool_use`); the
//! hook files use PascalCase (`PreToolUse`), which the reference also accepts in the
//! payload, so both spellings parse.

use acc_sdk::event::EventKind;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClientEvent {
    SessionStart,
    UserPromptSubmit,
    PreToolUse,
    PostToolUse,
    PostToolUseFailure,
    PermissionDenied,
    Stop,
    StopFailure,
    Notification,
    SubagentStart,
    SubagentStop,
    PreCompact,
    PostCompact,
    SessionEnd,
}

impl ClientEvent {
    pub const ALL: [ClientEvent; 14] = [
        ClientEvent::SessionStart,
        ClientEvent::UserPromptSubmit,
        ClientEvent::PreToolUse,
        ClientEvent::PostToolUse,
        ClientEvent::PostToolUseFailure,
        ClientEvent::PermissionDenied,
        ClientEvent::Stop,
        ClientEvent::StopFailure,
        ClientEvent::Notification,
        ClientEvent::SubagentStart,
        ClientEvent::SubagentStop,
        ClientEvent::PreCompact,
        ClientEvent::PostCompact,
        ClientEvent::SessionEnd,
    ];

    /// The name in hook files (PascalCase).
    pub fn name(self) -> &'static str {
        match self {
            ClientEvent::SessionStart => "SessionStart",
            ClientEvent::UserPromptSubmit => "UserPromptSubmit",
            ClientEvent::PreToolUse => "PreToolUse",
            ClientEvent::PostToolUse => "PostToolUse",
            ClientEvent::PostToolUseFailure => "PostToolUseFailure",
            ClientEvent::PermissionDenied => "PermissionDenied",
            ClientEvent::Stop => "Stop",
            ClientEvent::StopFailure => "StopFailure",
            ClientEvent::Notification => "Notification",
            ClientEvent::SubagentStart => "SubagentStart",
            ClientEvent::SubagentStop => "SubagentStop",
            ClientEvent::PreCompact => "PreCompact",
            ClientEvent::PostCompact => "PostCompact",
            ClientEvent::SessionEnd => "SessionEnd",
        }
    }

    /// The name in payloads (snake_case).
    pub fn wire_name(self) -> &'static str {
        match self {
            ClientEvent::SessionStart => "session_start",
            ClientEvent::UserPromptSubmit => "user_prompt_submit",
            ClientEvent::PreToolUse => "pre_tool_use",
            ClientEvent::PostToolUse => "post_tool_use",
            ClientEvent::PostToolUseFailure => "post_tool_use_failure",
            ClientEvent::PermissionDenied => "permission_denied",
            ClientEvent::Stop => "stop",
            ClientEvent::StopFailure => "stop_failure",
            ClientEvent::Notification => "notification",
            ClientEvent::SubagentStart => "subagent_start",
            ClientEvent::SubagentStop => "subagent_stop",
            ClientEvent::PreCompact => "pre_compact",
            ClientEvent::PostCompact => "post_compact",
            ClientEvent::SessionEnd => "session_end",
        }
    }

    /// Either spelling; `subagent_end`/`SubagentEnd` is Grok's documented alias of
    /// `SubagentStop`.
    pub fn parse(name: &str) -> Option<Self> {
        if matches!(name, "subagent_end" | "SubagentEnd") {
            return Some(ClientEvent::SubagentStop);
        }
        Self::ALL
            .into_iter()
            .find(|e| e.wire_name() == name || e.name() == name)
    }

    pub fn kind(self) -> EventKind {
        match self {
            ClientEvent::SessionStart => EventKind::SessionStart,
            ClientEvent::SessionEnd => EventKind::SessionEnd,
            ClientEvent::UserPromptSubmit => EventKind::BeforeTurn,
            ClientEvent::PreToolUse => EventKind::BeforeTool,
            ClientEvent::PostToolUse | ClientEvent::PostToolUseFailure => EventKind::AfterTool,
            ClientEvent::Stop | ClientEvent::StopFailure => EventKind::TurnEnd,
            ClientEvent::SubagentStart => EventKind::ChildStart,
            ClientEvent::SubagentStop => EventKind::ChildEnd,
            ClientEvent::PermissionDenied
            | ClientEvent::Notification
            | ClientEvent::PreCompact
            | ClientEvent::PostCompact => EventKind::Other,
        }
    }

    pub fn has_tool(self) -> bool {
        matches!(
            self,
            ClientEvent::PreToolUse
                | ClientEvent::PostToolUse
                | ClientEvent::PostToolUseFailure
                | ClientEvent::PermissionDenied
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_spellings_parse_back_to_their_event() {
        for e in ClientEvent::ALL {
            assert_eq!(ClientEvent::parse(e.name()), Some(e));
            assert_eq!(ClientEvent::parse(e.wire_name()), Some(e));
        }
        assert_eq!(
            ClientEvent::parse("subagent_end"),
            Some(ClientEvent::SubagentStop)
        );
        assert_eq!(ClientEvent::parse("PRE_TOOL_USE"), None);
        assert_eq!(ClientEvent::parse("BeforeTool"), None);
    }
}
