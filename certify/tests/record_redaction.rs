//! What reaches an adapter's fixtures: names and shapes, never the prompt, a transcript
//! path, file content, tool output or peer text. The raw bundle keeps those, redacted of
//! sandbox paths and credentials.

mod record_support;

use std::fs;

use acc_certify::record::recording::{persist_bundles, persist_evidence};
use acc_certify::record::scenario::{PEER_BODY, PEER_SUBJECT, PROMPT};
use record_support::{FILE_CONTENT, TOOL_OUTPUT, TRANSCRIPT, recording, repo, snapshot_tree};

#[test]
fn no_prompt_transcript_content_tool_output_or_peer_text_reaches_a_fixture() {
    let (root, adapter) = repo();
    let recording = recording("2.1.332", true, "2026-12-02");
    let items = persist_bundles(&recording, root.path()).unwrap();
    persist_evidence(&adapter, &items).unwrap();
    let forbidden = [
        PROMPT,
        PEER_BODY,
        PEER_SUBJECT,
        TRANSCRIPT,
        FILE_CONTENT.trim_end(),
        TOOL_OUTPUT,
        "untrusted peer message",
        "session_1",
        "message_1",
    ];
    let evidence = snapshot_tree(&adapter);
    assert!(
        evidence.len() >= 6,
        "{:?}",
        evidence.iter().map(|e| &e.0).collect::<Vec<_>>()
    );
    for (path, bytes) in &evidence {
        let text = String::from_utf8_lossy(bytes);
        for needle in forbidden {
            assert!(!text.contains(needle), "{path} contains {needle:?}");
        }
    }
    // The raw bundle is where they live (so the test above is not vacuous).
    let bundle = fs::read_to_string(
        root.path()
            .join("captures/claude-code-2.1.332-linux-x64/next-turn/observations.json"),
    )
    .unwrap();
    assert!(bundle.contains(PEER_BODY));
    let hooks = fs::read_to_string(
        root.path()
            .join("captures/claude-code-2.1.332-linux-x64/next-turn/hooks.jsonl"),
    )
    .unwrap();
    assert!(hooks.contains(TRANSCRIPT));
}

#[test]
fn a_fixture_keeps_hook_names_kinds_key_names_and_verdicts() {
    let (root, _adapter) = repo();
    let recording = recording("2.1.332", true, "2026-12-02");
    let items = persist_bundles(&recording, root.path()).unwrap();
    let guard = items
        .iter()
        .find(|i| i.fixture_path.contains("guard-write"))
        .unwrap();
    let mut fixture: serde_json::Value = serde_json::from_slice(&guard.fixture_bytes).unwrap();
    // The digest is of this run's observations and the recorder carries the crate version;
    // both are checked elsewhere.
    fixture["observationsSha256"] = "[sha256]".into();
    fixture["recorder"] = "[recorder]".into();
    insta::assert_json_snapshot!("guard_write_fixture", fixture);
    assert_eq!(guard.record["event"], "PreToolUse");
    assert_eq!(guard.record["tool"], "Write");
}
