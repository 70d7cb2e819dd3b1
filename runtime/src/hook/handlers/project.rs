//! The context a turn shows: the session's identity lines, always (a solo session sees them
//! and nothing else, plus the claims it inherited from its participant's ended sessions),
//! the peers here by the participant id `--to` takes, then next-turn delivery rendered by the adapter within the workspace's
//! budget, with bodies withheld (and a visible warning) where next-turn delivery is not
//! granted.

use super::super::answer::{Answer, Offers};
use super::super::call::Call;
use super::super::deny_events;
use super::super::failure::Failure;
use super::super::grants::Grants;
use super::super::owner_line::{Identity, cost, inherited_line, peers_line};
use super::reply_routes;
use crate::core::delivery::{BodyBudget, MAX_BODIES};
use crate::core::{Core, Owner};
use crate::ids::EventSeq;
use crate::ids::{MessageId, ParticipantId};
use acc_sdk::capabilities::Capability;
use acc_sdk::context::{ContextInput, ContextResult, PeerMessage};
use acc_sdk::outcome::HookOutcome;
use acc_sdk::peer_text::escape_hidden;

/// Bodies held back because the client is not certified to receive them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Withheld {
    pub count: usize,
    pub first_id: String,
    pub reason: String,
}

impl Withheld {
    /// Delivery reads at most [`MAX_BODIES`] per turn, so a full page means "at least".
    fn count_text(&self) -> String {
        if self.count >= MAX_BODIES {
            format!("{MAX_BODIES} or more")
        } else {
            self.count.to_string()
        }
    }

    /// The warning shown to the model (inside the injected text).
    pub fn context_line(&self) -> String {
        format!(
            "ACC: {} pending message(s) withheld because {}; read {} with `acc inbox --message {}`",
            self.count_text(),
            self.reason,
            self.first_id,
            self.first_id
        )
    }

    /// The same warning for stderr.
    pub fn stderr_line(&self) -> String {
        format!(
            "acc: {} pending message(s) withheld because {}; read {} with acc inbox --message {}",
            self.count_text(),
            self.reason,
            self.first_id,
            self.first_id
        )
    }
}

/// A rendered turn context.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Projection {
    /// Identity lines, then the rendered context; never empty.
    pub text: String,
    /// Exactly the messages whose complete blocks are in `text`.
    pub offered: Vec<MessageId>,
    /// How many of `offered` are queued bodies no invocation had shown (the rest are
    /// repeats of live offers).
    pub offered_unshown: usize,
    pub withheld: Option<Withheld>,
    /// The newest refusal into the owner's claims that `text` lists, to mark shown once
    /// the text was written.
    pub refusals_up_to: Option<EventSeq>,
}

/// Builds the projection for `me`: reads only, changes nothing.
pub fn project(
    call: &Call,
    core: &mut Core,
    me: &Identity,
    grants: &Grants,
) -> Result<Projection, Failure> {
    let owner = &me.owner;
    // Withheld bodies are not even read, only the queued ones counted: an untracked body
    // shown every turn would be quieter and dishonest about what was delivered; the
    // warning says where to read it instead.
    let held = if grants.granted(Capability::NextTurn) {
        None
    } else {
        Some(core.withheld_turn_delivery(owner)?)
    };
    let withheld = held.as_ref().and_then(|held| {
        held.queued.first().map(|first| Withheld {
            count: held.queued.len(),
            first_id: first.to_string(),
            reason: grants.refusal(&call.adapter, Capability::NextTurn),
        })
    });
    call.deadline.check()?;
    let inherited = inherited_line(&core.inherited_claims(owner)?);
    // A store changed behind acc's back is told to every session, the claims' owners
    // first among them, at every turn until a person has looked.
    let tampered = crate::store::tamper::read(core.store_path())
        .map(|m| format!("ACC warning: {}", m.summary(call.settings.ports.now())));
    let warning = withheld.as_ref().map(Withheld::context_line);
    let (refusals, refusals_up_to) = match deny_events::unshown(core, owner) {
        Some((text, up_to)) => (Some(text), Some(up_to)),
        None => (None, None),
    };
    let context_budget = core.workspace().context_budget_bytes() as usize;
    // The identity lines and what follows them, and the budget the rendered context is
    // left: the peers line in it is read with the delivery, in its transaction.
    let frame = |peers: &[ParticipantId]| {
        let mut preamble = me.lines(&call.event.cwd);
        for line in [inherited, peers_line(peers), tampered]
            .into_iter()
            .flatten()
        {
            preamble.push('\n');
            preamble.push_str(&line);
        }
        let budget = context_budget
            .saturating_sub(cost(&preamble))
            .saturating_sub(warning.as_deref().map_or(0, cost))
            .saturating_sub(refusals.as_deref().map_or(0, cost));
        Frame { preamble, budget }
    };
    let (preamble, input, rendered) = match held {
        Some(held) => {
            let Frame { preamble, budget } = frame(&held.peers);
            let input = held.delivery.into_context_input();
            let rendered = call
                .adapter
                .behaviour()
                .render_context_result(&input, budget);
            (preamble, input, rendered)
        }
        None => delivered(call, core, owner, frame)?,
    };
    call.deadline.check()?;
    // Only ids that were handed to the renderer: a commit naming anything else would be
    // refused and take every real offer down with it.
    let offered: Vec<MessageId> = rendered
        .offered_message_ids
        .iter()
        .filter(|id| {
            input
                .messages
                .iter()
                .chain(&input.repeats)
                .any(|m| &m.message_id == *id)
        })
        .filter_map(|id| MessageId::parse(id).ok())
        .collect();
    let offered_unshown = offered
        .iter()
        .filter(|id| input.messages.iter().any(|m| m.message_id == id.as_str()))
        .count();
    let text = [
        Some(preamble.as_str()),
        refusals.as_deref(),
        Some(rendered.text.as_str()),
        warning.as_deref(),
    ]
    .into_iter()
    .flatten()
    .filter(|t| !t.is_empty())
    .collect::<Vec<&str>>()
    .join("\n");
    Ok(Projection {
        text,
        offered,
        offered_unshown,
        withheld,
        refusals_up_to,
    })
}

