//! Grok's answer shapes, pinned.

use acc_adapter_grok::Behaviour;
use acc_sdk::adapter::{AdapterBehaviour, OwnerLine};
use acc_sdk::event::{EventKind, NormalizedEvent};
use acc_sdk::outcome::HookOutcome;
use serde_json::{Value, json};

fn event(kind: EventKind) -> NormalizedEvent {
    NormalizedEvent {
        kind,
        session_id: "g-1".into(),
        cwd: "/w".into(),
        model: None,
        parent_session_id: None,
        tool: None,
        permission_mode: None,
        end_reason: None,
    }
}

#[test]
fn deny_is_a_deny_decision_on_stdout() {
    let out = Behaviour.deny_outcome(
        &event(EventKind::BeforeTool),
        "src/a.rs is claimed by codex-x1",
    );
    assert_eq!((out.exit_code, out.stderr.as_str()), (0, ""));
    assert!(out.stdout.ends_with('\n'));
    let v: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(
        (v["decision"].as_str(), v["reason"].as_str()),
        (Some("deny"), Some("src/a.rs is claimed by codex-x1"))
    );
    insta::assert_json_snapshot!("deny", out);
}

#[test]
fn inject_is_silent_because_nothing_reaches_grok_s_model() {
    for kind in [
        EventKind::SessionStart,
        EventKind::BeforeTurn,
        EventKind::BeforeTool,
        EventKind::AfterTool,
    ] {
        assert_eq!(
            Behaviour.inject_outcome(&event(kind), "ACC: context"),
            HookOutcome::silent(),
            "{kind:?}"
        );
    }
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
