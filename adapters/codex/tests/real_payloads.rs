//! Every real Codex 0.171.0 payload copied into `fixtures/payloads/codex/` normalises to
//! the event it was captured as, including `apply_patch` and `exec_command` (seen as `Bash`).

use acc_adapter_codex::{Behaviour, ID};
use acc_sdk::event::{EventKind, NormalizedEvent, ToolClass};
use acc_sdk::testing::payloads::{PayloadCase, PayloadFixtures, in_sandbox, tool_call};

fn fixtures() -> PayloadFixtures {
    PayloadFixtures::of(env!("CARGO_MANIFEST_DIR"), ID)
}

fn table() -> Vec<PayloadCase> {
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
    for (dir, session, model, (name, class), has_post) in runs {
        let mut events = vec![
            ("SessionStart", EventKind::SessionStart, false),
            ("UserPromptSubmit", EventKind::BeforeTurn, false),
            ("PreToolUse", EventKind::BeforeTool, true),
            ("Stop", EventKind::TurnEnd, false),
        ];
        if has_post {
            events.push(("PostToolUse", EventKind::AfterTool, true));
        }
        for (event, kind, names_tool) in events {
            let expected = NormalizedEvent {
                model: Some(model.into()),
                permission_mode: Some("bypassPermissions".into()),
                // Both the patch (`*** Add File: hello.txt`) and the redirection
                // (`printf … > hello.txt`) write hello.txt, relative to the cwd.
                tool: names_tool.then(|| tool_call(name, class, "hello.txt")),
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
            "turn_id",
            "tool_use_id",
            "last_assistant_message",
        ],
        // The patch text, the command text and the tool's output.
        &["Begin Patch", "printf", "Success. Updated"],
    );
}
