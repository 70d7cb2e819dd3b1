//! Every real Grok 0.2.111 payload copied into `fixtures/payloads/grok/` normalises to the
//! event it was captured as.

use acc_adapter_grok::{Behaviour, ID};
use acc_sdk::event::{EventKind, NormalizedEvent, ToolClass};
use acc_sdk::testing::payloads::{PayloadCase, PayloadFixtures, in_sandbox, tool_call};

fn fixtures() -> PayloadFixtures {
    PayloadFixtures::of(env!("CARGO_MANIFEST_DIR"), ID)
}

fn table() -> Vec<PayloadCase> {
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
    for (dir, session, (name, class, target), ran) in runs {
        let mut events = vec![
            ("SessionStart", EventKind::SessionStart, false),
            ("UserPromptSubmit", EventKind::BeforeTurn, false),
            ("PreToolUse", EventKind::BeforeTool, true),
            ("Stop", EventKind::TurnEnd, false),
        ];
        if ran {
            events.push(("PostToolUse", EventKind::AfterTool, true));
        }
        for (event, kind, names_tool) in events {
            let expected = NormalizedEvent {
                permission_mode: Some("bypassPermissions".into()),
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
        &[
            "transcriptPath",
            "prompt",
            "promptId",
            "toolUseId",
            "lastAssistantMessage",
            "timestamp",
        ],
        &[
            "written by the double",
            "echo x",
            "exit: 0",
            "Run the scripted command",
        ],
    );
}
