//! Every real Gemini CLI 0.61.0 payload copied into `fixtures/payloads/gemini-cli/`
//! normalises to the event it was captured as.

use acc_adapter_gemini_cli::{Behaviour, ID};
use acc_sdk::event::{EventKind, NormalizedEvent, ToolClass};
use acc_sdk::testing::payloads::{PayloadCase, PayloadFixtures, in_sandbox, tool_call};

fn fixtures() -> PayloadFixtures {
    PayloadFixtures::of(env!("CARGO_MANIFEST_DIR"), ID)
}

/// The tool of a run's tool events, with its class and target.
type RunTool = (&'static str, ToolClass, &'static str);

/// What Gemini CLI sends: no model or permission mode, the end reason on `SessionEnd`, and
/// the run's tool on the tool events.
fn expected(kind: EventKind, session: &str, (name, class, target): RunTool) -> NormalizedEvent {
    NormalizedEvent {
        end_reason: (kind == EventKind::SessionEnd).then(|| "exit".into()),
        tool: matches!(kind, EventKind::BeforeTool | EventKind::AfterTool)
            .then(|| tool_call(name, class, target)),
        ..in_sandbox(kind, session)
    }
}

fn table() -> Vec<PayloadCase> {
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
            let file = format!("{dir}/{event}.jsonl");
            cases.push(PayloadCase::new(file, expected(kind, session, write)).with_lines(lines));
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
        let session = "7b232b7e-a20a-4c32-9618-6c29fa990dff";
        let file = format!("drive-shell/{event}.jsonl");
        cases.push(PayloadCase::new(file, expected(kind, session, shell)).with_lines(1));
    }
    cases
}

#[test]
fn every_real_payload_normalises_to_its_event() {
    fixtures().assert_normalise(&Behaviour, &table());
}

#[test]
fn the_table_covers_every_copied_payload() {
    fixtures().assert_all_cased(&table());
}

#[test]
fn nothing_the_adapter_does_not_read_survives_a_real_payload() {
    fixtures().assert_nothing_leaks_from(
        &Behaviour,
        &table(),
        &["transcript_path", "prompt", "prompt_response", "timestamp"],
        &[
            "session_context",
            "gemini-2.5-flash",
            "Successfully created",
            "hello\\n",
            "echo x",
        ],
    );
}
