//! `beforeTurn` and `turnEnd`: what a peer sent, shown at the client's next turn boundary.

use super::super::answer::Answer;
use super::super::beat_marker;
use super::super::bound::Bound;
use super::super::call::Call;
use super::super::failure::Failure;
use super::lifecycle;
use super::project;
use super::start;
use crate::core::Core;
use acc_sdk::capabilities::Capability;

/// Heartbeat (starting the session first when the conversation has none), then the turn's
/// context. A solo session with nothing else to show sees its identity lines alone.
pub fn before_turn(call: &Call, core: &mut Core) -> Result<Answer, Failure> {
    // Read once for the subagent check, the live session and the native binding: the
    // heartbeat changes none of what they read.
    let own = Bound::load(core, &call.event.session_id)?;
    if let Some(answer) = super::child::subagent_turn_of(call, core, own.as_ref())? {
        return Ok(answer);
    }
    let (me, grants, bound) = match lifecycle::live_of(call, own) {
        Some((bound, me, grants)) => {
            let beat = core.heartbeat(&me.owner)?;
            // The guard calls of this turn need not take the store path to find it fresh.
            if let Some(at) = crate::clock::parse_iso(&beat) {
                beat_marker::mark(&call.data_home, &bound.key, at);
            }
            (me, grants, Some(bound))
        }
        // Opening or resuming is itself a heartbeat.
        None => {
            let started = start::start(call, core)?;
            (started.identity, started.grants, None)
        }
    };
    super::native::publish_binding_of(call, core, bound.as_ref());
    // A recorder attributing startup context keeps this hook silent; nothing is offered.
    if grants.is_withheld(Capability::BeforeTurnInjection) {
        return Ok(Answer::silent());
    }
    call.deadline.check()?;
    project::turn_context(call, core, &me, &grants)
}

/// Holds the turn open only when a peer body nobody has shown yet is waiting and fits: an
/// owner line or an attention count never justifies the model invocation a continuation
/// costs.
pub fn turn_end(call: &Call, core: &mut Core) -> Result<Answer, Failure> {
    let settled = super::after_tool::settle_pending(call, core)?;
    let mut answer = hold_open(call, core)?;
    answer.notes.extend(settled);
    Ok(answer)
}

fn hold_open(call: &Call, core: &mut Core) -> Result<Answer, Failure> {
    let Some((bound, me, grants)) = lifecycle::live(call, core)? else {
        return Ok(Answer::silent());
    };
    lifecycle::refresh_if_due(call, core, &bound)?;
    if !grants.granted(Capability::NextTurn) {
        return Ok(Answer::silent());
    }
    // A wake sent during this turn starts the next one, which shows the body: holding this
    // turn open too would cost a model invocation for nothing.
    if core.wake_pending(&me.owner.session)? {
        return Ok(Answer::silent());
    }
    let projection = project::project(call, core, &me, &grants)?;
    if projection.offered_unshown == 0 {
        return Ok(Answer::silent());
    }
    Ok(project::answer(&me.owner, projection, |text| {
        call.adapter
            .behaviour()
            .continue_turn_outcome(text, call.payload)
    }))
}
