//! Gemini CLI's hook events (the bundle's `HookEventName` enum, 0.61.0) and what each means
//! to core.

use acc_sdk::event::EventKind;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClientEvent {
    SessionStart,
    BeforeAgent,
    BeforeModel,
    BeforeToolSelection,
    AfterModel,
    BeforeTool,
    AfterTool,
    AfterAgent,
    PreCompress,
    Notification,
    SessionEnd,
}

impl ClientEvent {
    pub const ALL: [ClientEvent; 11] = [
        ClientEvent::SessionStart,
        ClientEvent::BeforeAgent,
        ClientEvent::BeforeModel,
        ClientEvent::BeforeToolSelection,
        ClientEvent::AfterModel,
        ClientEvent::BeforeTool,
        ClientEvent::AfterTool,
        ClientEvent::AfterAgent,
        ClientEvent::PreCompress,
        ClientEvent::Notification,
        ClientEvent::SessionEnd,
    ];

    pub fn name(self) -> &'static str {
        match self {
            ClientEvent::SessionStart => "SessionStart",
            ClientEvent::BeforeAgent => "BeforeAgent",
            ClientEvent::BeforeModel => "BeforeModel",
            ClientEvent::BeforeToolSelection => "BeforeToolSelection",
            ClientEvent::AfterModel => "AfterModel",
            ClientEvent::BeforeTool => "BeforeTool",
            ClientEvent::AfterTool => "AfterTool",
            ClientEvent::AfterAgent => "AfterAgent",
            ClientEvent::PreCompress => "PreCompress",
            ClientEvent::Notification => "Notification",
            ClientEvent::SessionEnd => "SessionEnd",
        }
    }

    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|e| e.name() == name)
    }

    /// The model-call events carry a translation of the whole request (`llm_request`); they
    /// are known, so not refused, but nothing of them reaches core beyond `Other`.
    pub fn kind(self) -> EventKind {
        match self {
            ClientEvent::SessionStart => EventKind::SessionStart,
            ClientEvent::SessionEnd => EventKind::SessionEnd,
            ClientEvent::BeforeAgent => EventKind::BeforeTurn,
            ClientEvent::BeforeTool => EventKind::BeforeTool,
            ClientEvent::AfterTool => EventKind::AfterTool,
            ClientEvent::AfterAgent => EventKind::TurnEnd,
            ClientEvent::BeforeModel
            | ClientEvent::BeforeToolSelection
            | ClientEvent::AfterModel
            | ClientEvent::PreCompress
            | ClientEvent::Notification => EventKind::Other,
        }
    }

    pub fn has_tool(self) -> bool {
        matches!(self, ClientEvent::BeforeTool | ClientEvent::AfterTool)
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
        assert_eq!(ClientEvent::parse("PreToolUse"), None);
    }
}
