//! What Codex's normaliser refuses, what it never lets through, and how it reads tools.

use acc_adapter_codex::Behaviour;
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
    json!({"session_id": "s-1", "cwd": "/w", "hook_event_name": event, "model": "gpt-5.5"})
}

#[test]
fn unrecognised_payloads_are_refused_never_invented() {
    assert_refused(
        &Behaviour,
        envelope_refusals(base, SNAKE_CASE_ENVELOPE, "Stop", &["Teleport"]),
    );
}

#[test]
fn non_objects_and_garbage_are_foreign() {
    assert_non_objects_are_foreign(&Behaviour, &[], &base("PreToolUse"));
}

#[test]
fn other_clients_payloads_are_refused() {
    assert_refused(
        &Behaviour,
        [
            Refusal::new(
                "gemini's BeforeAgent",
                json!({"session_id": "g", "cwd": "/w", "hook_event_name": "BeforeAgent", "prompt": "x"}),
                NormalizeError::UnknownEvent("BeforeAgent".into()),
            ),
            Refusal::new(
                "antigravity's envelope",
                json!({"conversationId": "c", "workspacePaths": ["/w"]}),
                NormalizeError::UnknownEvent(String::new()),
            ),
            Refusal::new(
                "grok's envelope",
                json!({"hookEventName": "session_start", "sessionId": "x", "cwd": "/w"}),
                NormalizeError::UnknownEvent(String::new()),
            ),
        ],
    );
}

#[test]
fn renamed_fields_are_read_in_their_documented_order() {
    let older = json!({"eventName": "UserPromptSubmit", "thread_id": "t-1",
        "working_directory": "/repo", "model_slug": "gpt-5", "parent_thread_id": "t-0"});
    let e = normalize(&older).unwrap();
    assert_eq!(
        (
            e.kind,
            e.session_id.as_str(),
            e.cwd.as_str(),
            e.model.as_deref(),
            e.parent_session_id.as_deref()
        ),
        (
            EventKind::BeforeTurn,
            "t-1",
            "/repo",
            Some("gpt-5"),
            Some("t-0")
        )
    );
    let both = json!({"hook_event_name": "Stop", "event_name": "SessionEnd",
        "session_id": "", "sessionId": "s-2", "cwd": "/a", "workspace_root": "/b"});
    let e = normalize(&both).unwrap();
    assert_eq!(
        (e.kind, e.session_id.as_str(), e.cwd.as_str()),
        (EventKind::TurnEnd, "s-2", "/a")
    );
}

#[test]
fn the_whitelist_drops_every_field_it_does_not_name() {
    let payload = json!({
        "session_id": "s-1", "cwd": "/w", "hook_event_name": "PostToolUse", "model": "gpt-5.5",
        "transcript_path": "/h/.codex/sessions/TRANSCRIPT-MARK.jsonl",
        "prompt": "PROMPT-MARK",
        "turn_id": "TURN-MARK",
        "tool_name": "apply_patch",
        "tool_input": {"command": "*** Begin Patch\n*** Add File: a.txt\n+CONTENT-MARK\n*** End Patch\n"},
        "tool_response": "RESPONSE-MARK",
        "unknown_future_field": {"nested": "FUTURE-MARK"}
    });
    let event = normalize(&payload).unwrap();
    assert_marks_dropped(&payload, &event);
    assert_eq!(
        event.tool.unwrap().targets,
        Targets::Paths(vec!["a.txt".into()])
    );
}

fn tool(name: &str, input: Value) -> (ToolClass, Targets) {
    let p = with(
        with(base("PreToolUse"), "tool_name", json!(name)),
        "tool_input",
        input,
    );
    let t = normalize(&p).unwrap().tool.unwrap();
    (t.class, t.targets)
}

