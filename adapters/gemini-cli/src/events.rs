//! Gemini CLI's hook events (the bundle's `HookEventName` enum, 0.61.0) and what each means
//! to core.

acc_sdk::client_events! {
    /// The model-call events carry a translation of the whole request (`llm_request`); they
    /// are known, so not refused, but nothing of them reaches core beyond `Other`.
    pub enum ClientEvent {
        SessionStart => SessionStart,
        BeforeAgent => BeforeTurn,
        BeforeModel => Other,
        BeforeToolSelection => Other,
        AfterModel => Other,
        BeforeTool => BeforeTool [tool],
        AfterTool => AfterTool [tool],
        AfterAgent => TurnEnd,
        PreCompress => Other,
        Notification => Other,
        SessionEnd => SessionEnd,
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
