//! Kimi Code's hook events and what each means to core.
//!
//! Kimi Code 2.1.0 accepts sixteen events in its `[[hooks]]` tables (docs/research/
//! kimi-antigravity.md). The reference adapter, written against 0.36.1, also names
//! `SessionHeartbeat` and `TurnStarted`; both stay known so an older build is not refused.

use acc_sdk::event::EventKind;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClientEvent {
    SessionStart,
    UserPromptSubmit,
    PreToolUse,
    PermissionRequest,
    PermissionResult,
    PostToolUse,
    PostToolUseFailure,
    Stop,
    StopFailure,
    Interrupt,
    SubagentStart,
    SubagentStop,
    PreCompact,
    PostCompact,
    Notification,
    /// Accepted in configuration; did not fire in a `-p` run of 2.1.0, and the reference
    /// records that it never fired on 0.36.1.
    SessionEnd,
    /// 0.36.1 only (fires every 60 s there).
    SessionHeartbeat,
    /// 0.36.1 only.
    TurnStarted,
}

impl ClientEvent {
    pub const ALL: [ClientEvent; 18] = [
        ClientEvent::SessionStart,
        ClientEvent::UserPromptSubmit,
        ClientEvent::PreToolUse,
        ClientEvent::PermissionRequest,
        ClientEvent::PermissionResult,
        ClientEvent::PostToolUse,
        ClientEvent::PostToolUseFailure,
        ClientEvent::Stop,
        ClientEvent::StopFailure,
        ClientEvent::Interrupt,
        ClientEvent::SubagentStart,
        ClientEvent::SubagentStop,
        ClientEvent::PreCompact,
        ClientEvent::PostCompact,
        ClientEvent::Notification,
        ClientEvent::SessionEnd,
        ClientEvent::SessionHeartbeat,
        ClientEvent::TurnStarted,
    ];

    pub fn name(self) -> &'static str {
        match self {
            ClientEvent::SessionStart => "SessionStart",
            ClientEvent::UserPromptSubmit => "UserPromptSubmit",
            ClientEvent::PreToolUse => "PreToolUse",
            ClientEvent::PermissionRequest => "PermissionRequest",
            ClientEvent::PermissionResult => "PermissionResult",
            ClientEvent::PostToolUse => "PostToolUse",
            ClientEvent::PostToolUseFailure => "PostToolUseFailure",
            ClientEvent::Stop => "Stop",
            ClientEvent::StopFailure => "StopFailure",
            ClientEvent::Interrupt => "Interrupt",
            ClientEvent::SubagentStart => "SubagentStart",
            ClientEvent::SubagentStop => "SubagentStop",
            ClientEvent::PreCompact => "PreCompact",
            ClientEvent::PostCompact => "PostCompact",
            ClientEvent::Notification => "Notification",
            ClientEvent::SessionEnd => "SessionEnd",
            ClientEvent::SessionHeartbeat => "SessionHeartbeat",
            ClientEvent::TurnStarted => "TurnStarted",
        }
    }

    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|e| e.name() == name)
    }

    pub fn kind(self) -> EventKind {
        match self {
            ClientEvent::SessionStart => EventKind::SessionStart,
            ClientEvent::SessionEnd => EventKind::SessionEnd,
            ClientEvent::SessionHeartbeat => EventKind::Heartbeat,
            ClientEvent::UserPromptSubmit => EventKind::BeforeTurn,
            ClientEvent::PreToolUse => EventKind::BeforeTool,
            ClientEvent::PostToolUse | ClientEvent::PostToolUseFailure => EventKind::AfterTool,
            ClientEvent::Stop | ClientEvent::StopFailure => EventKind::TurnEnd,
            ClientEvent::SubagentStart => EventKind::ChildStart,
            ClientEvent::SubagentStop => EventKind::ChildEnd,
            ClientEvent::PermissionRequest
            | ClientEvent::PermissionResult
            | ClientEvent::Interrupt
            | ClientEvent::PreCompact
            | ClientEvent::PostCompact
            | ClientEvent::Notification
            | ClientEvent::TurnStarted => EventKind::Other,
        }
    }

    /// The events whose payload must name a tool; the permission events are `other` and
    /// their tool is not read.
    pub fn has_tool(self) -> bool {
        matches!(
            self,
            ClientEvent::PreToolUse | ClientEvent::PostToolUse | ClientEvent::PostToolUseFailure
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_parses_back_to_its_event() {
        for e in ClientEvent::ALL {
            assert_eq!(ClientEvent::parse(e.name()), Some(e));
        }
        assert_eq!(ClientEvent::parse("BeforeTool"), None);
        assert_eq!(ClientEvent::parse("pre_tool_use"), None);
    }
}
