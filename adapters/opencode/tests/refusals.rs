//! What OpenCode's normaliser refuses, what it never lets through, and how it reads tools.

use acc_adapter_opencode::Behaviour;
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

/// What acc's plugin sends for `event`.
fn base(event: &str) -> Value {
    json!({"hook_event_name": event, "session_id": "ses_1", "cwd": "/w"})
}

fn call(name: &str, input: Value) -> (ToolClass, Targets) {
    let p = with(
        with(base("ToolExecuteBefore"), "tool_name", json!(name)),
        "tool_input",
        input,
    );
    let t = normalize(&p).unwrap().tool.unwrap();
    (t.class, t.targets)
}

#[test]
fn unrecognised_payloads_are_refused_never_invented() {
    assert_refused(
        &Behaviour,
        envelope_refusals(
            base,
            SNAKE_CASE_ENVELOPE,
            "SessionIdle",
            &["tool.execute.before", "session.created"],
        ),
    );
}

#[test]
fn non_objects_and_garbage_are_foreign() {
    assert_non_objects_are_foreign(&Behaviour, &[], &base("ChatMessage"));
}

#[test]
fn other_clients_payloads_are_refused() {
    assert_refused(
        &Behaviour,
        [
            Refusal::new(
                "claude's PreToolUse",
                json!({"session_id": "c", "cwd": "/w", "hook_event_name": "PreToolUse",
                    "tool_name": "Write", "tool_input": {"file_path": "/w/a"}}),
                NormalizeError::UnknownEvent("PreToolUse".into()),
            ),
            Refusal::new(
                "gemini's BeforeTool",
                json!({"session_id": "g", "cwd": "/w", "hook_event_name": "BeforeTool",
                    "tool_name": "write_file", "tool_input": {"file_path": "/w/a"}}),
                NormalizeError::UnknownEvent("BeforeTool".into()),
            ),
        ],
    );
}

#[test]
fn the_whitelist_drops_every_field_it_does_not_name() {
    let payload = json!({
        "hook_event_name": "ToolExecuteAfter", "session_id": "ses_1", "cwd": "/w",
        "prompt": "PROMPT-MARK",
        "parts": [{"type": "text", "text": "PARTS-MARK"}],
        "tool_name": "write",
        "tool_input": {"filePath": "/w/a.txt", "content": "CONTENT-MARK"},
        "output": "OUTPUT-MARK",
        "call_id": "call_1",
    });
    let event = normalize(&payload).unwrap();
    assert_marks_dropped(&payload, &event);
}

#[test]
fn each_event_means_what_the_plugin_sends_it_for() {
    for (name, kind) in [
        ("SessionStart", EventKind::SessionStart),
        ("ChatMessage", EventKind::BeforeTurn),
        ("SessionIdle", EventKind::TurnEnd),
        ("Heartbeat", EventKind::Heartbeat),
        ("SessionEnd", EventKind::SessionEnd),
    ] {
        assert_eq!(normalize(&base(name)).unwrap().kind, kind, "{name}");
    }
    let end = normalize(&with(base("SessionEnd"), "reason", json!("exit"))).unwrap();
    assert_eq!(end.end_reason.as_deref(), Some("exit"));
    let child = normalize(&with(
        base("SessionStart"),
        "parent_session_id",
        json!("ses_0"),
    ));
    assert_eq!(child.unwrap().parent_session_id.as_deref(), Some("ses_0"));
    let turn = normalize(&with(base("ChatMessage"), "model", json!("acc-double/m"))).unwrap();
    assert_eq!(turn.model.as_deref(), Some("acc-double/m"));
}

