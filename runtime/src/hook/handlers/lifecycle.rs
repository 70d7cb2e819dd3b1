//! The conversation's live session and its grants, `sessionEnd`, `heartbeat`, and the events
//! that only show the session is alive.

use super::super::answer::Answer;
use super::super::beat_marker::{self, REFRESH_AFTER_MS};
use super::super::bound::Bound;
use super::super::call::Call;
use super::super::failure::Failure;
use super::super::grants::Grants;
use super::super::owner_line::Identity;
use crate::clock::parse_iso;
use crate::core::Core;
use crate::text;

/// The live session of this conversation and its grants, judged from what `sessionStart`
/// stored (no probe).
pub fn live(call: &Call, core: &mut Core) -> Result<Option<(Bound, Identity, Grants)>, Failure> {
    Ok(live_of(call, Bound::load(core, &call.event.session_id)?))
}

/// [`live`] from the conversation's binding as already read (`own`).
pub fn live_of(call: &Call, own: Option<Bound>) -> Option<(Bound, Identity, Grants)> {
    // A child session takes no delivery: its parent's turns show what the family is sent.
    let bound = own.filter(Bound::is_live).filter(|b| !b.is_child())?;
    let participant = bound.session.as_ref().map(|s| s.participant_id.clone())?;
    let grants = Grants::of_call(call, bound.facts(call.primary(), &call.platform));
    let me = Identity {
        owner: bound.owner(),
        participant,
    };
    Some((bound, me, grants))
}

/// Heartbeats a live bound session whose last heartbeat is older than
/// [`REFRESH_AFTER_MS`], and tells the guard's fast path when its last heartbeat was
/// ([`beat_marker`]).
pub fn refresh_if_due(call: &Call, core: &mut Core, bound: &Bound) -> Result<(), Failure> {
    let Some(session) = bound.session.as_ref().filter(|_| bound.is_live()) else {
        return Ok(());
    };
    let last = parse_iso(&session.heartbeat_at).unwrap_or(i64::MIN);
    let now = core.now_ms();
    let beat = if now.saturating_sub(last) > REFRESH_AFTER_MS {
        core.heartbeat(&bound.owner())?;
        now
    } else {
        last
    };
    beat_marker::mark(&call.data_home, &bound.key, beat);
    Ok(())
}

/// Closes the session with the client's own end reason (and its children with it). Only the
/// conversation's own binding: a subagent's end is never its parent's. The binding stays, naming the closed
/// session: a conversation the client resumes later (`--continue`, `exec resume`) starts a new
/// session, and the binding is how it asks for the participant it was (pruning the session
/// drops it).
pub fn session_end(call: &Call, core: &mut Core) -> Result<Answer, Failure> {
    let Some(bound) = Bound::load(core, &call.event.session_id)? else {
        return Ok(Answer::silent());
    };
    if bound.is_live() {
        // The reason is the client's word; one that is not a valid line is dropped rather
        // than costing the close.
        let reason = call
            .event
            .end_reason
            .as_deref()
            .filter(|r| text::check_peer_line("end reason", r).is_ok());
        core.close_session(&bound.owner(), reason)?;
    }
    // A call that never reached its post-tool hook leaves nothing behind.
    super::super::fingerprints::forget_conversation(&call.data_home, &bound.key);
    Ok(Answer::silent())
}

pub fn heartbeat(call: &Call, core: &mut Core) -> Result<Answer, Failure> {
    if let Some(bound) = Bound::for_event(core, call.event)?.filter(Bound::is_live) {
        core.heartbeat(&bound.owner())?;
        beat_marker::mark(&call.data_home, &bound.key, core.now_ms());
    }
    Ok(Answer::silent())
}

/// `afterTool`, `childStart`, `childEnd`, `other`: a heartbeat at most.
pub fn touch(call: &Call, core: &mut Core) -> Result<Answer, Failure> {
    if let Some(bound) = Bound::for_event(core, call.event)? {
        refresh_if_due(call, core, &bound)?;
    }
    Ok(Answer::silent())
}
