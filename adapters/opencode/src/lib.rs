//! acc adapter for OpenCode (`opencode`).
//!
//! OpenCode runs no hook commands; acc's install puts a small plugin in OpenCode's global
//! plugin directory that hands each event to `acc-hook` and does what the answer says
//! (`install.rs`, `plugin.js`). The manifest and evidence are embedded from `adapter.json`
//! and `certification.json`; [`define`] joins them with [`Behaviour`] through
//! `define_adapter`, which refuses any capability the evidence does not back.

pub mod events;
mod install;
pub mod normalize;
pub mod outcomes;
pub mod tools;

use acc_sdk::adapter::{AdapterBehaviour, ReplyRoute};
use acc_sdk::event::NormalizedEvent;
use acc_sdk::outcome::HookOutcome;
use serde_json::Value;

pub use install::{PLUGIN, render as render_plugin};

/// The adapter id, as `acc-hook` and the registry spell it.
pub const ID: &str = "opencode";

/// Where this client reads settings that can add, replace or switch off hooks, as path
/// endings (a `/` at the end names every file in that directory), at any level: an agent's
/// tool writing one could turn acc off, so the guard refuses it. OpenCode runs every
/// plugin in these directories (global and per project) as code in its own process, and
/// its config files name more plugins and the permissions a rewritten call is judged by.
pub const HOOK_CONTROL_FILES: &[&str] = &[
    "opencode/plugin/",
    "opencode/plugins/",
    ".opencode/plugin/",
    ".opencode/plugins/",
    "opencode.json",
    "opencode.jsonc",
];

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

    /// Answers reach the asking participant's current session at its next turn.
    fn reply_route(&self) -> Option<&dyn ReplyRoute> {
        Some(&acc_sdk::reply_route::NextTurnReplies)
    }

    fn rewrite_shell_outcome(
        &self,
        event: &NormalizedEvent,
        payload: &Value,
        wrap: &mut dyn FnMut(&str) -> Option<String>,
    ) -> Option<HookOutcome> {
        outcomes::rewrite_shell(event, payload, wrap)
    }
}
