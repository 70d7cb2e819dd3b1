//! acc adapter for Qwen Code (`qwen`).
//!
//! Qwen Code descends from Gemini CLI (its settings tree, its tool names) but its hooks take
//! Claude Code's shape: `PreToolUse`/`PostToolUse`/`UserPromptSubmit` events, snake_case
//! payloads, and the `hookSpecificOutput` envelope for refusals and context. The manifest
//! and evidence are embedded from `adapter.json` and `certification.json`; [`define`] joins
//! them with [`Behaviour`] through `define_adapter`, which refuses any capability the
//! evidence does not back.

pub mod events;
mod identity;
mod install;
pub mod normalize;
pub mod outcomes;
pub mod package_version;
pub mod tools;

use std::collections::BTreeMap;

use acc_sdk::adapter::{AdapterBehaviour, ClientIdentity, ProcessEntry, ReplyRoute};

/// The adapter id, as `acc-hook` and the registry spell it.
pub const ID: &str = "qwen-code";

/// Where this client reads settings that can add, replace or switch off hooks, as path
/// endings (a `/` at the end names every file in that directory), at any level: an agent's
/// tool writing one could turn acc off, so the guard refuses it. Qwen Code reads hooks, and
/// `disableAllHooks`, from `settings.json` at the user and the project level.
pub const HOOK_CONTROL_FILES: &[&str] = &[".qwen/settings.json"];

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

    /// The relaunched `node …/cli.js` child, which runs the hooks, is the client.
    fn identify_client_process(&self, entry: &ProcessEntry) -> Option<ClientIdentity> {
        identity::identify(entry, ID)
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
