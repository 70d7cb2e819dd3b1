//! Every real Copilot CLI 1.0.102 payload copied into `fixtures/payloads/copilot/`
//! normalises to the event it was captured as, given the event argument the installer
//! writes into the command (`acc-hook copilot <event>`).

use acc_adapter_copilot::{Behaviour, ID};
use acc_sdk::adapter::AdapterBehaviour;
use acc_sdk::event::{EventKind, NormalizedEvent, ToolClass};
use acc_sdk::testing::payloads::{PayloadFixtures, in_sandbox, tool_call};

fn fixtures() -> PayloadFixtures {
    PayloadFixtures::of(env!("CARGO_MANIFEST_DIR"), ID)
}

/// `(file, expected event)` for every copied payload.
fn table() -> Vec<(String, NormalizedEvent)> {
    let runs = [
        (
            "write",
            "4b70e22a-8203-485e-8956-574a365a41cd",
            ("create", ToolClass::Write, "/sandbox/ws/src/a.txt"),
        ),
        (
            "shell",
            "137be0f4-8235-40b2-acd9-03a39c0f972f",
            ("bash", ToolClass::Shell, "free.txt"),
        ),
        (
            "edit",
            "a04b82b5-52c1-4eec-a05d-bfb3104fb79d",
            ("edit", ToolClass::Write, "/sandbox/ws/src/a.txt"),
        ),
    ];
    let mut cases = Vec::new();
    for (dir, session, (name, class, target)) in runs {
        for (event, kind, names_tool) in [
            ("sessionStart", EventKind::SessionStart, false),
            ("userPromptSubmitted", EventKind::BeforeTurn, false),
            ("preToolUse", EventKind::BeforeTool, true),
            ("postToolUse", EventKind::AfterTool, true),
            ("agentStop", EventKind::TurnEnd, false),
            ("sessionEnd", EventKind::SessionEnd, false),
        ] {
            let expected = NormalizedEvent {
                tool: names_tool.then(|| tool_call(name, class, target)),
                end_reason: (kind == EventKind::SessionEnd).then(|| "complete".to_owned()),
                ..in_sandbox(kind, session)
            };
            cases.push((format!("{dir}/{event}.jsonl"), expected));
        }
    }
    cases
}

fn event_of(file: &str) -> String {
    let stem = file.rsplit('/').next().unwrap();
    stem.trim_end_matches(".jsonl").to_owned()
}

#[test]
fn every_real_payload_normalises_to_its_event() {
    let fx = fixtures();
    for (file, expected) in table() {
        let lines = fx.lines(&file);
        assert_eq!(lines.len(), 1, "{file}");
        let event = Behaviour
            .normalize_hook(&lines[0], &[event_of(&file)])
            .unwrap_or_else(|e| panic!("{file}: refused: {e}"));
        let mut expected = expected;
        if let (Some(want), Some(got)) = (expected.tool.as_mut(), event.tool.as_ref()) {
            want.writes_only_targets = got.writes_only_targets;
        }
        assert_eq!(event, expected, "{file}");
    }
}

#[test]
fn the_same_payload_under_no_or_another_clients_event_is_refused() {
    let fx = fixtures();
    let start = &fx.lines("write/sessionStart.jsonl")[0];
    assert!(Behaviour.normalize_hook(start, &[]).is_err());
    assert!(
        Behaviour
            .normalize_hook(start, &["SessionStart".into()])
            .is_err()
    );
    let pre = &fx.lines("write/preToolUse.jsonl")[0];
    assert!(
        Behaviour
            .normalize_hook(pre, &["BeforeTool".into()])
            .is_err()
    );
}

#[test]
fn the_table_covers_every_copied_payload() {
    let listed: Vec<String> = table().into_iter().map(|(f, _)| f).collect();
    fixtures().assert_all_listed(&listed);
}

#[test]
fn nothing_the_adapter_does_not_read_survives_a_real_payload() {
    let fx = fixtures();
    for (file, _) in table() {
        let payload = &fx.lines(&file)[0];
        let event = Behaviour
            .normalize_hook(payload, &[event_of(&file)])
            .unwrap();
        let seen = format!("{event:?}");
        for text in [
            "transcriptPath",
            "events.jsonl",
            "hi\\n",
            "updated with changes",
            "write free.txt",
            "create src/a.txt",
        ] {
            assert!(!seen.contains(text), "{file}: {text} leaked into {seen}");
        }
    }
}
