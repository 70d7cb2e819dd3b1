//! The live-wake judge on synthetic observations: the pass, and each way it fails.

use super::*;
use crate::record::kit::observations::OBSERVATIONS_SCHEMA;
use crate::record::kit::observations::RequestFact;
use crate::record::scenario::Scenario;
use crate::record::scenarios::expectations;

const ID: &str = "message_idle1";

fn request(n: u64, blocks: &[&str]) -> RequestFact {
    RequestFact {
        n,
        method: "POST".into(),
        path: "/v1/messages".into(),
        tool_results: Vec::new(),
        peer_blocks: blocks.iter().map(|b| b.to_string()).collect(),
        acc_lines: Vec::new(),
    }
}

fn phase(name: &str, id: &str, outcome: &str, reason: Option<&str>) -> LivePhase {
    LivePhase {
        name: name.into(),
        message_id: Some(id.into()),
        policy: if name == CONSENT_OFF { "off" } else { "all" }.into(),
        sender_exit: Some(0),
        sender_outcome: Some(outcome.into()),
        sender_reason: reason.map(str::to_owned),
        receipt_after_send: Some("queued".into()),
        receipt_while_busy: None,
        receipt_at_end: Some("queued".into()),
        offers: Vec::new(),
        requests_before: 0,
        requests_after: 0,
    }
}

fn passing() -> Observations {
    let mut idle = phase(IDLE, ID, "woken", None);
    idle.receipt_at_end = Some("offered".into());
    idle.offers = vec!["ok:next-turn".into()];
    idle.requests_after = 1;
    let mut busy = phase(BUSY, "message_busy", "woken", None);
    busy.receipt_while_busy = Some("queued".into());
    busy.receipt_at_end = Some("offered".into());
    busy.offers = vec!["ok:next-turn".into()];
    let mut cont = phase(CONTINUE, "message_cont", "notOffered", Some("delivery_off"));
    cont.receipt_while_busy = Some("queued".into());
    cont.receipt_at_end = Some("offered".into());
    cont.offers = vec!["ok:next-turn".into()];
    let mut killed = phase(
        KILLED,
        "message_killed",
        "failed",
        Some("native_session_unavailable"),
    );
    killed.offers = vec!["failed:native_session_unavailable".into()];
    killed.requests_before = 1;
    killed.requests_after = 1;
    Observations {
        schema_version: OBSERVATIONS_SCHEMA,
        scenario: Scenario::LiveWake,
        adapter: "claude-code".into(),
        client: "claude-code".into(),
        version: "2.1.332".into(),
        platform: "linux-x64".into(),
        protocol: "anthropic-messages".into(),
        run: RunFacts {
            exit_code: None,
            timed_out: false,
            network: Vec::new(),
        },
        expect: expectations(Scenario::LiveWake),
        sessions: Vec::new(),
        message: None,
        files: Vec::new(),
        requests: vec![
            request(1, &[&format!("from: peer\nmessageId: {ID}\nbody: …")]),
            request(2, &["messageId: message_busy"]),
            request(3, &["messageId: message_cont"]),
        ],
        hooks: None,
        control: None,
        live: Some(LiveFacts {
            bound: true,
            protocol_contract: Some("claude-code-inbox-socket-v1".into()),
            phases: vec![
                phase(
                    CONSENT_OFF,
                    "message_off",
                    "notOffered",
                    Some("delivery_off"),
                ),
                idle,
                busy,
                cont,
                killed,
            ],
        }),
        detected_writes: Vec::new(),
        resume: None,
        quit: None,
        children: None,
        idle: None,
        reply: None,
    }
}

fn failures(obs: &Observations) -> Vec<String> {
    let v = judge(obs);
    assert_eq!(v.capability, Capability::LivePush);
    match v.result {
        EvidenceResult::Pass => Vec::new(),
        _ => v.reasons,
    }
}

fn live(obs: &mut Observations) -> &mut LiveFacts {
    obs.live.as_mut().unwrap()
}

#[test]
fn a_woken_turn_that_shows_the_body_with_both_controls_holding_passes() {
    assert_eq!(failures(&passing()), Vec::<String>::new());
    // The verdict names no id or peer text.
    let v = judge(&passing());
    assert!(!v.reasons.join(" ").contains(ID));
}

#[test]
fn the_fenced_body_must_name_the_message_in_a_request_of_the_woken_turn() {
    let mut obs = passing();
    obs.requests[0].peer_blocks = vec!["messageId: message_other".into()];
    assert_eq!(
        failures(&obs),
        vec!["no model request of the woken turn showed the message in acc's peer block"]
    );
    // A request from before the send does not count.
    let mut obs = passing();
    live(&mut obs).phases[1].requests_before = 1;
    live(&mut obs).phases[1].requests_after = 1;
    assert!(failures(&obs).contains(&"the idle session ran no turn by itself".to_owned()));
}

