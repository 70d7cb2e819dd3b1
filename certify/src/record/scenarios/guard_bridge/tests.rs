//! The guard-bridge script, settings merge and judge, on synthetic observations.

use super::*;
use crate::record::kit::observations::{
    HookFact, OBSERVATIONS_SCHEMA, OutcomeShape, RequestFact, RunFacts, StreamShape, ToolResultFact,
};
use crate::record::scenarios::expectations;

fn qwen_bridge() -> &'static Bridge {
    bridge_of("qwen-code".parse().unwrap()).expect("qwen-code's recorder file names its bridge")
}

#[test]
fn only_clients_whose_recorder_file_names_a_bridge_run_it() {
    assert!(GuardBridge.applies_to("qwen-code"));
    assert!(!GuardBridge.applies_to("claude-code"));
    assert!(!GuardBridge.applies_to("no-such-client"));
}

#[test]
fn both_writes_go_through_the_bridge_claim_first() {
    let steps = steps(qwen_bridge(), Path::new("/ws"));
    assert_eq!(
        steps,
        [
            Step::call(
                "tool_call",
                json!({"name": "write_file", "arguments": {"file_path": "/ws/src/x", "content": OVERWRITE}})
            ),
            Step::call(
                "tool_call",
                json!({"name": "write_file", "arguments": {"file_path": "/ws/free.txt", "content": "unclaimed\n"}})
            ),
        ]
    );
}

#[test]
fn settings_merge_keeps_what_the_file_had() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("settings.json");
    std::fs::write(&path, r#"{"hooks": {"Stop": []}, "tools": {"core": ["x"]}}"#).unwrap();
    merge_settings(&path, r#"{"tools": {"eager": ["read_file"]}}"#).unwrap();
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(
        doc,
        json!({"hooks": {"Stop": []}, "tools": {"core": ["x"], "eager": ["read_file"]}})
    );
}

fn hook(tool: &str) -> HookFact {
    HookFact {
        event: Some("PreToolUse".into()),
        kind: Some("beforeTool".into()),
        tool: Some(tool.into()),
        refusal: None,
        payload_keys: vec![],
        outcome: OutcomeShape {
            exit_code: Some(0),
            stdout: StreamShape::Empty,
            stderr: StreamShape::Empty,
        },
    }
}

fn observed(claimed: Option<&str>, free: bool) -> Observations {
    let reason = expectations(Scenario::GuardBridge).deny_reason.unwrap();
    Observations {
        schema_version: OBSERVATIONS_SCHEMA,
        scenario: Scenario::GuardBridge,
        adapter: "qwen-code".into(),
        client: "qwen-code".into(),
        version: "0.24.4".into(),
        platform: "linux-x64".into(),
        protocol: "openai-chat-completions".into(),
        run: RunFacts {
            exit_code: Some(0),
            timed_out: false,
            network: Vec::new(),
        },
        expect: expectations(Scenario::GuardBridge),
        sessions: Vec::new(),
        message: None,
        files: vec![
            FileFact {
                path: CLAIMED.into(),
                exists: claimed.is_some(),
                sha256: claimed.map(|c| sha256_hex(c.as_bytes())),
            },
            FileFact {
                path: FREE_FILE.into(),
                exists: free,
                sha256: None,
            },
        ],
        requests: vec![RequestFact {
            n: 2,
            method: "POST".into(),
            path: "/v1/chat/completions".into(),
            tool_results: vec![ToolResultFact {
                call_id: "call_acc_step0".into(),
                text: format!("[tool_call] {reason}"),
                is_error: true,
            }],
            peer_blocks: Vec::new(),
            acc_lines: Vec::new(),
        }],
        hooks: Some(vec![hook("write_file")]),
        control: None,
        live: None,
        detected_writes: Vec::new(),
        resume: None,
        quit: None,
        children: None,
        idle: None,
        reply: None,
    }
}

#[test]
fn passes_only_when_the_claimed_bytes_are_kept_and_the_control_was_written() {
    assert!(judge(&observed(Some(CLAIMED_BYTES), true), "write_file").passed);
    let overwritten = judge(&observed(Some(OVERWRITE), true), "write_file");
    assert!(!overwritten.passed);
    assert!(overwritten.reasons[0].contains("overwritten"));
    assert!(!judge(&observed(None, true), "write_file").passed);
    let no_control = judge(&observed(Some(CLAIMED_BYTES), false), "write_file");
    assert!(!no_control.passed, "{no_control:?}");
    let other_hook = judge(&observed(Some(CLAIMED_BYTES), true), "edit");
    assert!(!other_hook.passed);
}
