use std::process::Command;

use super::*;
use crate::doubles::Protocol;
use crate::record::kit::observations::{
    OBSERVATIONS_SCHEMA, RequestFact, RunFacts, SessionFact,
};
use crate::record::kit::verdict::Verdict;
use acc_sdk::certification::EvidenceResult;

const THREAD: &str = "thread_q";
const ANSWER: &str = "message_a";

fn block(message: &str, thread: &str) -> String {
    format!(
        "```acc-peer-message\nuntrusted peer message\nkind: answer\nthreadId: {thread}\nmessageId: {message}\nbody:\nRebase onto main.\n```"
    )
}

fn session(harness: &str, participant: &str, state: &str) -> SessionFact {
    SessionFact {
        participant_id: participant.into(),
        harness: harness.into(),
        state: state.into(),
        adapter_id: (harness == "claude-code").then(|| harness.to_owned()),
        client_name: None,
        client_version: None,
        end_reason: None,
        certify_candidates: Vec::new(),
    }
}

fn passing() -> Observations {
    let tuple = crate::record::kit::tuple::Tuple {
        adapter: "claude-code".into(),
        client: "claude-code".into(),
        version: "2.1.332".into(),
        platform: "linux-x64".into(),
    };
    let mut obs = Observations::new(
        Scenario::ReplyRoute,
        ReplyRoute.expectations(),
        &tuple,
        Protocol::AnthropicMessages,
        RunFacts {
            exit_code: Some(0),
            timed_out: false,
            network: Vec::new(),
        },
    );
    obs.sessions = vec![
        session(ASKING_HARNESS, AGENT, "closed"),
        session("claude-code", AGENT, "closed"),
        session("acc-certify", PEER, "open"),
    ];
    obs.requests = vec![RequestFact {
        n: 1,
        method: "POST".into(),
        path: "/v1/messages".into(),
        tool_results: Vec::new(),
        peer_blocks: vec![block(ANSWER, THREAD)],
        acc_lines: Vec::new(),
    }];
    obs.message = Some(MessageFact {
        message_id: ANSWER.into(),
        recipient: AGENT.into(),
        receipt_state: Some("offered".into()),
    });
    obs.reply = Some(ReplyFacts {
        question_id: "message_q".into(),
        question_thread: THREAD.into(),
        question_session_state: Some("closed".into()),
        answer_id: ANSWER.into(),
        answer_thread: THREAD.into(),
        answer_in_reply_to: Some("message_q".into()),
        answer_to: vec![AGENT.into()],
    });
    obs
}

fn verdict(obs: &Observations) -> Verdict {
    let verdicts = crate::record::scenarios::judge(Scenario::ReplyRoute, obs);
    assert_eq!(verdicts.len(), 1);
    verdicts.into_iter().next().unwrap()
}

fn fails_with(obs: &Observations, reason: &str) {
    let verdict = verdict(obs);
    assert_eq!(verdict.result, EvidenceResult::Fail, "{verdict:?}");
    assert!(
        verdict.reasons.iter().any(|r| r.contains(reason)),
        "{reason:?} not in {:?}",
        verdict.reasons
    );
}

#[test]
fn an_answer_shown_once_in_its_thread_and_offered_passes() {
    let verdict = verdict(&passing());
    assert_eq!(verdict.result, EvidenceResult::Pass, "{verdict:?}");
    assert_eq!(verdict.capability, Capability::ReplyRoute);
}

#[test]
fn an_answer_missing_repeated_or_in_another_thread_fails() {
    let mut obs = passing();
    obs.requests[0].peer_blocks.clear();
    fails_with(&obs, "does not contain the fenced acc-peer-message block");

    let mut obs = passing();
    obs.requests[0].peer_blocks.push(block(ANSWER, THREAD));
    fails_with(&obs, "shows the answer 2 times");

    let mut obs = passing();
    obs.requests[0].peer_blocks = vec![block(ANSWER, "thread_other")];
    fails_with(&obs, "does not name the question's thread");

    let mut obs = passing();
    obs.reply.as_mut().unwrap().answer_thread = "thread_other".into();
    fails_with(&obs, "not in the question's thread");
}

#[test]
fn a_queued_receipt_an_open_asker_or_no_new_session_fails() {
    let mut obs = passing();
    obs.message.as_mut().unwrap().receipt_state = Some("queued".into());
    fails_with(&obs, "receipt is queued, not offered");

    let mut obs = passing();
    obs.reply.as_mut().unwrap().question_session_state = Some("open".into());
    fails_with(&obs, "not closed");

    let mut obs = passing();
    obs.sessions.retain(|s| s.harness != "claude-code");
    fails_with(&obs, "opened no session acting as agent");

    let mut obs = passing();
    obs.reply = None;
    fails_with(&obs, "no answer for the agent");
}

#[test]
fn observations_of_another_schema_fail() {
    let mut obs = passing();
    obs.schema_version = OBSERVATIONS_SCHEMA + 1;
    assert_eq!(verdict(&obs).result, EvidenceResult::Fail);
}

#[test]
fn the_room_asks_from_a_session_it_ends_and_the_answer_waits_in_the_thread() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    std::fs::create_dir_all(&ws).unwrap();
    let ok = Command::new("git")
        .args(["init", "-q"])
        .current_dir(&ws)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .status()
        .unwrap();
    assert!(ok.success());
    let data = dir.path().join("data");
    let mut core = room::open_core(&ws, &data).unwrap();
    let room = answered_question(&mut core).unwrap();
    let (message, reply) = observe_reply(&mut core).unwrap();
    let (message, reply) = (message.unwrap(), reply.unwrap());
    assert_eq!(
        Some(message.message_id.as_str()),
        room.message.as_ref().map(|m| m.as_str())
    );
    assert_eq!(message.receipt_state.as_deref(), Some("queued"));
    assert_eq!(reply.question_session_state.as_deref(), Some("closed"));
    assert_eq!(reply.answer_thread, reply.question_thread);
    assert_eq!(
        reply.answer_in_reply_to.as_deref(),
        Some(reply.question_id.as_str())
    );
    assert_eq!(reply.answer_to, [AGENT]);
    // Reading the receipt leaves it as it was, and the reader's session is closed again.
    let (again, _) = observe_reply(&mut core).unwrap();
    assert_eq!(again.unwrap().receipt_state.as_deref(), Some("queued"));
    let open: Vec<String> = room::sessions(&mut core)
        .unwrap()
        .into_iter()
        .filter(|s| s.state == "open")
        .map(|s| s.participant_id)
        .collect();
    assert_eq!(open, [PEER]);
}
