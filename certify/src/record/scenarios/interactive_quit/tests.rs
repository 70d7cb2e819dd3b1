//! The interactive-quit judge on synthetic observations: its pass and every fail path.

use super::*;
use crate::record::kit::observations::OBSERVATIONS_SCHEMA;
use crate::record::kit::observations::{HookFact, OutcomeShape, StreamShape};
use crate::record::kit::terminal::driver::driver;
use crate::record::scenario::Scenario;
use crate::record::scenarios::expectations;
use crate::record::scenarios::recipe;

fn hook(kind: &str) -> HookFact {
    HookFact {
        event: None,
        kind: Some(kind.into()),
        tool: None,
        refusal: None,
        payload_keys: Vec::new(),
        outcome: OutcomeShape {
            exit_code: Some(0),
            stdout: StreamShape::Empty,
            stderr: StreamShape::Empty,
        },
    }
}

fn status(state: &str, presence: &str) -> StatusFact {
    StatusFact {
        state: state.into(),
        presence: presence.into(),
    }
}

/// Codex after `/quit`: its app-server still runs and its session-end hook closed the
/// session.
fn ended() -> Observations {
    Observations {
        schema_version: OBSERVATIONS_SCHEMA,
        scenario: Scenario::InteractiveQuit,
        adapter: "codex".into(),
        client: "codex-cli".into(),
        version: "0.171.0".into(),
        platform: "linux-x64".into(),
        protocol: "openai-responses".into(),
        run: RunFacts {
            exit_code: None,
            timed_out: false,
            network: Vec::new(),
        },
        expect: expectations(Scenario::InteractiveQuit),
        sessions: Vec::new(),
        message: None,
        files: Vec::new(),
        requests: Vec::new(),
        hooks: Some(vec![hook("sessionStart"), hook("sessionEnd")]),
        control: None,
        live: None,
        idle: None,
        reply: None,
        quit: Some(QuitFacts {
            quit_command: "/quit".into(),
            session_opened: true,
            turn_ran: true,
            quit_typed: true,
            client_exited: true,
            shared_host: true,
            host_alive_at_status: Some(true),
            status_exit: Some(0),
            status: vec![status("closed", "offline")],
        }),
        detected_writes: Vec::new(),
        resume: None,
        children: None,
    }
}

fn facts(obs: &mut Observations) -> &mut QuitFacts {
    obs.quit.as_mut().unwrap()
}

#[test]
fn a_session_closed_by_the_clients_end_hook_while_the_host_runs_passes() {
    let verdict = judge(&ended());
    assert!(verdict.passed, "{:?}", verdict.reasons);
    assert_eq!(
        verdict.reasons,
        [
            "after /quit acc status showed the session no longer live: the client's own session-end hook closed it while its shared host still ran"
        ]
    );
}

#[test]
fn a_session_ended_without_the_hook_says_acc_found_the_client_gone() {
    let mut obs = ended();
    obs.hooks = Some(vec![hook("sessionStart")]);
    facts(&mut obs).shared_host = false;
    facts(&mut obs).host_alive_at_status = None;
    let verdict = judge(&obs);
    assert!(verdict.passed);
    assert!(verdict.reasons[0].ends_with("acc found the client gone"));
}

#[test]
fn a_session_still_open_and_online_after_the_quit_fails() {
    for presence in ["online", "stale"] {
        let mut obs = ended();
        facts(&mut obs).status = vec![status("open", presence)];
        let verdict = judge(&obs);
        assert!(!verdict.passed);
        assert_eq!(
            verdict.reasons,
            ["after /quit the session was still shown open and live by acc status"]
        );
    }
    // Open but offline (the host is gone) is not shown live.
    let mut obs = ended();
    facts(&mut obs).status = vec![status("open", "offline")];
    assert!(judge(&obs).passed);
}

#[test]
fn a_client_that_stays_after_the_quit_fails() {
    let mut obs = ended();
    facts(&mut obs).client_exited = false;
    let verdict = judge(&obs);
    assert!(!verdict.passed);
    assert_eq!(
        verdict.reasons,
        ["the client's terminal interface did not exit after /quit"]
    );
}

