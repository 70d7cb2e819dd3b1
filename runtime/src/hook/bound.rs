//! The acc session a client conversation is bound to, looked up through the binding keyed
//! by the client's own session id.

use crate::core::Core;
use crate::core::Owner;
use crate::core::bindings::{HookBinding, binding_key};
use crate::core::model::SessionState;
use crate::core::sessions::SessionRecord;
use crate::error::Result;
use acc_sdk::event::NormalizedEvent;
use acc_sdk::resolution::ClientFacts;

/// A binding and the session it names (absent when the session was pruned).
#[derive(Debug, Clone)]
pub struct Bound {
    pub key: String,
    pub binding: HookBinding,
    pub session: Option<SessionRecord>,
}

impl Bound {
    /// The binding of `client_session_id`, with its session, if there is one.
    pub fn load(core: &mut Core, client_session_id: &str) -> Result<Option<Bound>> {
        let key = binding_key(client_session_id);
        let Some(binding) = core.binding(&key)? else {
            return Ok(None);
        };
        let session = core.session(&binding.session_id)?;
        Ok(Some(Bound {
            key,
            binding,
            session,
        }))
    }

    /// The binding a call of `event` acts under: its conversation's own, or, for a subagent
    /// acc did not open as a child session (not granted, or its start never seen), its parent
    /// conversation's, exactly as before child sessions existed.
    pub fn for_event(core: &mut Core, event: &NormalizedEvent) -> Result<Option<Bound>> {
        if let Some(own) = Bound::load(core, &event.session_id)? {
            return Ok(Some(own));
        }
        match &event.parent_session_id {
            Some(parent) => Bound::load(core, parent),
            None => Ok(None),
        }
    }

    /// Whether this binding names a child session (a subagent of another conversation).
    pub fn is_child(&self) -> bool {
        self.session
            .as_ref()
            .is_some_and(|s| s.parent_session_id.is_some())
    }

    pub fn owner(&self) -> Owner {
        Owner::new(
            self.binding.session_id.clone(),
            self.binding.generation.clone(),
        )
    }

    /// The bound session is still open at the bound generation: its mutations will pass.
    pub fn is_live(&self) -> bool {
        self.session.as_ref().is_some_and(|s| {
            s.state == SessionState::Open && s.generation == self.binding.generation
        })
    }

    /// What `sessionStart` learned about the client, for capability resolution without
    /// probing again.
    pub fn facts(&self, primary: &str, platform: &str) -> ClientFacts {
        ClientFacts {
            client_version: self.binding.client_version.clone(),
            platform: platform.to_string(),
            client_name: Some(self.binding.client_name.clone()).filter(|n| n != primary),
        }
    }
}

/// The client conversation whose workspace pin a call of `event` uses: a subagent acts in
/// the workspace its parent conversation attached in, whatever its own `cwd` says.
pub fn pin_conversation(event: &NormalizedEvent) -> &str {
    event
        .parent_session_id
        .as_deref()
        .unwrap_or(&event.session_id)
}
