use std::process::Command;

use super::*;
use crate::record::scenario::PEER;
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
        session("claude-code", AGENT, "closed"),
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
        question_session_harness: Some("claude-code".into()),
        question_session_state_when_answered: Some("closed".into()),
        asking_run: None,
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
    obs.reply.as_mut().unwrap().question_session_state_when_answered = Some("open".into());
    fails_with(&obs, "was open when the peer answered, not closed");

    // A client that tells acc nothing at its exit: its run ended, acc closed the session
    // when the participant came back.
    let mut obs = passing();
    let reply = obs.reply.as_mut().unwrap();
    reply.question_session_state_when_answered = Some("open".into());
    reply.asking_run = Some(AskingRun {
        exit_code: Some(0),
        timed_out: false,
        tool_results: Vec::new(),
    });
    assert_eq!(verdict(&obs).result, EvidenceResult::Pass);
    let reply = obs.reply.as_mut().unwrap();
    reply.asking_run.as_mut().unwrap().timed_out = true;
    fails_with(&obs, "was open when the peer answered");
    let reply = obs.reply.as_mut().unwrap();
    reply.asking_run.as_mut().unwrap().timed_out = false;
    reply.question_session_state = Some("open".into());
    fails_with(&obs, "was open when the peer answered");

    let mut obs = passing();
    obs.sessions.remove(0);
    fails_with(&obs, "opened no session acting as agent");

    let mut obs = passing();
    obs.reply = None;
    fails_with(&obs, "no answer to the agent was observed");
}

#[test]
fn a_question_the_cli_asked_instead_of_the_client_fails() {
    let mut obs = passing();
    obs.reply.as_mut().unwrap().question_session_harness = Some(CLI_HARNESS.into());
    fails_with(&obs, "the question came from a session of cli");

    let mut obs = passing();
    obs.reply.as_mut().unwrap().question_session_harness = None;
    fails_with(&obs, "no session that asked");
}

#[test]
fn observations_of_another_schema_fail() {
    let mut obs = passing();
    obs.schema_version = OBSERVATIONS_SCHEMA + 1;
    assert_eq!(verdict(&obs).result, EvidenceResult::Fail);
}

fn store() -> (tempfile::TempDir, Core) {
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
    let core = room::open_core(&ws, &dir.path().join("data")).unwrap();
    (dir, core)
}

/// A session of `harness` acting as the agent asks the peer, and ends.
fn ask_and_end(core: &mut Core, harness: &str) {
    use acc_runtime::core::messages::SendMessage;
    use acc_runtime::core::sessions::OpenSession;
    use acc_runtime::ids::ParticipantId;
    let asking = core
        .open_session(OpenSession::new(
            ParticipantId::parse(AGENT).unwrap(),
            harness,
            30_000,
        ))
        .unwrap();
    let asking = acc_runtime::Owner::new(asking.session_id, asking.generation);
    core.send(
        &asking,
        SendMessage {
            to: vec![PEER.to_owned()],
            kind: MessageKind::Question,
            obligation: None,
            subject: QUESTION_SUBJECT.to_owned(),
            body: QUESTION_BODY.to_owned(),
            client_message_id: None,
        },
    )
    .unwrap();
    core.close_session(&asking, None).unwrap();
}

#[test]
fn the_peer_answers_the_question_the_client_asked_in_its_thread_and_the_answer_waits() {
    let (_dir, mut core) = store();
    let peer = room::attach_as(&mut core, PEER).unwrap();
    ask_and_end(&mut core, "claude-code");
    let asked = run::answer_question(&mut core, &peer).unwrap();
    assert_eq!(asked.session_harness.as_deref(), Some("claude-code"));
    assert_eq!(asked.session_state.as_deref(), Some("closed"));
    let (message, reply) = observe_reply(&mut core, &asked).unwrap();
    let (message, reply) = (message.unwrap(), reply.unwrap());
    assert_eq!(Some(&message.message_id), asked.answer.as_ref().map(|a| a.to_string()).as_ref());
    assert_eq!(message.receipt_state.as_deref(), Some("queued"));
    assert_eq!(reply.question_session_state.as_deref(), Some("closed"));
    assert_eq!(reply.answer_thread, reply.question_thread);
    assert_eq!(
        reply.answer_in_reply_to.as_deref(),
        Some(reply.question_id.as_str())
    );
    assert_eq!(reply.answer_to, [AGENT]);
    // Reading the receipt leaves it as it was, and the reader's session is closed again.
    let (again, _) = observe_reply(&mut core, &asked).unwrap();
    assert_eq!(again.unwrap().receipt_state.as_deref(), Some("queued"));
    let open: Vec<String> = room::sessions(&mut core)
        .unwrap()
        .into_iter()
        .filter(|s| s.state == "open")
        .map(|s| s.participant_id)
        .collect();
    assert_eq!(open, [PEER]);
}

#[test]
fn without_a_question_nothing_is_answered_and_nothing_is_observed() {
    let (_dir, mut core) = store();
    let peer = room::attach_as(&mut core, PEER).unwrap();
    let asked = run::answer_question(&mut core, &peer).unwrap();
    assert!(asked.question.is_none() && asked.answer.is_none());
    assert_eq!(observe_reply(&mut core, &asked).unwrap(), (None, None));
}
