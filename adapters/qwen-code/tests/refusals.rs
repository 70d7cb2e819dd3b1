//! What Qwen Code's normaliser refuses, what it never lets through, and how it reads tools.

use acc_adapter_qwen_code::Behaviour;
use acc_sdk::adapter::AdapterBehaviour;
use acc_sdk::event::{EventKind, NormalizeError, NormalizedEvent, Targets, ToolClass};
use acc_sdk::testing::payloads::{assert_marks_dropped, with};
use acc_sdk::testing::refusals::{
    SNAKE_CASE_ENVELOPE, assert_non_objects_are_foreign, assert_refused, envelope_refusals,
};
use serde_json::{Value, json};

fn normalize(payload: &Value) -> Result<NormalizedEvent, NormalizeError> {
    Behaviour.normalize_hook(payload, &[])
}

fn base(event: &str) -> Value {
    json!({"session_id": "s-1", "cwd": "/w", "hook_event_name": event,
        "transcript_path": "/h/.qwen/projects/w/chats/s-1.jsonl", "timestamp": "2026-12-06T09:41:00.000Z"})
}

fn tool_event(event: &str, tool: &str, input: Value) -> Value {
    with(
        with(base(event), "tool_name", json!(tool)),
        "tool_input",
        input,
    )
}

#[test]
fn unrecognised_payloads_are_refused_never_invented() {
    assert_refused(
        &Behaviour,
        envelope_refusals(base, SNAKE_CASE_ENVELOPE, "Stop", &["BeforeTool", "stop"]),
    );
}

#[test]
fn non_objects_and_garbage_are_foreign() {
    assert_non_objects_are_foreign(&Behaviour, &[], &base("Stop"));
}

#[test]
fn other_clients_payloads_are_refused() {
    let gemini = tool_event("BeforeTool", "write_file", json!({"file_path": "/w/a"}));
    assert_eq!(
        normalize(&gemini).unwrap_err(),
        NormalizeError::UnknownEvent("BeforeTool".into())
    );
    let antigravity = json!({"conversationId": "c", "workspacePaths": ["/w"], "executionNum": 0});
    assert_eq!(
        normalize(&antigravity).unwrap_err(),
        NormalizeError::UnknownEvent(String::new())
    );
    // Claude Code's payload shape is the same; its tool names are not Qwen Code's, so its
    // Write is no guarded tool here and nothing is read from it as a target.
    let claude = tool_event("PreToolUse", "Write", json!({"file_path": "/w/a"}));
    let read = normalize(&claude).unwrap().tool.unwrap();
    assert_eq!(
        (read.class, read.targets),
        (ToolClass::Other, Targets::None)
    );
}

#[test]
fn a_tool_event_without_a_tool_is_refused() {
    assert!(matches!(
        normalize(&base("PreToolUse")),
        Err(NormalizeError::InvalidField {
            field: "tool_name",
            ..
        })
    ));
}

#[test]
fn the_whitelist_drops_every_field_it_does_not_name() {
    let payload = json!({
        "session_id": "s-1", "cwd": "/w", "hook_event_name": "PostToolUse",
        "transcript_path": "/secret/TRANSCRIPT-MARK.jsonl",
        "permission_mode": "yolo",
        "tool_name": "write_file",
        "tool_input": {"file_path": "/w/a.txt", "content": "CONTENT-MARK body"},
        "tool_response": {"llmContent": "RESPONSE-MARK", "returnDisplay": "DISPLAY-MARK"},
        "tool_use_id": "call-1",
        "unknown_future_field": "FUTURE-MARK"
    });
    let event = normalize(&payload).unwrap();
    assert_marks_dropped(&payload, &event);
    assert_eq!(event.permission_mode.as_deref(), Some("yolo"));
    assert_eq!(
        event.tool.unwrap().targets,
        Targets::Paths(vec!["/w/a.txt".into()])
    );
}

#[test]
fn tools_are_classed_by_family_with_their_targets() {
    let call = |name: &str, input: Value| {
        normalize(&tool_event("PreToolUse", name, input))
            .unwrap()
            .tool
            .unwrap()
    };
    let t = call(
        "edit",
        json!({"file_path": "src/a.rs", "old_string": "x", "new_string": "y"}),
    );
    assert_eq!(
        (t.class, t.targets),
        (ToolClass::Write, Targets::Paths(vec!["src/a.rs".into()]))
    );
    let t = call(
        "notebook_edit",
        json!({"notebook_path": "/w/n.ipynb", "new_source": "x"}),
    );
    assert_eq!(
        (t.class, t.targets),
        (ToolClass::Write, Targets::Paths(vec!["/w/n.ipynb".into()]))
    );
    let t = call("write_file", json!({"content": "no path"}));
    assert!(matches!(
        (t.class, t.targets),
        (ToolClass::Write, Targets::Unreadable { .. })
    ));
    let t = call(
        "run_shell_command",
        json!({"command": "sed -i.bak s/a/b/ x.txt && echo ok 2> err.log", "is_background": false}),
    );
    assert_eq!(
        (t.class, t.targets),
        (
            ToolClass::Shell,
            Targets::Paths(vec!["x.txt".into(), "err.log".into()])
        )
    );
    let t = call("run_shell_command", json!({"command": "git status"}));
    assert_eq!((t.class, t.targets), (ToolClass::Shell, Targets::None));
    let t = call("read_file", json!({"file_path": "/w/a"}));
    assert_eq!((t.class, t.targets), (ToolClass::Other, Targets::None));
}

#[test]
fn the_guards_read_what_normalisation_reads() {
    let write = Behaviour.guard_write().unwrap();
    let shell = Behaviour.guard_shell().unwrap();
    let input = json!({"file_path": "/w/a"});
    assert_eq!(
        write.targets("edit", &input),
        Some(Targets::Paths(vec!["/w/a".into()]))
    );
    assert_eq!(write.targets("run_shell_command", &input), None);
    assert_eq!(
        shell.targets("run_shell_command", &json!({"command": "tee -a log"})),
        Some(Targets::Paths(vec!["log".into()]))
    );
    assert_eq!(shell.targets("write_file", &input), None);
}

#[test]
fn session_end_keeps_the_reason_subagents_name_their_parent_and_idle_is_a_heartbeat() {
    let end = normalize(&with(
        base("SessionEnd"),
        "reason",
        json!("prompt_input_exit"),
    ))
    .unwrap();
    assert_eq!(
        (end.kind, end.end_reason.as_deref()),
        (EventKind::SessionEnd, Some("prompt_input_exit"))
    );
    let child = normalize(&with(
        with(base("SubagentStart"), "agent_id", json!("agent-9")),
        "agent_type",
        json!("general-purpose"),
    ))
    .unwrap();
    assert_eq!(
        (
            child.kind,
            child.session_id.as_str(),
            child.parent_session_id.as_deref()
        ),
        (EventKind::ChildStart, "s-1/subagent/agent-9", Some("s-1"))
    );
    let write = tool_event(
        "PreToolUse",
        "write_file",
        json!({"file_path": "/w/src/a.rs", "content": "x"}),
    );
    let inside = normalize(&with(write, "agent_id", json!("agent-9"))).unwrap();
    assert_eq!(
        inside.parent_session_id.as_deref(),
        Some("s-1"),
        "a subagent's call is the child's, never the parent conversation's own"
    );
    assert!(normalize(&with(base("SubagentStop"), "agent_id", json!("a\nb"))).is_err());
    let idle = normalize(&with(
        base("Notification"),
        "notification_type",
        json!("idle_prompt"),
    ))
    .unwrap();
    assert_eq!(idle.kind, EventKind::Heartbeat);
}
