use super::*;
use crate::record::kit::observations::{RequestFact, RunFacts, SessionFact, ToolResultFact};
use crate::record::scenarios::coordinate::observations::{
    ClaimFact, CoordinationExpect, FileState, MessageFact, RunObservation, Side, StoreFacts,
};

const SHA: &str = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb";

fn session(participant: &str, adapter: &str, state: &str) -> SessionFact {
    SessionFact {
        participant_id: participant.into(),
        harness: adapter.into(),
        state: state.into(),
        adapter_id: Some(adapter.into()),
        client_name: None,
        client_version: None,
        end_reason: None,
        certify_candidates: Vec::new(),
    }
}

fn claim() -> ClaimFact {
    ClaimFact {
        resource: "file:src/**".into(),
        owner_participant_id: "claude-code".into(),
        enforcement: "guarded".into(),
    }
}

fn question() -> MessageFact {
    MessageFact {
        message_id: "message_q".into(),
        from_participant_id: "codex".into(),
        to_participant_ids: vec!["claude-code".into()],
        kind: "question".into(),
        in_reply_to: None,
    }
}

fn answer() -> MessageFact {
    MessageFact {
        message_id: "message_a".into(),
        from_participant_id: "claude-code".into(),
        to_participant_ids: vec!["codex".into()],
        kind: "answer".into(),
        in_reply_to: Some("message_q".into()),
    }
}

fn request(path: &str, results: Vec<ToolResultFact>, blocks: Vec<String>) -> RequestFact {
    RequestFact {
        n: 1,
        method: "POST".into(),
        path: path.into(),
        tool_results: results,
        peer_blocks: blocks,
        acc_lines: Vec::new(),
    }
}

fn facts(claims: Vec<ClaimFact>, messages: Vec<MessageFact>, sha: Option<&str>) -> StoreFacts {
    StoreFacts {
        sessions: vec![
            session("claude-code", "claude-code", "closed"),
            session("codex", "codex", "closed"),
        ],
        claims,
        messages,
        target: FileState {
            sha256: sha.map(str::to_owned),
        },
    }
}

fn run(turn: Turn, requests: Vec<RequestFact>, after: StoreFacts) -> RunObservation {
    RunObservation {
        turn,
        run: RunFacts {
            exit_code: Some(0),
            timed_out: false,
            network: Vec::new(),
        },
        requests,
        hooks: None,
        after,
    }
}

/// What a successful pair run of Claude Code (owner) and Codex (asker) leaves.
fn passing() -> CoordinationObservations {
    let refused = ToolResultFact {
        call_id: "c".into(),
        text: "Command blocked by PreToolUse hook".into(),
        is_error: true,
    };
    let block = "```acc-peer-message\nkind: question\nmessageId: message_q\nbody:\nmay I?\n```";
    CoordinationObservations {
        schema_version: COORDINATION_SCHEMA,
        platform: "linux-x64".into(),
        owner: Side {
            adapter: "claude-code".into(),
            client: "claude-code".into(),
            version: "2.1.332".into(),
            protocol: "anthropic-messages".into(),
        },
        asker: Side {
            adapter: "codex".into(),
            client: "codex-cli".into(),
            version: "0.171.0".into(),
            protocol: "openai-responses".into(),
        },
        expect: CoordinationExpect {
            resource: "file:src/**".into(),
            target: "src/x".into(),
            target_sha256: SHA.into(),
        },
        runs: vec![
            run(
                Turn::OwnerClaims,
                vec![request("/v1/messages", vec![], vec![])],
                facts(vec![claim()], vec![], None),
            ),
            run(
                Turn::AskerWrites,
                vec![
                    request("/v1/responses", vec![], vec![]),
                    request("/v1/responses", vec![refused], vec![]),
                ],
                facts(vec![claim()], vec![question()], None),
            ),
            run(
                Turn::OwnerAnswers,
                vec![request("/v1/messages", vec![], vec![block.into()])],
                facts(vec![], vec![question(), answer()], None),
            ),
            run(
                Turn::AskerWritesAgain,
                vec![request("/v1/responses", vec![], vec![])],
                facts(vec![], vec![question(), answer()], Some(SHA)),
            ),
        ],
    }
}

fn failed(verdict: &CoordinationVerdict) -> Vec<Step> {
    verdict
        .steps
        .iter()
        .filter(|s| !s.passed)
        .map(|s| s.step)
        .collect()
}

fn after(obs: &mut CoordinationObservations, turn: Turn) -> &mut StoreFacts {
    &mut obs.runs.iter_mut().find(|r| r.turn == turn).unwrap().after
}

#[test]
fn a_full_coordination_passes_every_step() {
    let verdict = judge(&passing());
    assert!(verdict.passed, "{verdict:#?}");
    assert_eq!(
        verdict.steps.iter().map(|s| s.step).collect::<Vec<_>>(),
        Step::ALL
    );
    assert_eq!(verdict.first_failure(), None);
}

