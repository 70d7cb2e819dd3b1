//! Antigravity's hook events. Its payload names no event, and `PreInvocation` and
//! `PostInvocation` hand over byte-identical envelopes, so the event is the argument the
//! installer wrote into each hook command (`acc-hook antigravity <Event>`).

acc_sdk::client_events! {
    /// The events that load in Antigravity CLI 1.2.7 (per the reference). `SessionEnd` and
    /// the tool events are never written by the client, so they are not accepted.
    pub enum ClientEvent {
        SessionStart => SessionStart,
        PreInvocation => BeforeTurn,
        PostInvocation => Other,
        Stop => TurnEnd,
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
