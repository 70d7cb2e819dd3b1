//! Kimi Code's answer shapes, pinned.

use acc_adapter_kimi_code::Behaviour;
use acc_sdk::adapter::AdapterBehaviour;
use acc_sdk::event::{EventKind, NormalizedEvent};
use acc_sdk::outcome::HookOutcome;
use serde_json::Value;

fn event(kind: EventKind) -> NormalizedEvent {
    NormalizedEvent {
        kind,
        session_id: "k-1".into(),
        cwd: "/w".into(),
        model: None,
        parent_session_id: None,
        tool: None,
        permission_mode: None,
        end_reason: None,
    }
}

#[test]
fn deny_is_the_claude_shaped_permission_decision() {
    let out = Behaviour.deny_outcome(
        &event(EventKind::BeforeTool),
        "src/a.rs is claimed by codex-x1",
    );
    assert_eq!((out.exit_code, out.stderr.as_str()), (0, ""));
    assert!(out.stdout.ends_with('\n'));
    let v: Value = serde_json::from_str(&out.stdout).unwrap();
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
    for kind in [
        EventKind::Heartbeat,
        EventKind::TurnEnd,
        EventKind::BeforeTool,
    ] {
        assert_eq!(
            Behaviour.inject_outcome(&event(kind), "text"),
            HookOutcome::silent(),
            "{kind:?}"
        );
    }
}
