//! Asking a behaviour how it answers, and reading the answer back.

use serde_json::Value;

use crate::adapter::AdapterBehaviour;
use crate::event::{EventKind, NormalizedEvent};
use crate::outcome::HookOutcome;

/// An event of `kind` in session `s-1` at `/w`, carrying nothing else: how a client is
/// answered never depends on more.
pub fn event(kind: EventKind) -> NormalizedEvent {
    NormalizedEvent {
        kind,
        session_id: "s-1".into(),
        cwd: "/w".into(),
        model: None,
        parent_session_id: None,
        tool: None,
        permission_mode: None,
        end_reason: None,
    }
}

/// The outcome's stdout, asserted to be exactly one newline-terminated JSON line.
#[track_caller]
pub fn json_line(outcome: &HookOutcome) -> Value {
    assert!(outcome.stdout.ends_with('\n'), "{:?}", outcome.stdout);
    assert_eq!(
        outcome.stdout.matches('\n').count(),
        1,
        "{:?}",
        outcome.stdout
    );
    serde_json::from_str(&outcome.stdout)
        .unwrap_or_else(|e| panic!("stdout is not JSON ({e}): {:?}", outcome.stdout))
}

/// The event name and text of a Claude-shaped context envelope
/// (`hookSpecificOutput.hookEventName` and `.additionalContext`) on the outcome's stdout.
#[track_caller]
pub fn context_envelope(outcome: &HookOutcome) -> (String, String) {
    let v = json_line(outcome);
    let field = |key: &str| match &v["hookSpecificOutput"][key] {
        Value::String(s) => s.clone(),
        other => panic!("hookSpecificOutput.{key} is {other}"),
    };
    (field("hookEventName"), field("additionalContext"))
}

/// Asserts that `behaviour` prints nothing for empty text at any event, and nothing for
/// text at every event outside `measured` (where no envelope was seen to reach the model).
#[track_caller]
pub fn assert_inject_silent_outside(behaviour: &dyn AdapterBehaviour, measured: &[EventKind]) {
    for kind in EventKind::ALL {
        assert_eq!(
            behaviour.inject_outcome(&event(kind), ""),
            HookOutcome::silent(),
            "empty text at {kind:?}"
        );
        if !measured.contains(&kind) {
            assert_eq!(
                behaviour.inject_outcome(&event(kind), "text"),
                HookOutcome::silent(),
                "{kind:?} is not a measured injection point"
            );
        }
    }
}
