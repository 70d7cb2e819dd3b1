//! The write guard over a store that changed behind acc's back ([`crate::store::tamper`]):
//! every write a claim of the kept snapshot covers is refused, by the same verdict code as
//! the store path, until the claim's lease runs out or a person runs
//! `acc doctor --accept-store-loss`. It answers only refusals; anything else goes on to the
//! store as before (claims made in a fresh store still guard there).

use super::answer::Answer;
use super::bound;
use super::bound_workspace;
use super::call::Call;
use super::guard_fallback::record_of;
use super::verdict::{self, Guarded};
use crate::core::bindings::binding_key;
use crate::paths;
use crate::store::tamper::{self, Marker};
use crate::workspace::pin;
use acc_sdk::event::Targets;
use std::path::Path;
use std::time::Instant;

/// The refusal when the conversation's store is marked and a kept claim covers a target.
pub fn before_tool(call: &Call) -> Option<Answer> {
    let tool = call.event.tool.as_ref()?;
    let conversation = bound::pin_conversation(call.event);
    let cwd = Path::new(&call.event.cwd);
    // The pinned workspace and acc session (the conversation's own claims never refuse
    // it); a conversation acc never pinned acts in its directory's workspace and owns none.
    let (workspace, me) = match pin::read_pinned(&call.data_home, &binding_key(conversation)) {
        Ok(Some(pinned)) => (pinned.workspace, pinned.facts.session_id),
        _ => {
            let env = call.settings.env.env();
            let resolved = bound_workspace::resolve(&call.data_home, conversation, cwd, env);
            (resolved.ok()?.workspace, None)
        }
    };
    let store = paths::store_file(&call.data_home, &workspace.id);
    let marker = tamper::read(&store)?;
    let now = call.settings.ports.now();
    let records: Vec<_> = marker
        .live_claims(now)
        .iter()
        .filter(|c| me.as_deref() != Some(c.owner_session_id.as_str()))
        .map(|c| record_of(c, now))
        .collect();
    if records.is_empty() {
        return None;
    }
    let guarded = Guarded::of_records(records);
    let until = Instant::now() + call.deadline.remaining() / 4;
    let denial = match &tool.targets {
        Targets::Paths(paths) => {
            let roots = verdict::roots_of_workspace(&workspace);
            verdict::judge_paths(&guarded, &roots, cwd, paths, until)
        }
        Targets::Named { paths, named } => {
            let roots = verdict::roots_of_workspace(&workspace);
            verdict::judge_unbounded(&guarded, &roots, cwd, (paths, named), until)
        }
        Targets::Unreadable { reason } => verdict::unreadable(&guarded, Some(reason)),
        Targets::None => None,
    }?;
    let reason = refusal(&marker, &denial.reason);
    Some(Answer::of(
        call.adapter.behaviour().deny_outcome(call.event, &reason),
    ))
}

/// The refusal's reason: what happened to the store, the claim, and who must act.
pub fn refusal(marker: &Marker, claim_reason: &str) -> String {
    format!(
        "{claim_reason}; acc's store for this workspace {} behind acc's back (found {}), so the guarded claims it held stay enforced: a person must run `acc doctor` (it says what happened and how to recover)",
        marker.kind.what(),
        crate::clock::to_iso(marker.detected_at_ms)
    )
}
