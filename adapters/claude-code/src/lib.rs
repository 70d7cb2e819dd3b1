//! acc adapter for Claude Code (`claude`).
//!
//! The manifest and evidence are embedded from `adapter.json` and `certification.json`;
//! [`define`] joins them with [`Behaviour`] through `define_adapter`, which refuses any
//! capability the evidence does not back.

pub mod events;
pub mod inbox;
mod install;
pub mod normalize;
pub mod outcomes;
pub mod person_rules;
pub mod session_record;
pub mod tools;

use std::collections::BTreeMap;

use acc_sdk::adapter::{AdapterBehaviour, LivePush, NativeSession, ProcessEntry, ReplyRoute};
use acc_sdk::event::NormalizedEvent;
use acc_sdk::install::InstallContext;
use acc_sdk::outcome::HookOutcome;
use serde_json::Value;

/// The adapter id, as `acc-hook` and the registry spell it.
pub const ID: &str = "claude-code";

/// Where this client reads settings that can add, replace or switch off hooks, as path
/// endings (a `/` at the end names every file in that directory), at any level: an agent's
/// tool writing one could turn acc off, so the guard refuses it. Claude Code reads hooks, and `disableAllHooks`, from these at the user and the project level.
pub const HOOK_CONTROL_FILES: &[&str] = &[".claude/settings.json", ".claude/settings.local.json"];

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

    fn client_version_of(
        &self,
        pid: u32,
        _entry: &ProcessEntry,
        env: &BTreeMap<String, String>,
    ) -> Option<String> {
        session_record::version_of(pid, env)
    }

    fn inbound_sockets(&self, ctx: &InstallContext) -> Vec<std::path::PathBuf> {
        inbox::sockets(ctx)
    }

    fn live_push(&self) -> Option<&dyn LivePush> {
        Some(&inbox::Inbox)
    }

    fn native_session(&self) -> Option<&dyn NativeSession> {
        Some(&inbox::Inbox)
    }

    /// Claude Code 2.1.332 answers the Stop hook's block with another model request.
    fn continue_turn_outcome(&self, context: &str, payload: &Value) -> Option<HookOutcome> {
        acc_sdk::payload::stop_block(context, payload)
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
