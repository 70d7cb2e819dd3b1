//! Grok's answer shapes, pinned.

use acc_adapter_grok::Behaviour;
use acc_sdk::adapter::{AdapterBehaviour, OwnerLine};
use acc_sdk::event::EventKind;
use acc_sdk::testing::outcomes::{assert_inject_silent_outside, event, json_line};
use serde_json::json;

#[test]
fn deny_is_a_deny_decision_on_stdout() {
    let out = Behaviour.deny_outcome(
        &event(EventKind::BeforeTool),
        "src/a.rs is claimed by codex-x1",
    );
    assert_eq!((out.exit_code, out.stderr.as_str()), (0, ""));
    let v = json_line(&out);
    assert_eq!(
        (v["decision"].as_str(), v["reason"].as_str()),
        (Some("deny"), Some("src/a.rs is claimed by codex-x1"))
    );
    insta::assert_json_snapshot!("deny", out);
}

#[test]
fn inject_is_silent_because_nothing_reaches_grok_s_model() {
    assert_inject_silent_outside(&Behaviour, &[]);
    let turn = Behaviour.inject_outcome(&event(EventKind::BeforeTurn), "ACC: context");
    insta::assert_json_snapshot!("inject_before_turn", turn);
    let empty = Behaviour.inject_outcome(&event(EventKind::BeforeTurn), "");
    insta::assert_json_snapshot!("inject_empty", empty);
}

#[test]
fn no_owner_line_and_no_continuation_are_offered() {
    let owner = OwnerLine {
        session_id: "s".into(),
        generation: "1".into(),
        cwd: "/w".into(),
    };
    assert_eq!(
        Behaviour.inject_tool_owner_outcome(&owner, "run_terminal_command"),
        None
    );
    assert_eq!(
        Behaviour.continue_turn_outcome("x", &json!({"stopHookActive": false})),
        None
    );
}
