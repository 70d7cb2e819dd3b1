//! acc adapter for Gemini CLI (`gemini`).
//!
//! The manifest and evidence are embedded from `adapter.json` and `certification.json`;
//! [`define`] joins them with [`Behaviour`] through `define_adapter`, which refuses any
//! capability the evidence does not back.

pub mod events;
mod install;
pub mod normalize;
pub mod outcomes;
pub mod package_version;
pub mod tools;

use std::collections::BTreeMap;

use acc_sdk::adapter::{AdapterBehaviour, ProcessEntry, ReplyRoute};

/// The adapter id, as `acc-hook` and the registry spell it.
pub const ID: &str = "gemini-cli";

/// Where this client reads settings that can add, replace or switch off hooks, as path
/// endings (a `/` at the end names every file in that directory), at any level: an agent's
/// tool writing one could turn acc off, so the guard refuses it. Gemini CLI reads hooks from this at the user and the project level.
pub const HOOK_CONTROL_FILES: &[&str] = &[".gemini/settings.json"];

acc_sdk::shipped_adapter!(ID, Behaviour);

#[derive(Debug, Clone, Copy, Default)]
pub struct Behaviour;

impl AdapterBehaviour for Behaviour {
    acc_sdk::delegate_behaviour! {
        install: install::Install,
        normalize: normalize::normalize,
        deny: outcomes::deny,
        inject: outcomes::inject,
        guard_write: tools::WRITE,
        guard_shell: tools::SHELL,
    }

    /// Answers reach the asking participant's current session at its next turn (recorded
    /// by the `reply-route` scenario).
    fn reply_route(&self) -> Option<&dyn ReplyRoute> {
        Some(&acc_sdk::reply_route::NextTurnReplies)
    }

    /// The running build, from the `package.json` of the script its `node` process runs.
    fn client_version_of(
        &self,
        _pid: u32,
        entry: &ProcessEntry,
        _env: &BTreeMap<String, String>,
    ) -> Option<String> {
        package_version::version_from_args(&entry.args)
    }
}
