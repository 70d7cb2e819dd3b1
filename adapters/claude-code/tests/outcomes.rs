//! Claude Code's answer shapes, pinned.

use acc_adapter_claude_code::Behaviour;
use acc_sdk::adapter::AdapterBehaviour;
use acc_sdk::event::{EventKind, NormalizedEvent};
use acc_sdk::outcome::HookOutcome;
use serde_json::Value;

fn event(kind: EventKind) -> NormalizedEvent {
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

fn json_line(outcome: &HookOutcome) -> Value {
    assert!(outcome.stdout.ends_with('\n'), "{:?}", outcome.stdout);
    assert_eq!(outcome.stdout.matches('\n').count(), 1);
    serde_json::from_str(&outcome.stdout).unwrap()
}

#[test]
fn deny_is_a_permission_decision_on_stdout() {
    let out = Behaviour.deny_outcome(
        &event(EventKind::BeforeTool),
        "src/a.rs is claimed by codex-x1",
    );
    assert_eq!((out.exit_code, out.stderr.as_str()), (0, ""));
    let v = json_line(&out);
    assert_eq!(v["hookSpecificOutput"]["permissionDecision"], "deny");
    insta::assert_json_snapshot!("deny", out);
}

#[test]
fn inject_uses_the_clients_own_event_name() {
    let turn = Behaviour.inject_outcome(
        &event(EventKind::BeforeTurn),
        "ACC: 1 peer\n```acc-peer-message\nx\n```",
    );
    assert_eq!(
        json_line(&turn)["hookSpecificOutput"]["hookEventName"],
        "UserPromptSubmit"
    );
    insta::assert_json_snapshot!("inject_before_turn", turn);
    let start = Behaviour.inject_outcome(
        &event(EventKind::SessionStart),
        "ACC: 2 peer participant(s) present.",
    );
    assert_eq!(
        json_line(&start)["hookSpecificOutput"]["hookEventName"],
        "SessionStart"
    );
    insta::assert_json_snapshot!("inject_session_start", start);
}

#[test]
fn empty_or_unmeasured_inject_is_silent() {
    let empty = Behaviour.inject_outcome(&event(EventKind::BeforeTurn), "");
    assert_eq!(empty, HookOutcome::silent());
    insta::assert_json_snapshot!("inject_empty", empty);
    for kind in [
        EventKind::TurnEnd,
        EventKind::AfterTool,
        EventKind::SessionEnd,
    ] {
        assert_eq!(
            Behaviour.inject_outcome(&event(kind), "text"),
            HookOutcome::silent(),
            "{kind:?}"
        );
    }
}
