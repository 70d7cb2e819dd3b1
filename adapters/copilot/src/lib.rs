//! acc adapter for GitHub Copilot CLI (`copilot`, npm `@github/copilot`).
//!
//! The manifest and evidence are embedded from `adapter.json` and `certification.json`;
//! [`define`] joins them with [`Behaviour`] through `define_adapter`, which refuses any
//! capability the evidence does not back.

pub mod events;
mod install;
pub mod normalize;
pub mod outcomes;
pub mod permissions;
pub mod tools;

use acc_sdk::adapter::{AdapterBehaviour, ReplyRoute};
use acc_sdk::event::NormalizedEvent;
use acc_sdk::outcome::HookOutcome;
use serde_json::Value;

/// The adapter id, as `acc-hook` and the registry spell it.
pub const ID: &str = "copilot";

/// Where this client reads settings that can add, replace or switch off hooks, as path
/// endings (a `/` at the end names every file in that directory), at any level: an agent's
/// tool writing one could turn acc off, so the guard refuses it. Copilot CLI 1.0.102 loads
/// every `*.json` in its user hooks directory and a repository's `.github/hooks/`, inline
/// `hooks` (and `disableAllHooks`) from its user and repository settings, and Claude Code's
/// project settings as well.
pub const HOOK_CONTROL_FILES: &[&str] = &[
    ".copilot/hooks/",
    ".copilot/settings.json",
    ".copilot/config.json",
    ".github/hooks/",
    ".github/copilot/settings.json",
    ".github/copilot/settings.local.json",
    ".claude/settings.json",
    ".claude/settings.local.json",
];

acc_sdk::shipped_adapter!(ID, Behaviour);

#[derive(Debug, Clone, Copy, Default)]
pub struct Behaviour;

impl AdapterBehaviour for Behaviour {
    acc_sdk::delegate_behaviour! {
        install: install::Install,
        normalize_with_args: normalize::normalize,
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

    /// `agentStop` answers `{"decision":"block","reason"}` with another model request of
    /// the same turn; its payload carries `stop_hook_active` as Claude Code's does.
    fn continue_turn_outcome(&self, context: &str, payload: &Value) -> Option<HookOutcome> {
        acc_sdk::payload::stop_block(context, payload)
    }

    fn rewrite_shell_outcome(
        &self,
        event: &NormalizedEvent,
        payload: &Value,
        wrap: &mut dyn FnMut(&str) -> Option<String>,
    ) -> Option<HookOutcome> {
        let flags = permissions::ClientFlags::of_running_client();
        outcomes::rewrite_shell(event, payload, &flags, wrap)
    }
}