#[test]
fn the_receipt_must_be_read_from_the_store_queued_then_offered() {
    let mut obs = passing();
    live(&mut obs).phases[1].receipt_at_end = Some("queued".into());
    live(&mut obs).phases[1].offers.clear();
    assert_eq!(
        failures(&obs),
        vec![
            "the receipt did not go from queued to offered",
            "no next-turn offer was recorded for the message"
        ]
    );
    let mut obs = passing();
    live(&mut obs).phases[1].receipt_after_send = Some("offered".into());
    assert_eq!(failures(&obs), vec!["the wake itself changed the receipt"]);
}

#[test]
fn consent_off_must_send_nothing() {
    let mut obs = passing();
    let off = &mut live(&mut obs).phases[0];
    off.sender_outcome = Some("woken".into());
    off.sender_reason = None;
    off.requests_after = 1;
    let f = failures(&obs);
    assert!(f.contains(&"with consent off a message still woke the session".to_owned()));
    assert!(f.contains(&"with consent off the sender was not told delivery_off".to_owned()));
}

#[test]
fn a_busy_session_must_keep_the_message_queued_until_a_later_turn_shows_it() {
    let mut obs = passing();
    live(&mut obs).phases[2].receipt_while_busy = Some("offered".into());
    assert_eq!(
        failures(&obs),
        vec!["the message was not left queued while the session was busy"]
    );
    let mut obs = passing();
    obs.requests.pop();
    live(&mut obs).phases[2].receipt_at_end = Some("queued".into());
    assert_eq!(failures(&obs).len(), 2);
}

#[test]
fn a_message_that_arrives_mid_turn_without_a_wake_is_shown_by_holding_the_turn_open() {
    let mut obs = passing();
    live(&mut obs).phases[3].receipt_at_end = Some("queued".into());
    assert_eq!(
        failures(&obs),
        vec!["the turn end did not hold the turn open to show the message"]
    );
    let mut obs = passing();
    obs.requests.pop();
    assert_eq!(
        failures(&obs),
        vec!["no model request of the held-open turn showed the message in acc's peer block"]
    );
    let mut obs = passing();
    live(&mut obs).phases[3].sender_outcome = Some("woken".into());
    live(&mut obs).phases[3].receipt_while_busy = Some("offered".into());
    assert_eq!(failures(&obs).len(), 2);
}

#[test]
fn a_killed_session_must_fail_the_offer_and_keep_the_message_queued() {
    let mut obs = passing();
    let killed = &mut live(&mut obs).phases[4];
    killed.sender_outcome = Some("woken".into());
    killed.offers.clear();
    killed.receipt_at_end = Some("offered".into());
    assert_eq!(failures(&obs).len(), 3);
}

#[test]
fn no_binding_or_missing_phases_fail_with_reasons() {
    let mut obs = passing();
    live(&mut obs).bound = false;
    live(&mut obs).phases.clear();
    let f = failures(&obs);
    assert_eq!(f[0], "the session's own hooks published no native binding");
    assert_eq!(f.len(), 6);
    obs.live = None;
    assert_eq!(failures(&obs), vec!["no live delivery facts were observed"]);
}

#[test]
fn a_client_that_tried_the_network_fails_the_capture_naming_the_host() {
    let mut obs = passing();
    obs.run.network = vec![crate::clients::network::NetworkAttempt {
        kind: crate::clients::network::AttemptKind::DnsQuery,
        target: "api.example.com".into(),
        refused: false,
    }];
    let why = failures(&obs).join("; ");
    assert!(why.contains("api.example.com"), "{why}");
}

#[test]
fn an_attempt_refused_offline_does_not_fail_the_capture() {
    let mut obs = passing();
    assert_eq!(failures(&obs), Vec::<String>::new());
    obs.run.network = vec![crate::clients::network::NetworkAttempt {
        kind: crate::clients::network::AttemptKind::Proxy,
        target: "raw.githubusercontent.com:443".into(),
        refused: true,
    }];
    assert_eq!(failures(&obs), Vec::<String>::new());
}

#[test]
fn a_phase_whose_sender_found_no_bound_session_says_so() {
    // Seen under load: a binding retired mid-run left the later sends with no live result;
    // the judge named it "offered live", which it was not.
    let mut obs = passing();
    live(&mut obs).phases[3].sender_outcome = None;
    live(&mut obs).phases[4].sender_outcome = None;
    assert_eq!(
        failures(&obs),
        vec![
            "continue: the sender found no bound session to offer the message to (no live result)",
            "killed: the sender found no bound session to offer the message to (no live result)",
        ]
    );
}
