//! Claude Code's hook events and what each means to core.

acc_sdk::client_events! {
    /// Every hook event Claude Code names, as it spells them in `hook_event_name` (exactly:
    /// Claude Code never varies the spelling). `[tool]` marks the events whose payload
    /// carries `tool_name` and `tool_input`.
    pub enum ClientEvent {
        SessionStart => SessionStart,
        Setup => Other,
        UserPromptSubmit => BeforeTurn,
        UserPromptExpansion => Other,
        PreToolUse => BeforeTool [tool],
        PermissionRequest => Other [tool],
        PostToolUse => AfterTool [tool],
        Stop => TurnEnd,
        SessionEnd => SessionEnd,
        SubagentStart => ChildStart,
        SubagentStop => ChildEnd,
        Notification => Other,
        PreCompact => Other,
        PostCompact => Other,
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
