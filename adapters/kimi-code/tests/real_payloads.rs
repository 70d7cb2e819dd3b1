//! Every real Kimi Code 2.1.0 payload copied into `fixtures/payloads/kimi-code/` normalises
//! to the event it was captured as.

use std::path::{Path, PathBuf};

use acc_adapter_kimi_code::Behaviour;
use acc_sdk::adapter::AdapterBehaviour;
use acc_sdk::event::{EventKind, NormalizedEvent, Targets, ToolClass};
use serde_json::Value;

const SESSION: &str = "session_e93f33e6-37fa-49e3-ad4f-da1e6131781b";

fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/payloads/kimi-code")
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

/// (file, kind, model, names the tool)
const TABLE: [(&str, EventKind, Option<&str>, bool); 5] = [
    (
        "write/SessionStart.jsonl",
        EventKind::SessionStart,
        Some("double"),
        false,
    ),
    (
        "write/UserPromptSubmit.jsonl",
        EventKind::BeforeTurn,
        None,
        false,
    ),
    ("write/PreToolUse.jsonl", EventKind::BeforeTool, None, true),
    ("write/PostToolUse.jsonl", EventKind::AfterTool, None, true),
    ("write/Stop.jsonl", EventKind::TurnEnd, None, false),
];

#[test]
fn every_real_payload_normalises_to_its_event() {
    for (file, kind, model, tool) in TABLE {
        for payload in payloads(file) {
            let event = normalize(&payload);
            assert_eq!(event.kind, kind, "{file}");
            assert_eq!(event.session_id, SESSION, "{file}");
            assert_eq!(event.cwd, "/sandbox/ws", "{file}");
            assert_eq!(event.model.as_deref(), model, "{file}");
            assert_eq!(
                (
                    event.permission_mode,
                    event.end_reason,
                    event.parent_session_id
                ),
                (None, None, None)
            );
            if tool {
                let t = event.tool.as_ref().expect(file);
                assert_eq!(
                    (t.name.as_str(), t.class),
                    ("Write", ToolClass::Write),
                    "{file}"
                );
                assert_eq!(
                    t.targets,
                    Targets::Paths(vec!["/sandbox/ws/src/x".into()]),
                    "{file}"
                );
            } else {
                assert_eq!(event.tool, None, "{file}");
            }
        }
    }
}

#[test]
fn the_table_covers_every_copied_payload() {
    let listed: Vec<&str> = TABLE.iter().map(|r| r.0).collect();
    for path in walk(&fixtures()) {
        let rel = path
            .strip_prefix(fixtures())
            .unwrap()
            .to_string_lossy()
            .into_owned();
        assert!(listed.contains(&rel.as_str()), "{rel} is not in the table");
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
    for (file, ..) in TABLE {
        for payload in payloads(file) {
            let event = normalize(&payload);
            let shown = format!("{event:?}\n{}", serde_json::to_string(&event).unwrap());
            for text in [
                "please do the scripted task",
                "written by the double",
                "Wrote 22 bytes",
                "toolu_acc_step0",
                "kimi_code_cli",
                "agent",
            ] {
                assert!(!shown.contains(text), "{file}: {text} leaked");
            }
        }
    }
}
