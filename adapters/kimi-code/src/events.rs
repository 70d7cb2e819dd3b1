//! Kimi Code's hook events and what each means to core.
//!
//! Kimi Code 2.1.0 accepts sixteen events in its `[[hooks]]` tables (docs/research/
//! kimi-antigravity.md). The reference adapter, written against 0.36.1, also names
//! `SessionHeartbeat` and `TurnStarted`; both stay known so an older build is not refused.

acc_sdk::client_events! {
    /// `[tool]` marks the events whose payload must name a tool; the permission events are
    /// `Other` and their tool is not read.
    pub enum ClientEvent {
        SessionStart => SessionStart,
        UserPromptSubmit => BeforeTurn,
        PreToolUse => BeforeTool [tool],
        PermissionRequest => Other,
        PermissionResult => Other,
        PostToolUse => AfterTool [tool],
        PostToolUseFailure => AfterTool [tool],
        Stop => TurnEnd,
        StopFailure => TurnEnd,
        Interrupt => Other,
        SubagentStart => ChildStart,
        SubagentStop => ChildEnd,
        PreCompact => Other,
        PostCompact => Other,
        Notification => Other,
        /// Accepted in configuration; did not fire in a `-p` run of 2.1.0, and the reference
        /// records that it never fired on 0.36.1.
        SessionEnd => SessionEnd,
        /// 0.36.1 only (fires every 60 s there).
        SessionHeartbeat => Heartbeat,
        /// 0.36.1 only.
        TurnStarted => Other,
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
