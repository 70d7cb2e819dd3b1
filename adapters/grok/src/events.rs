//! Grok's hook events (Grok Build 0.2.111, per its built-in documentation and real runs).
//!
//! The payload names the event in `hookEventName` in snake_case (`pre_tool_use`); the
//! hook files use PascalCase (`PreToolUse`), which the reference also accepts in the
//! payload, so both spellings parse.

acc_sdk::client_events! {
    /// Each event under its hook-file name, then its payload name (snake_case) and any
    /// documented alias.
    pub enum ClientEvent {
        SessionStart | "session_start" => SessionStart,
        UserPromptSubmit | "user_prompt_submit" => BeforeTurn,
        PreToolUse | "pre_tool_use" => BeforeTool [tool],
        PostToolUse | "post_tool_use" => AfterTool [tool],
        PostToolUseFailure | "post_tool_use_failure" => AfterTool [tool],
        PermissionDenied | "permission_denied" => Other [tool],
        Stop | "stop" => TurnEnd,
        StopFailure | "stop_failure" => TurnEnd,
        Notification | "notification" => Other,
        SubagentStart | "subagent_start" => ChildStart,
        /// `subagent_end`/`SubagentEnd` is Grok's documented alias.
        SubagentStop | "subagent_stop" | "subagent_end" | "SubagentEnd" => ChildEnd,
        PreCompact | "pre_compact" => Other,
        PostCompact | "post_compact" => Other,
        SessionEnd | "session_end" => SessionEnd,
    }
}

impl ClientEvent {
    /// The name in payloads (snake_case): the first alias.
    pub fn wire_name(self) -> &'static str {
        self.aliases()[0]
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
