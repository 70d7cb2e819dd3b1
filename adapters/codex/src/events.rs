//! Codex CLI's hook events and what each means to core.

acc_sdk::client_events! {
    /// Every hook event Codex accepts in `hooks.json`, as it spells them in the payload.
    pub enum ClientEvent {
        SessionStart => SessionStart,
        UserPromptSubmit => BeforeTurn,
        PreToolUse => BeforeTool [tool],
        PermissionRequest => Other [tool],
        PostToolUse => AfterTool [tool],
        PreCompact => Other,
        PostCompact => Other,
        SubagentStart => ChildStart,
        SubagentStop => ChildEnd,
        Stop => TurnEnd,
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
        assert_eq!(ClientEvent::parse("BeforeAgent"), None);
    }
}
