//! Every real Qwen Code 0.24.4 payload copied into `fixtures/payloads/qwen-code/` (from the
//! recorder's guard-write and child-sessions captures) normalises to the event it was
//! captured as: the tool and its target, the subagent's own session, nothing else.

use acc_adapter_qwen_code::Behaviour;
use acc_sdk::event::{EventKind, Targets, ToolClass};
use acc_sdk::testing::payloads::{PayloadFixtures, assert_nothing_leaks};

fn fixtures() -> PayloadFixtures {
    PayloadFixtures::of(env!("CARGO_MANIFEST_DIR"), acc_adapter_qwen_code::ID)
}

/// Each copied file and the kind its payloads normalise to.
const FILES: [(&str, EventKind); 12] = [
    ("guard-write/SessionStart.jsonl", EventKind::SessionStart),
    ("guard-write/UserPromptSubmit.jsonl", EventKind::BeforeTurn),
    ("guard-write/PreToolUse.jsonl", EventKind::BeforeTool),
    ("guard-write/PostToolUse.jsonl", EventKind::AfterTool),
    ("guard-write/Stop.jsonl", EventKind::TurnEnd),
    ("child-sessions/SessionStart.jsonl", EventKind::SessionStart),
    (
        "child-sessions/UserPromptSubmit.jsonl",
        EventKind::BeforeTurn,
    ),
    ("child-sessions/SubagentStart.jsonl", EventKind::ChildStart),
    ("child-sessions/PreToolUse.jsonl", EventKind::BeforeTool),
    ("child-sessions/PostToolUse.jsonl", EventKind::AfterTool),
    ("child-sessions/SubagentStop.jsonl", EventKind::ChildEnd),
    ("child-sessions/Stop.jsonl", EventKind::TurnEnd),
];

#[test]
fn every_real_payload_normalises_to_its_event() {
    let fixtures = fixtures();
    for (file, kind) in FILES {
        for (payload, event) in fixtures.normalised(&Behaviour, file) {
            assert_eq!(event.kind, kind, "{file}");
            assert_eq!(event.cwd, "/sandbox/ws", "{file}");
            assert_eq!(event.permission_mode.as_deref(), Some("yolo"), "{file}");
            let session = payload["session_id"].as_str().unwrap();
            match payload["agent_id"].as_str() {
                // Inside the subagent: its own conversation, child of the parent's.
                Some(agent) => {
                    assert_eq!(event.session_id, format!("{session}/subagent/{agent}"));
                    assert_eq!(event.parent_session_id.as_deref(), Some(session));
                }
                None => {
                    assert_eq!(event.session_id, session, "{file}");
                    assert_eq!(event.parent_session_id, None, "{file}");
                }
            }
            let model = (kind == EventKind::SessionStart).then_some("qwen-double");
            assert_eq!(event.model.as_deref(), model, "{file}");
            match kind {
                EventKind::BeforeTool | EventKind::AfterTool => {
                    let tool = event.tool.expect("a tool event names its tool");
                    let path = payload["tool_input"]["file_path"].as_str().unwrap();
                    assert_eq!(
                        (tool.name.as_str(), tool.class, tool.targets),
                        (
                            "write_file",
                            ToolClass::Write,
                            Targets::Paths(vec![path.into()])
                        ),
                        "{file}"
                    );
                }
                _ => assert_eq!(event.tool, None, "{file}"),
            }
        }
    }
}

#[test]
fn the_list_covers_every_copied_payload() {
    let listed: Vec<&str> = FILES.iter().map(|(file, _)| *file).collect();
    fixtures().assert_all_listed(&listed);
}

#[test]
fn nothing_the_adapter_does_not_read_survives_a_real_payload() {
    let fixtures = fixtures();
    for (file, _) in FILES {
        for (payload, event) in fixtures.normalised(&Behaviour, file) {
            // The prompt is empty on a tool-result continuation, so it is checked as text.
            assert_nothing_leaks(
                file,
                &payload,
                &event,
                &[
                    "transcript_path",
                    "prompt_id",
                    "timestamp",
                    "last_assistant_message",
                ],
                &[
                    "Carry out the scripted",
                    "written by the",
                    "Successfully created",
                    "unclaimed",
                ],
            );
        }
    }
}
