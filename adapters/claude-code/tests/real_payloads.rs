//! Every real Claude Code 2.1.332 payload copied into `fixtures/payloads/claude-code/`
//! normalises to the event it was captured as.

use acc_adapter_claude_code::{Behaviour, ID};
use acc_sdk::event::{EventKind, NormalizedEvent, ToolClass};
use acc_sdk::testing::payloads::{PayloadCase, PayloadFixtures, in_sandbox, tool_call};

fn fixtures() -> PayloadFixtures {
    PayloadFixtures::of(env!("CARGO_MANIFEST_DIR"), ID)
}

const PLAIN: &str = "153704b0-6669-46cb-920a-2ce9f19c6b34";
const DENY: &str = "123d5e5f-9ce3-4892-a44c-d06f239875ea";
const DENY_EXIT2: &str = "a11e6fb9-435e-4187-9ff1-a566c9d34bd3";
const CTX_JSON: &str = "44df3001-8b25-4576-bedc-492abb14ec47";
const CTX_PLAIN: &str = "1e6f3390-b0c4-40c3-b6d4-addcdb20619e";

const DRIVE_SHELL: &str = "92cbcb77-927d-4eec-94a3-c4db6ff753ea";

/// The tool a run's tool events name: `Write` of an absolute path, or `Bash` writing a
/// relative one.
type RunTool = (&'static str, ToolClass, &'static str);
const WRITE: RunTool = ("Write", ToolClass::Write, "/sandbox/ws/hello.txt");
const BASH: RunTool = ("Bash", ToolClass::Shell, "src/y");

fn table() -> Vec<PayloadCase> {
    let mut cases = Vec::new();
    for (dir, session, has_post, (name, class, target)) in [
        ("plain", PLAIN, true, WRITE),
        ("deny", DENY, false, WRITE),
        ("deny_exit2", DENY_EXIT2, false, WRITE),
        ("ctx_json", CTX_JSON, true, WRITE),
        ("ctx_plain", CTX_PLAIN, true, WRITE),
        ("drive-shell", DRIVE_SHELL, true, BASH),
    ] {
        // (event, kind, sent in `acceptEdits` mode, names the tool)
        let mut events = vec![
            ("SessionStart", EventKind::SessionStart, false, false),
            ("UserPromptSubmit", EventKind::BeforeTurn, true, false),
            ("PreToolUse", EventKind::BeforeTool, true, true),
        ];
        if has_post {
            events.push(("PostToolUse", EventKind::AfterTool, true, true));
        }
        events.push(("Stop", EventKind::TurnEnd, true, false));
        events.push(("SessionEnd", EventKind::SessionEnd, false, false));
        for (event, kind, edits, names_tool) in events {
            // `-p` runs send no model.
            let expected = NormalizedEvent {
                permission_mode: edits.then(|| "acceptEdits".into()),
                end_reason: (kind == EventKind::SessionEnd).then(|| "other".into()),
                tool: names_tool.then(|| tool_call(name, class, target)),
                ..in_sandbox(kind, session)
            };
            cases.push(PayloadCase::new(format!("{dir}/{event}.jsonl"), expected));
        }
    }
    cases
}

#[test]
fn every_real_payload_normalises_to_its_event() {
    fixtures().assert_normalise_naming_calls(&Behaviour, &table(), "tool_use_id");
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
        &[
            "transcript_path",
            "prompt",
            "prompt_id",
            "last_assistant_message",
        ],
        &["hello from the fake model", "toolu_fake000001"],
    );
}
