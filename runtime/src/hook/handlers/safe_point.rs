//! Safe-point delivery: a peer body that arrived while the model was mid-turn, shown to the
//! model after a tool call instead of waiting for the next prompt.
//!
//! Only where `context.safePointInjection` is granted, and only bodies no invocation has
//! shown yet: the identity lines, peers and reminders belong to the turn's own context, and
//! a post-tool hook fires after every write, so repeating them there would flood the
//! conversation. The bodies are fenced by the adapter's renderer exactly as at a turn
//! boundary and committed as offered once stdout is written, so the next turn does not
//! show them again.

use super::super::answer::{Answer, Offers};
use super::super::call::Call;
use super::super::failure::Failure;
use super::lifecycle;
use crate::core::Core;
use crate::ids::MessageId;
use acc_sdk::capabilities::Capability;
use acc_sdk::context::ContextInput;
use acc_sdk::peer_text::escape_hidden;

/// The queued bodies for this conversation's session, injected after its tool call; `None`
/// when nothing is granted, queued or injectable.
pub fn deliver(call: &Call, core: &mut Core) -> Result<Option<Answer>, Failure> {
    let Some((_, me, grants)) = lifecycle::live(call, core)? else {
        return Ok(None);
    };
    if !grants.granted(Capability::SafePointInjection) {
        return Ok(None);
    }
    let delivery = core.next_turn_delivery(&me.owner)?;
    if delivery.messages.is_empty() {
        return Ok(None);
    }
    call.deadline.check()?;
    let input = ContextInput {
        peer_count: delivery.peer_count,
        solo: false,
        messages: delivery.messages,
        ..ContextInput::default()
    };
    let budget = core.workspace().context_budget_bytes() as usize;
    let rendered = call
        .adapter
        .behaviour()
        .render_context_result(&input, budget);
    // Only ids handed to the renderer: a commit naming anything else would be refused and
    // take every real offer down with it.
    let offered: Vec<MessageId> = rendered
        .offered_message_ids
        .iter()
        .filter(|id| input.messages.iter().any(|m| &m.message_id == *id))
        .filter_map(|id| MessageId::parse(id).ok())
        .collect();
    if offered.is_empty() || rendered.text.is_empty() {
        return Ok(None);
    }
    let outcome = call
        .adapter
        .behaviour()
        .inject_outcome(call.event, &escape_hidden(&rendered.text));
    if outcome.stdout.is_empty() {
        return Ok(None);
    }
    Ok(Some(Answer {
        outcome,
        offers: Some(Offers {
            owner: me.owner,
            message_ids: offered,
        }),
        ..Answer::default()
    }))
}
