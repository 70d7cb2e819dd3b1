//! Antigravity's hook events. Its payload names no event, and `PreInvocation` and
//! `PostInvocation` hand over byte-identical envelopes, so the event is the argument the
//! installer wrote into each hook command (`acc-hook antigravity <Event>`).

use acc_sdk::event::EventKind;

/// The events that load in Antigravity CLI 1.2.7 (per the reference). `SessionEnd` and the
/// tool events are never written by the client, so they are not accepted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClientEvent {
    SessionStart,
    PreInvocation,
    PostInvocation,
    Stop,
}

impl ClientEvent {
    pub const ALL: [ClientEvent; 4] = [
        ClientEvent::SessionStart,
        ClientEvent::PreInvocation,
        ClientEvent::PostInvocation,
        ClientEvent::Stop,
    ];

    pub fn name(self) -> &'static str {
        match self {
            ClientEvent::SessionStart => "SessionStart",
            ClientEvent::PreInvocation => "PreInvocation",
            ClientEvent::PostInvocation => "PostInvocation",
            ClientEvent::Stop => "Stop",
        }
    }

    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|e| e.name() == name)
    }

    pub fn kind(self) -> EventKind {
        match self {
            ClientEvent::SessionStart => EventKind::SessionStart,
            ClientEvent::PreInvocation => EventKind::BeforeTurn,
            ClientEvent::PostInvocation => EventKind::Other,
            ClientEvent::Stop => EventKind::TurnEnd,
        }
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
        for absent in ["SessionEnd", "PreToolUse", "BeforeAgent", "preinvocation"] {
            assert_eq!(ClientEvent::parse(absent), None);
        }
    }
}
