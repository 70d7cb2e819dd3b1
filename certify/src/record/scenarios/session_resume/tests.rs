//! The session-resume judge on synthetic observations.

use super::*;
use crate::record::kit::observations::OBSERVATIONS_SCHEMA;
use crate::record::scenario::Scenario;
use crate::record::scenarios::expectations;
use crate::record::scenarios::recipe;

fn session(label: &str, participant: &str, state: &str) -> ResumeSession {
    ResumeSession {
        label: label.into(),
        participant_id: participant.into(),
        state: state.into(),
    }
}

fn run(sessions: Vec<ResumeSession>, client: &str) -> ResumeRun {
    ResumeRun {
        run: RunFacts {
            exit_code: Some(0),
            timed_out: false,
            network: Vec::new(),
        },
        conversation_requests: 1,
        carries_first_answer: true,
        hook_kinds: vec![
            "sessionStart".into(),
            "beforeTurn".into(),
            "sessionEnd".into(),
        ],
        client_sessions: vec![client.into()],
        sessions,
    }
}

/// A client whose first session ended at exit and whose resumed conversation came back as
/// `codex-2` in a new session.
fn resumed() -> Observations {
    Observations {
        schema_version: OBSERVATIONS_SCHEMA,
        scenario: Scenario::SessionResume,
        adapter: "codex".into(),
        client: "codex-cli".into(),
        version: "0.171.0".into(),
        platform: "linux-x64".into(),
        protocol: "openai-responses".into(),
        run: RunFacts {
            exit_code: Some(0),
            timed_out: false,
            network: Vec::new(),
        },
        expect: expectations(Scenario::SessionResume),
        sessions: Vec::new(),
        message: None,
        files: Vec::new(),
        requests: Vec::new(),
        hooks: None,
        control: None,
        live: None,
        resume: Some(ResumeFacts {
            held_name: "codex".into(),
            first: run(vec![session("s1", "codex-2", "closed")], "c1"),
            second: run(
                vec![
                    session("s1", "codex-2", "closed"),
                    session("s2", "codex-2", "closed"),
                ],
                "c1",
            ),
        }),
        detected_writes: Vec::new(),
        quit: None,
        children: None,
        idle: None,
        reply: None,
    }
}

fn facts(obs: &mut Observations) -> &mut ResumeFacts {
    obs.resume.as_mut().unwrap()
}

#[test]
fn a_conversation_that_comes_back_as_its_participant_passes() {
    let verdicts = crate::record::scenarios::judge(Scenario::SessionResume, &resumed());
    assert_eq!(verdicts.len(), 1);
    assert!(verdicts[0].passed(), "{:?}", verdicts[0].reasons);
    assert!(verdicts[0].reasons[0].contains("one new session"));
}

#[test]
fn the_same_open_session_resumed_passes() {
    let mut obs = resumed();
    let f = facts(&mut obs);
    f.first.sessions = vec![session("s1", "codex-2", "open")];
    f.second.sessions = vec![session("s1", "codex-2", "open")];
    let verdict = judge(&obs);
    assert!(verdict.passed(), "{:?}", verdict.reasons);
    assert!(verdict.reasons[0].contains("no session was added"));
}

#[test]
fn a_fresh_participant_fails_and_names_the_new_client_session_id() {
    let mut obs = resumed();
    let f = facts(&mut obs);
    f.second.sessions[1] = session("s2", "codex", "closed");
    f.second.client_sessions = vec!["c2".into()];
    let verdict = judge(&obs);
    assert!(!verdict.passed());
    assert_eq!(
        verdict.reasons,
        [
            "the resumed run acted as codex (the name a new conversation gets), not as codex-2, the first run's participant: acc did not recognise the conversation",
            "the client gave the resumed conversation a new session id, so acc could not find the first run's binding"
        ]
    );
}

#[test]
fn a_second_session_beside_an_open_one_is_a_duplicate() {
    let mut obs = resumed();
    let f = facts(&mut obs);
    f.first.sessions = vec![session("s1", "codex-2", "open")];
    f.second.sessions = vec![
        session("s1", "codex-2", "open"),
        session("s2", "codex-2", "open"),
        session("s3", "codex-2", "open"),
    ];
    let verdict = judge(&obs);
    assert_eq!(
        verdict.reasons,
        [
            "the resumed run opened 2 sessions for one conversation",
            "the first run's session was still open, but the resumed run opened another one"
        ]
    );
}

#[test]
fn a_run_that_did_not_resume_the_history_or_reach_acc_fails() {
    let mut obs = resumed();
    let f = facts(&mut obs);
    f.second.carries_first_answer = false;
    f.second.hook_kinds = vec!["beforeTool".into()];
    f.second.sessions.pop();
    let verdict = judge(&obs);
    assert_eq!(
        verdict.reasons,
        [
            "the client did not resume the conversation: the resumed run's first model request does not carry the first run's answer",
            "no session-start or before-turn hook of the resumed run reached acc"
        ]
    );
    let mut obs = resumed();
    facts(&mut obs).first.sessions.clear();
    assert_eq!(
        judge(&obs).reasons,
        ["the first run opened no session of the codex adapter"]
    );
    obs.resume = None;
    assert!(!judge(&obs).passed());
}

#[test]
fn labels_name_ids_by_first_appearance() {
    let mut labels = Labels::default();
    assert_eq!(labels.label("s", "session_b"), "s1");
    assert_eq!(labels.label("s", "session_a"), "s2");
    assert_eq!(labels.label("s", "session_b"), "s1");
}

#[test]
fn each_client_resumes_with_its_own_flag() {
    let claude = resume_args(Client::ClaudeCode, "go");
    assert!(claude.contains(&"--continue".to_owned()));
    let codex = resume_args(Client::Codex, "go");
    let at = codex.iter().position(|a| a == "resume").unwrap();
    assert_eq!(codex[at + 1..], ["--last", "go"]);
    assert!(resume_args(Client::GeminiCli, "go").ends_with(&["--resume".into(), "latest".into()]));
    assert_eq!(
        recipe(Scenario::SessionResume).capabilities(),
        [Capability::SessionResume]
    );
    assert!(recipe(Scenario::SessionResume).candidates().is_empty());
}