#[test]
fn file_tools_and_patches_are_writes_with_their_targets() {
    assert_eq!(
        call("write", json!({"filePath": "/w/a.rs", "content": "x"})),
        (ToolClass::Write, Targets::Paths(vec!["/w/a.rs".into()]))
    );
    assert_eq!(
        call(
            "edit",
            json!({"filePath": "src/b.rs", "oldString": "a", "newString": "b"})
        ),
        (ToolClass::Write, Targets::Paths(vec!["src/b.rs".into()]))
    );
    let patch = "*** Begin Patch\n*** Add File: src/new.rs\n+x\n*** Update File: docs/a.md\n*** Move to: src/moved.md\n@@\n-a\n+b\n*** End Patch\n";
    let (class, targets) = call("apply_patch", json!({"patchText": patch}));
    assert_eq!(class, ToolClass::Write);
    let Targets::Paths(mut paths) = targets else {
        panic!("{targets:?}")
    };
    paths.sort();
    assert_eq!(paths, ["docs/a.md", "src/moved.md", "src/new.rs"]);
    // A write that names no file cannot be judged, so it is not let through as one.
    assert!(!matches!(
        call("write", json!({"content": "x"})),
        (ToolClass::Write, Targets::Paths(_))
    ));
    assert_eq!(
        call("read", json!({"filePath": "/w/a"})),
        (ToolClass::Other, Targets::None)
    );
}

#[test]
fn a_bash_call_is_read_in_its_workdir() {
    assert_eq!(
        call("bash", json!({"command": "echo x > f", "description": "x"})),
        (ToolClass::Shell, Targets::Paths(vec!["f".into()]))
    );
    // The reader follows a `cd` only into a directory that exists, as OpenCode's shell would.
    let ws = tempfile::tempdir().unwrap();
    let quoted_dir = ws.path().join("it's here");
    std::fs::create_dir_all(ws.path().join("src")).unwrap();
    std::fs::create_dir_all(&quoted_dir).unwrap();
    let root = ws.path().display().to_string();
    let in_ws = |input: Value| {
        let p = json!({"hook_event_name": "ToolExecuteBefore", "session_id": "ses_1",
            "cwd": root, "tool_name": "bash", "tool_input": input});
        let t = normalize(&p).unwrap().tool.unwrap();
        (t.class, t.targets)
    };
    let absolute = ws.path().join("src").display().to_string();
    assert_eq!(
        in_ws(json!({"command": "echo x > f", "workdir": absolute})),
        (
            ToolClass::Shell,
            Targets::Paths(vec![format!("{absolute}/f")])
        )
    );
    assert_eq!(
        in_ws(json!({"command": "echo x > f", "workdir": "src"})),
        (ToolClass::Shell, Targets::Paths(vec!["src/f".into()]))
    );
    let quoted = quoted_dir.display().to_string();
    assert_eq!(
        in_ws(json!({"command": "echo x > f", "workdir": quoted})),
        (
            ToolClass::Shell,
            Targets::Paths(vec![format!("{quoted}/f")])
        )
    );
    // A workdir that is missing, or not a string, leaves the call unreadable, never read
    // as if it ran in the session's directory.
    assert!(matches!(
        in_ws(json!({"command": "echo x > f", "workdir": "nowhere"})),
        (ToolClass::Shell, Targets::Unreadable { .. })
    ));
    assert!(matches!(
        call("bash", json!({"command": "touch f", "workdir": 7})),
        (ToolClass::Shell, Targets::Unreadable { .. })
    ));
    assert!(matches!(
        call("bash", json!({"command": "'"})),
        (ToolClass::Shell, Targets::Unreadable { .. })
    ));
}

#[test]
fn a_tool_event_must_name_its_tool() {
    assert!(matches!(
        normalize(&base("ToolExecuteBefore")),
        Err(NormalizeError::InvalidField {
            field: "tool_name",
            ..
        })
    ));
}

#[test]
fn the_guards_read_what_normalisation_reads() {
    let write = Behaviour.guard_write().unwrap();
    let shell = Behaviour.guard_shell().unwrap();
    assert_eq!(
        write.targets("write", &json!({"filePath": "x"})),
        Some(Targets::Paths(vec!["x".into()]))
    );
    assert_eq!(write.targets("bash", &json!({"command": "touch x"})), None);
    assert_eq!(
        shell.targets("bash", &json!({"command": "touch x"})),
        Some(Targets::Paths(vec!["x".into()]))
    );
    assert_eq!(shell.targets("write", &json!({"filePath": "x"})), None);
}
