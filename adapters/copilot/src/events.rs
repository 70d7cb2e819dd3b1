//! Copilot CLI's hook events (1.0.102, its hooks reference and real runs) and what each
//! means to core.
//!
//! acc registers the camelCase names, whose payloads are camelCase and name no event, so
//! the installer writes the event into each hook command (`acc-hook copilot <event>`) and
//! that argument is how the hook learns which event ran. The PascalCase names select the
//! VS Code-compatible payloads (`hook_event_name`, snake_case); acc never registers them.

acc_sdk::client_events! {
    #[allow(non_camel_case_types)]
    pub enum ClientEvent {
        sessionStart => SessionStart,
        userPromptSubmitted => BeforeTurn,
        /// Rewrites the model-facing prompt; acc uses `userPromptSubmitted` instead.
        userPromptTransformed => Other,
        preToolUse => BeforeTool [tool],
        postToolUse => AfterTool [tool],
        postToolUseFailure => AfterTool [tool],
        /// Answered by the permission flow's own rules; acc decides on `preToolUse`.
        permissionRequest => Other [tool],
        agentStop => TurnEnd,
        /// Its `sessionId` is the parent conversation's; the subagent has no id of its own
        /// in the payload, so it is not a child session to acc.
        subagentStart => Other,
        subagentStop => Other,
        preCompact => Other,
        errorOccurred => Other,
        notification => Other,
        sessionEnd => SessionEnd,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_parses_back_to_its_event_and_pascal_case_is_refused() {
        for e in ClientEvent::ALL {
            assert_eq!(ClientEvent::parse(e.name()), Some(e));
        }
        for foreign in ["PreToolUse", "SessionStart", "UserPromptSubmit", "Stop", ""] {
            assert_eq!(ClientEvent::parse(foreign), None, "{foreign}");
        }
    }
}
