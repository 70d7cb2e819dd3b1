//! acc adapter for Kimi Code (`kimi`).
//!
//! The manifest and evidence are embedded from `adapter.json` and `certification.json`;
//! [`define`] joins them with [`Behaviour`] through `define_adapter`, which refuses any
//! capability the evidence does not back.

pub mod events;
pub mod identity;
mod install;
pub mod normalize;
pub mod outcomes;
pub mod package_version;
pub mod tools;

use acc_sdk::adapter::{AdapterBehaviour, ClientIdentity, ProcessEntry, ReplyRoute};

/// The adapter id, as `acc-hook` and the registry spell it.
pub const ID: &str = "kimi-code";

/// Where this client reads settings that can add, replace or switch off hooks, as path
/// endings (a `/` at the end names every file in that directory), at any level: an agent's
/// tool writing one could turn acc off, so the guard refuses it. Kimi Code reads its hooks from this.
pub const HOOK_CONTROL_FILES: &[&str] = &[".kimi-code/config.toml"];

/// The primary client's certification name, as `adapter.json` declares it.
const CERTIFICATION_NAME: &str = "kimi-code";

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

    fn identify_client_process(&self, entry: &ProcessEntry) -> Option<ClientIdentity> {
        identity::identify(entry, CERTIFICATION_NAME)
    }

    fn client_version_of(
        &self,
        pid: u32,
        _entry: &ProcessEntry,
        env: &std::collections::BTreeMap<String, String>,
    ) -> Option<String> {
        package_version::version(pid, env)
    }
}
