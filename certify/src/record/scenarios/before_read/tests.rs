//! The before-read judge on synthetic observations, and the matcher widening on files.

use super::*;
use crate::record::kit::observations::{
    HookFact, OBSERVATIONS_SCHEMA, OutcomeShape, RequestFact, RunFacts, StreamShape, ToolResultFact,
};
use crate::record::scenario::Scenario;
use crate::record::scenarios::expectations;
use acc_sdk::certification::EvidenceResult;

fn result(text: &str) -> ToolResultFact {
    ToolResultFact {
        call_id: "toolu_1".into(),
        text: text.into(),
        is_error: false,
    }
}

fn request(n: u64, results: Vec<ToolResultFact>) -> RequestFact {
    RequestFact {
        n,
        method: "POST".into(),
        path: "/v1/messages".into(),
        tool_results: results,
        peer_blocks: Vec::new(),
        acc_lines: Vec::new(),
    }
}

fn hook(kind: &str) -> HookFact {
    HookFact {
        event: Some("PreToolUse".into()),
        kind: Some(kind.into()),
        tool: Some("Read".into()),
        refusal: None,
        payload_keys: vec![],
        outcome: OutcomeShape {
            exit_code: Some(0),
            stdout: StreamShape::Empty,
            stderr: StreamShape::Empty,
        },
    }
}

fn passing() -> Observations {
    let refused = result(&format!("PreToolUse:Read hook error: {REFUSAL}"));
    let control = result(&format!("1\t{CONTROL_MARKER}"));
    Observations {
        schema_version: OBSERVATIONS_SCHEMA,
        scenario: Scenario::BeforeRead,
        adapter: "claude-code".into(),
        client: "claude-code".into(),
        version: "2.1.332".into(),
        platform: "linux-x64".into(),
        protocol: "anthropic-messages".into(),
        run: RunFacts {
            exit_code: Some(0),
            timed_out: false,
            network: Vec::new(),
        },
        expect: expectations(Scenario::BeforeRead),
        sessions: Vec::new(),
        message: None,
        files: Vec::new(),
        requests: vec![
            request(1, vec![]),
            request(2, vec![refused.clone()]),
            request(3, vec![refused, control]),
        ],
        hooks: Some(vec![hook("sessionStart"), hook("beforeTool")]),
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

fn reasons(obs: &Observations) -> String {
    judge(obs).reasons.join(" | ")
}

#[test]
fn a_refused_read_with_a_working_control_passes() {
    let verdict = judge(&passing());
    assert_eq!(verdict.capability, Capability::BeforeRead);
    assert_eq!(verdict.result, EvidenceResult::Pass, "{verdict:?}");
    let through_judge = crate::record::scenarios::judge(Scenario::BeforeRead, &passing());
    assert_eq!(through_judge, vec![verdict]);
}

#[test]
fn the_refused_content_reaching_the_model_fails() {
    let mut obs = passing();
    obs.requests[2].tool_results[0] = result(&format!("1\t{REFUSED_MARKER}"));
    let verdict = judge(&obs);
    assert_eq!(verdict.result, EvidenceResult::Fail);
    let text = reasons(&obs);
    assert!(text.contains("content reached the model"), "{text}");
    assert!(text.contains("does not carry acc's reason"), "{text}");
}

#[test]
fn no_pre_tool_hook_or_no_control_content_fails() {
    let mut obs = passing();
    obs.hooks = Some(vec![hook("sessionStart")]);
    assert!(reasons(&obs).contains("no pre-tool hook reached acc"));
    let mut obs = passing();
    obs.requests[2].tool_results[1] = result("permission denied");
    assert_eq!(judge(&obs).result, EvidenceResult::Fail);
    assert!(reasons(&obs).contains("negative control failed"));
}

#[test]
fn a_client_without_a_read_tool_fails_saying_so() {
    let mut obs = passing();
    obs.requests = vec![request(1, vec![])];
    obs.hooks = Some(vec![hook("sessionStart")]);
    let text = reasons(&obs);
    assert!(text.contains("no file-reading tool"), "{text}");
    assert!(!text.contains("does not carry acc's reason"), "{text}");
}

#[test]
fn the_matcher_gains_the_read_tool_and_a_missing_one_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let settings = dir.path().join("settings.json");
    std::fs::write(
        &settings,
        r#"{"hooks":{"PreToolUse":[{"matcher":"Write|Edit|MultiEdit|NotebookEdit|Bash"}]}}"#,
    )
    .unwrap();
    widen(Client::ClaudeCode, std::slice::from_ref(&settings)).unwrap();
    let text = std::fs::read_to_string(&settings).unwrap();
    assert!(
        text.contains(r#""Write|Edit|MultiEdit|NotebookEdit|Bash|Read""#),
        "{text}"
    );
    let err = widen(Client::GeminiCli, &[settings]).unwrap_err();
    assert_eq!(err.code(), "before-read.matcher-not-found");
    widen(Client::Codex, &[]).unwrap();
}
