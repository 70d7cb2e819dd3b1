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

/// The `notification_type` Claude Code gives the notification it sends once a prompt has
/// sat idle past its threshold (`messageIdleNotifThresholdMs`, 60 s by default). Its
/// `Notification` matcher is matched against this field.
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

    #[test]
    fn every_name_parses_back_to_its_event() {
        for e in ClientEvent::ALL {
            assert_eq!(ClientEvent::parse(e.name()), Some(e));
        }
        assert_eq!(ClientEvent::parse("pretooluse"), None);
        assert_eq!(ClientEvent::parse("BeforeTool"), None);
    }

    fn payload(v: serde_json::Value) -> serde_json::Map<String, serde_json::Value> {
        v.as_object().unwrap().clone()
    }

    #[test]
    fn only_an_idle_prompt_notification_is_a_heartbeat() {
        use acc_sdk::event::EventKind;
        let idle = payload(serde_json::json!({"notification_type": "idle_prompt"}));
        let permission = payload(serde_json::json!({"notification_type": "permission_prompt"}));
        let untyped = payload(serde_json::json!({"message": "Claude is waiting for your input"}));
        assert_eq!(
            kind_of(ClientEvent::Notification, &idle),
            EventKind::Heartbeat
        );
        assert_eq!(
            kind_of(ClientEvent::Notification, &permission),
            EventKind::Other
        );
        assert_eq!(
            kind_of(ClientEvent::Notification, &untyped),
            EventKind::Other
        );
        // The type only means something on a notification.
        assert_eq!(kind_of(ClientEvent::Stop, &idle), EventKind::TurnEnd);
    }
}
