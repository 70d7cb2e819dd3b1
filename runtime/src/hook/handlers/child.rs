//! `childStart`, `childEnd`: a subagent as a child session of its conversation's session.
//!
//! Only where `lifecycle.childSessions` is granted. Then the child start opens a session
//! linked to the parent's, acting as the parent's participant, and binds the subagent's
//! conversation id to it: the subagent's tool calls act as the child (its refusals name it),
//! judged as its family (see [`crate::core::children`]). The child end closes it; the parent's
//! end closes whatever children are left. Without the grant a subagent's calls act as its
//! parent conversation, and these events only refresh its presence.

use super::super::answer::Answer;
use super::super::bound::Bound;
use super::super::bound_workspace;
use super::super::call::Call;
use super::super::failure::Failure;
use super::super::fingerprints;
use super::super::grants::Grants;
use super::lifecycle;
use crate::core::bindings::binding_key;
use crate::core::model::Lifecycle;
use crate::core::sessions::{HOOK_CADENCE_MS, OpenSession};
use crate::core::{Core, Owner};
use crate::workspace::pin::PinFacts;
use acc_sdk::capabilities::Capability;

/// Opens the child session of this subagent, once.
pub fn child_start(call: &Call, core: &mut Core) -> Result<Answer, Failure> {
    let Some(parent) = live_parent(call, core)? else {
        return lifecycle::touch(call, core);
    };
    if !granted(call, &parent) {
        return lifecycle::touch(call, core);
    }
    open_child(call, core, &parent)?;
    Ok(Answer::silent())
}

/// A subagent's own start or turn (clients whose subagent threads fire them): never a
/// conversation of its own (no identity lines, no delivery of its family's messages), a
/// child session where granted. `None` when the event is no subagent's of a live session.
pub fn subagent_turn(call: &Call, core: &mut Core) -> Result<Option<Answer>, Failure> {
    let own = Bound::load(core, &call.event.session_id)?;
    subagent_turn_of(call, core, own.as_ref())
}

/// [`subagent_turn`] with the conversation's own binding already read (`own`); it changes
/// nothing when it answers `None`, so the caller may go on using `own`.
pub fn subagent_turn_of(
    call: &Call,
    core: &mut Core,
    own: Option<&Bound>,
) -> Result<Option<Answer>, Failure> {
    // A client may name only the subagent inside it (Grok): its binding says it is a child.
    if own.is_some_and(Bound::is_child) {
        lifecycle::touch(call, core)?;
        return Ok(Some(Answer::silent()));
    }
    let Some(parent) = live_parent(call, core)? else {
        return Ok(None);
    };
    if granted(call, &parent) {
        open_child(call, core, &parent)?;
    }
    lifecycle::touch(call, core)?;
    Ok(Some(Answer::silent()))
}

/// Closes this subagent's child session.
pub fn child_end(call: &Call, core: &mut Core) -> Result<Answer, Failure> {
    let Some(child) = Bound::load(core, &call.event.session_id)?.filter(Bound::is_child) else {
        return lifecycle::touch(call, core);
    };
    if child.is_live() {
        core.end_child_session(&child.owner())?;
    }
    // A call that never reached its post-tool hook leaves nothing behind.
    fingerprints::forget_conversation(&call.data_home, &child.key);
    Ok(Answer::silent())
}

/// The live session of the conversation that runs this subagent.
fn live_parent(call: &Call, core: &mut Core) -> Result<Option<Bound>, Failure> {
    let Some(parent) = call.event.parent_session_id.as_deref() else {
        return Ok(None);
    };
    Ok(Bound::load(core, parent)?.filter(Bound::is_live))
}

/// The grant is the parent's: the same client, judged from what its start stored.
fn granted(call: &Call, parent: &Bound) -> bool {
    Grants::of_call(call, parent.facts(call.primary(), &call.platform))
        .granted(Capability::ChildSessions)
}

/// The child session bound to this subagent's conversation id: the live one it has, or a new
/// one linked to `parent`'s.
pub fn open_child(call: &Call, core: &mut Core, parent: &Bound) -> Result<Owner, Failure> {
    if let Some(own) = Bound::load(core, &call.event.session_id)?.filter(Bound::is_live) {
        return Ok(own.owner());
    }
    let session = parent
        .session
        .as_ref()
        .expect("a live binding has its session");
    let mut req = OpenSession::new(
        session.participant_id.clone(),
        call.adapter.id(),
        HOOK_CADENCE_MS,
    );
    req.parent_session = Some(parent.binding.session_id.clone());
    // The subagent runs in its parent's process: it lives and dies with it.
    req.pid = session.pid;
    req.checkout_root = session.checkout_root.clone();
    req.branch = session.branch.clone();
    req.enforcement = session.enforcement;
    req.lifecycle = Lifecycle::Managed;
    req.extensions = session.extensions.clone();
    let opened = core.open_session(req)?;
    let owner = Owner::new(opened.session_id, opened.generation);
    core.put_binding(
        &binding_key(&call.event.session_id),
        &owner,
        &parent.binding.client_name,
        parent.binding.client_version.as_deref(),
        parent.binding.client_pid,
    )?;
    // Pinned to its parent's workspace, so a call that names only the subagent (no parent)
    // still acts there; the guard's fallback judges it as its family's root.
    let facts = PinFacts {
        client_pid: parent.binding.client_pid,
        session_id: Some(
            core.session_root(&parent.binding.session_id)?
                .as_str()
                .to_owned(),
        ),
    };
    if let Some(fault) = bound_workspace::pin_at_attach(
        &call.data_home,
        &call.event.session_id,
        core.workspace(),
        &facts,
    ) {
        call.report(fault);
    }
    Ok(owner)
}