#[test]
fn without_an_identity_nothing_after_the_claim_can_pass() {
    // What the runtime did before every session got its identity line: no claim, the
    // asker's write went through, nobody asked.
    let mut obs = passing();
    for turn in Turn::ALL {
        let facts = after(&mut obs, turn);
        facts.claims.clear();
        facts.messages.clear();
        facts.target.sha256 = (turn != Turn::OwnerClaims).then(|| SHA.to_owned());
    }
    obs.runs[1].requests[1].tool_results[0].is_error = false;
    let verdict = judge(&obs);
    assert!(!verdict.passed);
    assert_eq!(failed(&verdict), Step::ALL[..6]);
    assert_eq!(verdict.first_failure().unwrap().step, Step::Claimed);
    assert!(verdict.steps[0].reasons[0].contains("holds no live claim on file:src/**"));
}

#[test]
fn a_claim_that_outlives_its_session_unreleased_fails_the_release_and_the_write() {
    let mut obs = passing();
    after(&mut obs, Turn::OwnerAnswers).claims.push(claim());
    let again = after(&mut obs, Turn::AskerWritesAgain);
    again.claims.push(claim());
    again.target.sha256 = None;
    let verdict = judge(&obs);
    assert_eq!(failed(&verdict), [Step::Released, Step::Wrote]);
    assert!(verdict.steps[5].reasons[0].contains("still holds its claim"));
}

#[test]
fn a_claim_or_message_of_the_wrong_participant_does_not_count() {
    let mut obs = passing();
    let mut stranger = claim();
    stranger.owner_participant_id = "someone".into();
    after(&mut obs, Turn::OwnerClaims).claims = vec![stranger.clone()];
    after(&mut obs, Turn::AskerWrites).claims = vec![stranger];
    let mut advisory = question();
    advisory.to_participant_ids = vec!["someone".into()];
    after(&mut obs, Turn::AskerWrites).messages = vec![advisory];
    let verdict = judge(&obs);
    assert_eq!(
        failed(&verdict),
        [
            Step::Claimed,
            Step::Refused,
            Step::Asked,
            Step::Shown,
            Step::Answered
        ]
    );
}

#[test]
fn an_advisory_claim_an_unshown_question_and_foreign_bytes_fail() {
    let mut obs = passing();
    after(&mut obs, Turn::OwnerClaims).claims[0].enforcement = "advisory".into();
    obs.runs[2].requests[0].peer_blocks.clear();
    after(&mut obs, Turn::AskerWritesAgain).target.sha256 = Some("0".repeat(64));
    let verdict = judge(&obs);
    assert_eq!(failed(&verdict), [Step::Claimed, Step::Shown, Step::Wrote]);
    assert!(verdict.steps[0].reasons[0].contains("advisory, not guarded"));
    assert!(verdict.steps[6].reasons[0].contains("does not hold the asker's bytes"));
}

#[test]
fn a_write_before_the_release_fails_even_when_the_end_looks_right() {
    let mut obs = passing();
    after(&mut obs, Turn::AskerWrites).target.sha256 = Some(SHA.into());
    let verdict = judge(&obs);
    assert_eq!(failed(&verdict), [Step::Refused]);
}

#[test]
fn missing_runs_and_other_schemas_fail_with_the_reason() {
    let mut obs = passing();
    obs.runs.truncate(2);
    let verdict = judge(&obs);
    assert_eq!(
        failed(&verdict),
        [Step::Shown, Step::Answered, Step::Released, Step::Wrote]
    );
    assert!(verdict.steps[6].reasons[0].contains("asker-writes-again run was not observed"));
    let mut obs = passing();
    obs.schema_version = 99;
    let verdict = judge(&obs);
    assert_eq!(failed(&verdict), Step::ALL);
    assert!(verdict.steps[0].reasons[0].contains("schema 99"));
}

#[test]
fn a_run_that_left_127_0_0_1_fails_every_step_naming_the_run_and_the_target() {
    use crate::clients::network::{AttemptKind, NetworkAttempt};
    let mut obs = passing();
    let run = obs
        .runs
        .iter_mut()
        .find(|r| r.turn == Turn::OwnerAnswers)
        .unwrap();
    run.run.network = vec![NetworkAttempt {
        kind: AttemptKind::Proxy,
        target: "plugins.example.com:443".into(),
        refused: false,
    }];
    let verdict = judge(&obs);
    assert_eq!(failed(&verdict), Step::ALL.to_vec());
    for step in &verdict.steps {
        assert_eq!(
            step.reasons,
            [format!(
                "the {} run: the client tried to reach plugins.example.com:443 (asked of the proxy), but a recording runs offline and allows only 127.0.0.1: turn that feature off in the client's base configuration",
                Turn::OwnerAnswers.name()
            )]
        );
    }
}
