//! Kimi Code's normaliser on constructed payloads: every event, refusals, the whitelist and
//! the tool families. The real 2.1.0 payloads are in `real_payloads.rs`.

use acc_adapter_kimi_code::Behaviour;
use acc_sdk::adapter::AdapterBehaviour;
use acc_sdk::event::{EventKind, NormalizeError, NormalizedEvent, Targets, ToolClass};
use acc_sdk::testing::payloads::{assert_marks_dropped, with};
use acc_sdk::testing::refusals::{
    Refusal, SNAKE_CASE_ENVELOPE, assert_non_objects_are_foreign, assert_refused, envelope_refusals,
};
use serde_json::{Value, json};

fn normalize(payload: &Value) -> Result<NormalizedEvent, NormalizeError> {
    Behaviour.normalize_hook(payload, &[])
}

fn base(event: &str) -> Value {
    json!({"session_id": "k-1", "cwd": "/w", "hook_event_name": event})
}

#[test]
fn each_event_maps_to_its_kind() {
    let table = [
        ("SessionStart", EventKind::SessionStart),
        ("SessionHeartbeat", EventKind::Heartbeat),
        ("UserPromptSubmit", EventKind::BeforeTurn),
        ("Stop", EventKind::TurnEnd),
        ("StopFailure", EventKind::TurnEnd),
        ("SubagentStart", EventKind::ChildStart),
        ("SubagentStop", EventKind::ChildEnd),
        ("TurnStarted", EventKind::Other),
        ("Notification", EventKind::Other),
        ("Interrupt", EventKind::Other),
        ("PermissionRequest", EventKind::Other),
        ("PermissionResult", EventKind::Other),
        ("SessionEnd", EventKind::SessionEnd),
    ];
    for (name, kind) in table {
        let e = normalize(&base(name)).unwrap();
        assert_eq!(
            (e.kind, e.session_id.as_str(), e.cwd.as_str()),
            (kind, "k-1", "/w"),
            "{name}"
        );
    }
    let tool = |name: &str| {
        with(
            with(base(name), "tool_name", json!("Read")),
            "tool_input",
            json!({}),
        )
    };
    for (name, kind) in [
        ("PreToolUse", EventKind::BeforeTool),
        ("PostToolUse", EventKind::AfterTool),
        ("PostToolUseFailure", EventKind::AfterTool),
    ] {
        assert_eq!(normalize(&tool(name)).unwrap().kind, kind, "{name}");
    }
}

#[test]
fn model_is_read_on_session_start_only() {
    let start = normalize(&with(base("SessionStart"), "model", json!("kimi-k3"))).unwrap();
    assert_eq!(start.model.as_deref(), Some("kimi-k3"));
    let turn = normalize(&with(base("UserPromptSubmit"), "model", json!("kimi-k3"))).unwrap();
    assert_eq!(turn.model, None);
}

#[test]
fn unrecognised_payloads_are_refused_never_invented() {
    let mut cases = envelope_refusals(base, SNAKE_CASE_ENVELOPE, "Stop", &["Teleport"]);
    cases.extend([
        Refusal::new(
            "gemini's BeforeTool",
            base("BeforeTool"),
            NormalizeError::UnknownEvent("BeforeTool".into()),
        ),
        Refusal::new(
            "antigravity's envelope",
            json!({"conversationId": "c", "workspacePaths": ["/w"]}),
            NormalizeError::UnknownEvent(String::new()),
        ),
    ]);
    assert_refused(&Behaviour, cases);
    assert_non_objects_are_foreign(&Behaviour, &[], &base("Stop"));
}

#[test]
fn the_whitelist_drops_every_field_it_does_not_name() {
    let payload = json!({
        "session_id": "k-1", "cwd": "/w", "hook_event_name": "PostToolUse",
        "transcript_path": "/h/.kimi-code/TRANSCRIPT-MARK.jsonl",
        "prompt": "PROMPT-MARK",
        "tool_name": "Write",
        "tool_input": {"path": "/w/a.txt", "content": "CONTENT-MARK"},
        "tool_response": "RESPONSE-MARK"
    });
    let event = normalize(&payload).unwrap();
    assert_marks_dropped(&payload, &event);
    assert_eq!(
        event.tool.unwrap().targets,
        Targets::Paths(vec!["/w/a.txt".into()])
    );
}

#[test]
fn tools_are_classed_by_family_with_their_targets() {
    let call = |name: &str, input: Value| {
        let p = with(
            with(base("PreToolUse"), "tool_name", json!(name)),
            "tool_input",
            input,
        );
        let t = normalize(&p).unwrap().tool.unwrap();
        (t.class, t.targets)
    };
    assert_eq!(
        call("Edit", json!({"path": "a.rs"})),
        (ToolClass::Write, Targets::Paths(vec!["a.rs".into()]))
    );
    assert_eq!(
        call("Write", json!({"file_path": "b.rs"})),
        (ToolClass::Write, Targets::Paths(vec!["b.rs".into()]))
    );
    assert!(matches!(
        call("Write", json!({})),
        (ToolClass::Write, Targets::Unreadable { .. })
    ));
    assert_eq!(
        call("Bash", json!({"command": "truncate -s 0 log.txt"})),
        (ToolClass::Shell, Targets::Paths(vec!["log.txt".into()]))
    );
    assert_eq!(
        call("Grep", json!({"path": "x"})),
        (ToolClass::Other, Targets::None)
    );
    let write = Behaviour.guard_write().unwrap();
    let shell = Behaviour.guard_shell().unwrap();
    assert_eq!(
        write.targets("Edit", &json!({"path": "p"})),
        Some(Targets::Paths(vec!["p".into()]))
    );
    assert_eq!(shell.targets("Edit", &json!({"path": "p"})), None);
    assert_eq!(
        shell.targets("Bash", &json!({"command": "rm -f p"})),
        Some(Targets::Paths(vec!["p/**".into()]))
    );
}
