//! The judge on synthetic observations: every pass and fail path of every scenario.

use acc_sdk::capabilities::Capability;
use acc_sdk::certification::EvidenceResult;

use super::*;
use crate::record::kit::observations::{
    Expectations, FileFact, HookFact, MessageFact, OutcomeShape, RunFacts, SessionFact,
    StreamShape, ToolResultFact,
};
use crate::record::kit::observations::{OBSERVATIONS_SCHEMA, RequestFact};
use crate::record::output::bundle::OBSERVATIONS_FILE;
use crate::record::scenarios::expectations;
use crate::record::scenarios::solo_control::judge_control;

fn session(harness: &str, state: &str) -> SessionFact {
    SessionFact {
        participant_id: "claude-code-abc123".into(),
        harness: harness.into(),
        state: state.into(),
        adapter_id: Some(harness.into()).filter(|h: &String| h != "acc-certify"),
        client_name: None,
        client_version: None,
        end_reason: None,
        certify_candidates: Vec::new(),
    }
}

fn request(n: u64, path: &str) -> RequestFact {
    RequestFact {
        n,
        method: "POST".into(),
        path: path.into(),
        tool_results: Vec::new(),
        peer_blocks: Vec::new(),
        acc_lines: Vec::new(),
    }
}

fn result(text: &str) -> ToolResultFact {
    ToolResultFact {
        call_id: "toolu_1".into(),
        text: text.into(),
        is_error: true,
    }
}

