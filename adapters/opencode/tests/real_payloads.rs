//! Every payload acc's plugin sent OpenCode 1.18.33's events as, copied from a recording
//! into `fixtures/payloads/opencode/`, normalises to the event it was captured as.

use acc_adapter_opencode::{Behaviour, ID};
use acc_sdk::event::{EventKind, NormalizedEvent, ToolClass};
use acc_sdk::testing::payloads::{PayloadCase, PayloadFixtures, in_sandbox, tool_call};

fn fixtures() -> PayloadFixtures {
    PayloadFixtures::of(env!("CARGO_MANIFEST_DIR"), ID)
}

const SESSION: &str = "ses_db553d44effe3PsY27fzV5VeN5";

fn expected(kind: EventKind) -> NormalizedEvent {
    NormalizedEvent {
        end_reason: (kind == EventKind::SessionEnd).then(|| "exit".into()),
        tool: matches!(kind, EventKind::BeforeTool | EventKind::AfterTool)
            .then(|| tool_call("write", ToolClass::Write, "/sandbox/ws/hello.txt")),
        ..in_sandbox(kind, SESSION)
    }
}

fn table() -> Vec<PayloadCase> {
    [
        ("SessionStart", EventKind::SessionStart),
        ("ChatMessage", EventKind::BeforeTurn),
        ("ToolExecuteBefore", EventKind::BeforeTool),
        ("ToolExecuteAfter", EventKind::AfterTool),
        ("SessionIdle", EventKind::TurnEnd),
        ("SessionEnd", EventKind::SessionEnd),
    ]
    .into_iter()
    .map(|(event, kind)| {
        PayloadCase::new(format!("write/{event}.jsonl"), expected(kind)).with_lines(1)
    })
    .collect()
}

#[test]
fn every_real_payload_normalises_to_its_event() {
    fixtures().assert_normalise_naming_calls(&Behaviour, &table(), "call_id");
}

#[test]
fn the_table_covers_every_copied_payload() {
    fixtures().assert_all_cased(&table());
}

#[test]
fn nothing_the_adapter_does_not_read_survives_a_real_payload() {
    fixtures().assert_nothing_leaks_from(&Behaviour, &table(), &["source"], &["hello\\n"]);
}
