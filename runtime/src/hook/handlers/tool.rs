//! `beforeTool`: the write guard.
//!
//! A write is denied when another session's live *guarded* claim covers one of its targets,
//! whatever the client's evidence says: a deny in a shape the client ignores is harmless,
//! while a missing deny loses work. Advisory claims and the session's own claims never deny.

use super::super::answer::Answer;
use super::super::bound::Bound;
use super::super::failure::Failure;
use super::super::targets;
use super::{Call, lifecycle};
use crate::core::Core;
use crate::core::claims::GuardHit;
use acc_sdk::adapter::OwnerLine;
use acc_sdk::event::Targets;
use std::path::Path;

/// The stderr note for a write-capable call whose targets could not be read.
pub const UNGUARDED_NOTE: &str =
    "acc: this tool call's write targets could not be read; it was allowed unguarded";

/// `<resource> is claimed by <participantId> (session <sessionId>)`.
pub fn deny_reason(hit: &GuardHit) -> String {
    format!(
        "{} is claimed by {} (session {})",
        hit.resource, hit.owner_participant_id, hit.owner_session_id
    )
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
            let resources = targets::resources(Path::new(&call.event.cwd), &root, paths);
            if !resources.is_empty() {
                let hits = core.guarded_claims_covering(&bound.binding.session_id, &resources)?;
                if let Some(hit) = hits.first() {
                    // Decided: a heartbeat write now could only delay the deny.
                    let outcome = call
                        .adapter
                        .behaviour()
                        .deny_outcome(call.event, &deny_reason(hit));
                    return Ok(Answer::of(outcome));
                }
            }
        }
        Some(Targets::Unreadable) => answer.notes.push(UNGUARDED_NOTE.to_string()),
        Some(Targets::None) | None => {}
    }
    call.deadline.check()?;
    if !bound.is_live() {
        return Ok(answer);
    }
    lifecycle::refresh_if_due(core, &bound)?;
    if let Some(tool) = tool {
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
