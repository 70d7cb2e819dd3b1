//! The idle-prompt heartbeat judge on synthetic observations.

use super::*;
use crate::record::kit::observations::{OutcomeShape, RequestFact, SessionFact, StreamShape};
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

/// One turn, its end, then the idle notification: what a passing run captures.
fn turn_then_idle() -> Vec<HookFact> {
    vec![
        hook("SessionStart", "sessionStart", 0),
        hook("UserPromptSubmit", "beforeTurn", 0),
        hook("Stop", "turnEnd", 0),
        hook("Notification", "heartbeat", 0),
        hook("SessionEnd", "sessionEnd", 0),
    ]
}

fn facts() -> IdleFacts {
    IdleFacts {
        session_opened: true,
        turn_ran: true,
        idled: true,
        notification_types: vec!["idle_prompt".into()],
        requests_while_idle: 0,
        moved_before_beat: false,
        moved_by_beat: true,
        echo_beats: Some(0),
    }
}

fn observed(hooks: Option<Vec<HookFact>>, idle: IdleFacts) -> Observations {
    let tuple = crate::record::kit::tuple::Tuple {
        adapter: "claude-code".into(),
        client: "claude-code".into(),
        version: "2.1.332".into(),
        platform: "linux-x64".into(),
    };
    Observations {
        sessions: vec![SessionFact {
            participant_id: "claude-code".into(),
            harness: "claude-code".into(),
            state: "closed".into(),
            adapter_id: Some("claude-code".into()),
            client_name: None,
            client_version: None,
            end_reason: Some("prompt_input_exit".into()),
            certify_candidates: Vec::new(),
        }],
        requests: vec![RequestFact {
            n: 1,
            method: "POST".into(),
            path: "/v1/messages".into(),
            tool_results: Vec::new(),
            peer_blocks: Vec::new(),
            acc_lines: Vec::new(),
        }],
        hooks,
        idle: Some(idle),
        ..Observations::new(
            Scenario::Heartbeat,
            expectations(Scenario::Heartbeat),
            &tuple,
            crate::doubles::Protocol::AnthropicMessages,
            RunFacts {
                exit_code: None,
                timed_out: false,
                network: Vec::new(),
            },
        )
    }
}

fn reasons(obs: &Observations) -> Vec<String> {
    let verdicts = judge_scenario(Scenario::Heartbeat, obs);
    assert_eq!(verdicts.len(), 1);
    assert_eq!(verdicts[0].capability, Capability::Heartbeat);
    match verdicts[0].result {
        EvidenceResult::Pass => Vec::new(),
        EvidenceResult::Fail => verdicts[0].reasons.clone(),
    }
}

#[test]
fn an_idle_notification_after_the_turn_that_moved_the_heartbeat_passes() {
    assert_eq!(
        reasons(&observed(Some(turn_then_idle()), facts())),
        Vec::<String>::new()
    );
}

#[test]
fn no_beat_while_the_prompt_sat_idle_fails_and_says_how_long_it_waited() {
    let hooks = vec![
        hook("SessionStart", "sessionStart", 0),
        hook("UserPromptSubmit", "beforeTurn", 0),
        hook("Stop", "turnEnd", 0),
    ];
    let idle = IdleFacts {
        notification_types: Vec::new(),
        moved_by_beat: false,
        ..facts()
    };
    assert_eq!(
        reasons(&observed(Some(hooks), idle)),
        [
            "no heartbeat-kind invocation reached acc while the prompt sat idle up to 100 s after the turn"
        ]
    );
}

#[test]
fn a_beat_inside_a_turn_is_not_an_idle_beat() {
    let hooks = vec![
        hook("SessionStart", "sessionStart", 0),
        hook("UserPromptSubmit", "beforeTurn", 0),
        hook("Notification", "heartbeat", 0),
        hook("Stop", "turnEnd", 0),
        hook("UserPromptSubmit", "beforeTurn", 0),
        hook("Notification", "heartbeat", 0),
    ];
    assert!(beats_while_idle(&hooks, 0).is_empty());
    assert_eq!(reasons(&observed(Some(hooks), facts())).len(), 1);
    // After the turn's end, until the next turn or tool begins.
    let after = vec![
        hook("Stop", "turnEnd", 0),
        hook("Notification", "heartbeat", 0),
        hook("PreToolUse", "beforeTool", 0),
        hook("Notification", "heartbeat", 1),
    ];
    let beats = beats_while_idle(&after, 0);
    assert_eq!(beats.len(), 1);
    assert_eq!(beats[0].outcome.exit_code, Some(0));
}

/// One turn, its end, the notification the turn's end drew at once, then nothing.
fn turn_then_echo() -> (Vec<HookFact>, IdleFacts) {
    let idle = IdleFacts {
        moved_by_beat: false,
        echo_beats: Some(1),
        ..facts()
    };
    (turn_then_idle(), idle)
}

