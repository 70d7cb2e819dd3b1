//! Publishes the conversation's native delivery binding from its own hooks, at session
//! start and every turn, so a sender finds the session where it listens now. Fails open:
//! a refused or failed handshake is a note, never a hook error.

use super::super::bound::Bound;
use super::super::call::Call;
use super::super::hook_env::CERTIFY_CANDIDATES_VAR;
use crate::core::Core;
use crate::live::bind::{self, HookFacts};
use crate::live::contract::live_push_candidate;

pub fn publish_binding(call: &Call, core: &mut Core) {
    publish_binding_of(call, core, None);
}

/// [`publish_binding`] with the conversation's binding as already read this call (`known`,
/// read again when `None`).
pub fn publish_binding_of(call: &Call, core: &mut Core, known: Option<&Bound>) {
    if call.adapter.behaviour().native_session().is_none() || call.deadline.check().is_err() {
        return;
    }
    let env = &call.settings.env;
    let candidate = live_push_candidate(env.get(CERTIFY_CANDIDATES_VAR));
    // Without a declared contract (or a recorder's candidate run) nothing is published:
    // the hook skips the store read.
    if call.adapter.native_delivery().is_none() && !candidate {
        return;
    }
    let loaded;
    let bound = match known {
        Some(bound) => bound,
        None => match Bound::load(core, &call.event.session_id) {
            Ok(Some(bound)) => {
                loaded = bound;
                &loaded
            }
            _ => return,
        },
    };
    if !bound.is_live() {
        return;
    }
    let owner = bound.owner();
    let facts = HookFacts {
        owner: &owner,
        cwd: &call.event.cwd,
        client_session_id: &call.event.session_id,
        client_pid: bound.binding.client_pid,
        client_version: bound.binding.client_version.as_deref(),
        client_name: Some(&bound.binding.client_name),
        permission_mode: call.event.permission_mode.as_deref(),
        env: env.vars(),
        candidate,
    };
    if let Err(note) = bind::publish(&call.adapter, core, &facts) {
        call.report(note);
    }
}
