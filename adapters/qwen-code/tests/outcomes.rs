//! Qwen Code's answer shapes, pinned.

use acc_adapter_qwen_code::Behaviour;
use acc_sdk::adapter::AdapterBehaviour;
use acc_sdk::event::EventKind;
use acc_sdk::outcome::HookOutcome;
use acc_sdk::testing::outcomes::{
    assert_inject_silent_outside, context_envelope, event, json_line,
};

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
        let out = Behaviour.inject_outcome(&event(kind), text);
        assert_eq!(
            context_envelope(&out),
            (name.into(), text.into()),
            "{kind:?}"
        );
        insta::assert_json_snapshot!(snapshot, out);
    }
}

#[test]
fn empty_or_unmeasured_inject_is_silent() {
    let empty = Behaviour.inject_outcome(&event(EventKind::BeforeTurn), "");
    assert_eq!(empty, HookOutcome::silent());
    assert_inject_silent_outside(
        &Behaviour,
        &[
            EventKind::SessionStart,
            EventKind::BeforeTurn,
            EventKind::AfterTool,
        ],
    );
}
