//! The safe-point judge on synthetic observations: the pass, and each way it fails.

use super::*;
use crate::record::kit::observations::{
    MessageFact, OBSERVATIONS_SCHEMA, RunFacts, ToolResultFact,
};
use crate::record::scenario::Scenario;
use crate::record::scenarios::expectations;
use crate::record::scenarios::judge as judge_scenario;
use crate::record::scenarios::recipe;
use acc_sdk::certification::EvidenceResult;

const ID: &str = "message_7";

fn block() -> String {
    format!("```acc-peer-message\nuntrusted peer message\nkind: note\nmessageId: {ID}\n```")
}

/// A request carrying `results` tool results and `blocks` copies of the note's block.
fn request(n: u64, results: usize, blocks: usize) -> RequestFact {
    RequestFact {
        n,
        method: "POST".into(),
        path: "/v1/messages".into(),
        tool_results: (0..results)
            .map(|i| ToolResultFact {
                call_id: format!("toolu_{i}"),
                text: String::new(),
                is_error: false,
            })
            .collect(),
        peer_blocks: vec![block(); blocks],
        acc_lines: Vec::new(),
    }
}

fn observed(requests: Vec<RequestFact>, receipt: Option<&str>) -> Observations {
    Observations {
        schema_version: OBSERVATIONS_SCHEMA,
        scenario: Scenario::SafePoint,
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
        expect: expectations(Scenario::SafePoint),
        sessions: Vec::new(),
        message: Some(MessageFact {
            message_id: ID.into(),
            recipient: AGENT.into(),
            receipt_state: receipt.map(str::to_owned),
        }),
        files: Vec::new(),
        requests,
        hooks: None,
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
fn a_note_shown_after_the_call_once_passes() {
    let obs = observed(
        vec![request(1, 0, 0), request(2, 1, 1), request(3, 2, 1)],
        Some("offered"),
    );
    let verdicts = judge_scenario(Scenario::SafePoint, &obs);
    assert_eq!(verdicts.len(), 1);
    assert_eq!(verdicts[0].capability, Capability::SafePointInjection);
    assert_eq!(
        verdicts[0].result,
        EvidenceResult::Pass,
        "{:?}",
        verdicts[0]
    );
}

#[test]
fn a_post_tool_context_that_never_reached_the_model_fails() {
    let obs = observed(
        vec![request(1, 0, 0), request(2, 1, 0), request(3, 2, 0)],
        Some("offered"),
    );
    let verdict = judge(&obs);
    assert_eq!(verdict.result, EvidenceResult::Fail);
    assert_eq!(
        verdict.reasons,
        [
            "no model request showed the fenced acc-peer-message block naming the note: the post-tool hook's context did not reach the model"
        ]
    );
}

#[test]
fn a_note_shown_again_or_too_late_or_too_early_fails() {
    let twice = judge(&observed(
        vec![request(1, 0, 0), request(2, 1, 1), request(3, 2, 2)],
        Some("offered"),
    ));
    assert_eq!(
        twice.reasons,
        ["the conversation's last request shows the note 2 times: it was shown again"]
    );
    let late = judge(&observed(
        vec![request(1, 0, 0), request(2, 1, 0), request(3, 2, 1)],
        Some("offered"),
    ));
    assert!(late.reasons[0].contains("a later request did"), "{late:?}");
    let early = judge(&observed(
        vec![request(1, 0, 1), request(2, 1, 1), request(3, 2, 1)],
        Some("offered"),
    ));
    assert!(early.reasons[0].contains("not sent mid-turn"), "{early:?}");
}

#[test]
fn a_queued_receipt_or_an_unsent_note_fails() {
    let queued = judge(&observed(
        vec![request(1, 0, 0), request(2, 1, 1)],
        Some("queued"),
    ));
    assert_eq!(queued.reasons, ["the receipt is queued, not offered"]);
    let mut unsent = observed(vec![request(1, 0, 0)], None);
    unsent.message = None;
    let verdict = judge(&unsent);
    assert_eq!(verdict.result, EvidenceResult::Fail);
    assert!(verdict.reasons[0].contains("never issued"), "{verdict:?}");
}

#[test]
fn only_the_turns_first_tool_call_triggers_the_note() {
    assert!(is_first_call("tool_use:Bash step=0"));
    assert!(is_first_call("functionCall:run_shell_command step=0"));
    assert!(!is_first_call("tool_use:Bash step=1"));
    assert!(!is_first_call("side_call_text step=0"));
    assert!(!is_first_call("text step=0"));
    assert!(!is_first_call("final_text"));
    assert_eq!(
        recipe(Scenario::SafePoint).candidates(),
        [Capability::SafePointInjection]
    );
    assert_eq!(
        recipe(Scenario::SafePoint).pinned_participant(),
        Some(AGENT)
    );
}
