//! Antigravity's answer shapes, pinned, including the `Stop` continuation.

use acc_adapter_antigravity::Behaviour;
use acc_sdk::adapter::AdapterBehaviour;
use acc_sdk::event::EventKind;
use acc_sdk::outcome::HookOutcome;
use acc_sdk::testing::outcomes::{assert_inject_silent_outside, event, json_line};
use serde_json::json;

#[test]
fn deny_is_unreachable_so_it_only_notes_it_and_allows() {
    let out = Behaviour.deny_outcome(
        &event(EventKind::BeforeTool),
        "src/a.rs is claimed by codex-x1",
    );
    assert_eq!((out.exit_code, out.stdout.as_str()), (0, ""));
    assert!(out.stderr.contains("src/a.rs is claimed by codex-x1"));
    insta::assert_json_snapshot!("deny", out);
}

#[test]
fn inject_is_one_ephemeral_step_before_the_invocation() {
    let out = Behaviour.inject_outcome(
        &event(EventKind::BeforeTurn),
        "ACC (load the acc skill):\n- read m1",
    );
    assert_eq!(
        json_line(&out)["injectSteps"][0]["ephemeralMessage"],
        "ACC (load the acc skill):\n- read m1"
    );
    insta::assert_json_snapshot!("inject_before_turn", out);
}

#[test]
fn empty_or_unmeasured_inject_is_silent() {
    let empty = Behaviour.inject_outcome(&event(EventKind::BeforeTurn), "");
    assert_eq!(empty, HookOutcome::silent());
    insta::assert_json_snapshot!("inject_empty", empty);
    assert_inject_silent_outside(&Behaviour, &[EventKind::BeforeTurn]);
}

#[test]
fn stop_continues_once_per_turn() {
    let context = "ACC (load the acc skill):\n```acc-peer-message\nfrom: codex-x1\n```";
    let first = Behaviour
        .continue_turn_outcome(context, &json!({"conversationId": "c", "executionNum": 0}))
        .expect("the first Stop of a turn continues");
    let v = json_line(&first);
    assert_eq!(
        (v["decision"].as_str(), v["reason"].as_str()),
        (Some("continue"), Some(context))
    );
    insta::assert_json_snapshot!("continue_execution_0", first);
    let second = Behaviour
        .continue_turn_outcome(context, &json!({"conversationId": "c", "executionNum": 1}));
    assert_eq!(second, None);
    insta::assert_json_snapshot!("continue_execution_1", second);
}

#[test]
fn without_a_readable_counter_or_a_context_the_turn_ends() {
    for payload in [
        json!({}),
        json!({"executionNum": "0"}),
        json!({"executionNum": -1}),
        json!({"executionNum": 0.5}),
        json!(null),
    ] {
        assert_eq!(
            Behaviour.continue_turn_outcome("x", &payload),
            None,
            "{payload}"
        );
    }
    assert_eq!(
        Behaviour.continue_turn_outcome("", &json!({"executionNum": 0})),
        None
    );
}
