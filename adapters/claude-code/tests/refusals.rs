//! What Claude Code's normaliser refuses, and what it never lets through.

use acc_adapter_claude_code::Behaviour;
use acc_sdk::adapter::AdapterBehaviour;
use acc_sdk::event::{EventKind, NormalizeError, Targets, ToolClass};
use acc_sdk::testing::payloads::{PayloadFixtures, assert_marks_dropped, with};
use acc_sdk::testing::refusals::{
    SNAKE_CASE_ENVELOPE, assert_non_objects_are_foreign, assert_refused, envelope_refusals,
};
use serde_json::{Value, json};

fn normalize(payload: &Value) -> Result<acc_sdk::event::NormalizedEvent, NormalizeError> {
    Behaviour.normalize_hook(payload, &[])
}

fn base(event: &str) -> Value {
    json!({"session_id": "s-1", "cwd": "/w", "hook_event_name": event})
}

#[test]
fn unrecognised_payloads_are_refused_never_invented() {
    assert_refused(
        &Behaviour,
        envelope_refusals(base, SNAKE_CASE_ENVELOPE, "Stop", &["Teleport", "stop"]),
    );
}

#[test]
fn non_objects_and_garbage_are_foreign() {
    assert_non_objects_are_foreign(&Behaviour, &[], &base("Stop"));
}

#[test]
fn other_clients_payloads_are_refused() {
    // Gemini CLI's real BeforeTool, Antigravity's envelope, Grok's snake_case event.
    let gemini = json!({"session_id": "g", "cwd": "/w", "hook_event_name": "BeforeTool",
        "tool_name": "write_file", "tool_input": {"file_path": "/w/a"}});
    assert_eq!(
        normalize(&gemini).unwrap_err(),
        NormalizeError::UnknownEvent("BeforeTool".into())
    );
    let antigravity = json!({"conversationId": "c", "workspacePaths": ["/w"], "executionNum": 0});
    assert_eq!(
        normalize(&antigravity).unwrap_err(),
        NormalizeError::UnknownEvent(String::new())
    );
    let grok = json!({"hookEventName": "pre_tool_use", "sessionId": "x", "cwd": "/w"});
    assert!(matches!(
        normalize(&grok),
        Err(NormalizeError::ForeignShape(_))
    ));
}

/// Grok runs the hooks in `~/.claude/settings.json` with its own envelope, so once Claude
/// Code is wired, Grok sessions call this adapter too. Every real Grok payload is refused.
#[test]
fn grok_payloads_arriving_through_claude_settings_are_refused() {
    let grok = PayloadFixtures::of(env!("CARGO_MANIFEST_DIR"), "grok");
    let write_run: Vec<String> = grok
        .files()
        .into_iter()
        .filter(|f| f.starts_with("write/"))
        .collect();
    assert!(!write_run.is_empty());
    for file in write_run {
        for payload in grok.lines(&file) {
            assert!(
                matches!(normalize(&payload), Err(NormalizeError::ForeignShape(_))),
                "{file}"
            );
        }
    }
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
        "prompt": "PROMPT-MARK do the thing",
        "permission_mode": "default",
        "tool_name": "Write",
        "tool_input": {"file_path": "/w/a.txt", "content": "CONTENT-MARK body"},
        "tool_response": {"filePath": "/w/a.txt", "content": "RESPONSE-MARK", "originalFile": "ORIGINAL-MARK"},
        "last_assistant_message": "ASSISTANT-MARK",
        "unknown_future_field": "FUTURE-MARK"
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
        normalize(&p).unwrap().tool.unwrap()
    };
    let t = call(
        "Edit",
        json!({"file_path": "src/a.rs", "old_string": "x", "new_string": "y"}),
    );
    assert_eq!(
        (t.class, t.targets),
        (ToolClass::Write, Targets::Paths(vec!["src/a.rs".into()]))
    );
    let t = call(
        "NotebookEdit",
        json!({"notebook_path": "/w/n.ipynb", "new_source": "x"}),
    );
    assert_eq!(
        (t.class, t.targets),
        (ToolClass::Write, Targets::Paths(vec!["/w/n.ipynb".into()]))
    );
    let t = call("Write", json!({"content": "no path"}));
    assert!(matches!(
        (t.class, t.targets),
        (ToolClass::Write, Targets::Unreadable { .. })
    ));
    let t = call(
        "Bash",
        json!({"command": "sed -i.bak s/a/b/ x.txt && echo ok 2> err.log"}),
    );
    assert_eq!(
        (t.class, t.targets),
        (
            ToolClass::Shell,
            Targets::Paths(vec!["x.txt".into(), "err.log".into()])
        )
    );
    let t = call("Bash", json!({"command": "echo \"unclosed > f"}));
    assert!(matches!(
        (t.class, t.targets),
        (ToolClass::Shell, Targets::Unreadable { .. })
    ));
    let t = call("Bash", json!({"command": "git status"}));
    assert_eq!((t.class, t.targets), (ToolClass::Shell, Targets::None));
    let t = call("Read", json!({"file_path": "/w/a"}));
    assert_eq!((t.class, t.targets), (ToolClass::Other, Targets::None));
}

#[test]
fn the_guards_read_what_normalisation_reads() {
    let write = Behaviour.guard_write().unwrap();
    let shell = Behaviour.guard_shell().unwrap();
    assert!(Behaviour.guard_read().is_none());
    let input = json!({"file_path": "/w/a"});
    assert_eq!(
        write.targets("MultiEdit", &input),
        Some(Targets::Paths(vec!["/w/a".into()]))
    );
    assert_eq!(write.targets("Bash", &input), None);
    assert_eq!(
        shell.targets("Bash", &json!({"command": "tee -a log"})),
        Some(Targets::Paths(vec!["log".into()]))
    );
    assert_eq!(shell.targets("Write", &input), None);
}

#[test]
fn session_end_keeps_the_reason_and_subagents_name_their_parent() {
    let end = normalize(&with(base("SessionEnd"), "reason", json!("clear"))).unwrap();
    assert_eq!(
        (end.kind, end.end_reason.as_deref()),
        (EventKind::SessionEnd, Some("clear"))
    );
    let stop = normalize(&with(base("Stop"), "reason", json!("clear"))).unwrap();
    assert_eq!(
        stop.end_reason, None,
        "only SessionEnd carries an end reason"
    );
    let child = normalize(&with(base("SubagentStart"), "agent_id", json!("agent-9"))).unwrap();
    assert_eq!(
        (
            child.kind,
            child.session_id.as_str(),
            child.parent_session_id.as_deref()
        ),
        (EventKind::ChildStart, "s-1/subagent/agent-9", Some("s-1"))
    );
    let write = with(
        with(base("PreToolUse"), "tool_name", json!("Write")),
        "tool_input",
        json!({"file_path": "/w/src/a.rs", "content": "x"}),
    );
    let inside = normalize(&with(write, "agent_id", json!("agent-9"))).unwrap();
    assert_eq!(
        (
            inside.session_id.as_str(),
            inside.parent_session_id.as_deref()
        ),
        ("s-1/subagent/agent-9", Some("s-1")),
        "a subagent's call is the child's, never the parent conversation's own"
    );
    let hostile = normalize(&with(base("SubagentStop"), "agent_id", json!("a\nb")));
    assert!(
        hostile.is_err(),
        "a control character in agent_id is refused"
    );
    let start = normalize(&with(
        base("SessionStart"),
        "model",
        json!("claude-opus-5-5"),
    ))
    .unwrap();
    assert_eq!(start.model.as_deref(), Some("claude-opus-5-5"));
}
