//! Answers at the next turn go the way the adapter's reply route says: the declared
//! `route_reply` is what routes them, through the in-process hook runtime.

mod hook_support;

use acc_runtime::core::messages::SendMessage;
use acc_runtime::core::model::{MessageKind, ReceiptState};
use acc_sdk::adapter::{ReplyRoute, ReplyRouting, RouteOutcome};
use acc_sdk::capabilities::Capability;
use acc_sdk::define::Adapter;
use acc_sdk::reply_route::NextTurnReplies;
use hook_support::*;

const ANSWER: &str = "Rebase onto main; the refactor landed there.";

struct Refuses;
impl ReplyRoute for Refuses {
    fn route_reply(&self, _reply: &ReplyRouting) -> RouteOutcome {
        RouteOutcome {
            routed: false,
            reason_code: Some("route_closed".into()),
        }
    }
}
static REFUSES: Refuses = Refuses;
static NEXT_TURN: NextTurnReplies = NextTurnReplies;

const CAPS: [Capability; 2] = [Capability::NextTurn, Capability::ReplyRoute];

fn refusing() -> Adapter {
    adapter_routing(&CAPS, Some(&REFUSES))
}

fn next_turn() -> Adapter {
    adapter_routing(&CAPS, Some(&NEXT_TURN))
}

/// The hooked conversation `conv` asked `peer` a question, and `peer` answered. Returns the
/// core, the conversation's owner and the answer's id.
fn answered(
    sb: &Sandbox,
    adapter: fn() -> Adapter,
) -> (acc_runtime::Core, acc_runtime::Owner, String) {
    hook(
        sb.settings(adapter, &[]),
        &payload("sessionStart", "conv", &sb.ws()),
    );
    let mut core = sb.core();
    let me = bound_owner(&mut core, "conv");
    let peer = attach(&mut core, "peer", false);
    let question = core
        .send(
            &me,
            SendMessage {
                to: vec!["peer".into()],
                kind: MessageKind::Question,
                obligation: None,
                subject: "which branch".into(),
                body: "Which branch should I rebase onto?".into(),
                client_message_id: None,
            },
        )
        .unwrap();
    let answer = core
        .reply(&peer, &question.message.message_id, ANSWER, None, None)
        .unwrap();
    (core, me, answer.message.message_id.to_string())
}

fn receipt(
    core: &mut acc_runtime::Core,
    me: &acc_runtime::Owner,
    id: &str,
) -> Option<ReceiptState> {
    inbox(core, me)
        .into_iter()
        .find(|i| i.message_id.as_str() == id)
        .map(|i| i.receipt_state)
}

#[test]
fn an_adapter_whose_reply_route_refuses_is_shown_no_answer_and_it_stays_queued() {
    let sb = Sandbox::new();
    let (mut core, me, answer) = answered(&sb, refusing);
    let run = hook(
        sb.settings(refusing, &[]),
        &payload("beforeTurn", "conv", &sb.ws()),
    );
    assert_eq!(run.code, 0);
    assert!(
        !run.stdout.contains(ANSWER),
        "the answer was shown: {}",
        run.stdout
    );
    assert!(!run.stdout.contains(&answer));
    assert!(run.stderr.contains("route_closed"), "{}", run.stderr);
    assert!(
        run.stderr
            .contains(&format!("acc inbox --message {answer}"))
    );
    assert_eq!(receipt(&mut core, &me, &answer), Some(ReceiptState::Queued));
}

#[test]
fn the_next_turn_route_shows_the_answer_once_and_offers_it() {
    let sb = Sandbox::new();
    let (mut core, me, answer) = answered(&sb, next_turn);
    let run = hook(
        sb.settings(next_turn, &[]),
        &payload("beforeTurn", "conv", &sb.ws()),
    );
    assert_eq!(run.stdout.matches(ANSWER).count(), 1, "{}", run.stdout);
    assert_eq!(
        receipt(&mut core, &me, &answer),
        Some(ReceiptState::Offered)
    );
    let again = hook(
        sb.settings(next_turn, &[]),
        &payload("beforeTurn", "conv", &sb.ws()),
    );
    assert!(
        !again.stdout.contains(ANSWER),
        "shown twice: {}",
        again.stdout
    );
}
