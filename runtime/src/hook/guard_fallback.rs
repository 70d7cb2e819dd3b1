//! The write guard when the store cannot be read within its budget: it answers from the
//! guarded-claims snapshot beside the store ([`crate::store::guard_snapshot`]) instead of
//! timing out and allowing.
//!
//! It needs the conversation's pin (which workspace, which acc session: its own claims
//! never deny) and a snapshot (one its token does not seal is judged together with the
//! witness, [`crate::store::tamper::last_known`]); without either it has nothing to judge
//! by, and the call
//! fails open as before, with the store's reason code. Whatever it answers, a stderr line
//! says the store was unavailable and that the snapshot answered.

use super::answer::Answer;
use super::call::Call;
use super::failure::Failure;
use super::handlers::tool::UNGUARDED_NOTE;
use super::verdict::{self, Guarded};
use crate::core::bindings::binding_key;
use crate::core::claims::ClaimRecord;
use crate::core::model::{ClaimMode, Enforcement};
use crate::core::resources::Resource;
use crate::ids::{ClaimId, ParticipantId, SessionId};
use crate::paths;
use crate::store::guard_snapshot::SnapshotClaim;
use crate::store::tamper;
use crate::workspace::pin;
use acc_sdk::event::Targets;
use acc_sdk::peer_text::escape_hidden;
use std::path::Path;
use std::time::Instant;

/// How long the guard waits for a store another process holds before it answers from the
/// snapshot: a fraction of the budget, so the answer still comes well within it.
pub const STORE_WAIT_SHARE: u32 = 3;

/// Whether `failure` means the store could not be read (as opposed to a refused payload).
pub fn store_unavailable(failure: &Failure) -> bool {
    use crate::error::ErrorCode;
    matches!(
        failure,
        Failure::Timeout
            | Failure::Core(
                ErrorCode::StoreBusy
                    | ErrorCode::StoreIo
                    | ErrorCode::StoreUnreachable
                    | ErrorCode::StoreCorrupt
                    | ErrorCode::DataHomeNotDirectory
            )
    )
}

/// The guard's answer from the snapshot, or `failure` back when there is nothing to judge
/// by.
pub fn before_tool(call: &Call, failure: Failure) -> Result<Answer, Failure> {
    let Some(tool) = call.event.tool.as_ref() else {
        return Err(failure);
    };
    let key = binding_key(super::bound::pin_conversation(call.event));
    let Ok(Some(pinned)) = pin::read_pinned(&call.data_home, &key) else {
        return Err(failure);
    };
    let Some(me) = pinned.facts.session_id.as_deref() else {
        return Err(failure);
    };
    let store = paths::store_file(&call.data_home, &pinned.workspace.id);
    // What acc last published: the sealed snapshot, or (when the token does not seal it,
    // as when it was edited) its claims and its witness's together.
    let Some(claims) = tamper::last_known(&store, pinned.workspace.id.as_str()) else {
        return Err(failure);
    };
    let note = format!(
        "acc: the store could not be read in time ({}); the guard answered from its guarded-claims snapshot",
        failure.code()
    );
    let now = call.settings.ports.now();
    // The snapshot holds only guarded claims; a claim this session inherited from its
    // participant's ended sessions still denies here (the pin cannot tell): the fallback
    // errs on the side of the claim.
    let records: Vec<ClaimRecord> = claims
        .iter()
        .filter(|c| c.expires_at_ms > now && c.owner_session_id != me)
        .map(|c| record_of(c, now))
        .collect();
    let guarded = Guarded::of_records(records);
    let until = Instant::now() + call.deadline.remaining() / 2;
    let denial = match &tool.targets {
        Targets::Paths(paths) => {
            let roots = verdict::roots_of_workspace(&pinned.workspace);
            verdict::judge_paths(&guarded, &roots, Path::new(&call.event.cwd), paths, until)
        }
        Targets::Named { paths, named } => {
            let roots = verdict::roots_of_workspace(&pinned.workspace);
            let cwd = Path::new(&call.event.cwd);
            verdict::judge_unbounded(&guarded, &roots, cwd, (paths, named), until)
        }
        Targets::Unreadable { reason } => verdict::unreadable(&guarded, Some(reason)),
        Targets::None => None,
    };
    match denial {
        Some(denial) => {
            let outcome = call
                .adapter
                .behaviour()
                .deny_outcome(call.event, &escape_hidden(&denial.reason));
            Ok(Answer::of(outcome).with_note(note))
        }
        None if matches!(tool.targets, Targets::Unreadable { .. }) => {
            Ok(Answer::silent().with_note(UNGUARDED_NOTE).with_note(note))
        }
        None => Ok(Answer::silent().with_note(note)),
    }
}

/// A snapshot's claim as the verdict reads claims: guarded, live until its expiry.
pub(crate) fn record_of(c: &SnapshotClaim, now: i64) -> ClaimRecord {
    ClaimRecord {
        claim_id: ClaimId::from_store(c.claim_id.clone()),
        owner_session_id: SessionId::from_store(c.owner_session_id.clone()),
        owner_participant_id: ParticipantId::from_store(c.owner_participant_id.clone()),
        resource: Resource::from_store(c.resource.clone()),
        mode: ClaimMode::Exclusive,
        enforcement: Enforcement::Guarded,
        reason: None,
        acquired_at: String::new(),
        expires_at: crate::clock::to_iso(c.expires_at_ms),
        live: c.expires_at_ms > now,
    }
}

/// The store-backed guard on a thread of its own, raced against a share of the budget: a
/// store that another process holds (even while it is being opened) makes the guard answer
/// from the snapshot instead of waiting out the deadline and allowing.
pub fn raced(call: &Call) -> Result<Answer, Failure> {
    let event = call.event.clone();
    let payload = call.payload.clone();
    let settings = call.settings.clone();
    let adapter = call.adapter.clone();
    let data_home = call.data_home.clone();
    let platform = call.platform.clone();
    let deadline = call.deadline;
    let (tx, rx) = std::sync::mpsc::channel::<Result<Answer, Failure>>();
    let spawned = std::thread::Builder::new()
        .name("acc-guard-store".into())
        .spawn(move || {
            let inner = Call {
                adapter,
                event: &event,
                payload: &payload,
                settings: &settings,
                deadline,
                data_home,
                platform,
                faults: Default::default(),
                beat_only: false,
            };
            let result = inner
                .open_core(crate::store::OpenMode::ReadOnly)
                .and_then(|mut core| {
                    let answer = super::handlers::tool::before_tool(&inner, &mut core);
                    // Closed here, cleanly, before anyone is told.
                    drop(core);
                    answer
                })
                .map(|mut answer| {
                    answer.notes.append(&mut inner.faults.borrow_mut());
                    answer
                });
            let _ = tx.send(result);
        });
    if spawned.is_err() {
        return Err(Failure::Panic);
    }
    let wait = deadline.remaining() / STORE_WAIT_SHARE;
    match rx.recv_timeout(wait) {
        Ok(Ok(answer)) => Ok(answer),
        Ok(Err(f)) if store_unavailable(&f) => before_tool(call, f),
        Ok(Err(f)) => Err(f),
        Err(std::sync::mpsc::RecvTimeoutError::Timeout) => before_tool(call, Failure::Timeout),
        Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => Err(Failure::Panic),
    }
}
