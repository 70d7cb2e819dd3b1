//! Gemini CLI's answer shapes, pinned.

use acc_adapter_gemini_cli::Behaviour;
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
fn deny_is_a_block_decision_on_stdout() {
    let out = Behaviour.deny_outcome(
        &event(EventKind::BeforeTool),
        "src/a.rs is claimed by codex-x1",
    );
    assert_eq!((out.exit_code, out.stderr.as_str()), (0, ""));
    assert_eq!(json_line(&out)["decision"], "block");
    insta::assert_json_snapshot!("deny", out);
}

#[test]
fn inject_uses_the_additional_context_envelope() {
    let turn = Behaviour.inject_outcome(
        &event(EventKind::BeforeTurn),
        "ACC (load the acc skill):\n- read m1",
    );
    assert_eq!(
        json_line(&turn)["hookSpecificOutput"]["hookEventName"],
        "BeforeAgent"
    );
    insta::assert_json_snapshot!("inject_before_turn", turn);
    let start = Behaviour.inject_outcome(
        &event(EventKind::SessionStart),
        "ACC: 1 peer participant(s) present.",
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
    for kind in [EventKind::TurnEnd, EventKind::AfterTool, EventKind::Other] {
        assert_eq!(
            Behaviour.inject_outcome(&event(kind), "text"),
            HookOutcome::silent(),
            "{kind:?}"
        );
    }
}
