//! acc adapter for Antigravity CLI (`agy`) and its desktop app (the `antigravity-desktop` variant).
//!
//! The manifest and evidence are embedded from `adapter.json` and `certification.json`;
//! [`define`] joins them with [`Behaviour`] through `define_adapter`, which refuses any
//! capability the evidence does not back.

pub mod events;
pub mod identity;
mod install;
pub mod normalize;
pub mod outcomes;

use acc_sdk::adapter::{AdapterBehaviour, ClientIdentity, ProcessEntry};
use acc_sdk::outcome::HookOutcome;
use serde_json::Value;

/// The adapter id, as `acc-hook` and the registry spell it.
pub const ID: &str = "antigravity";

/// Where this client reads settings that can add, replace or switch off hooks, as path
/// endings (a `/` at the end names every file in that directory), at any level: an agent's
/// tool writing one could turn acc off, so the guard refuses it. Antigravity reads its hooks from this.
pub const HOOK_CONTROL_FILES: &[&str] = &[".gemini/config/hooks.json"];

acc_sdk::shipped_adapter!(ID, Behaviour);

#[derive(Debug, Clone, Copy, Default)]
pub struct Behaviour;

impl AdapterBehaviour for Behaviour {
    acc_sdk::delegate_behaviour! {
        install: install::Install,
        normalize_with_args: normalize::normalize,
        deny: outcomes::deny,
        inject: outcomes::inject,
    }

    fn continue_turn_outcome(&self, context: &str, payload: &Value) -> Option<HookOutcome> {
        outcomes::continue_turn(context, payload)
    }

    fn identify_client_process(&self, entry: &ProcessEntry) -> Option<ClientIdentity> {
        identity::identify(entry)
    }
}
