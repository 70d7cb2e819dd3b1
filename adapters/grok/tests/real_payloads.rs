//! Every real Grok 0.2.111 payload copied into `fixtures/payloads/grok/` normalises to the
//! event it was captured as.

use std::path::{Path, PathBuf};

use acc_adapter_grok::Behaviour;
use acc_sdk::adapter::AdapterBehaviour;
use acc_sdk::event::{EventKind, NormalizedEvent, Targets, ToolClass};
use serde_json::Value;

fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/payloads/grok")
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
    tool: Option<(&'static str, ToolClass, &'static str)>,
}

fn table() -> Vec<Case> {
    let write = ("write", ToolClass::Write, "/sandbox/ws/src/x");
    let shell = ("run_terminal_command", ToolClass::Shell, "src/y");
    let runs = [
        ("write", "01a236c7-afdd-76b1-afaf-d467e770b69c", write, true),
        ("deny", "01a236c7-b2f5-7f03-a58b-790404a5ded5", write, false),
        ("shell", "01a236c7-b5e0-7691-a9e3-694ba089bfbe", shell, true),
        (
            "shell-deny",
            "01a236c7-b923-7d01-a867-360b16070502",
            shell,
            false,
        ),
    ];
    let mut cases = Vec::new();
    for (dir, session, tool, ran) in runs {
        let mut events = vec![
            ("SessionStart", EventKind::SessionStart, None),
            ("UserPromptSubmit", EventKind::BeforeTurn, None),
            ("PreToolUse", EventKind::BeforeTool, Some(tool)),
            ("Stop", EventKind::TurnEnd, None),
        ];
        if ran {
            events.push(("PostToolUse", EventKind::AfterTool, Some(tool)));
        }
        for (event, kind, tool) in events {
            cases.push(Case {
                file: format!("{dir}/{event}.jsonl"),
                kind,
                session,
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
            assert_eq!(
                event.permission_mode.as_deref(),
                Some("bypassPermissions"),
                "{file}"
            );
            assert_eq!(
                (event.model.as_deref(), event.end_reason.as_deref()),
                (None, None),
                "{file}"
            );
            match case.tool {
                Some((name, class, target)) => {
                    let tool = event.tool.as_ref().expect(file);
                    assert_eq!((tool.name.as_str(), tool.class), (name, class), "{file}");
                    assert_eq!(tool.targets, Targets::Paths(vec![target.into()]), "{file}");
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
                "transcriptPath",
                "prompt",
                "promptId",
                "toolUseId",
                "lastAssistantMessage",
                "timestamp",
            ] {
                if let Some(v) = payload.get(key).and_then(Value::as_str) {
                    assert!(!shown.contains(v), "{}: {key} leaked", case.file);
                }
            }
            for text in [
                "written by the double",
                "echo x",
                "exit: 0",
                "Run the scripted command",
            ] {
                assert!(!shown.contains(text), "{}: {text} leaked", case.file);
            }
        }
    }
}
