//! Every real Claude Code 2.1.332 payload copied into `fixtures/payloads/claude-code/`
//! normalises to the event it was captured as.

use std::path::PathBuf;

use acc_adapter_claude_code::Behaviour;
use acc_sdk::adapter::AdapterBehaviour;
use acc_sdk::event::{EventKind, NormalizedEvent, Targets, ToolClass};
use serde_json::Value;

fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/payloads/claude-code")
}

fn payloads(rel: &str) -> Vec<Value> {
    let text = std::fs::read_to_string(fixtures().join(rel)).unwrap();
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn normalize(payload: &Value) -> NormalizedEvent {
    Behaviour.normalize_hook(payload, &[]).unwrap()
}

const PLAIN: &str = "153704b0-6669-46cb-920a-2ce9f19c6b34";
const DENY: &str = "123d5e5f-9ce3-4892-a44c-d06f239875ea";
const DENY_EXIT2: &str = "a11e6fb9-435e-4187-9ff1-a566c9d34bd3";
const CTX_JSON: &str = "44df3001-8b25-4576-bedc-492abb14ec47";
const CTX_PLAIN: &str = "1e6f3390-b0c4-40c3-b6d4-addcdb20619e";

const DRIVE_SHELL: &str = "92cbcb77-927d-4eec-94a3-c4db6ff753ea";

/// The tool a run's tool events name: `Write` of an absolute path, or `Bash` writing a
/// relative one.
#[derive(Clone, Copy)]
enum RunTool {
    Write,
    Bash,
}

/// (file, kind, session, permission mode, end reason, tool)
type Row = (
    &'static str,
    EventKind,
    &'static str,
    Option<&'static str>,
    Option<&'static str>,
    Option<RunTool>,
);

fn table() -> Vec<Row> {
    let edits = Some("acceptEdits");
    let mut rows = Vec::new();
    for (dir, session, has_post, tool) in [
        ("plain", PLAIN, true, RunTool::Write),
        ("deny", DENY, false, RunTool::Write),
        ("deny_exit2", DENY_EXIT2, false, RunTool::Write),
        ("ctx_json", CTX_JSON, true, RunTool::Write),
        ("ctx_plain", CTX_PLAIN, true, RunTool::Write),
        ("drive-shell", DRIVE_SHELL, true, RunTool::Bash),
    ] {
        let hello = Some(tool);
        let file = |event: &str| -> &'static str { format!("{dir}/{event}.jsonl").leak() };
        rows.push((
            file("SessionStart"),
            EventKind::SessionStart,
            session,
            None,
            None,
            None,
        ));
        rows.push((
            file("UserPromptSubmit"),
            EventKind::BeforeTurn,
            session,
            edits,
            None,
            None,
        ));
        rows.push((
            file("PreToolUse"),
            EventKind::BeforeTool,
            session,
            edits,
            None,
            hello,
        ));
        if has_post {
            rows.push((
                file("PostToolUse"),
                EventKind::AfterTool,
                session,
                edits,
                None,
                hello,
            ));
        }
        rows.push((file("Stop"), EventKind::TurnEnd, session, edits, None, None));
        rows.push((
            file("SessionEnd"),
            EventKind::SessionEnd,
            session,
            None,
            Some("other"),
            None,
        ));
    }
    rows
}

#[test]
fn every_real_payload_normalises_to_its_event() {
    for (file, kind, session, mode, reason, target) in table() {
        let all = payloads(file);
        assert!(!all.is_empty(), "{file}");
        for payload in &all {
            let event = normalize(payload);
            assert_eq!(event.kind, kind, "{file}");
            assert_eq!(event.session_id, session, "{file}");
            assert_eq!(event.cwd, "/sandbox/ws", "{file}");
            assert_eq!(event.permission_mode.as_deref(), mode, "{file}");
            assert_eq!(event.end_reason.as_deref(), reason, "{file}");
            assert_eq!(event.model, None, "{file}: -p runs send no model");
            assert_eq!(event.parent_session_id, None, "{file}");
            let want = target.map(|t| match t {
                RunTool::Write => ("Write", ToolClass::Write, "/sandbox/ws/hello.txt"),
                RunTool::Bash => ("Bash", ToolClass::Shell, "src/y"),
            });
            match want {
                Some((name, class, path)) => {
                    let tool = event.tool.as_ref().expect(file);
                    assert_eq!((tool.name.as_str(), tool.class), (name, class), "{file}");
                    assert_eq!(tool.targets, Targets::Paths(vec![path.into()]), "{file}");
                }
                None => assert_eq!(event.tool, None, "{file}"),
            }
        }
    }
}

#[test]
fn the_table_covers_every_copied_payload() {
    let listed: Vec<&str> = table().iter().map(|r| r.0).collect();
    for entry in walk(&fixtures()) {
        let rel = entry
            .strip_prefix(fixtures())
            .unwrap()
            .to_string_lossy()
            .into_owned();
        if rel.ends_with(".jsonl") {
            assert!(listed.contains(&rel.as_str()), "{rel} is not in the table");
        }
    }
}

fn walk(dir: &std::path::Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            out.extend(walk(&path));
        } else {
            out.push(path);
        }
    }
    out
}

#[test]
fn nothing_the_adapter_does_not_read_survives_a_real_payload() {
    for (file, ..) in table() {
        for payload in payloads(file) {
            let event = normalize(&payload);
            let shown = format!("{event:?}\n{}", serde_json::to_string(&event).unwrap());
            for key in [
                "transcript_path",
                "prompt",
                "prompt_id",
                "last_assistant_message",
            ] {
                if let Some(v) = payload.get(key).and_then(Value::as_str) {
                    assert!(!shown.contains(v), "{file}: {key} leaked");
                }
            }
            assert!(
                !shown.contains("hello from the fake model"),
                "{file}: content leaked"
            );
            assert!(
                !shown.contains("toolu_fake000001"),
                "{file}: tool_use_id leaked"
            );
        }
    }
}
