//! `afterTool`: did the shell call the guard allowed change a peer's claimed files anyway?
//! Then, where granted, the peer bodies that arrived during the call ([`safe_point`]).
//!
//! Only when `beforeTool` left fingerprints for this conversation ([`fingerprints`]): the
//! claimed files are fingerprinted again and every one that changed, appeared or went away
//! is recorded as `claim.write_detected` against the claim, so its owner and this session
//! are both told in their next turn, and `acc status` keeps it. Otherwise a heartbeat at
//! most, as before.

use super::super::answer::Answer;
use super::super::call::Call;
use super::super::failure::Failure;
use super::super::fingerprints::{self, Change};
use super::{lifecycle, safe_point};
use crate::core::Core;
use crate::core::claims::ClaimRecord;
use crate::core::refusals::Refusal;
use crate::core::resources::Resource;
use crate::ids::SessionId;
use std::time::{Duration, Instant};

/// The longest the second walk may take: the same bound as the first.
pub const WALK_BUDGET: Duration = Duration::from_secs(1);

pub fn after_tool(call: &Call, core: &mut Core) -> Result<Answer, Failure> {
    let mut answer = detect(call, core)?;
    // The detection's notes go to stderr whatever is injected; its outcome is always silent.
    if let Some(delivered) = safe_point::deliver(call, core)? {
        answer.outcome = delivered.outcome;
        answer.offers = delivered.offers;
    }
    Ok(answer)
}

fn detect(call: &Call, core: &mut Core) -> Result<Answer, Failure> {
    let key = fingerprints::record_key(call.event);
    let Some(before) = fingerprints::take_saved(&call.data_home, &key) else {
        return lifecycle::touch(call, core);
    };
    let mut answer = lifecycle::touch(call, core)?;
    answer.notes.extend(compare(call, core, before)?);
    Ok(answer)
}

/// At the end of a turn, the calls of this conversation whose post-tool hook never came (a
/// client that does not wait for it, or ended the turn first): each is compared now, so a
/// claimed file one of them changed is still told.
pub fn settle_pending(call: &Call, core: &mut Core) -> Result<Vec<String>, Failure> {
    let conversation = crate::core::bindings::binding_key(&call.event.session_id);
    let mut notes = Vec::new();
    for key in fingerprints::pending_records(&call.data_home, &conversation) {
        if let Some(before) = fingerprints::take_saved(&call.data_home, &key) {
            notes.extend(compare(call, core, before)?);
        }
    }
    Ok(notes)
}

/// Fingerprints `before`'s claimed files again and records every change for its claim's
/// owner; the stderr notes that say so.
fn compare(
    call: &Call,
    core: &mut Core,
    before: fingerprints::Prints,
) -> Result<Vec<String>, Failure> {
    let until = Instant::now() + WALK_BUDGET.min(call.deadline.remaining() / 3);
    let after = fingerprints::take(before.roots.clone(), before.watched.clone(), until);
    let changes = fingerprints::changes(&before, &after);
    let mut notes = Vec::new();
    let Some(me) = before.session_id.as_deref().map(str::to_string) else {
        return Ok(notes);
    };
    if changes.is_empty() {
        return Ok(notes);
    }
    let me = SessionId::from_store(me);
    // The claims as they are now: one released while the call ran no longer speaks for its
    // files.
    let live = core.live_claims()?;
    let mut named = Vec::new();
    let mut unrecorded = 0;
    for change in &changes {
        let claim_id = &before.watched[change.watched].claim_id;
        let Some(claim) = live.iter().find(|c| c.claim_id.as_str() == claim_id) else {
            continue;
        };
        let refusal = refusal_of(claim, change);
        named.push(format!(
            "{} {} ({} of {})",
            acc_sdk::peer_text::display(&refusal.target),
            change.how.as_str(),
            refusal.claim_id,
            refusal.owner_participant_id
        ));
        if core.record_detected_write(&me, &refusal).is_err() {
            unrecorded += 1;
        }
    }
    if named.is_empty() {
        return Ok(notes);
    }
    notes.push(format!(
        "acc: files under other sessions' guarded claims changed while this shell call ran: {}; their owners are told",
        named.join(", ")
    ));
    if unrecorded > 0 {
        notes.push(format!(
            "acc: {unrecorded} of these changes could not be recorded for the claims' owners"
        ));
    }
    Ok(notes)
}

/// The notice for one change: the claim it is under, and the changed file as a resource.
fn refusal_of(claim: &ClaimRecord, change: &Change) -> Refusal {
    let target = Resource::from_relative_path(&change.rel, false).map_or_else(
        || claim.resource.as_str().to_string(),
        |r| r.as_str().to_string(),
    );
    Refusal {
        claim_id: claim.claim_id.clone(),
        claim_resource: claim.resource.as_str().to_string(),
        owner_session_id: claim.owner_session_id.clone(),
        owner_participant_id: claim.owner_participant_id.clone(),
        target,
    }
}
