//! Claude Code's hook events and what each means to core.

use acc_sdk::event::EventKind;

/// Every hook event Claude Code names, as it spells them in `hook_event_name`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClientEvent {
    SessionStart,
    Setup,
    UserPromptSubmit,
    UserPromptExpansion,
    PreToolUse,
    PermissionRequest,
    PostToolUse,
    Stop,
    SessionEnd,
    SubagentStart,
    SubagentStop,
    Notification,
    PreCompact,
    PostCompact,
}

impl ClientEvent {
    pub const ALL: [ClientEvent; 14] = [
        ClientEvent::SessionStart,
        ClientEvent::Setup,
        ClientEvent::UserPromptSubmit,
        ClientEvent::UserPromptExpansion,
        ClientEvent::PreToolUse,
        ClientEvent::PermissionRequest,
        ClientEvent::PostToolUse,
        ClientEvent::Stop,
        ClientEvent::SessionEnd,
        ClientEvent::SubagentStart,
        ClientEvent::SubagentStop,
        ClientEvent::Notification,
        ClientEvent::PreCompact,
        ClientEvent::PostCompact,
    ];

    pub fn name(self) -> &'static str {
        match self {
            ClientEvent::SessionStart => "SessionStart",
            ClientEvent::Setup => "Setup",
            ClientEvent::UserPromptSubmit => "UserPromptSubmit",
            ClientEvent::UserPromptExpansion => "UserPromptExpansion",
            ClientEvent::PreToolUse => "PreToolUse",
            ClientEvent::PermissionRequest => "PermissionRequest",
            ClientEvent::PostToolUse => "PostToolUse",
            ClientEvent::Stop => "Stop",
            ClientEvent::SessionEnd => "SessionEnd",
            ClientEvent::SubagentStart => "SubagentStart",
            ClientEvent::SubagentStop => "SubagentStop",
            ClientEvent::Notification => "Notification",
            ClientEvent::PreCompact => "PreCompact",
            ClientEvent::PostCompact => "PostCompact",
        }
    }

    /// Exact, case-sensitive: Claude Code never varies the spelling.
    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|e| e.name() == name)
    }

    pub fn kind(self) -> EventKind {
        match self {
            ClientEvent::SessionStart => EventKind::SessionStart,
            ClientEvent::SessionEnd => EventKind::SessionEnd,
            ClientEvent::UserPromptSubmit => EventKind::BeforeTurn,
            ClientEvent::PreToolUse => EventKind::BeforeTool,
            ClientEvent::PostToolUse => EventKind::AfterTool,
            ClientEvent::Stop => EventKind::TurnEnd,
            ClientEvent::SubagentStart => EventKind::ChildStart,
            ClientEvent::SubagentStop => EventKind::ChildEnd,
            ClientEvent::Setup
            | ClientEvent::UserPromptExpansion
            | ClientEvent::PermissionRequest
            | ClientEvent::Notification
            | ClientEvent::PreCompact
            | ClientEvent::PostCompact => EventKind::Other,
        }
    }

    /// Whether the payload of this event carries `tool_name` and `tool_input`.
    pub fn has_tool(self) -> bool {
        matches!(
            self,
            ClientEvent::PreToolUse | ClientEvent::PostToolUse | ClientEvent::PermissionRequest
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
        assert_eq!(ClientEvent::parse("pretooluse"), None);
        assert_eq!(ClientEvent::parse("BeforeTool"), None);
    }
}
