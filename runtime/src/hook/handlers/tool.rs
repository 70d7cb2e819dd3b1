//! `beforeTool`: the write guard.
//!
//! A write is denied when another session's live *guarded* claim covers one of its targets,
//! whatever the client's evidence says: a deny in a shape the client ignores is harmless,
//! while a missing deny loses work. Advisory claims and the session's own claims never deny.

use super::super::answer::Answer;
use super::super::bound::Bound;
use super::super::failure::Failure;
use super::super::targets::{self, Reach};
use super::{Call, confine, lifecycle};
use crate::core::Core;
use crate::core::claims::{ClaimRecord, GuardHit};
use crate::core::model::Enforcement;
use crate::core::resources::Resource;
use crate::ids::{ParticipantId, SessionId};
use acc_sdk::adapter::OwnerLine;
use acc_sdk::event::Targets;
use std::path::Path;

/// The stderr note for a write-capable call whose targets could not be read.
pub const UNGUARDED_NOTE: &str =
    "acc: this tool call's write targets could not be read; it was allowed unguarded";

/// `<resource> is claimed by <participantId> (session <sessionId>)`.
pub fn deny_reason(hit: &GuardHit) -> String {
    claimed_by(
        &hit.resource,
        &hit.owner_participant_id,
        &hit.owner_session_id,
    )
}

fn claimed_by(resource: &Resource, participant: &ParticipantId, session: &SessionId) -> String {
    format!("{resource} is claimed by {participant} (session {session})")
}

/// The deny reason for a target reaching `reach`, covered by `hit`: it names the target when
/// the claim covers the target's own path, and otherwise the claimed resource inside it
/// (`rm -rf src` names `file:src/a.txt`).
fn reach_reason(reach: &Reach, hit: &GuardHit) -> String {
    let named = match reach {
        Reach::File(own) | Reach::Tree(own) if hit.claim_resource.overlaps(own) => own,
        _ => &hit.claim_resource,
    };
    claimed_by(named, &hit.owner_participant_id, &hit.owner_session_id)
}

/// The first guarded claim of another session that one of `reaches` covers, in target
/// order, as a deny reason.
fn first_denial(
    core: &mut Core,
    me: &SessionId,
    reaches: &[Reach],
) -> Result<Option<String>, Failure> {
    let lookups: Vec<Resource> = reaches.iter().filter_map(Reach::lookup).collect();
    let hits = if lookups.is_empty() {
        Vec::new()
    } else {
        core.guarded_claims_covering(me, &lookups)?
    };
    let mut everything: Option<Vec<ClaimRecord>> = None;
    for reach in reaches {
        if !matches!(reach, Reach::Workspace) {
            let lookup = reach.lookup();
            if let Some(hit) = hits.iter().find(|h| Some(&h.resource) == lookup.as_ref()) {
                return Ok(Some(reach_reason(reach, hit)));
            }
            continue;
        }
        // The whole workspace: every guarded claim of a peer on a path inside it.
        if everything.is_none() {
            everything = Some(core.live_claims()?);
        }
        let found = everything.iter().flatten().find(|c| {
            c.enforcement == Enforcement::Guarded
                && &c.owner_session_id != me
                && c.resource.file_path().is_some_and(inside_the_root)
        });
        if let Some(claim) = found {
            return Ok(Some(claimed_by(
                &claim.resource,
                &claim.owner_participant_id,
                &claim.owner_session_id,
            )));
        }
    }
    Ok(None)
}

/// A root-relative claim path (claims spelled outside the root never judge its writes).
fn inside_the_root(path: &str) -> bool {
    !path.starts_with('/') && path != ".." && !path.starts_with("../")
}

pub fn before_tool(call: &Call, core: &mut Core) -> Result<Answer, Failure> {
    // A conversation acc never started is not coordinated: nothing to guard it against.
    let Some(bound) = Bound::load(core, &call.event.session_id)? else {
        return Ok(Answer::silent());
    };
    let tool = call.event.tool.as_ref();
    let mut answer = Answer::silent();
    match tool.map(|t| &t.targets) {
        Some(Targets::Paths(paths)) => {
            let root = core.workspace().checkout_root().to_path_buf();
            let reaches = targets::reaches(Path::new(&call.event.cwd), &root, paths);
            if let Some(reason) = first_denial(core, &bound.binding.session_id, &reaches)? {
                // Decided: a heartbeat write now could only delay the deny.
                let outcome = call.adapter.behaviour().deny_outcome(call.event, &reason);
                return Ok(Answer::of(outcome));
            }
        }
        Some(Targets::Unreadable) => answer.notes.push(UNGUARDED_NOTE.to_string()),
        Some(Targets::None) | None => {}
    }
    // Not denied: where the client can rewrite the call, the kernel keeps peers' claimed
    // paths read-only for whatever it runs, readable targets or not.
    let confined = confine::confine(call, core, &bound.binding.session_id)?;
    if let Some(outcome) = &confined {
        answer = Answer::of(outcome.clone());
    }
    call.deadline.check()?;
    if !bound.is_live() {
        return Ok(answer);
    }
    lifecycle::refresh_if_due(core, &bound)?;
    // The rewrite is the whole answer: an owner line would replace it.
    if let Some(tool) = tool.filter(|_| confined.is_none()) {
        let owner = bound.owner();
        let line = OwnerLine {
            session_id: owner.session.to_string(),
            generation: owner.generation.to_string(),
            cwd: call.event.cwd.clone(),
        };
        if let Some(mut outcome) = call
            .adapter
            .behaviour()
            .inject_tool_owner_outcome(&line, &tool.name)
        {
            // Identity only: it may add context, never turn the allow into a deny.
            outcome.exit_code = 0;
            answer.outcome = outcome;
        }
    }
    Ok(answer)
}
