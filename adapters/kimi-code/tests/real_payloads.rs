//! Every real Kimi Code 2.1.0 payload copied into `fixtures/payloads/kimi-code/` normalises
//! to the event it was captured as.

use acc_adapter_kimi_code::{Behaviour, ID};
use acc_sdk::event::{EventKind, NormalizedEvent, ToolClass};
use acc_sdk::testing::payloads::{PayloadCase, PayloadFixtures, in_sandbox, tool_call};

const SESSION: &str = "session_e93f33e6-37fa-49e3-ad4f-da1e6131781b";

fn fixtures() -> PayloadFixtures {
    PayloadFixtures::of(env!("CARGO_MANIFEST_DIR"), ID)
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

fn cases() -> Vec<PayloadCase> {
    TABLE
        .iter()
        .map(|&(file, kind, model, names_tool)| {
            let expected = NormalizedEvent {
                model: model.map(str::to_owned),
                tool: names_tool.then(|| tool_call("Write", ToolClass::Write, "/sandbox/ws/src/x")),
                ..in_sandbox(kind, SESSION)
            };
            PayloadCase::new(file, expected)
        })
        .collect()
}

#[test]
fn every_real_payload_normalises_to_its_event() {
    fixtures().assert_normalise_naming_calls(&Behaviour, &cases(), "tool_call_id");
}

#[test]
fn the_table_covers_every_copied_payload() {
    fixtures().assert_all_cased(&cases());
}

#[test]
fn nothing_the_adapter_does_not_read_survives_a_real_payload() {
    fixtures().assert_nothing_leaks_from(
        &Behaviour,
        &cases(),
        &[],
        &[
            "please do the scripted task",
            "written by the double",
            "Wrote 22 bytes",
            "toolu_acc_step0",
            "kimi_code_cli",
            "agent",
        ],
    );
}
