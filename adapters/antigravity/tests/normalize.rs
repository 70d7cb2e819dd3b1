//! Antigravity's normaliser. Antigravity could not be installed here, so there is no real
//! payload: these envelopes follow the field names the reference adapter reads.

use acc_adapter_antigravity::Behaviour;
use acc_sdk::adapter::AdapterBehaviour;
use acc_sdk::event::{EventKind, NormalizeError, NormalizedEvent};
use acc_sdk::testing::payloads::{assert_marks_dropped, assert_nothing_leaks, with, without};
use acc_sdk::testing::refusals::{Refusal, assert_non_objects_are_foreign, assert_refused};
use serde_json::{Value, json};

fn normalize(payload: &Value, event: &str) -> Result<NormalizedEvent, NormalizeError> {
    Behaviour.normalize_hook(payload, &[event.to_owned()])
}

fn envelope() -> Value {
    json!({"conversationId": "conv-1", "workspacePaths": ["/w", "/other"],
        "modelName": "gemini-3-pro", "executionNum": 0})
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
    let unknown = |what: &str, event: &str| {
        Refusal::new(
            what,
            envelope(),
            NormalizeError::UnknownEvent(event.to_owned()),
        )
        .with_event_arg(event)
    };
    let at_stop = |what: &str, payload: Value, want: NormalizeError| {
        Refusal::new(what, payload, want).with_event_arg("Stop")
    };
    assert_refused(
        &Behaviour,
        [
            unknown("unknown event", "Teleport"),
            unknown("a tool event it never sends", "PreToolUse"),
            unknown("session end it never sends", "SessionEnd"),
            Refusal::new(
                "no argument",
                envelope(),
                NormalizeError::UnknownEvent(String::new()),
            ),
            at_stop(
                "missing conversation id",
                without(envelope(), "conversationId"),
                NormalizeError::MissingSessionId,
            ),
            at_stop(
                "blank conversation id",
                with(envelope(), "conversationId", json!(" ")),
                NormalizeError::MissingSessionId,
            ),
            at_stop(
                "missing workspace",
                without(envelope(), "workspacePaths"),
                NormalizeError::MissingCwd,
            ),
            at_stop(
                "empty workspace list",
                with(envelope(), "workspacePaths", json!([])),
                NormalizeError::MissingCwd,
            ),
            at_stop(
                "blank workspace",
                with(envelope(), "workspacePaths", json!([""])),
                NormalizeError::MissingCwd,
            ),
            at_stop(
                "workspace not a list",
                with(envelope(), "workspacePaths", json!("/w")),
                NormalizeError::MissingCwd,
            ),
        ],
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
    assert_non_objects_are_foreign(&Behaviour, &["Stop".to_owned()], &envelope());
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
    assert_marks_dropped(&payload, &event);
    assert_nothing_leaks("the second workspace", &payload, &event, &[], &["/other"]);
}

#[test]
fn there_is_no_guard_to_offer() {
    assert!(Behaviour.guard_write().is_none());
    assert!(Behaviour.guard_shell().is_none());
    assert!(Behaviour.guard_read().is_none());
}
