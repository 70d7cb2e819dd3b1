//! `beforeTurn` and `turnEnd`: what a peer sent, shown at the client's next turn boundary.

use super::super::answer::Answer;
use super::super::bound::Bound;
use super::super::failure::Failure;
use super::super::grants::{Grants, certify_candidates};
use super::super::hook_env::CERTIFY_CANDIDATES_VAR;
use super::project;
use super::start;
use super::{Call, lifecycle};
use crate::core::{Core, Owner};
use acc_sdk::capabilities::Capability;

/// The live session of this conversation and its grants, judged from what `sessionStart`
/// stored (no probe).
fn live(call: &Call, core: &mut Core) -> Result<Option<(Bound, Owner, Grants)>, Failure> {
    let Some(bound) = Bound::load(core, &call.event.session_id)?.filter(Bound::is_live) else {
        return Ok(None);
    };
    let grants = Grants::resolve(
        &call.adapter,
        bound.facts(call.primary(), &call.platform),
        certify_candidates(call.settings.env.get(CERTIFY_CANDIDATES_VAR)),
    );
    let owner = bound.owner();
    Ok(Some((bound, owner, grants)))
}

/// Heartbeat (starting the session first when the conversation has none), then the turn's
/// context. A solo session with nothing to show prints nothing at all.
pub fn before_turn(call: &Call, core: &mut Core) -> Result<Answer, Failure> {
    let (owner, grants) = match live(call, core)? {
        Some((_, owner, grants)) => {
            core.heartbeat(&owner)?;
            (owner, grants)
        }
        // Opening or resuming is itself a heartbeat.
        None => {
            let started = start::start(call, core)?;
            (started.owner, started.grants)
        }
    };
    call.deadline.check()?;
    project::turn_context(call, core, &owner, &grants)
}

/// Holds the turn open only when a peer body nobody has shown yet is waiting and fits: an
/// owner line or an attention count never justifies the model invocation a continuation
/// costs.
pub fn turn_end(call: &Call, core: &mut Core) -> Result<Answer, Failure> {
    let Some((bound, owner, grants)) = live(call, core)? else {
        return Ok(Answer::silent());
    };
    lifecycle::refresh_if_due(core, &bound)?;
    if !grants.granted(Capability::NextTurn) {
        return Ok(Answer::silent());
    }
    let projection = project::project(call, core, &owner, &grants)?;
    if projection.offered_unshown == 0 {
        return Ok(Answer::silent());
    }
    Ok(project::answer(&owner, projection, |text| {
        call.adapter
            .behaviour()
            .continue_turn_outcome(text, call.payload)
    }))
}
