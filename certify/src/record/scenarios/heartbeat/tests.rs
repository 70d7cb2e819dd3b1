//! The heartbeat judge on synthetic observations.

use super::*;
use crate::record::kit::observations::{
    HookFact, OBSERVATIONS_SCHEMA, OutcomeShape, RequestFact, RunFacts, SessionFact, StreamShape,
};
use crate::record::scenario::Scenario;
use crate::record::scenarios::expectations;
use crate::record::scenarios::judge as judge_scenario;
use acc_sdk::certification::EvidenceResult;

fn hook(event: &str, kind: &str, exit: i64) -> HookFact {
    HookFact {
        event: Some(event.into()),
        kind: Some(kind.into()),
        tool: None,
        refusal: None,
        payload_keys: Vec::new(),
        outcome: OutcomeShape {
            exit_code: Some(exit),
            stdout: StreamShape::Empty,
            stderr: StreamShape::Empty,
        },
    }
}

fn observed(hooks: Option<Vec<HookFact>>) -> Observations {
    Observations {
        schema_version: OBSERVATIONS_SCHEMA,
        scenario: Scenario::Heartbeat,
        adapter: "kimi-code".into(),
        client: "kimi-code".into(),
        version: "2.1.0".into(),
        platform: "linux-x64".into(),
        protocol: "anthropic-messages".into(),
        run: RunFacts {
            exit_code: Some(0),
            timed_out: false,
            network: Vec::new(),
        },
        expect: expectations(Scenario::Heartbeat),
        sessions: vec![SessionFact {
            participant_id: "kimi-code".into(),
            harness: "kimi-code".into(),
            state: "open".into(),
            adapter_id: Some("kimi-code".into()),
            client_name: None,
            client_version: None,
            end_reason: None,
            certify_candidates: Vec::new(),
        }],
        message: None,
        files: Vec::new(),
        requests: vec![RequestFact {
            n: 1,
            method: "POST".into(),
            path: "/v1/messages".into(),
            tool_results: Vec::new(),
            peer_blocks: Vec::new(),
            acc_lines: Vec::new(),
        }],
        hooks,
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
fn a_timer_hook_answered_by_acc_passes() {
    let obs = observed(Some(vec![
        hook("SessionStart", "sessionStart", 0),
        hook("SessionHeartbeat", "heartbeat", 0),
    ]));
    let verdicts = judge_scenario(Scenario::Heartbeat, &obs);
    assert_eq!(verdicts.len(), 1);
    assert_eq!(verdicts[0].capability, Capability::Heartbeat);
    assert_eq!(
        verdicts[0].result,
        EvidenceResult::Pass,
        "{:?}",
        verdicts[0]
    );
}

#[test]
fn no_timer_hook_fails_and_says_how_long_it_waited() {
    let verdict = judge(&observed(Some(vec![hook(
        "SessionStart",
        "sessionStart",
        0,
    )])));
    assert_eq!(verdict.result, EvidenceResult::Fail);
    assert_eq!(
        verdict.reasons,
        [
            "no hook fired on a timer while the client waited 90 s for its model: no heartbeat-kind invocation reached acc"
        ]
    );
}

#[test]
fn an_uncaptured_or_failing_heartbeat_or_no_session_fails() {
    assert_eq!(
        judge(&observed(None)).reasons,
        ["acc-hook's invocations were not captured"]
    );
    assert_eq!(
        judge(&observed(Some(vec![hook(
            "SessionHeartbeat",
            "heartbeat",
            1
        )])))
        .reasons,
        ["the heartbeat hook never exited 0"]
    );
    let mut alone = observed(Some(vec![hook("SessionHeartbeat", "heartbeat", 0)]));
    alone.sessions.clear();
    alone.requests.clear();
    assert_eq!(judge(&alone).reasons.len(), 2, "{:?}", judge(&alone));
}
