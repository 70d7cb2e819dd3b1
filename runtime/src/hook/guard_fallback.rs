//! The write guard when the store cannot be read within its budget: it answers from the
//! guarded-claims snapshot beside the store ([`crate::store::guard_snapshot`]) instead of
//! timing out and allowing.
//!
//! It needs the conversation's pin (which workspace, which acc session: its own claims
//! never deny) and a snapshot; without either it has nothing to judge by, and the call
//! fails open as before, with the store's reason code. Whatever it answers, a stderr line
//! says the store was unavailable and that the snapshot answered.

use super::answer::Answer;
use super::failure::Failure;
use super::handlers::Call;
use super::handlers::tool::UNGUARDED_NOTE;
use super::targets::{self, Reach};
use crate::core::bindings::binding_key;
use crate::core::resources::Resource;
use crate::paths;
use crate::store::guard_snapshot::{self, SnapshotClaim};
use crate::workspace::pin;
use acc_sdk::event::Targets;
use std::path::Path;

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
    let key = binding_key(&call.event.session_id);
    let Ok(Some(pinned)) = pin::read_pinned(&call.data_home, &key) else {
        return Err(failure);
    };
    let Some(me) = pinned.facts.session_id.as_deref() else {
        return Err(failure);
    };
    let store = paths::store_file(&call.data_home, &pinned.workspace.id);
    let Ok(Some(snapshot)) = guard_snapshot::read(&guard_snapshot::path_for(&store)) else {
        return Err(failure);
    };
    let note = format!(
        "acc: the store could not be read in time ({}); the guard answered from its guarded-claims snapshot",
        failure.code()
    );
    let now = call.settings.ports.now();
    let live: Vec<(Resource, &SnapshotClaim)> = snapshot
        .claims
        .iter()
        .filter(|c| c.expires_at_ms > now && c.owner_session_id != me)
        .filter_map(|c| Resource::parse(&c.resource).ok().map(|r| (r, c)))
        .collect();
    let paths = match &tool.targets {
        Targets::Paths(paths) => paths,
        Targets::Unreadable => {
            return Ok(Answer::silent().with_note(UNGUARDED_NOTE).with_note(note));
        }
        Targets::None => return Ok(Answer::silent().with_note(note)),
    };
    let root = pinned.workspace.checkout_root().to_path_buf();
    let reaches = targets::reaches(Path::new(&call.event.cwd), &root, paths);
    for reach in &reaches {
        if let Some(reason) = judge(reach, &live) {
            let outcome = call.adapter.behaviour().deny_outcome(call.event, &reason);
            return Ok(Answer::of(outcome).with_note(note));
        }
    }
    Ok(Answer::silent().with_note(note))
}

/// The deny reason for `reach`, as the store-backed guard words it.
fn judge(reach: &Reach, live: &[(Resource, &SnapshotClaim)]) -> Option<String> {
    let claimed_by = |named: &dyn std::fmt::Display, c: &SnapshotClaim| {
        format!(
            "{named} is claimed by {} (session {})",
            c.owner_participant_id, c.owner_session_id
        )
    };
    match reach {
        Reach::Workspace => live
            .iter()
            .find(|(r, _)| r.file_path().is_some_and(inside_the_root))
            .map(|(r, c)| claimed_by(r, c)),
        Reach::File(own) | Reach::Tree(own) => {
            let lookup = reach.lookup()?;
            let (claim_resource, c) = live
                .iter()
                .find(|(r, _)| r.is_file() && r.overlaps(&lookup))?;
            if claim_resource.overlaps(own) {
                Some(claimed_by(own, c))
            } else {
                Some(claimed_by(claim_resource, c))
            }
        }
    }
}

fn inside_the_root(path: &str) -> bool {
    !path.starts_with('/') && path != ".." && !path.starts_with("../")
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
