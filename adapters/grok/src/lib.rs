//! acc adapter for Grok Build (`grok`).
//!
//! The manifest and evidence are embedded from `adapter.json` and `certification.json`;
//! [`define`] joins them with [`Behaviour`] through `define_adapter`, which refuses any
//! capability the evidence does not back.

pub mod events;
mod install;
pub mod normalize;
pub mod outcomes;
pub mod tools;

use acc_sdk::adapter::AdapterBehaviour;

/// The adapter id, as `acc-hook` and the registry spell it.
pub const ID: &str = "grok";

/// Where this client reads settings that can add, replace or switch off hooks, as path
/// endings (a `/` at the end names every file in that directory), at any level: an agent's
/// tool writing one could turn acc off, so the guard refuses it. Grok reads every hook file in `hooks/`, its `config.toml` (which can turn its Claude compatibility off), and Claude Code's settings.
pub const HOOK_CONTROL_FILES: &[&str] =
    &[".grok/config.toml", ".grok/hooks/", ".claude/settings.json"];

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
}
