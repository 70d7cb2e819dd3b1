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
/// The longest a taker waits for another that holds the call's record (its compare is
/// bounded by [`WALK_BUDGET`] and one store write).
pub const LOCK_WAIT: Duration = Duration::from_millis(1_500);

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
    let Some(taken) = fingerprints::take_saved(&call.data_home, &key, lock_until(call)) else {
        return lifecycle::touch(call, core);
    };
    // Until the compare is recorded the record stays: a failure or a kill before then
    // leaves it to the turn's end.
    let mut answer = lifecycle::touch(call, core)?;
    let compared = compare(call, core, &taken)?;
    answer.notes.extend(compared.notes);
    if compared.recorded {
        taken.settle();
    }
    Ok(answer)
}

/// How long to wait for another taker of a record: the hook's budget must still hold the
/// compare after the wait.
fn lock_until(call: &Call) -> Instant {
    Instant::now() + LOCK_WAIT.min(call.deadline.remaining() / 3)
}

/// At the end of a turn, the calls of this conversation whose post-tool hook never came (a
/// client that does not wait for it, or ended the turn first): each is compared now, so a
/// claimed file one of them changed is still told.
pub fn settle_pending(call: &Call, core: &mut Core) -> Result<Vec<String>, Failure> {
    let conversation = crate::core::bindings::binding_key(&call.event.session_id);
    let mut notes = Vec::new();
    for key in fingerprints::pending_records(&call.data_home, &conversation) {
        // A post-tool hook still comparing holds its record: waited for, then found settled.
        if let Some(taken) = fingerprints::take_saved(&call.data_home, &key, lock_until(call)) {
            let compared = compare(call, core, &taken)?;
            notes.extend(compared.notes);
            if compared.recorded {
                taken.settle();
            }
        }
    }
    Ok(notes)
}

/// What a compare found and told.
struct Compared {
    /// The stderr notes that say what changed.
    notes: Vec<String>,
    /// Every change found is in the store: the record may go. Otherwise it stays for the
    /// turn's end to compare again (a change recorded now may then be told twice; one that
    /// could not be recorded is not lost).
    recorded: bool,
}

/// Fingerprints `taken`'s claimed files again and records every change for its claim's
/// owner.
fn compare(call: &Call, core: &mut Core, taken: &fingerprints::Taken) -> Result<Compared, Failure> {
    let before = &taken.prints;
    let until = Instant::now() + WALK_BUDGET.min(call.deadline.remaining() / 3);
    let after = fingerprints::take(before.roots.clone(), before.watched.clone(), until);
    let changes = fingerprints::changes(before, &after);
    let mut notes = Vec::new();
    let Some(me) = before.session_id.as_deref().map(str::to_string) else {
        return Ok(Compared {
            notes,
            recorded: true,
        });
    };
    // A walk cut short compares only the files both walks saw: the rest is not "unchanged",
    // it is unknown, and the session is told so.
    if !before.complete || !after.complete {
        notes.push(format!(
            "acc: the files under other sessions' guarded claims were compared only in part (the walk stops at {} files or its time budget): a change among the rest is not told",
            fingerprints::MAX_ENTRIES
        ));
    }
    if taken.forced {
        notes.push(
            "acc: another process held this shell call's fingerprints past the wait; compared without it (a change may be told twice)"
                .to_string(),
        );
    }
    if changes.is_empty() {
        return Ok(Compared {
            notes,
            recorded: true,
        });
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
        return Ok(Compared {
            notes,
            recorded: true,
        });
    }
    notes.push(format!(
        "acc: files under other sessions' guarded claims changed while this shell call ran: {}; their owners are told",
        named.join(", ")
    ));
    if unrecorded > 0 {
        notes.push(format!(
            "acc: {unrecorded} of these changes could not be recorded for the claims' owners; compared again when the turn ends"
        ));
    }
    Ok(Compared {
        notes,
        recorded: unrecorded == 0,
    })
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
