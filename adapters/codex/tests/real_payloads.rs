//! Every real Codex 0.171.0 payload copied into `fixtures/payloads/codex/` normalises to
//! the event it was captured as, including `apply_patch` and `exec_command` (seen as `Bash`).

use std::path::{Path, PathBuf};

use acc_adapter_codex::Behaviour;
use acc_sdk::adapter::AdapterBehaviour;
use acc_sdk::event::{EventKind, NormalizedEvent, Targets, ToolClass};
use serde_json::Value;

fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/payloads/codex")
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

struct Case {
    file: String,
    kind: EventKind,
    session: &'static str,
    model: &'static str,
    tool: Option<(&'static str, ToolClass)>,
}

fn table() -> Vec<Case> {
    let runs = [
        (
            "run2-allow-exec_command",
            "01a23602-0c30-79e3-a25e-2f9e1d806afb",
            "gpt-5.1-codex",
            ("Bash", ToolClass::Shell),
            true,
        ),
        (
            "run3-deny-exit2-apply_patch",
            "01a23602-58fe-7930-9c62-402a0aa2712f",
            "gpt-5.5",
            ("apply_patch", ToolClass::Write),
            false,
        ),
        (
            "run4-allow-apply_patch",
            "01a23602-7cd4-7831-bf2e-0f410b79d87d",
            "gpt-5.5",
            ("apply_patch", ToolClass::Write),
            true,
        ),
        (
            "run5-deny-exit2-exec_command",
            "01a23602-959e-7060-9b1f-a1cc819d2788",
            "gpt-5.5",
            ("Bash", ToolClass::Shell),
            false,
        ),
        (
            "run6-deny-json-exec_command",
            "01a23602-bcb5-75d3-b726-b784c922c8ba",
            "gpt-5.5",
            ("Bash", ToolClass::Shell),
            false,
        ),
    ];
    let mut cases = Vec::new();
    for (dir, session, model, tool, has_post) in runs {
        let mut events = vec![
            ("SessionStart", EventKind::SessionStart, None),
            ("UserPromptSubmit", EventKind::BeforeTurn, None),
            ("PreToolUse", EventKind::BeforeTool, Some(tool)),
            ("Stop", EventKind::TurnEnd, None),
        ];
        if has_post {
            events.push(("PostToolUse", EventKind::AfterTool, Some(tool)));
        }
        for (event, kind, tool) in events {
            cases.push(Case {
                file: format!("{dir}/{event}.jsonl"),
                kind,
                session,
                model,
                tool,
            });
        }
    }
    cases
}

#[test]
fn every_real_payload_normalises_to_its_event() {
    for case in table() {
        let file = &case.file;
        for payload in payloads(file) {
            let event = normalize(&payload);
            assert_eq!(event.kind, case.kind, "{file}");
            assert_eq!(event.session_id, case.session, "{file}");
            assert_eq!(event.cwd, "/sandbox/ws", "{file}");
            assert_eq!(event.model.as_deref(), Some(case.model), "{file}");
            assert_eq!(
                event.permission_mode.as_deref(),
                Some("bypassPermissions"),
                "{file}"
            );
            assert_eq!(
                (
                    event.parent_session_id.as_deref(),
                    event.end_reason.as_deref()
                ),
                (None, None)
            );
            match case.tool {
                Some((name, class)) => {
                    let tool = event.tool.as_ref().expect(file);
                    assert_eq!((tool.name.as_str(), tool.class), (name, class), "{file}");
                    // Both the patch (`*** Add File: hello.txt`) and the redirection
                    // (`printf … > hello.txt`) write hello.txt, relative to the cwd.
                    assert_eq!(
                        tool.targets,
                        Targets::Paths(vec!["hello.txt".into()]),
                        "{file}"
                    );
                }
                None => assert_eq!(event.tool, None, "{file}"),
            }
        }
    }
}

#[test]
fn the_table_covers_every_copied_payload() {
    let listed: Vec<String> = table().into_iter().map(|c| c.file).collect();
    for path in walk(&fixtures()) {
        let rel = path
            .strip_prefix(fixtures())
            .unwrap()
            .to_string_lossy()
            .into_owned();
        assert!(listed.contains(&rel), "{rel} is not in the table");
    }
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            out.extend(walk(&path));
        } else if path.extension().is_some_and(|e| e == "jsonl") {
            out.push(path);
        }
    }
    out
}

#[test]
fn nothing_the_adapter_does_not_read_survives_a_real_payload() {
    for case in table() {
        for payload in payloads(&case.file) {
            let event = normalize(&payload);
            let shown = format!("{event:?}\n{}", serde_json::to_string(&event).unwrap());
            for key in [
                "transcript_path",
                "prompt",
                "turn_id",
                "tool_use_id",
                "last_assistant_message",
            ] {
                if let Some(v) = payload.get(key).and_then(Value::as_str) {
                    assert!(!shown.contains(v), "{}: {key} leaked", case.file);
                }
            }
            assert!(
                !shown.contains("Begin Patch"),
                "{}: patch text leaked",
                case.file
            );
            assert!(
                !shown.contains("printf"),
                "{}: command text leaked",
                case.file
            );
            assert!(
                !shown.contains("Success. Updated"),
                "{}: tool output leaked",
                case.file
            );
        }
    }
}
