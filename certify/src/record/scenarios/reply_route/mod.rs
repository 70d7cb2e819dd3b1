//! `reply-route`: an answer reaches the session that asked, in the thread it asked in, even
//! when that session has ended and its participant came back under a new one.
//!
//! Two runs of the real client, pinned to participant `agent`, in one sandbox. In the first,
//! the model double asks the peer a question the way acc's skill teaches: the client's own
//! shell tool runs the real `acc message --type question`, with the flags of the identity
//! line its hooks showed it, so the question comes from the client's session. That run
//! ends. The peer then answers (the core's `reply`, what `acc reply` runs), which
//! addresses the asking participant in the question's thread. The client then starts a new
//! conversation: the answer must show, fenced and once, in its first model request, its
//! block naming the question's thread, and its receipt must become `offered`. What routes
//! it is the core's `reply` (by participant, in the thread) and the next-turn hook, which
//! shows an answer only where the adapter's `route_reply` routes it.

use acc_runtime::core::model::MessageKind;
use acc_runtime::{AccError, Core};
use acc_sdk::capabilities::Capability;
use acc_sdk::event::EventKind;

use crate::clients::InstalledClient;
use crate::record::kit::error::RecordError;
pub use crate::record::kit::facts::{AskingRun, ReplyFacts};
use crate::record::kit::model_text::block_names_message;
use crate::record::kit::observations::{MessageFact, Observations};
use crate::record::kit::recipe::Recipe;
use crate::record::kit::room;
use crate::record::kit::run::{RunSettings, ScenarioRun};
use crate::record::kit::tuple::Tuple;
use crate::record::kit::verdict::{Verdict, conversation_requests};
use crate::record::scenario::{AGENT, Scenario};
use crate::record::scenarios::solo_control::{DELIVERY_CANDIDATES, DELIVERY_WITHHELD};

pub mod run;

use run::Asked;

/// The harness of a session of the CLI alone, which the question must not come from.
pub const CLI_HARNESS: &str = "cli";
/// What the agent asks the peer (untrusted peer text on the way back: never in a fixture).
pub const QUESTION_SUBJECT: &str = "which branch holds the refactor";
pub const QUESTION_BODY: &str = "Which branch should I rebase onto?";
/// The peer's answer.
pub const ANSWER_BODY: &str = "Rebase onto main; the refactor landed there.";

pub struct ReplyRoute;

impl Recipe for ReplyRoute {
    fn scenario(&self) -> Scenario {
        Scenario::ReplyRoute
    }

    fn run(
        &self,
        installed: &InstalledClient,
        tuple: &Tuple,
        settings: &RunSettings,
        control: Option<&Observations>,
    ) -> Result<ScenarioRun, RecordError> {
        let _ = control;
        run::run(self, installed, tuple, settings)
    }

    fn capabilities(&self) -> &'static [Capability] {
        &[Capability::ReplyRoute]
    }

    fn judge(&self, obs: &Observations) -> Vec<Verdict> {
        vec![judge(obs)]
    }

    fn candidates(&self) -> &'static [Capability] {
        DELIVERY_CANDIDATES
    }

    fn withheld(&self) -> &'static [Capability] {
        DELIVERY_WITHHELD
    }

    fn has_peer(&self) -> bool {
        true
    }

    fn pinned_participant(&self) -> Option<&'static str> {
        Some(AGENT)
    }

    fn decisive_hook(&self) -> EventKind {
        EventKind::BeforeTurn
    }

}

/// The answer's receipt for the agent and the question and answer as the store holds them,
/// read through a recorder session of the agent opened after the runs (a read leaves
/// receipts as they are) and closed again.
pub fn observe_reply(
    core: &mut Core,
    asked: &Asked,
) -> Result<(Option<MessageFact>, Option<ReplyFacts>), AccError> {
    let reader = room::attach_as(core, AGENT)?;
    let found = read_reply(core, &reader, asked);
    core.close_session(&reader, None)?;
    found
}