#[test]
fn no_session_no_turn_or_no_status_is_never_a_pass() {
    let mut obs = ended();
    let f = facts(&mut obs);
    f.session_opened = false;
    f.quit_typed = false;
    f.status = Vec::new();
    let verdict = judge(&obs);
    assert!(!verdict.passed);
    assert_eq!(
        verdict.reasons,
        ["the client's hooks opened no session in the interactive run"]
    );

    let mut obs = ended();
    facts(&mut obs).turn_ran = false;
    assert!(!judge(&obs).passed);

    let mut obs = ended();
    facts(&mut obs).status_exit = Some(2);
    assert_eq!(judge(&obs).reasons, ["acc status --json could not be read"]);

    let mut obs = ended();
    facts(&mut obs).status = Vec::new();
    assert_eq!(
        judge(&obs).reasons,
        ["acc status showed no session of the adapter"]
    );

    let mut obs = ended();
    obs.quit = None;
    assert!(!judge(&obs).passed);
}

#[test]
fn only_clients_with_a_driver_get_the_scenario() {
    assert_eq!(driver(Client::Codex).map(|d| d.quit), Some("/quit"));
    assert_eq!(driver(Client::GeminiCli).map(|d| d.quit), Some("/quit"));
    assert_eq!(driver(Client::ClaudeCode).map(|d| d.quit), Some("/exit"));
    assert!(driver(Client::Grok).is_none());
    assert!(recipe(Scenario::InteractiveQuit).applies_to("codex"));
    assert!(!recipe(Scenario::InteractiveQuit).applies_to("grok"));
    assert!(recipe(Scenario::InteractiveQuit).capabilities().is_empty());
    assert_eq!(
        "interactive-quit".parse::<Scenario>(),
        Ok(Scenario::InteractiveQuit)
    );
}

#[test]
fn facts_round_trip_through_observations_json() {
    let obs = ended();
    let text = serde_json::to_string(&obs).unwrap();
    assert!(
        text.contains("\"quit\":{\"quitCommand\":\"/quit\""),
        "{text}"
    );
    let back: Observations = serde_json::from_str(&text).unwrap();
    assert_eq!(back, obs);
}

#[test]
fn a_capture_that_left_localhost_fails_and_still_says_what_was_observed() {
    use crate::clients::network::{AttemptKind, NetworkAttempt};
    let mut obs = ended();
    obs.run.network = vec![NetworkAttempt {
        kind: AttemptKind::Proxy,
        target: "raw.githubusercontent.com:443".into(),
        refused: false,
    }];
    let verdict = judge(&obs);
    assert!(!verdict.passed);
    assert_eq!(verdict.reasons.len(), 2, "{:?}", verdict.reasons);
    assert!(verdict.reasons[0].starts_with(
        "the client tried to reach raw.githubusercontent.com:443 (asked of the proxy)"
    ));
    assert_eq!(
        verdict.reasons[1],
        "observed all the same: after /quit acc status showed the session no longer live: the client's own session-end hook closed it while its shared host still ran"
    );
}

/// Codex's terminal interface asks for its announcement tip at every start; inside the
/// recorder's loopback-only namespace that reaches nothing and does not decide the verdict.
#[test]
fn an_attempt_refused_offline_is_recorded_and_does_not_fail_the_capture() {
    use crate::clients::network::{AttemptKind, NetworkAttempt};
    let mut obs = ended();
    let passed = judge(&obs).passed;
    assert!(passed);
    obs.run.network = vec![NetworkAttempt {
        kind: AttemptKind::DnsQuery,
        target: "raw.githubusercontent.com".into(),
        refused: true,
    }];
    assert!(judge(&obs).passed, "{:?}", judge(&obs).reasons);
    assert_eq!(
        obs.run.refused(),
        ["raw.githubusercontent.com (DNS query, refused)"]
    );
    let text = serde_json::to_string(&obs).unwrap();
    assert!(text.contains("\"refused\":true"), "{text}");
    let back: Observations = serde_json::from_str(&text).unwrap();
    assert_eq!(back, obs);
}
