//! Codex's answer shapes, pinned.

use acc_adapter_codex::Behaviour;
use acc_sdk::adapter::AdapterBehaviour;
use acc_sdk::event::EventKind;
use acc_sdk::outcome::HookOutcome;
use acc_sdk::testing::outcomes::{assert_inject_silent_outside, context_envelope, event};

#[test]
fn deny_is_exit_2_with_the_reason_on_stderr_only() {
    let out = Behaviour.deny_outcome(
        &event(EventKind::BeforeTool),
        "src/a.rs is claimed by claude-code-x1",
    );
    assert_eq!(out.exit_code, 2);
    assert_eq!(out.stdout, "");
    assert_eq!(out.stderr, "src/a.rs is claimed by claude-code-x1");
    insta::assert_json_snapshot!("deny", out);
}

#[test]
fn inject_is_plain_stdout() {
    let text = "ACC (load the acc skill):\n```acc-peer-message\nx\n```";
    let turn = Behaviour.inject_outcome(&event(EventKind::BeforeTurn), text);
    assert_eq!(turn, HookOutcome::stdout(text));
    insta::assert_json_snapshot!("inject_before_turn", turn);
    let text = "ACC: 1 peer participant(s) present.";
    let start = Behaviour.inject_outcome(&event(EventKind::SessionStart), text);
    assert_eq!(start, HookOutcome::stdout(text));
    insta::assert_json_snapshot!("inject_session_start", start);
}

#[test]
fn inject_after_a_tool_is_the_additional_context_envelope() {
    let text = "```acc-peer-message\nx\n```";
    let out = Behaviour.inject_outcome(&event(EventKind::AfterTool), text);
    assert_eq!(context_envelope(&out), ("PostToolUse".into(), text.into()));
    insta::assert_json_snapshot!("inject_after_tool", out);
}

#[test]
fn empty_or_unmeasured_inject_is_silent() {
    let empty = Behaviour.inject_outcome(&event(EventKind::BeforeTurn), "");
    assert_eq!(empty, HookOutcome::silent());
    insta::assert_json_snapshot!("inject_empty", empty);
    assert_inject_silent_outside(
        &Behaviour,
        &[
            EventKind::SessionStart,
            EventKind::BeforeTurn,
            EventKind::AfterTool,
        ],
    );
}