fn base(scenario: Scenario) -> Observations {
    Observations {
        schema_version: OBSERVATIONS_SCHEMA,
        scenario,
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
        expect: expectations(scenario),
        sessions: Vec::new(),
        message: None,
        files: Vec::new(),
        requests: Vec::new(),
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

/// The only hook a client that never runs its session-end hook shows.
fn session_start_hook() -> HookFact {
    HookFact {
        event: Some("SessionStart".into()),
        kind: Some("sessionStart".into()),
        tool: None,
        refusal: None,
        payload_keys: vec![],
        outcome: OutcomeShape {
            exit_code: Some(0),
            stdout: StreamShape::Empty,
            stderr: StreamShape::Empty,
        },
    }
}

fn passing_lifecycle() -> Observations {
    let mut obs = base(Scenario::Lifecycle);
    let mut closed = session("claude-code", "closed");
    closed.end_reason = Some("other".into());
    obs.sessions = vec![closed];
    obs
}

fn passing_guard(scenario: Scenario) -> Observations {
    let mut obs = base(scenario);
    let target = recipe(scenario).claimed_target().unwrap();
    let reason = recipe(scenario).deny_reason().unwrap();
    obs.sessions = vec![
        session("acc-certify", "open"),
        session("claude-code", "closed"),
    ];
    obs.files = vec![
        FileFact {
            path: target.into(),
            exists: false,
            sha256: None,
        },
        FileFact {
            path: "free.txt".into(),
            exists: true,
            sha256: None,
        },
    ];
    let mut first = request(1, "/v1/messages");
    let mut second = request(2, "/v1/messages");
    second.tool_results = vec![result(&format!(
        "PreToolUse:Write hook error: {reason} (session session_1)"
    ))];
    let mut third = request(3, "/v1/messages");
    third.tool_results = vec![
        result(&format!(
            "PreToolUse:Write hook error: {reason} (session session_1)"
        )),
        result("File created successfully at: <ws>/free.txt"),
    ];
    first.tool_results.clear();
    obs.requests = vec![first, second, third];
    obs
}

fn passing_control() -> Observations {
    let mut obs = base(Scenario::SoloControl);
    obs.requests = vec![request(1, "/v1/messages")];
    obs
}

fn passing_next_turn() -> Observations {
    let mut obs = base(Scenario::NextTurn);
    obs.message = Some(MessageFact {
        message_id: "message_42".into(),
        recipient: "agent".into(),
        receipt_state: Some("offered".into()),
    });
    let mut first = request(1, "/v1/messages");
    first.peer_blocks =
        vec!["```acc-peer-message\nuntrusted peer message\nmessageId: message_42\n```".into()];
    first.acc_lines = vec!["ACC (load the acc skill):".into()];
    obs.requests = vec![request(0, "/v1/messages/count_tokens"), first];
    obs.control = Some(Box::new(passing_control()));
    obs
}

fn results(verdicts: &[Verdict]) -> Vec<(Capability, EvidenceResult)> {
    verdicts.iter().map(|v| (v.capability, v.result)).collect()
}

fn only(verdicts: Vec<Verdict>) -> Verdict {
    assert_eq!(verdicts.len(), 1, "{verdicts:?}");
    verdicts.into_iter().next().unwrap()
}

fn reasons(verdict: &Verdict) -> String {
    verdict.reasons.join(" | ")
}

#[test]
fn lifecycle_passes_when_the_hook_opened_and_closed_a_session() {
    let verdicts = judge(Scenario::Lifecycle, &passing_lifecycle());
    assert_eq!(
        results(&verdicts),
        [
            (Capability::SessionStart, EvidenceResult::Pass),
            (Capability::SessionEnd, EvidenceResult::Pass)
        ]
    );
    assert!(reasons(&verdicts[1]).contains("end reason kept: other"));
}

#[test]
fn lifecycle_end_fails_when_the_session_stays_open() {
    let mut obs = passing_lifecycle();
    obs.sessions = vec![session("claude-code", "open")];
    obs.hooks = Some(vec![session_start_hook()]);
    let verdicts = judge(Scenario::Lifecycle, &obs);
    assert_eq!(
        results(&verdicts),
        [
            (Capability::SessionStart, EvidenceResult::Pass),
            (Capability::SessionEnd, EvidenceResult::Fail)
        ]
    );
    let why = reasons(&verdicts[1]);
    assert!(why.contains("stayed open"), "{why}");
    assert!(why.contains("acc-hook saw no sessionEnd event"), "{why}");
}

#[test]
fn a_session_acc_closed_because_its_client_was_gone_does_not_certify_the_end_hook() {
    let mut obs = passing_lifecycle();
    obs.sessions[0].end_reason = None;
    obs.hooks = Some(vec![session_start_hook()]);
    let verdicts = judge(Scenario::Lifecycle, &obs);
    assert_eq!(verdicts[1].result, EvidenceResult::Fail);
    let why = reasons(&verdicts[1]);
    assert!(
        why.contains("closed by acc once the client process was gone"),
        "{why}"
    );
    assert!(!why.contains("stayed open"), "{why}");
}

#[test]
fn lifecycle_fails_both_without_any_session_of_the_adapter() {
    let mut obs = passing_lifecycle();
    // The recorder's own session and another adapter's do not count.
    obs.sessions = vec![session("acc-certify", "closed"), session("codex", "closed")];
    let verdicts = judge(Scenario::Lifecycle, &obs);
    assert_eq!(
        results(&verdicts),
        [
            (Capability::SessionStart, EvidenceResult::Fail),
            (Capability::SessionEnd, EvidenceResult::Fail)
        ]
    );
    assert!(reasons(&verdicts[0]).contains("did not reach acc"));
}

#[test]
fn guards_pass_when_blocked_explained_and_the_free_write_ran() {
    for (scenario, cap) in [
        (Scenario::GuardWrite, Capability::BeforeWrite),
        (Scenario::GuardShell, Capability::BeforeShell),
    ] {
        let verdict = only(judge(scenario, &passing_guard(scenario)));
        assert_eq!(
            (verdict.capability, verdict.result),
            (cap, EvidenceResult::Pass)
        );
    }
}

#[test]
fn a_guard_fails_when_the_claimed_file_was_written() {
    let mut obs = passing_guard(Scenario::GuardWrite);
    obs.files[0].exists = true;
    let verdict = only(judge(Scenario::GuardWrite, &obs));
    assert_eq!(verdict.result, EvidenceResult::Fail);
    assert!(
        reasons(&verdict).contains("src/x was created"),
        "{}",
        reasons(&verdict)
    );
}

#[test]
fn a_guard_fails_when_the_model_did_not_read_accs_reason() {
    let mut obs = passing_guard(Scenario::GuardShell);
    for r in &mut obs.requests {
        for t in &mut r.tool_results {
            t.text = t.text.replace("file:src/y is claimed by peer", "blocked");
        }
    }
    let verdict = only(judge(Scenario::GuardShell, &obs));
    assert_eq!(verdict.result, EvidenceResult::Fail);
    assert!(reasons(&verdict).contains("does not carry acc's reason"));
    // The reason in the *second* result (the free write) does not count for the first call.
    let mut obs = passing_guard(Scenario::GuardWrite);
    let last = obs.requests.last_mut().unwrap();
    last.tool_results.swap(0, 1);
    assert_eq!(
        only(judge(Scenario::GuardWrite, &obs)).result,
        EvidenceResult::Fail
    );
}

#[test]
fn a_guard_fails_without_any_tool_result() {
    let mut obs = passing_guard(Scenario::GuardWrite);
    obs.requests.truncate(1);
    let verdict = only(judge(Scenario::GuardWrite, &obs));
    assert!(reasons(&verdict).contains("sent no tool result back"));
}

#[test]
fn a_guard_fails_its_negative_control_when_the_free_write_did_not_happen() {
    let mut obs = passing_guard(Scenario::GuardWrite);
    obs.files[1].exists = false;
    let verdict = only(judge(Scenario::GuardWrite, &obs));
    assert_eq!(verdict.result, EvidenceResult::Fail);
    assert_eq!(
        verdict.reasons,
        ["negative control failed: the unclaimed free.txt was not written"]
    );
}

#[test]
fn tool_results_of_side_calls_are_not_the_conversation() {
    let mut obs = passing_guard(Scenario::GuardWrite);
    obs.protocol = "openai-chat-completions".into();
    for r in &mut obs.requests {
        r.path = "/v1/responses".into();
    }
    let verdict = only(judge(Scenario::GuardWrite, &obs));
    assert!(reasons(&verdict).contains("sent no tool result back"));
}

#[test]
fn next_turn_passes_with_the_block_an_offered_receipt_and_a_clean_control() {
    let verdicts = judge(Scenario::NextTurn, &passing_next_turn());
    assert_eq!(
        results(&verdicts),
        [
            (Capability::BeforeTurnInjection, EvidenceResult::Pass),
            (Capability::NextTurn, EvidenceResult::Pass)
        ]
    );
}

#[test]
fn next_turn_fails_when_the_first_request_lacks_the_block() {
    let mut obs = passing_next_turn();
    // The block arriving only in a later request is not next-turn delivery.
    let mut late = obs.requests[1].clone();
    late.n = 2;
    obs.requests[1].peer_blocks.clear();
    obs.requests.push(late);
    let verdicts = judge(Scenario::NextTurn, &obs);
    assert_eq!(
        results(&verdicts),
        [
            (Capability::BeforeTurnInjection, EvidenceResult::Fail),
            (Capability::NextTurn, EvidenceResult::Fail)
        ]
    );
    assert!(reasons(&verdicts[0]).contains("first model request does not contain"));
}

#[test]
fn next_turn_fails_when_the_block_names_another_message() {
    let mut obs = passing_next_turn();
    obs.message.as_mut().unwrap().message_id = "message_4".into();
    let verdicts = judge(Scenario::NextTurn, &obs);
    assert!(verdicts.iter().all(|v| !v.passed()));
}

#[test]
fn next_turn_delivery_fails_alone_when_the_receipt_stayed_queued() {
    let mut obs = passing_next_turn();
    obs.message.as_mut().unwrap().receipt_state = Some("queued".into());
    let verdicts = judge(Scenario::NextTurn, &obs);
    assert_eq!(
        results(&verdicts),
        [
            (Capability::BeforeTurnInjection, EvidenceResult::Pass),
            (Capability::NextTurn, EvidenceResult::Fail)
        ]
    );
    assert!(reasons(&verdicts[1]).contains("the receipt is queued, not offered"));
    obs.message.as_mut().unwrap().receipt_state = None;
    assert!(reasons(&judge(Scenario::NextTurn, &obs)[1]).contains("no longer listed"));
}

#[test]
fn a_failed_negative_control_fails_both_next_turn_verdicts() {
    let mut obs = passing_next_turn();
    let mut control = passing_control();
    control.requests[0].acc_lines = vec!["ACC: 1 peer participant(s) present.".into()];
    obs.control = Some(Box::new(control));
    let verdicts = judge(Scenario::NextTurn, &obs);
    assert!(verdicts.iter().all(|v| !v.passed()), "{verdicts:?}");
    assert!(reasons(&verdicts[0]).starts_with("negative control failed: 1 model request(s)"));
    obs.control = None;
    let verdicts = judge(Scenario::NextTurn, &obs);
    assert!(reasons(&verdicts[1]).contains("solo control was not observed"));
}

#[test]
fn the_control_passes_only_without_injection_and_with_a_model_request() {
    assert!(judge_control(&passing_control()).passed);
    assert!(judge(Scenario::SoloControl, &passing_control()).is_empty());
    let mut injected = passing_control();
    injected.requests[0].peer_blocks = vec!["```acc-peer-message\n```".into()];
    assert!(!judge_control(&injected).passed);
    // The identity lines every attached session gets are not peer text.
    let mut identified = passing_control();
    identified.requests[0].acc_lines = vec![
        "ACC CLI (append): --session session_1 --generation generation_1 --cwd '/w'".into(),
        "ACC you are: claude-code".into(),
    ];
    assert!(judge_control(&identified).passed);
    identified.requests[0]
        .acc_lines
        .push("ACC (load the acc skill):".into());
    assert!(!judge_control(&identified).passed);
    let mut silent = passing_control();
    silent.requests.clear();
    let verdict = judge_control(&silent);
    assert!(!verdict.passed);
    assert!(verdict.reasons[0].contains("made no model request"));
}

#[test]
fn mismatched_or_foreign_observations_fail_every_capability() {
    let obs = passing_lifecycle();
    let verdicts = judge(Scenario::GuardWrite, &obs);
    assert_eq!(
        results(&verdicts),
        [(Capability::BeforeWrite, EvidenceResult::Fail)]
    );
    assert!(reasons(&verdicts[0]).contains("scenario lifecycle, not guard-write"));
    let mut old = passing_lifecycle();
    old.schema_version = 0;
    assert!(judge(Scenario::Lifecycle, &old).iter().all(|v| !v.passed()));
    let mut blind = passing_guard(Scenario::GuardWrite);
    blind.expect = Expectations::default();
    assert_eq!(
        only(judge(Scenario::GuardWrite, &blind)).result,
        EvidenceResult::Fail
    );
}

#[test]
fn a_bundle_is_judged_again_from_its_observations_file() {
    let dir = tempfile::tempdir().unwrap();
    let obs = passing_next_turn();
    std::fs::write(
        dir.path().join(OBSERVATIONS_FILE),
        serde_json::to_vec_pretty(&obs).unwrap(),
    )
    .unwrap();
    assert_eq!(
        judge_bundle(dir.path()).unwrap(),
        judge(Scenario::NextTurn, &obs)
    );
    std::fs::write(
        dir.path().join(OBSERVATIONS_FILE),
        b"{\"schemaVersion\": 1}",
    )
    .unwrap();
    let err = judge_bundle(dir.path()).unwrap_err();
    assert_eq!(err.code(), "bundle.invalid");
    assert!(err.to_string().contains(OBSERVATIONS_FILE));
    let missing = judge_bundle(&dir.path().join("nope")).unwrap_err();
    assert_eq!(missing.code(), "bundle.unreadable");
}

#[test]
fn a_capture_that_left_127_0_0_1_fails_every_verdict_naming_the_target() {
    use crate::clients::network::{AttemptKind, NetworkAttempt};
    let attempts = vec![
        NetworkAttempt {
            kind: AttemptKind::DnsQuery,
            target: "chatgpt.example.com".into(),
            refused: false,
        },
        NetworkAttempt {
            kind: AttemptKind::Connect,
            target: "203.0.113.7:443".into(),
            refused: false,
        },
    ];
    let expected = "the client tried to reach chatgpt.example.com (DNS query), 203.0.113.7:443 (connect), but a recording runs offline and allows only 127.0.0.1: turn that feature off in the client's base configuration";
    for (scenario, mut obs) in [
        (Scenario::Lifecycle, passing_lifecycle()),
        (Scenario::GuardWrite, passing_guard(Scenario::GuardWrite)),
        (Scenario::NextTurn, passing_next_turn()),
    ] {
        assert!(
            judge(scenario, &obs).iter().all(Verdict::passed),
            "{scenario}"
        );
        obs.run.network = attempts.clone();
        let verdicts = judge(scenario, &obs);
        assert!(!verdicts.is_empty());
        for v in &verdicts {
            assert_eq!(v.result, EvidenceResult::Fail, "{scenario}");
            assert_eq!(v.reasons, [expected], "{scenario}");
        }
    }
    let mut control = passing_control();
    assert!(judge_control(&control).passed);
    control.run.network = attempts;
    let verdict = judge_control(&control);
    assert!(!verdict.passed);
    assert_eq!(verdict.reasons, [expected]);
}