#[test]
fn patches_are_writes_wherever_they_arrive() {
    let patch = "*** Begin Patch\n*** Update File: src/old.rs\n*** Move to: src/new.rs\n@@\n-a\n+b\n*** Delete File: gone.txt\n*** End Patch\n";
    let want = Targets::Paths(vec![
        "src/old.rs".into(),
        "src/new.rs".into(),
        "gone.txt".into(),
    ]);
    assert_eq!(
        tool("apply_patch", json!({"command": patch})),
        (ToolClass::Write, want.clone())
    );
    assert_eq!(
        tool("apply_patch", json!({"patch": patch})),
        (ToolClass::Write, want.clone())
    );
    assert_eq!(
        tool("apply_patch", json!({"input": patch})),
        (ToolClass::Write, want.clone())
    );
    assert_eq!(
        tool("apply_patch", json!(patch)),
        (ToolClass::Write, want.clone())
    );
    assert_eq!(
        tool("Bash", json!({"command": format!("\n  {patch}")})),
        (ToolClass::Write, want)
    );
    assert!(matches!(
        tool("apply_patch", json!({"command": "not a patch"})),
        (ToolClass::Write, Targets::Unreadable { .. })
    ));
    assert!(matches!(
        tool("apply_patch", json!({})),
        (ToolClass::Write, Targets::Unreadable { .. })
    ));
}

#[test]
fn shell_commands_are_read_for_write_positions() {
    assert_eq!(
        tool(
            "Bash",
            json!({"command": "cp -t out/ a b && git checkout -- f.rs"})
        ),
        (
            ToolClass::Shell,
            // The entries `-t out/` gains, and a checked-out pathspec restored whole.
            Targets::Paths(vec![
                "out/".into(),
                "out/a".into(),
                "out/b".into(),
                "f.rs/**".into()
            ])
        )
    );
    assert_eq!(
        tool(
            "shell",
            json!({"command": ["bash", "-lc", "echo hi >| notes.md"]})
        ),
        (ToolClass::Shell, Targets::Paths(vec!["notes.md".into()]))
    );
    assert_eq!(
        tool(
            "Bash",
            json!({"command": "apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: h.txt\n+x\n*** End Patch\nEOF\n"})
        ),
        (ToolClass::Shell, Targets::Paths(vec!["h.txt".into()]))
    );
    assert_eq!(
        tool("Bash", json!({"command": "cat $(ls)"})),
        (ToolClass::Shell, Targets::None)
    );
    assert!(matches!(
        tool("Bash", json!({"command": "echo > \"$(date)\""})),
        (ToolClass::Shell, Targets::Unreadable { .. })
    ));
    assert!(matches!(
        tool("Bash", json!({})),
        (ToolClass::Shell, Targets::Unreadable { .. })
    ));
    assert_eq!(
        tool("view_image", json!({"path": "/w/a.png"})),
        (ToolClass::Other, Targets::None)
    );
}

#[test]
fn the_guards_read_what_normalisation_reads() {
    let write = Behaviour.guard_write().unwrap();
    let shell = Behaviour.guard_shell().unwrap();
    let patch = json!({"command": "*** Begin Patch\n*** Add File: x\n+1\n*** End Patch"});
    assert_eq!(
        write.targets("Bash", &patch),
        Some(Targets::Paths(vec!["x".into()]))
    );
    assert_eq!(
        shell.targets("Bash", &patch),
        None,
        "a patch body is not a shell command"
    );
    assert_eq!(write.targets("Bash", &json!({"command": "touch y"})), None);
    assert_eq!(
        shell.targets("Bash", &json!({"command": "touch y"})),
        Some(Targets::Paths(vec!["y".into()]))
    );
    assert_eq!(shell.targets("apply_patch", &patch), None);
}

#[test]
fn session_end_keeps_the_reason() {
    let end = normalize(&with(base("SessionEnd"), "reason", json!("exit"))).unwrap();
    assert_eq!(
        (end.kind, end.end_reason.as_deref()),
        (EventKind::SessionEnd, Some("exit"))
    );
}
