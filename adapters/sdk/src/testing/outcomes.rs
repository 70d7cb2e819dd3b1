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

/// Asserts the answers of an adapter built on [`crate::claude_hooks`]: a refusal is a
/// `permissionDecision: "deny"` on stdout with exit 0, context is `additionalContext` under
/// the client's own event name on `SessionStart`, `UserPromptSubmit` and `PostToolUse`,
/// and nothing is printed for empty text or anywhere else. Returns each answer by snapshot
/// name, for the adapter's tests to pin with insta (a snapshot belongs to its crate).
pub fn claude_shaped_answers(behaviour: &dyn AdapterBehaviour) -> Vec<(&'static str, HookOutcome)> {
    let deny = behaviour.deny_outcome(
        &event(EventKind::BeforeTool),
        "src/a.rs is claimed by codex-x1",
    );
    assert_eq!((deny.exit_code, deny.stderr.as_str()), (0, ""));
    assert_eq!(
        json_line(&deny)["hookSpecificOutput"]["permissionDecision"],
        "deny"
    );
    let mut answers = vec![("deny", deny)];
    for (kind, text, name, snapshot) in [
        (
            EventKind::BeforeTurn,
            "ACC: 1 peer\n```acc-peer-message\nx\n```",
            "UserPromptSubmit",
            "inject_before_turn",
        ),
        (
            EventKind::SessionStart,
            "ACC: 2 peer participant(s) present.",
            "SessionStart",
            "inject_session_start",
        ),
        (
            EventKind::AfterTool,
            "```acc-peer-message\nx\n```",
            "PostToolUse",
            "inject_after_tool",
        ),
    ] {
        let out = behaviour.inject_outcome(&event(kind), text);
        assert_eq!(
            context_envelope(&out),
            (name.into(), text.into()),
            "{kind:?}"
        );
        answers.push((snapshot, out));
    }
    let empty = behaviour.inject_outcome(&event(EventKind::BeforeTurn), "");
    assert_eq!(empty, HookOutcome::silent());
    assert_inject_silent_outside(
        behaviour,
        &[
            EventKind::SessionStart,
            EventKind::BeforeTurn,
            EventKind::AfterTool,
        ],
    );
    answers.push(("inject_empty", empty));
    answers
}
