//! What Gemini CLI's normaliser refuses, what it never lets through, and how it reads tools.

use acc_adapter_gemini_cli::Behaviour;
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
    json!({"session_id": "s-1", "cwd": "/w", "hook_event_name": event, "timestamp": "2026-12-02T09:09:39.926Z"})
}

#[test]
fn unrecognised_payloads_are_refused_never_invented() {
    assert_refused(
        &Behaviour,
        envelope_refusals(
            base,
            SNAKE_CASE_ENVELOPE,
            "AfterAgent",
            &["BeforeEverything"],
        ),
    );
}

#[test]
fn non_objects_and_garbage_are_foreign() {
    assert_non_objects_are_foreign(&Behaviour, &[], &base("BeforeAgent"));
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
                "codex's UserPromptSubmit",
                with(base("UserPromptSubmit"), "turn_id", json!("t")),
                NormalizeError::UnknownEvent("UserPromptSubmit".into()),
            ),
            Refusal::new(
                "antigravity's envelope",
                json!({"conversationId": "c", "workspacePaths": ["/w"]}),
                NormalizeError::UnknownEvent(String::new()),
            ),
        ],
    );
}

#[test]
fn the_whitelist_drops_every_field_it_does_not_name() {
    let payload = json!({
        "session_id": "s-1", "cwd": "/w", "hook_event_name": "AfterTool",
        "transcript_path": "/h/.gemini/tmp/ws/chats/TRANSCRIPT-MARK.jsonl",
        "prompt": "PROMPT-MARK",
        "llm_request": {"model": "MODEL-MARK", "messages": [{"role": "user", "content": "LLM-MARK"}]},
        "tool_name": "write_file",
        "tool_input": {"file_path": "/w/a.txt", "content": "CONTENT-MARK"},
        "tool_response": {"llmContent": "RESPONSE-MARK", "returnDisplay": {"newContent": "DISPLAY-MARK"}}
    });
    let event = normalize(&payload).unwrap();
    assert_marks_dropped(&payload, &event);
}

#[test]
fn tools_are_classed_by_family_with_their_targets() {
    let call = |name: &str, input: Value| {
        let p = with(
            with(base("BeforeTool"), "tool_name", json!(name)),
            "tool_input",
            input,
        );
        let t = normalize(&p).unwrap().tool.unwrap();
        (t.class, t.targets)
    };
    assert_eq!(
        call(
            "replace",
            json!({"file_path": "/w/b.md", "old_string": "a", "new_string": "b"})
        ),
        (ToolClass::Write, Targets::Paths(vec!["/w/b.md".into()]))
    );
    assert_eq!(
        call(
            "run_shell_command",
            json!({"command": "sudo env X=1 tee f", "description": "x"})
        ),
        (ToolClass::Shell, Targets::Paths(vec!["f".into()]))
    );
    assert!(matches!(
        call("run_shell_command", json!({"command": "'"})),
        (ToolClass::Shell, Targets::Unreadable { .. })
    ));
    assert_eq!(
        call("read_file", json!({"file_path": "/w/a"})),
        (ToolClass::Other, Targets::None)
    );
    assert!(matches!(
        normalize(&base("BeforeTool")),
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
        write.targets("write_file", &json!({"file_path": "x"})),
        Some(Targets::Paths(vec!["x".into()]))
    );
    assert_eq!(
        write.targets("run_shell_command", &json!({"command": "touch x"})),
        None
    );
    assert_eq!(
        shell.targets("run_shell_command", &json!({"command": "touch x"})),
        Some(Targets::Paths(vec!["x".into()]))
    );
}

#[test]
fn model_call_events_are_known_but_other() {
    for name in [
        "BeforeModel",
        "AfterModel",
        "BeforeToolSelection",
        "PreCompress",
        "Notification",
    ] {
        assert_eq!(
            normalize(&base(name)).unwrap().kind,
            EventKind::Other,
            "{name}"
        );
    }
}
