//! What Gemini CLI's normaliser refuses, what it never lets through, and how it reads tools.

use acc_adapter_gemini_cli::Behaviour;
use acc_sdk::adapter::AdapterBehaviour;
use acc_sdk::event::{EventKind, NormalizeError, NormalizedEvent, Targets, ToolClass};
use serde_json::{Value, json};

fn normalize(payload: &Value) -> Result<NormalizedEvent, NormalizeError> {
    Behaviour.normalize_hook(payload, &[])
}

fn base(event: &str) -> Value {
    json!({"session_id": "s-1", "cwd": "/w", "hook_event_name": event, "timestamp": "2026-12-02T09:09:39.926Z"})
}

fn without(mut v: Value, key: &str) -> Value {
    v.as_object_mut().unwrap().remove(key);
    v
}

fn with(mut v: Value, key: &str, value: Value) -> Value {
    v[key] = value;
    v
}

#[test]
fn unrecognised_payloads_are_refused_never_invented() {
    let cases: Vec<(&str, Value, NormalizeError)> = vec![
        (
            "unknown event",
            base("BeforeEverything"),
            NormalizeError::UnknownEvent("BeforeEverything".into()),
        ),
        (
            "no event",
            without(base("AfterAgent"), "hook_event_name"),
            NormalizeError::UnknownEvent(String::new()),
        ),
        (
            "missing session id",
            without(base("AfterAgent"), "session_id"),
            NormalizeError::MissingSessionId,
        ),
        (
            "blank session id",
            with(base("AfterAgent"), "session_id", json!("\t")),
            NormalizeError::MissingSessionId,
        ),
        (
            "missing cwd",
            without(base("AfterAgent"), "cwd"),
            NormalizeError::MissingCwd,
        ),
    ];
    for (what, payload, want) in cases {
        assert_eq!(normalize(&payload).unwrap_err(), want, "{what}");
    }
}

#[test]
fn non_objects_and_garbage_are_foreign() {
    for payload in [
        json!(null),
        json!([1, 2]),
        json!("BeforeAgent"),
        json!(false),
    ] {
        assert!(
            matches!(normalize(&payload), Err(NormalizeError::ForeignShape(_))),
            "{payload}"
        );
    }
}

#[test]
fn other_clients_payloads_are_refused() {
    let claude = json!({"session_id": "c", "cwd": "/w", "hook_event_name": "PreToolUse",
        "tool_name": "Write", "tool_input": {"file_path": "/w/a"}});
    assert_eq!(
        normalize(&claude).unwrap_err(),
        NormalizeError::UnknownEvent("PreToolUse".into())
    );
    let codex = with(base("UserPromptSubmit"), "turn_id", json!("t"));
    assert_eq!(
        normalize(&codex).unwrap_err(),
        NormalizeError::UnknownEvent("UserPromptSubmit".into())
    );
    let antigravity = json!({"conversationId": "c", "workspacePaths": ["/w"]});
    assert_eq!(
        normalize(&antigravity).unwrap_err(),
        NormalizeError::UnknownEvent(String::new())
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
    let shown = format!("{event:?}\n{}", serde_json::to_string(&event).unwrap());
    for mark in [
        "TRANSCRIPT-MARK",
        "PROMPT-MARK",
        "MODEL-MARK",
        "LLM-MARK",
        "CONTENT-MARK",
        "RESPONSE-MARK",
        "DISPLAY-MARK",
    ] {
        assert!(!shown.contains(mark), "{mark} leaked into {shown}");
    }
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
    assert_eq!(
        call("run_shell_command", json!({"command": "'"})),
        (ToolClass::Shell, Targets::Unreadable)
    );
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
