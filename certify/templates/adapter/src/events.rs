//! Example CLI's hook events, as its payloads spell them, and what each means to core.
//! Replace the names with the client's own, from its source or documentation.

acc_sdk::client_events! {
    pub enum ClientEvent {
        SessionStart => SessionStart,
        UserPromptSubmit => BeforeTurn,
        PreToolUse => BeforeTool [tool],
        PostToolUse => AfterTool [tool],
        Stop => TurnEnd,
        SessionEnd => SessionEnd,
    }
}
