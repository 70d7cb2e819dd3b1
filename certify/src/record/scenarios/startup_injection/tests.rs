//! The startup-injection judge on synthetic observations.

use super::*;
use crate::record::kit::observations::{
    HookFact, OBSERVATIONS_SCHEMA, OutcomeShape, RequestFact, RunFacts,
};
use crate::record::scenario::Scenario;
use crate::record::scenarios::expectations;
use crate::record::scenarios::recipe;

const PEERS: &str = "ACC peers here (address them with --to): peer";

fn hook(kind: &str, stdout: StreamShape) -> HookFact {
    HookFact {
        event: Some(kind.into()),
        kind: Some(kind.into()),
        tool: None,
        refusal: None,
        payload_keys: Vec::new(),
        outcome: OutcomeShape {
            exit_code: Some(0),
            stdout,
            stderr: StreamShape::Empty,
        },
    }
}

fn answered() -> StreamShape {
    StreamShape::Json {
        keys: vec!["hookSpecificOutput".into()],
    }
}

fn request(n: u64, acc_lines: &[&str]) -> RequestFact {
    RequestFact {
        n,
        method: "POST".into(),
        path: "/v1/messages".into(),
        tool_results: Vec::new(),
        peer_blocks: Vec::new(),
        acc_lines: acc_lines.iter().map(|l| (*l).to_owned()).collect(),
    }
}

/// A client whose start hook's answer reached its first request, the turn hook silent.
fn shown() -> Observations {
    Observations {
        schema_version: OBSERVATIONS_SCHEMA,
        scenario: Scenario::StartupInjection,
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
        expect: expectations(Scenario::StartupInjection),
        sessions: Vec::new(),
        message: None,
        files: Vec::new(),
        requests: vec![request(1, &["ACC you are: claude-code", PEERS])],
        hooks: Some(vec![
            hook("sessionStart", answered()),
            hook("beforeTurn", StreamShape::Empty),
        ]),
        control: None,
        live: None,
        resume: None,
        detected_writes: Vec::new(),
        quit: None,
        children: None,
        idle: None,
        reply: None,
    }
}

#[test]
fn the_start_hooks_peers_line_in_the_first_request_passes() {
    let verdict = crate::record::scenarios::judge(Scenario::StartupInjection, &shown());
    assert_eq!(verdict.len(), 1);
    assert!(verdict[0].passed(), "{:?}", verdict[0].reasons);
    assert_eq!(verdict[0].capability, Capability::StartupInjection);
}

#[test]
fn a_first_request_without_the_peers_line_fails() {
    let mut obs = shown();
    obs.requests = vec![
        request(1, &["ACC you are: claude-code"]),
        request(2, &[PEERS]),
    ];
    let verdict = judge(&obs);
    assert!(!verdict.passed());
    assert_eq!(
        verdict.reasons,
        ["the first model request does not show acc's peers line naming the peer present at start"]
    );
}

#[test]
fn text_a_before_turn_hook_answered_is_not_attributed_to_the_start_hook() {
    let mut obs = shown();
    obs.hooks = Some(vec![
        hook("sessionStart", StreamShape::Empty),
        hook("beforeTurn", answered()),
    ]);
    let verdict = judge(&obs);
    assert!(!verdict.passed());
    assert_eq!(
        verdict.reasons,
        [
            "the session-start hook answered nothing on stdout",
            "a before-turn hook answered too, so the text is not attributable to the session-start hook"
        ]
    );
    obs.hooks = None;
    assert!(judge(&obs).reasons[0].starts_with("acc-hook captured nothing"));
}

#[test]
fn the_peers_line_must_name_the_peer_itself() {
    assert!(names_peer(PEERS, "peer"));
    assert!(names_peer(
        "ACC peers here (address them with --to): codex, peer (+1 more in `acc status`)",
        "peer"
    ));
    assert!(!names_peer(
        "ACC peers here (address them with --to): peer-2",
        "peer"
    ));
    assert!(!names_peer("ACC you are: peer", "peer"));
}

#[test]
fn the_run_grants_startup_and_silences_the_turn_hook() {
    let s = recipe(Scenario::StartupInjection);
    assert_eq!(s.candidates(), [Capability::StartupInjection]);
    assert_eq!(s.withheld(), [Capability::BeforeTurnInjection]);
    assert!(s.has_peer());
    let env = s.environment(std::path::Path::new("/capture"));
    assert_eq!(env["ACC_CERTIFY_CANDIDATES"], "context.startupInjection");
    assert_eq!(env["ACC_CERTIFY_WITHHELD"], "context.beforeTurnInjection");
    let lifecycle = recipe(Scenario::Lifecycle).environment(std::path::Path::new("/c"));
    assert!(!lifecycle.contains_key("ACC_CERTIFY_WITHHELD"));
    // The next-turn verdicts stay the before-turn hook's: the start hook is kept silent.
    assert_eq!(
        recipe(Scenario::NextTurn).withheld(),
        [Capability::StartupInjection]
    );
    assert_eq!(
        recipe(Scenario::SoloControl).withheld(),
        recipe(Scenario::NextTurn).withheld()
    );
}