#[test]
fn a_notification_sent_as_the_turn_ends_is_its_echo_not_a_beat() {
    let (hooks, idle) = turn_then_echo();
    assert!(beats_while_idle(&hooks, 1).is_empty());
    assert_eq!(
        reasons(&observed(Some(hooks.clone()), idle.clone())),
        [
            "the only heartbeat-kind invocation after the turn came within 15 s of its end, an echo of the turn ending rather than a beat on idle, and none reached acc while the prompt then sat idle up to 100 s"
        ]
    );
    // Whether the echo moved the heartbeat or not (how soon it came is the machine's, not
    // the client's), the verdict is the same.
    let moved = IdleFacts {
        moved_by_beat: true,
        ..idle
    };
    assert_eq!(reasons(&observed(Some(hooks), moved)).len(), 1);
}

#[test]
fn a_beat_on_idle_after_the_echo_passes_and_is_the_one_judged() {
    let mut hooks = turn_then_idle();
    hooks.insert(4, hook("Notification", "heartbeat", 0));
    let idle = IdleFacts {
        echo_beats: Some(1),
        ..facts()
    };
    assert_eq!(
        reasons(&observed(Some(hooks.clone()), idle.clone())),
        Vec::<String>::new()
    );
    // The beat on idle is the one whose exit counts, not the echo's.
    hooks[3].outcome.exit_code = Some(0);
    hooks[4].outcome.exit_code = Some(1);
    assert_eq!(
        reasons(&observed(Some(hooks), idle)),
        ["the heartbeat hook never exited 0"]
    );
}

#[test]
fn a_bundle_recorded_before_echoes_were_told_apart_is_judged_as_it_was() {
    // The committed Qwen Code 0.24.4 bundle: the echo, no echo count, nothing moved.
    let (hooks, idle) = turn_then_echo();
    let old = IdleFacts {
        echo_beats: None,
        ..idle
    };
    let obs = observed(Some(hooks), old);
    assert_eq!(
        reasons(&obs),
        ["the heartbeat hook did not move the session's heartbeat time in acc's store"]
    );
    let text = serde_json::to_string(&obs).unwrap();
    assert!(!text.contains("echoBeats"), "{text}");
    let back: Observations = serde_json::from_str(&text).unwrap();
    assert_eq!(back, obs);
}

#[test]
fn a_beat_that_did_not_move_the_heartbeat_or_was_not_the_move_fails() {
    let unmoved = IdleFacts {
        moved_by_beat: false,
        ..facts()
    };
    assert_eq!(
        reasons(&observed(Some(turn_then_idle()), unmoved)),
        ["the heartbeat hook did not move the session's heartbeat time in acc's store"]
    );
    let moved_before = IdleFacts {
        moved_before_beat: true,
        ..facts()
    };
    assert_eq!(
        reasons(&observed(Some(turn_then_idle()), moved_before)),
        [
            "the session's heartbeat time moved during the idle before the heartbeat hook, so the move is not the hook's"
        ]
    );
}

#[test]
fn a_failing_beat_no_turn_or_no_capture_fails() {
    let mut failing = turn_then_idle();
    failing[3].outcome.exit_code = Some(1);
    assert_eq!(
        reasons(&observed(Some(failing), facts())),
        ["the heartbeat hook never exited 0"]
    );
    let no_turn = IdleFacts {
        turn_ran: false,
        idled: false,
        moved_by_beat: false,
        ..facts()
    };
    let mut obs = observed(Some(vec![hook("SessionStart", "sessionStart", 0)]), no_turn);
    obs.requests.clear();
    assert_eq!(
        reasons(&obs),
        ["the interactive session ran no turn with the model double"]
    );
    assert_eq!(
        reasons(&observed(None, facts())),
        ["acc-hook's invocations were not captured"]
    );
    let mut gone = observed(Some(turn_then_idle()), facts());
    gone.sessions.clear();
    assert_eq!(
        reasons(&gone),
        ["no session of the claude-code adapter reached acc's store"]
    );
}

#[test]
fn a_capture_that_left_localhost_is_no_evidence() {
    let mut obs = observed(Some(turn_then_idle()), facts());
    obs.run
        .network
        .push(crate::clients::network::NetworkAttempt {
            kind: crate::clients::network::AttemptKind::Connect,
            target: "203.0.113.9:443".into(),
            refused: false,
        });
    assert_eq!(reasons(&obs).len(), 1);
}

#[test]
fn the_facts_survive_a_bundle_round_trip() {
    let obs = observed(Some(turn_then_idle()), facts());
    let text = serde_json::to_string(&obs).unwrap();
    assert!(text.contains("\"echoBeats\":0"), "{text}");
    let back: Observations = serde_json::from_str(&text).unwrap();
    assert_eq!(back, obs);
    assert_eq!(reasons(&back), Vec::<String>::new());
}

#[test]
fn only_claude_code_drives_its_idle_prompt() {
    assert!(drives(Client::ClaudeCode));
    for other in [
        Client::Codex,
        Client::GeminiCli,
        Client::Grok,
        Client::KimiCode,
    ] {
        assert!(!drives(other), "{other}");
    }
}
