//! Answers at the next turn go the way the adapter's reply route says (`route_reply`, the
//! backing method of `delivery.replyRoute`), so the method an adapter declares is what
//! actually routes them: an answer its route refuses is not shown this way, and stays
//! queued for `acc inbox` or another route.
//!
//! An adapter that declares no reply route gets its answers as any other next-turn message:
//! an answer is a message addressed to the participant that asked, and withholding it would
//! lose nothing but the user's time.

use acc_sdk::adapter::{ReplyRoute, ReplyRouting};
use acc_sdk::context::PeerMessage;

use crate::core::Owner;
use crate::core::model::MessageKind;

/// An answer the adapter's route refused: why, in the route's own closed code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unrouted {
    pub message_id: String,
    pub reason_code: String,
}

impl Unrouted {
    /// The note on stderr (the model is not told: the answer is simply not shown yet).
    pub fn note(&self) -> String {
        format!(
            "acc: answer {} not shown at this turn: the adapter's reply route refused it ({}); read it with acc inbox --message {}",
            self.message_id, self.reason_code, self.message_id
        )
    }
}

/// The reason recorded when a route refuses without saying why.
pub const ROUTE_REFUSED: &str = "reply_route_refused";

/// Keeps in `messages` the ones to show: every message that is not an answer, and each
/// answer `route` routes. `question_of` names the question an answer replies to (`None`
/// when the store has none, which the route then judges). Returns the refused answers.
pub fn route_answers(
    route: Option<&dyn ReplyRoute>,
    owner: &Owner,
    messages: &mut Vec<PeerMessage>,
    mut question_of: impl FnMut(&str) -> Option<String>,
) -> Vec<Unrouted> {
    let Some(route) = route else {
        return Vec::new();
    };
    let mut refused = Vec::new();
    messages.retain(|message| {
        if message.kind != MessageKind::Answer.as_str() {
            return true;
        }
        let outcome = route.route_reply(&ReplyRouting {
            session_id: owner.session.to_string(),
            generation: owner.generation.to_string(),
            message_id: message.message_id.clone(),
            in_reply_to: question_of(&message.message_id).unwrap_or_default(),
            text: message.body.clone(),
            endpoint_ref: None,
        });
        if !outcome.routed {
            refused.push(Unrouted {
                message_id: message.message_id.clone(),
                reason_code: outcome
                    .reason_code
                    .unwrap_or_else(|| ROUTE_REFUSED.to_owned()),
            });
        }
        outcome.routed
    });
    refused
}

#[cfg(test)]
mod tests {
    use super::*;
    use acc_sdk::adapter::RouteOutcome;
    use acc_sdk::reply_route::{NextTurnReplies, REPLY_UNADDRESSED};
    use std::sync::Mutex;

    struct Refuses;
    impl ReplyRoute for Refuses {
        fn route_reply(&self, _reply: &ReplyRouting) -> RouteOutcome {
            RouteOutcome {
                routed: false,
                reason_code: None,
            }
        }
    }

    /// Records what it was asked, and routes.
    #[derive(Default)]
    struct Asked(Mutex<Vec<ReplyRouting>>);
    impl ReplyRoute for Asked {
        fn route_reply(&self, reply: &ReplyRouting) -> RouteOutcome {
            self.0.lock().unwrap().push(reply.clone());
            RouteOutcome {
                routed: true,
                reason_code: Some("next_turn".into()),
            }
        }
    }

    fn owner() -> Owner {
        Owner::new(
            crate::ids::SessionId::parse("session_new").unwrap(),
            crate::ids::Generation::parse("generation_1").unwrap(),
        )
    }

    fn message(id: &str, kind: &str) -> PeerMessage {
        PeerMessage {
            message_id: id.into(),
            thread_id: "thread_q".into(),
            kind: kind.into(),
            sender_participant_id: "peer".into(),
            sender_session_id: "session_peer".into(),
            obligation: "none".into(),
            subject: "s".into(),
            body: "b".into(),
            repeat: None,
        }
    }

    fn ids(messages: &[PeerMessage]) -> Vec<&str> {
        messages.iter().map(|m| m.message_id.as_str()).collect()
    }

    fn queued() -> Vec<PeerMessage> {
        vec![
            message("message_note", "note"),
            message("message_answer", "answer"),
        ]
    }

    #[test]
    fn an_adapter_whose_route_refuses_gets_no_answer_shown_this_way() {
        let mut messages = queued();
        let refused = route_answers(Some(&Refuses), &owner(), &mut messages, |_| {
            Some("message_question".into())
        });
        assert_eq!(ids(&messages), ["message_note"]);
        assert_eq!(
            refused,
            [Unrouted {
                message_id: "message_answer".into(),
                reason_code: ROUTE_REFUSED.into(),
            }]
        );
        assert!(
            refused[0]
                .note()
                .contains("acc inbox --message message_answer")
        );
    }

    #[test]
    fn the_route_is_asked_with_the_new_session_and_the_question() {
        let route = Asked::default();
        let mut messages = queued();
        let refused = route_answers(Some(&route), &owner(), &mut messages, |id| {
            (id == "message_answer").then(|| "message_question".into())
        });
        assert!(refused.is_empty());
        assert_eq!(ids(&messages), ["message_note", "message_answer"]);
        let asked = route.0.lock().unwrap();
        assert_eq!(asked.len(), 1, "only the answer is routed");
        assert_eq!(asked[0].session_id, "session_new");
        assert_eq!(asked[0].generation, "generation_1");
        assert_eq!(asked[0].in_reply_to, "message_question");
    }

    #[test]
    fn the_next_turn_route_refuses_an_answer_whose_question_is_unknown() {
        let mut messages = queued();
        let refused = route_answers(Some(&NextTurnReplies), &owner(), &mut messages, |_| None);
        assert_eq!(ids(&messages), ["message_note"]);
        assert_eq!(refused[0].reason_code, REPLY_UNADDRESSED);
    }

    #[test]
    fn without_a_route_answers_are_shown_as_any_message() {
        let mut messages = queued();
        let refused = route_answers(None, &owner(), &mut messages, |_| None);
        assert!(refused.is_empty());
        assert_eq!(ids(&messages), ["message_note", "message_answer"]);
    }
}
