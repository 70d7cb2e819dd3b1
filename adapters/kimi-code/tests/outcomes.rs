//! Kimi Code's answer shapes, pinned.

use acc_adapter_kimi_code::Behaviour;
use acc_sdk::adapter::AdapterBehaviour;
use acc_sdk::event::EventKind;
use acc_sdk::outcome::HookOutcome;
use acc_sdk::testing::outcomes::{assert_inject_silent_outside, event, json_line};

#[test]
fn deny_is_the_claude_shaped_permission_decision() {
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
fn inject_is_plain_stdout() {
    let text = "ACC (load the acc skill):\n- read m1";
    let turn = Behaviour.inject_outcome(&event(EventKind::BeforeTurn), text);
    assert_eq!(turn, HookOutcome::stdout(text));
    insta::assert_json_snapshot!("inject_before_turn", turn);
}

#[test]
fn empty_or_unmeasured_inject_is_silent() {
    let empty = Behaviour.inject_outcome(&event(EventKind::BeforeTurn), "");
    assert_eq!(empty, HookOutcome::silent());
    insta::assert_json_snapshot!("inject_empty", empty);
    assert_inject_silent_outside(
        &Behaviour,
        &[EventKind::SessionStart, EventKind::BeforeTurn],
    );
}
