//! Antigravity's normaliser. Antigravity could not be installed here, so there is no real
//! payload: these envelopes follow the field names the reference adapter reads.

use acc_adapter_antigravity::Behaviour;
use acc_sdk::adapter::AdapterBehaviour;
use acc_sdk::event::{EventKind, NormalizeError, NormalizedEvent};
use serde_json::{Value, json};

fn normalize(payload: &Value, event: &str) -> Result<NormalizedEvent, NormalizeError> {
    Behaviour.normalize_hook(payload, &[event.to_owned()])
}

fn envelope() -> Value {
    json!({"conversationId": "conv-1", "workspacePaths": ["/w", "/other"],
        "modelName": "gemini-3-pro", "executionNum": 0})
}

fn without(mut v: Value, key: &str) -> Value {
    v.as_object_mut().unwrap().remove(key);
    v
}

fn with(mut v: Value, key: &str, value: Value) -> Value {
    v[key] = value;
    v
}

#[test]
fn the_event_comes_from_the_command_argument() {
    for (arg, kind) in [
        ("SessionStart", EventKind::SessionStart),
        ("PreInvocation", EventKind::BeforeTurn),
        ("PostInvocation", EventKind::Other),
        ("Stop", EventKind::TurnEnd),
    ] {
        let e = normalize(&envelope(), arg).unwrap();
        assert_eq!(e.kind, kind, "{arg}");
        assert_eq!((e.session_id.as_str(), e.cwd.as_str()), ("conv-1", "/w"));
        assert_eq!(e.model.as_deref(), Some("gemini-3-pro"));
        assert_eq!(
            (e.tool, e.parent_session_id, e.permission_mode, e.end_reason),
            (None, None, None, None)
        );
    }
    // The same envelope, two events: only the argument tells them apart.
    assert_ne!(
        normalize(&envelope(), "PreInvocation").unwrap().kind,
        normalize(&envelope(), "PostInvocation").unwrap().kind
    );
}

#[test]
fn unrecognised_input_is_refused_never_invented() {
    let cases: Vec<(&str, Value, &str, NormalizeError)> = vec![
        (
            "unknown event",
            envelope(),
            "Teleport",
            NormalizeError::UnknownEvent("Teleport".into()),
        ),
        (
            "a tool event it never sends",
            envelope(),
            "PreToolUse",
            NormalizeError::UnknownEvent("PreToolUse".into()),
        ),
        (
            "session end it never sends",
            envelope(),
            "SessionEnd",
            NormalizeError::UnknownEvent("SessionEnd".into()),
        ),
        (
            "missing conversation id",
            without(envelope(), "conversationId"),
            "Stop",
            NormalizeError::MissingSessionId,
        ),
        (
            "blank conversation id",
            with(envelope(), "conversationId", json!(" ")),
            "Stop",
            NormalizeError::MissingSessionId,
        ),
        (
            "missing workspace",
            without(envelope(), "workspacePaths"),
            "Stop",
            NormalizeError::MissingCwd,
        ),
        (
            "empty workspace list",
            with(envelope(), "workspacePaths", json!([])),
            "Stop",
            NormalizeError::MissingCwd,
        ),
        (
            "blank workspace",
            with(envelope(), "workspacePaths", json!([""])),
            "Stop",
            NormalizeError::MissingCwd,
        ),
        (
            "workspace not a list",
            with(envelope(), "workspacePaths", json!("/w")),
            "Stop",
            NormalizeError::MissingCwd,
        ),
    ];
    for (what, payload, arg, want) in cases {
        assert_eq!(normalize(&payload, arg).unwrap_err(), want, "{what}");
    }
    assert_eq!(
        Behaviour.normalize_hook(&envelope(), &[]).unwrap_err(),
        NormalizeError::UnknownEvent(String::new()),
        "no argument"
    );
}

#[test]
fn other_clients_payloads_and_garbage_are_refused() {
    let claude = json!({"session_id": "s", "cwd": "/w", "hook_event_name": "SessionStart", "source": "startup"});
    assert!(matches!(
        normalize(&claude, "SessionStart"),
        Err(NormalizeError::ForeignShape(_))
    ));
    let hybrid = with(envelope(), "hook_event_name", json!("BeforeTool"));
    assert!(matches!(
        normalize(&hybrid, "PreInvocation"),
        Err(NormalizeError::ForeignShape(_))
    ));
    let grok = with(envelope(), "hookEventName", json!("session_start"));
    assert!(matches!(
        normalize(&grok, "SessionStart"),
        Err(NormalizeError::ForeignShape(_))
    ));
    for garbage in [json!(null), json!([envelope()]), json!("conv-1"), json!(7)] {
        assert!(
            matches!(
                normalize(&garbage, "Stop"),
                Err(NormalizeError::ForeignShape(_))
            ),
            "{garbage}"
        );
    }
}

#[test]
fn the_whitelist_drops_every_field_it_does_not_name() {
    let payload = json!({
        "conversationId": "conv-1", "workspacePaths": ["/w"],
        "prompt": "PROMPT-MARK", "userMessage": "USER-MARK",
        "transcriptPath": "/h/TRANSCRIPT-MARK", "steps": [{"content": "CONTENT-MARK"}],
        "executionNum": 3
    });
    let event = normalize(&payload, "PreInvocation").unwrap();
    let shown = format!("{event:?}\n{}", serde_json::to_string(&event).unwrap());
    for mark in [
        "PROMPT-MARK",
        "USER-MARK",
        "TRANSCRIPT-MARK",
        "CONTENT-MARK",
        "/other",
    ] {
        assert!(!shown.contains(mark), "{mark} leaked into {shown}");
    }
}

#[test]
fn there_is_no_guard_to_offer() {
    assert!(Behaviour.guard_write().is_none());
    assert!(Behaviour.guard_shell().is_none());
    assert!(Behaviour.guard_read().is_none());
}
