//! The reply route of a client whose hooks deliver at the next turn (`delivery.replyRoute`).
//!
//! An answer is addressed to the participant that asked, in the question's thread (the
//! core's `reply`), not to the session that asked: a session that has since ended, or a
//! question asked through the MCP server or the CLI, still has a participant, and whichever
//! session acts as it now shows the answer at its next turn through the next-turn hook,
//! fenced, once, and its receipt becomes `offered`. Nothing is pushed, so the route needs
//! no endpoint. The `reply-route` scenario records that this holds for a client.

use crate::adapter::{ReplyRoute, ReplyRouting, RouteOutcome};

/// The route taken: the participant's next turn.
pub const NEXT_TURN_ROUTE: &str = "next_turn";
/// A reply that names no session, message or question cannot be routed.
pub const REPLY_UNADDRESSED: &str = "reply_unaddressed";

/// The next-turn reply route.
#[derive(Debug, Clone, Copy, Default)]
pub struct NextTurnReplies;

impl ReplyRoute for NextTurnReplies {
    fn route_reply(&self, reply: &ReplyRouting) -> RouteOutcome {
        let named = [
            &reply.session_id,
            &reply.generation,
            &reply.message_id,
            &reply.in_reply_to,
        ]
        .iter()
        .all(|field| !field.trim().is_empty());
        RouteOutcome {
            routed: named,
            reason_code: Some(
                if named {
                    NEXT_TURN_ROUTE
                } else {
                    REPLY_UNADDRESSED
                }
                .to_owned(),
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reply() -> ReplyRouting {
        ReplyRouting {
            session_id: "session_new".into(),
            generation: "generation_1".into(),
            message_id: "message_answer".into(),
            in_reply_to: "message_question".into(),
            text: "```acc-peer-message\n...\n```".into(),
            endpoint_ref: None,
        }
    }

    #[test]
    fn a_reply_to_a_question_takes_the_next_turn_without_an_endpoint() {
        let outcome = NextTurnReplies.route_reply(&reply());
        assert!(outcome.routed);
        assert_eq!(outcome.reason_code.as_deref(), Some(NEXT_TURN_ROUTE));
    }

    #[test]
    fn a_reply_naming_no_question_or_session_is_not_routed() {
        for blank in 0..4 {
            let mut r = reply();
            let field = [
                &mut r.session_id,
                &mut r.generation,
                &mut r.message_id,
                &mut r.in_reply_to,
            ];
            field.into_iter().nth(blank).unwrap().clear();
            let outcome = NextTurnReplies.route_reply(&r);
            assert!(!outcome.routed, "field {blank} blank");
            assert_eq!(outcome.reason_code.as_deref(), Some(REPLY_UNADDRESSED));
        }
    }
}
