//! What Grok's normaliser refuses, what it never lets through, and how it reads tools.

use acc_adapter_grok::Behaviour;
use acc_sdk::adapter::AdapterBehaviour;
use acc_sdk::event::{EventKind, NormalizeError, NormalizedEvent, Targets, ToolClass};
use acc_sdk::testing::payloads::{assert_marks_dropped, with};
use acc_sdk::testing::refusals::{
    EnvelopeKeys, Refusal, assert_non_objects_are_foreign, assert_refused, envelope_refusals,
};
use serde_json::{Value, json};

fn normalize(payload: &Value) -> Result<NormalizedEvent, NormalizeError> {
    Behaviour.normalize_hook(payload, &[])
}

/// Grok's envelope is camelCase.
const ENVELOPE: EnvelopeKeys = EnvelopeKeys {
    event: "hookEventName",
    session: "sessionId",
    cwd: "cwd",
};

fn base(event: &str) -> Value {
    json!({"hookEventName": event, "sessionId": "g-1", "cwd": "/w", "workspaceRoot": "/w/",
        "permissionMode": "default", "timestamp": "2026-12-02T12:43:06Z"})
}

#[test]
fn each_event_maps_to_its_kind_in_either_spelling() {
    for (names, kind) in [
        (["session_start", "SessionStart"], EventKind::SessionStart),
        (
            ["user_prompt_submit", "UserPromptSubmit"],
            EventKind::BeforeTurn,
        ),
        (["stop", "Stop"], EventKind::TurnEnd),
        (["stop_failure", "StopFailure"], EventKind::TurnEnd),
        (["subagent_start", "SubagentStart"], EventKind::ChildStart),
        (["subagent_end", "SubagentStop"], EventKind::ChildEnd),
        (["notification", "PreCompact"], EventKind::Other),
        (["session_end", "SessionEnd"], EventKind::SessionEnd),
    ] {
        for name in names {
            assert_eq!(normalize(&base(name)).unwrap().kind, kind, "{name}");
        }
    }
}

#[test]
fn a_stop_fired_because_the_session_closed_is_not_a_turn_end() {
    let stop = |reason: &str| normalize(&with(base("stop"), "reason", json!(reason))).unwrap();
    assert_eq!(stop("end_turn").kind, EventKind::TurnEnd);
    assert_eq!(stop("channel_closed").kind, EventKind::Other);
    assert_eq!(stop("shutdown").kind, EventKind::Other);
    assert_eq!(stop("shutdown").end_reason, None);
    let end = normalize(&with(base("session_end"), "reason", json!("exit"))).unwrap();
    assert_eq!(end.end_reason.as_deref(), Some("exit"));
}

#[test]
fn unrecognised_payloads_are_refused_never_invented() {
    let mut cases = envelope_refusals(base, ENVELOPE, "stop", &["teleport"]);
    cases.extend([
        // Claude Code's snake_case keys, as Grok itself never sends them.
        Refusal::new(
            "claude's payload",
            json!({"hook_event_name": "PreToolUse", "session_id": "c", "cwd": "/w", "tool_name": "Write"}),
            NormalizeError::UnknownEvent(String::new()),
        ),
        Refusal::new(
            "gemini's BeforeTool",
            json!({"hookEventName": "BeforeTool", "sessionId": "x", "cwd": "/w"}),
            NormalizeError::UnknownEvent("BeforeTool".into()),
        ),
        Refusal::new(
            "antigravity's envelope",
            json!({"conversationId": "c", "workspacePaths": ["/w"]}),
            NormalizeError::UnknownEvent(String::new()),
        ),
    ]);
    assert_refused(&Behaviour, cases);
    assert_non_objects_are_foreign(&Behaviour, &[], &base("stop"));
    assert!(matches!(
        normalize(&base("pre_tool_use")),
        Err(NormalizeError::InvalidField {
            field: "toolName",
            ..
        })
    ));
}

#[test]
fn the_whitelist_drops_every_field_it_does_not_name() {
    let payload = json!({
        "hookEventName": "post_tool_use", "sessionId": "g-1", "cwd": "/w",
        "transcriptPath": "/h/.grok/sessions/TRANSCRIPT-MARK/updates.jsonl",
        "prompt": "<user_query>PROMPT-MARK</user_query>",
        "toolName": "write", "toolUseId": "TOOLUSE-MARK",
        "toolInput": {"file_path": "/w/a.txt", "content": "CONTENT-MARK"},
        "toolResult": {"type": "SearchReplace", "EditsApplied": {"new_string": "RESULT-MARK"}},
        "lastAssistantMessage": "ASSISTANT-MARK",
        "backgroundTasks": [{"command": "TASK-MARK"}]
    });
    let event = normalize(&payload).unwrap();
    assert_marks_dropped(&payload, &event);
}

fn tool(name: &str, input: Value, truncated: bool) -> (ToolClass, Targets) {
    let p = with(
        with(
            with(base("pre_tool_use"), "toolName", json!(name)),
            "toolInput",
            input,
        ),
        "toolInputTruncated",
        json!(truncated),
    );
    let t = normalize(&p).unwrap().tool.unwrap();
    (t.class, t.targets)
}

#[test]
fn tools_are_classed_by_family_with_their_targets() {
    assert_eq!(
        tool(
            "search_replace",
            json!({"file_path": "/w/a.rs", "old_string": "a", "new_string": "b"}),
            false
        ),
        (ToolClass::Write, Targets::Paths(vec!["/w/a.rs".into()]))
    );
    assert_eq!(
        tool(
            "run_terminal_command",
            json!({"command": "rm -rf build && mkdir -p out", "description": "x"}),
            false
        ),
        (
            ToolClass::Shell,
            Targets::Paths(vec!["build/**".into(), "out".into()])
        )
    );
    assert_eq!(
        tool("read_file", json!({"file_path": "/w/a"}), false),
        (ToolClass::Other, Targets::None)
    );
}

#[test]
fn a_truncated_command_is_unreadable_but_a_truncated_write_keeps_its_file() {
    assert!(matches!(
        tool(
            "run_terminal_command",
            json!({"command": "echo x > a"}),
            true
        ),
        (ToolClass::Shell, Targets::Unreadable { .. })
    ));
    assert_eq!(
        tool("write", json!({"file_path": "/w/a"}), true),
        (ToolClass::Write, Targets::Paths(vec!["/w/a".into()]))
    );
}

#[test]
fn the_guards_read_what_normalisation_reads() {
    let write = Behaviour.guard_write().unwrap();
    let shell = Behaviour.guard_shell().unwrap();
    assert_eq!(
        write.targets("write", &json!({"file_path": "/w/x"})),
        Some(Targets::Paths(vec!["/w/x".into()]))
    );
    assert_eq!(
        write.targets("Write", &json!({"file_path": "/w/x"})),
        None,
        "Claude names are only matcher aliases"
    );
    assert_eq!(
        shell.targets("run_terminal_command", &json!({"command": "touch z"})),
        Some(Targets::Paths(vec!["z".into()]))
    );
}

#[test]
fn model_is_read_when_grok_names_one() {
    let e = normalize(&with(base("session_start"), "modelId", json!("grok-4.5"))).unwrap();
    assert_eq!(e.model.as_deref(), Some("grok-4.5"));
}
