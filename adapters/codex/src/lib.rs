//! acc adapter for Codex CLI (`codex`).
//!
//! The manifest and evidence are embedded from `adapter.json` and `certification.json`;
//! [`define`] joins them with [`Behaviour`] through `define_adapter`, which refuses any
//! capability the evidence does not back.

mod daemon;
pub mod events;
pub mod host;
mod install;
pub mod normalize;
pub mod outcomes;
pub mod tools;

use acc_sdk::adapter::{AdapterBehaviour, LivePush, NativeSession, ProcessEntry, ReplyRoute};
use acc_sdk::outcome::HookOutcome;
use serde_json::Value;

/// The adapter id, as `acc-hook` and the registry spell it.
pub const ID: &str = "codex";

/// Where this client reads settings that can add, replace or switch off hooks, as path
/// endings (a `/` at the end names every file in that directory), at any level: an agent's
/// tool writing one could turn acc off, so the guard refuses it. Codex reads its hooks and their trust from these.
pub const HOOK_CONTROL_FILES: &[&str] = &[".codex/config.toml", ".codex/hooks.json"];

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

    fn is_shared_host(&self, entry: &ProcessEntry) -> bool {
        host::is_shared_app_server(entry)
    }

    fn live_push(&self) -> Option<&dyn LivePush> {
        Some(&daemon::Daemon)
    }

    fn native_session(&self) -> Option<&dyn NativeSession> {
        Some(&daemon::Daemon)
    }

    /// Codex 0.171.0 turns the Stop hook's block into a continuation prompt of the same
    /// turn (`codex-rs/hooks/src/events/stop.rs`).
    fn continue_turn_outcome(&self, context: &str, payload: &Value) -> Option<HookOutcome> {
        acc_sdk::payload::stop_block(context, payload)
    }
}