fn read_reply(
    core: &mut Core,
    reader: &acc_runtime::Owner,
    asked: &Asked,
) -> Result<(Option<MessageFact>, Option<ReplyFacts>), AccError> {
    let (Some(question_id), Some(answer_id)) = (&asked.question, &asked.answer) else {
        return Ok((None, None));
    };
    let (Some(question), Some(answer)) = (core.message(question_id)?, core.message(answer_id)?)
    else {
        return Ok((None, None));
    };
    let asking = core.session(&question.from_session_id)?;
    let page = core.inbox(reader, None, Some(500))?;
    let receipt_state = page
        .items
        .iter()
        .find(|item| item.message_id == *answer_id && item.kind == MessageKind::Answer)
        .map(|item| item.receipt_state.as_str().to_owned());
    let fact = MessageFact {
        message_id: answer_id.to_string(),
        recipient: AGENT.to_owned(),
        receipt_state,
    };
    let reply = ReplyFacts {
        question_id: question.message_id.to_string(),
        question_thread: question.thread_id.to_string(),
        question_session_state: asking
            .as_ref()
            .filter(|s| s.participant_id.as_str() == AGENT)
            .map(|s| s.state.as_str().to_owned()),
        answer_id: answer.message_id.to_string(),
        answer_thread: answer.thread_id.to_string(),
        answer_in_reply_to: answer.in_reply_to.as_ref().map(ToString::to_string),
        answer_to: answer
            .to_participant_ids
            .iter()
            .map(ToString::to_string)
            .collect(),
        question_session_harness: asked.session_harness.clone(),
        question_session_state_when_answered: asked.session_state.clone(),
        asking_run: None,
    };
    Ok((Some(fact), Some(reply)))
}

/// Whether the session that asked had ended when the peer answered: closed in the store, or
/// left open by a client that tells acc nothing at its exit, whose run had exited by itself
/// and whose session acc closed once the participant came back.
fn asker_had_ended(reply: &ReplyFacts) -> bool {
    match reply.question_session_state_when_answered.as_deref() {
        Some("closed") => true,
        Some("open") => {
            reply.question_session_state.as_deref() == Some("closed")
                && reply
                    .asking_run
                    .as_ref()
                    .is_some_and(|run| !run.timed_out && run.exit_code.is_some())
        }
        _ => false,
    }
}

/// The verdict on `delivery.replyRoute`, from the observations alone.
pub fn judge(obs: &Observations) -> Verdict {
    let cap = Capability::ReplyRoute;
    let mut failures = Vec::new();
    let (Some(message), Some(reply)) = (&obs.message, &obs.reply) else {
        return Verdict::new(
            cap,
            vec!["no answer to the agent was observed: no question from the agent reached the peer (the asking run's model asks only once its hooks showed it its `ACC CLI (append)` line), or the answer was read before the judge looked".to_owned()],
            "",
        );
    };
    match reply.question_session_harness.as_deref() {
        Some(harness) if harness == obs.adapter => {}
        Some(harness) => failures.push(format!(
            "the question came from a session of {harness}, not from the {} client's own: its model did not ask through the client",
            obs.adapter
        )),
        None => failures.push("the store holds no session that asked".to_owned()),
    }
    if !asker_had_ended(reply) {
        failures.push(format!(
            "the session that asked was {} when the peer answered, not closed: the answer had no ended session to outlive",
            reply
                .question_session_state_when_answered
                .as_deref()
                .unwrap_or("not found")
        ));
    }
    if reply.answer_thread != reply.question_thread {
        failures.push("the answer is not in the question's thread".to_owned());
    }
    if reply.answer_in_reply_to.as_deref() != Some(reply.question_id.as_str()) {
        failures.push("the answer does not name the question it answers".to_owned());
    }
    if reply.answer_to != [AGENT] {
        failures.push(format!(
            "the answer is addressed to {:?}, not to the asking participant {AGENT}",
            reply.answer_to
        ));
    }
    // The asking session and the new one: both the client's, both acting as the agent.
    let agent_sessions = obs
        .adapter_sessions()
        .filter(|s| s.participant_id == AGENT && s.harness != CLI_HARNESS)
        .count();
    if agent_sessions < 2 {
        failures.push(format!(
            "the client opened no session acting as {AGENT}: the participant did not come back under a new session"
        ));
    }
    match conversation_requests(obs).first() {
        None => failures.push("the client made no model request".to_owned()),
        Some(first) => {
            let blocks: Vec<&String> = first
                .peer_blocks
                .iter()
                .filter(|block| block_names_message(block, &message.message_id))
                .collect();
            match blocks.as_slice() {
                [] => failures.push(
                    "the first model request does not contain the fenced acc-peer-message block naming the answer"
                        .to_owned(),
                ),
                [block] => {
                    let thread = format!("threadId: {}", reply.question_thread);
                    if !block.lines().any(|line| line.trim() == thread) {
                        failures.push(
                            "the answer's block does not name the question's thread".to_owned(),
                        );
                    }
                }
                more => failures.push(format!(
                    "the first model request shows the answer {} times, not once",
                    more.len()
                )),
            }
        }
    }
    match message.receipt_state.as_deref() {
        Some("offered") => {}
        Some(state) => failures.push(format!("the answer's receipt is {state}, not offered")),
        None => failures.push("the answer's receipt is no longer listed as unresolved".to_owned()),
    }
    Verdict::new(
        cap,
        failures,
        "the answer to a question the client's model asked through its shell tool, given after that session had ended, reached the participant's new session, fenced, once, in the question's thread, in its first model request, and its receipt became offered",
    )
}

#[cfg(test)]
mod tests;
