//! Codex CLI's hook events and what each means to core.

use acc_sdk::event::EventKind;

/// Every hook event Codex accepts in `hooks.json`, as it spells them in the payload.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClientEvent {
    SessionStart,
    UserPromptSubmit,
    PreToolUse,
    PermissionRequest,
    PostToolUse,
    PreCompact,
    PostCompact,
    SubagentStart,
    SubagentStop,
    Stop,
    SessionEnd,
}

impl ClientEvent {
    pub const ALL: [ClientEvent; 11] = [
        ClientEvent::SessionStart,
        ClientEvent::UserPromptSubmit,
        ClientEvent::PreToolUse,
        ClientEvent::PermissionRequest,
        ClientEvent::PostToolUse,
        ClientEvent::PreCompact,
        ClientEvent::PostCompact,
        ClientEvent::SubagentStart,
        ClientEvent::SubagentStop,
        ClientEvent::Stop,
        ClientEvent::SessionEnd,
    ];

    pub fn name(self) -> &'static str {
        match self {
            ClientEvent::SessionStart => "SessionStart",
            ClientEvent::UserPromptSubmit => "UserPromptSubmit",
            ClientEvent::PreToolUse => "PreToolUse",
            ClientEvent::PermissionRequest => "PermissionRequest",
            ClientEvent::PostToolUse => "PostToolUse",
            ClientEvent::PreCompact => "PreCompact",
            ClientEvent::PostCompact => "PostCompact",
            ClientEvent::SubagentStart => "SubagentStart",
            ClientEvent::SubagentStop => "SubagentStop",
            ClientEvent::Stop => "Stop",
            ClientEvent::SessionEnd => "SessionEnd",
        }
    }

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
            ClientEvent::PermissionRequest | ClientEvent::PreCompact | ClientEvent::PostCompact => {
                EventKind::Other
            }
        }
    }

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
        assert_eq!(ClientEvent::parse("BeforeAgent"), None);
    }
}