/// The text before the rendered context, and the budget that context is left.
struct Frame {
    preamble: String,
    budget: usize,
}

/// The turn's bodies read and rendered within the frame's budget. With the shared
/// projector only the bodies it can render are read (a page of 100 queued reads about a
/// dozen); should it ever offer one left unread, the whole page is read and rendered
/// again, so no block is shown without its body.
fn delivered(
    call: &Call,
    core: &mut Core,
    owner: &Owner,
    frame: impl FnOnce(&[ParticipantId]) -> Frame,
) -> Result<(String, ContextInput, ContextResult), Failure> {
    let behaviour = call.adapter.behaviour();
    let framed = if behaviour.renders_with_the_projector() {
        let mut framed = None;
        let lazy = core.next_turn_delivery_within(owner, |peers| {
            let f = frame(peers);
            let budget = BodyBudget {
                bytes: f.budget,
                answers: behaviour.reply_route().is_some(),
            };
            framed = Some(f);
            budget
        })?;
        let Frame { preamble, budget } = framed.expect("the delivery asked for its budget");
        let mut input = lazy.delivery.into_context_input();
        route_answers(call, core, owner, &mut input.messages);
        let rendered = behaviour.render_context_result(&input, budget);
        let unread_offered = rendered
            .offered_message_ids
            .iter()
            .any(|id| lazy.unread.contains(id));
        debug_assert!(!unread_offered, "the projector offered a body left unread");
        if !unread_offered {
            return Ok((preamble, input, rendered));
        }
        Frame { preamble, budget }
    } else {
        frame(&core.live_peers(owner)?)
    };
    let mut input = core.next_turn_delivery(owner)?.into_context_input();
    route_answers(call, core, owner, &mut input.messages);
    let rendered = behaviour.render_context_result(&input, framed.budget);
    Ok((framed.preamble, input, rendered))
}

/// Keeps the answers the adapter's reply route refuses out of this turn (they stay queued),
/// and says so on stderr.
fn route_answers(call: &Call, core: &mut Core, owner: &Owner, messages: &mut Vec<PeerMessage>) {
    let behaviour = call.adapter.behaviour();
    let refused = reply_routes::route_answers(behaviour.reply_route(), owner, messages, |id| {
        let id = MessageId::parse(id).ok()?;
        core.message(&id).ok()??.in_reply_to.map(|q| q.to_string())
    });
    for unrouted in refused {
        call.report(unrouted.note());
    }
}

/// The projection as an answer: injected through the adapter, with offers to commit once
/// its stdout is written. An empty stdout carries nothing, so it records no offer.
pub fn answer(
    owner: &Owner,
    projection: Projection,
    inject: impl FnOnce(&str) -> Option<HookOutcome>,
) -> Answer {
    let mut answer = Answer::silent();
    if let Some(w) = &projection.withheld {
        answer.notes.push(w.stderr_line());
    }
    if projection.text.is_empty() {
        return answer;
    }
    // The last step before the text leaves: whatever a line's renderer missed of the
    // store's text is escaped here (see `acc_sdk::peer_text::escape_hidden`).
    let Some(outcome) = inject(&escape_hidden(&projection.text)) else {
        return answer;
    };
    let shown = !outcome.stdout.is_empty();
    answer.outcome = outcome;
    if shown && !projection.offered.is_empty() {
        answer.offers = Some(Offers {
            owner: owner.clone(),
            message_ids: projection.offered,
        });
    }
    answer
}

/// The whole turn context as an injection (`beforeTurn`, startup context).
pub fn turn_context(
    call: &Call,
    core: &mut Core,
    me: &Identity,
    grants: &Grants,
) -> Result<Answer, Failure> {
    let projection = project(call, core, me, grants)?;
    let owner = &me.owner;
    let refusals_up_to = projection.refusals_up_to;
    let answer = answer(owner, projection, |text| {
        Some(call.adapter.behaviour().inject_outcome(call.event, text))
    });
    // Marked now, before stdout is written (offers wait for the write): a refusal is a
    // notice, not a message, and `acc status` keeps listing it whatever happens to stdout.
    if let Some(up_to) = refusals_up_to
        && !answer.outcome.stdout.is_empty()
        && core.mark_refused_writes_shown(owner, up_to).is_err()
    {
        call.report("acc: refusals shown this turn may be shown again".to_string());
    }
    Ok(answer)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_delivery_page_is_counted_as_at_least() {
        let w = |count| Withheld {
            count,
            first_id: "message_a".into(),
            reason: "r".into(),
        };
        assert_eq!(
            w(3).stderr_line(),
            "acc: 3 pending message(s) withheld because r; read message_a with acc inbox --message message_a"
        );
        assert!(
            w(MAX_BODIES)
                .context_line()
                .starts_with("ACC: 100 or more pending message(s)")
        );
        assert!(
            w(MAX_BODIES)
                .context_line()
                .ends_with("`acc inbox --message message_a`")
        );
    }
}
