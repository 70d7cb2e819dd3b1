//! Claude Code's `Notification` hook: the idle-prompt notification is acc's heartbeat, every
//! other notification stays `other`. Payloads are shaped as Claude Code 2.1.332 sends them
//! (the common fields, `hook_event_name`, `message` and `notification_type`).

use acc_adapter_claude_code::Behaviour;
use acc_sdk::adapter::AdapterBehaviour;
use acc_sdk::event::EventKind;
use serde_json::{Value, json};

fn notification(kind: &str, message: &str) -> Value {
    json!({
        "session_id": "s-1",
        "transcript_path": "/h/.claude/projects/-w/s-1.jsonl",
        "cwd": "/w",
        "hook_event_name": "Notification",
        "message": message,
        "notification_type": kind,
    })
}

fn kind(payload: &Value) -> EventKind {
    Behaviour.normalize_hook(payload, &[]).unwrap().kind
}

#[test]
fn an_idle_prompt_notification_is_a_heartbeat_of_its_session() {
    let event = Behaviour
        .normalize_hook(
            &notification("idle_prompt", "Claude is waiting for your input"),
            &[],
        )
        .unwrap();
    assert_eq!(event.kind, EventKind::Heartbeat);
    assert_eq!(event.session_id, "s-1");
    assert!(event.tool.is_none());
}

#[test]
fn other_notifications_stay_other() {
    for (ty, message) in [
        (
            "permission_prompt",
            "Claude needs your permission to use Bash",
        ),
        ("auth_success", "Signed in"),
        ("Idle_Prompt", "a near miss is not the idle notification"),
    ] {
        assert_eq!(kind(&notification(ty, message)), EventKind::Other, "{ty}");
    }
    let mut untyped = notification("idle_prompt", "Claude is waiting for your input");
    untyped.as_object_mut().unwrap().remove("notification_type");
    assert_eq!(kind(&untyped), EventKind::Other);
}
