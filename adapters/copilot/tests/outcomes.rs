//! Copilot CLI's answer shapes, pinned.

use acc_adapter_copilot::Behaviour;
use acc_sdk::adapter::AdapterBehaviour;
use acc_sdk::event::EventKind;
use acc_sdk::testing::outcomes::{assert_inject_silent_outside, event, json_line};
use serde_json::json;

#[test]
fn deny_is_a_camel_case_deny_decision_on_stdout() {
    let out = Behaviour.deny_outcome(
        &event(EventKind::BeforeTool),
        "src/a.rs is claimed by codex-x1",
    );
    assert_eq!((out.exit_code, out.stderr.as_str()), (0, ""));
    let v = json_line(&out);
    assert_eq!(
        v,
        json!({"permissionDecision": "deny", "permissionDecisionReason": "src/a.rs is claimed by codex-x1"})
    );
    insta::assert_json_snapshot!("deny", out);
}

#[test]
fn context_goes_out_only_where_it_reached_the_model() {
    assert_inject_silent_outside(
        &Behaviour,
        &[
            EventKind::SessionStart,
            EventKind::BeforeTurn,
            EventKind::AfterTool,
        ],
    );
    for kind in [
        EventKind::SessionStart,
        EventKind::BeforeTurn,
        EventKind::AfterTool,
    ] {
        let out = Behaviour.inject_outcome(&event(kind), "ACC: context");
        assert_eq!(
            json_line(&out),
            json!({"additionalContext": "ACC: context"})
        );
    }
    let turn = Behaviour.inject_outcome(&event(EventKind::BeforeTurn), "ACC: context");
    insta::assert_json_snapshot!("inject_before_turn", turn);
    let empty = Behaviour.inject_outcome(&event(EventKind::BeforeTurn), "");
    assert_eq!(empty.stdout, "");
}

#[test]
fn agent_stop_holds_the_turn_open_once() {
    let first = Behaviour
        .continue_turn_outcome("peer text", &json!({"stop_hook_active": false}))
        .unwrap();
    let answer: serde_json::Value = serde_json::from_str(&first.stdout).unwrap();
    assert_eq!(answer, json!({"decision": "block", "reason": "peer text"}));
    assert_eq!(
        Behaviour.continue_turn_outcome("peer text", &json!({"stop_hook_active": true})),
        None
    );
    assert_eq!(Behaviour.continue_turn_outcome("x", &json!({})), None);
}
