//! Every real Gemini CLI 0.61.0 payload copied into `fixtures/payloads/gemini-cli/`
//! normalises to the event it was captured as.

use std::path::{Path, PathBuf};

use acc_adapter_gemini_cli::Behaviour;
use acc_sdk::adapter::AdapterBehaviour;
use acc_sdk::event::{EventKind, NormalizedEvent, Targets, ToolClass};
use serde_json::Value;

fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/payloads/gemini-cli")
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
    lines: usize,
    /// The tool of the run's tool events, with its class and target.
    tool: (&'static str, ToolClass, &'static str),
}

fn table() -> Vec<Case> {
    let runs = [
        ("run1-allow", "fdec5329-8c16-4dd3-bc59-aaaf5a84cd52", true),
        (
            "run2-deny-json-block",
            "f14668bc-2e3a-4045-93f3-277eaa9fa8d9",
            false,
        ),
        (
            "run3-deny-exit2-ctx-json",
            "b9e86c64-0763-4cc4-811c-7d51c0a1b526",
            false,
        ),
    ];
    let write = ("write_file", ToolClass::Write, "/sandbox/ws/hello.txt");
    let mut cases = Vec::new();
    for (dir, session, tool_ran) in runs {
        let mut events = vec![
            ("SessionStart", EventKind::SessionStart, 1),
            ("BeforeAgent", EventKind::BeforeTurn, 1),
            ("PreCompress", EventKind::Other, 2),
            ("BeforeModel", EventKind::Other, 2),
            ("BeforeToolSelection", EventKind::Other, 2),
            ("AfterModel", EventKind::Other, 2),
            ("BeforeTool", EventKind::BeforeTool, 1),
            ("AfterAgent", EventKind::TurnEnd, 1),
            ("SessionEnd", EventKind::SessionEnd, 1),
        ];
        if tool_ran {
            events.push(("AfterTool", EventKind::AfterTool, 1));
        }
        for (event, kind, lines) in events {
            cases.push(Case {
                file: format!("{dir}/{event}.jsonl"),
                kind,
                session,
                lines,
                tool: write,
            });
        }
    }
    // The shell run only registered the six lifecycle, turn and tool events.
    let shell = ("run_shell_command", ToolClass::Shell, "src/y");
    for (event, kind) in [
        ("SessionStart", EventKind::SessionStart),
        ("BeforeAgent", EventKind::BeforeTurn),
        ("BeforeTool", EventKind::BeforeTool),
        ("AfterTool", EventKind::AfterTool),
        ("AfterAgent", EventKind::TurnEnd),
        ("SessionEnd", EventKind::SessionEnd),
    ] {
        cases.push(Case {
            file: format!("drive-shell/{event}.jsonl"),
            kind,
            session: "7b232b7e-a20a-4c32-9618-6c29fa990dff",
            lines: 1,
            tool: shell,
        });
    }
    cases
}

#[test]
fn every_real_payload_normalises_to_its_event() {
    for case in table() {
        let file = &case.file;
        let all = payloads(file);
        assert_eq!(all.len(), case.lines, "{file}");
        for payload in all {
            let event = normalize(&payload);
            assert_eq!(event.kind, case.kind, "{file}");
            assert_eq!(event.session_id, case.session, "{file}");
            assert_eq!(event.cwd, "/sandbox/ws", "{file}");
            assert_eq!(
                (event.model.as_deref(), event.permission_mode.as_deref()),
                (None, None)
            );
            let reason = (case.kind == EventKind::SessionEnd).then_some("exit");
            assert_eq!(event.end_reason.as_deref(), reason, "{file}");
            if matches!(case.kind, EventKind::BeforeTool | EventKind::AfterTool) {
                let (name, class, target) = case.tool;
                let tool = event.tool.as_ref().expect(file);
                assert_eq!((tool.name.as_str(), tool.class), (name, class), "{file}");
                assert_eq!(tool.targets, Targets::Paths(vec![target.into()]), "{file}");
            } else {
                assert_eq!(event.tool, None, "{file}");
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
            for key in ["transcript_path", "prompt", "prompt_response", "timestamp"] {
                if let Some(v) = payload.get(key).and_then(Value::as_str) {
                    assert!(!shown.contains(v), "{}: {key} leaked", case.file);
                }
            }
            for text in [
                "session_context",
                "gemini-2.5-flash",
                "Successfully created",
                "hello\\n",
                "echo x",
            ] {
                assert!(!shown.contains(text), "{}: {text} leaked", case.file);
            }
        }
    }
}
