//! Qwen Code's hook events (the bundle's `HookEventName` enum, 0.24.4) and what each means
//! to core.

acc_sdk::client_events! {
    /// Spelled as Qwen Code sends them in `hook_event_name`. `[tool]` marks the events whose
    /// payload carries `tool_name` and `tool_input`.
    pub enum ClientEvent {
        SessionStart => SessionStart,
        UserPromptSubmit => BeforeTurn,
        UserPromptExpansion => Other,
        PreToolUse => BeforeTool [tool],
        PostToolUse => AfterTool [tool],
        PostToolUseFailure => Other [tool],
        PostToolBatch => Other,
        PermissionRequest => Other [tool],
        PermissionDenied => Other [tool],
        Notification => Other,
        Stop => TurnEnd,
        StopFailure => Other,
        MessageDisplay => Other,
        SubagentStart => ChildStart,
        SubagentStop => ChildEnd,
        PreCompact => Other,
        PostCompact => Other,
        SessionEnd => SessionEnd,
        SessionDelete => Other,
        TodoCreated => Other,
        TodoCompleted => Other,
        InstructionsLoaded => Other,
    }
}

/// Qwen Code sends its idle-prompt notification with this `notification_type`; its
/// `Notification` matcher is matched exactly against this field.
pub use acc_sdk::claude_hooks::IDLE_NOTIFICATION;

/// The kind of `event` given its payload: an idle-prompt notification is the session's
/// heartbeat ([`acc_sdk::claude_hooks::kind_of`]).
pub fn kind_of(
    event: ClientEvent,
    payload: &serde_json::Map<String, serde_json::Value>,
) -> acc_sdk::event::EventKind {
    acc_sdk::claude_hooks::kind_of(event, payload)
}

#[cfg(test)]
mod tests {
    use super::*;
    use acc_sdk::event::EventKind;
    use serde_json::json;

    #[test]
    fn only_an_idle_prompt_notification_is_a_heartbeat() {
        let of = |v: serde_json::Value| v.as_object().unwrap().clone();
        let idle = of(json!({"notification_type": "idle_prompt"}));
        let permission = of(json!({"notification_type": "permission_prompt"}));
        assert_eq!(
            kind_of(ClientEvent::Notification, &idle),
            EventKind::Heartbeat
        );
        assert_eq!(
            kind_of(ClientEvent::Notification, &permission),
            EventKind::Other
        );
        assert_eq!(kind_of(ClientEvent::Stop, &idle), EventKind::TurnEnd);
    }

    #[test]
    fn every_name_parses_back_to_its_event() {
        for e in ClientEvent::ALL {
            assert_eq!(ClientEvent::parse(e.name()), Some(e));
        }
        assert_eq!(ClientEvent::parse("BeforeTool"), None);
        assert_eq!(ClientEvent::parse("pretooluse"), None);
    }
}
