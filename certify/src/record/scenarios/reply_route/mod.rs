//! `reply-route`: an answer reaches the session that asked, in the thread it asked in, even
//! when that session has ended and its participant came back under a new one.
//!
//! Before the client starts, the recorder acts as the CLI would (a session of harness `cli`
//! for participant `agent`): it asks the peer a question, then ends that session. The peer
//! answers with `reply`, which addresses the asking participant in the question's thread.
//! The client then starts a new conversation pinned to `agent`, so the question's session
//! is gone and a new session stands for its participant. The answer must show, fenced and
//! once, in the first model request, its block naming the question's thread, and its
//! receipt must become `offered`. What routes it is the core's `reply` (by participant, in
//! the thread) and the adapter's next-turn rendering (`route_reply` in each adapter names
//! that route).

use acc_runtime::core::messages::SendMessage;
use acc_runtime::core::model::MessageKind;
use acc_runtime::core::sessions::{CLI_CADENCE_MS, OpenSession};
use acc_runtime::ids::{MessageId, ParticipantId};
use acc_runtime::{AccError, Core, Owner};
use acc_sdk::capabilities::Capability;
use acc_sdk::event::EventKind;

use crate::clients::InstalledClient;
use crate::record::kit::error::RecordError;
pub use crate::record::kit::facts::ReplyFacts;
use crate::record::kit::headless;
use crate::record::kit::model_text::block_names_message;
use crate::record::kit::observations::{MessageFact, Observations};
use crate::record::kit::recipe::{HeadlessRun, Recipe};
use crate::record::kit::room::{self, Room};
use crate::record::kit::run::{RunSettings, ScenarioRun};
use crate::record::kit::tuple::Tuple;
use crate::record::kit::verdict::{Verdict, conversation_requests};
use crate::record::scenario::{AGENT, PEER, Scenario};
use crate::record::scenarios::solo_control::{DELIVERY_CANDIDATES, DELIVERY_WITHHELD};

/// The harness the question is asked under: the CLI's own default.
pub const ASKING_HARNESS: &str = "cli";
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
        headless::run(self, installed, tuple, settings, control)
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

    fn room(&self, core: &mut Core) -> Result<Room, AccError> {
        answered_question(core)
    }

    fn observe(&self, run: &HeadlessRun<'_>, obs: &mut Observations) -> Result<(), RecordError> {
        let mut core = room::open_core(run.workspace, &run.acc_data_home)?;
        let (message, reply) = observe_reply(&mut core)?;
        obs.message = message;
        obs.reply = reply;
        Ok(())
    }
}

/// The room: the agent asked the peer through a CLI session that has since ended, and the
/// peer answered. The room's message is the answer.
pub fn answered_question(core: &mut Core) -> Result<Room, AccError> {
    // A question is queued only for a participant that has been here.
    let peer = room::attach_as(core, PEER)?;
    let asking = core.open_session(OpenSession::new(
        ParticipantId::parse(AGENT)?,
        ASKING_HARNESS,
        CLI_CADENCE_MS,
    ))?;
    let asking = Owner::new(asking.session_id, asking.generation);
    let question = core.send(
        &asking,
        SendMessage {
            to: vec![PEER.to_owned()],
            kind: MessageKind::Question,
            obligation: None,
            subject: QUESTION_SUBJECT.to_owned(),
            body: QUESTION_BODY.to_owned(),
            client_message_id: None,
        },
    )?;
    core.close_session(&asking, None)?;
    let answer = core.reply(
        &peer,
        &question.message.message_id,
        ANSWER_BODY,
        None,
        None,
    )?;
    Ok(Room {
        peer: Some(peer),
        agent: None,
        message: Some(answer.message.message_id),
    })
}

/// The answer's receipt for the agent and the question and answer as the store holds them,
/// read through a recorder session of the agent opened after the run (a read leaves
/// receipts as they are) and closed again.
fn observe_reply(core: &mut Core) -> Result<(Option<MessageFact>, Option<ReplyFacts>), AccError> {
    let reader = room::attach_as(core, AGENT)?;
    let found = read_reply(core, &reader);
    core.close_session(&reader, None)?;
    found
}

fn read_reply(
    core: &mut Core,
    reader: &Owner,
) -> Result<(Option<MessageFact>, Option<ReplyFacts>), AccError> {
    let page = core.inbox(reader, None, Some(500))?;
    let answers: Vec<&MessageId> = page
        .items
        .iter()
        .filter(|item| item.kind == MessageKind::Answer)
        .map(|item| &item.message_id)
        .collect();
    let Some(answer_id) = answers.first().copied() else {
        return Ok((None, None));
    };
    let Some(answer) = core.message(answer_id)? else {
        return Ok((None, None));
    };
    let Some(question_id) = answer.in_reply_to.clone() else {
        return Ok((None, None));
    };
    let Some(question) = core.message(&question_id)? else {
        return Ok((None, None));
    };
    // The asking session as the store holds it: the CLI's, of the agent.
    let asking_state = core
        .session(&question.from_session_id)?
        .filter(|s| s.harness == ASKING_HARNESS && s.participant_id.as_str() == AGENT)
        .map(|s| s.state.as_str().to_owned());
    let receipt_state = page
        .items
        .iter()
        .find(|item| item.message_id == *answer_id)
        .map(|item| item.receipt_state.as_str().to_owned());
    let fact = MessageFact {
        message_id: answer_id.to_string(),
        recipient: AGENT.to_owned(),
        receipt_state,
    };
    let reply = ReplyFacts {
        question_id: question.message_id.to_string(),
        question_thread: question.thread_id.to_string(),
        question_session_state: asking_state,
        answer_id: answer.message_id.to_string(),
        answer_thread: answer.thread_id.to_string(),
        answer_in_reply_to: answer.in_reply_to.as_ref().map(ToString::to_string),
        answer_to: answer
            .to_participant_ids
            .iter()
            .map(ToString::to_string)
            .collect(),
    };
    Ok((Some(fact), Some(reply)))
}

/// The verdict on `delivery.replyRoute`, from the observations alone.
pub fn judge(obs: &Observations) -> Verdict {
    let cap = Capability::ReplyRoute;
    let mut failures = Vec::new();
    let (Some(message), Some(reply)) = (&obs.message, &obs.reply) else {
        return Verdict::new(
            cap,
            vec!["the observations carry no answer for the agent (it may have been read before the judge looked)".to_owned()],
            "",
        );
    };
    if reply.question_session_state.as_deref() != Some("closed") {
        failures.push(format!(
            "the session that asked was {}, not closed: the answer had no ended session to outlive",
            reply.question_session_state.as_deref().unwrap_or("not found")
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
    let new_session = obs
        .adapter_sessions()
        .any(|s| s.participant_id == AGENT && s.harness != ASKING_HARNESS);
    if !new_session {
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
        "the answer to a question asked from a session that had ended reached the participant's new session, fenced, once, in the question's thread, in its first model request, and its receipt became offered",
    )
}

#[cfg(test)]
mod tests;
