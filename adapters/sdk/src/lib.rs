//! The acc adapter SDK.
//!
//! An adapter is two halves: a declarative manifest (`adapter.json`, `certification.json`,
//! `fixtures/certification-provenance.json`) that tools read without compiling vendor code,
//! and a Rust type implementing [`adapter::AdapterBehaviour`]. [`define::define_adapter`]
//! joins them and is the only way to obtain a usable adapter.

pub mod adapter;
pub mod behaviour;
pub mod bounded_command;
pub mod capabilities;
pub mod certification;
pub mod claude_hooks;
pub mod client_events;
pub mod context;
pub mod define;
pub mod envelope;
pub mod error;
pub mod event;
pub mod hook_command;
pub mod hook_config;
pub mod hook_owner;
pub mod identity;
pub mod install;
pub mod install_files;
pub mod install_layout;
pub mod json_style;
pub mod manifest;
pub mod native;
pub mod node_package;
pub mod outcome;
pub mod payload;
pub mod peer_text;
pub mod probe;
pub mod projector;
pub mod reply_route;
pub mod resolution;
pub mod skill;
#[cfg(any(test, feature = "testing"))]
pub mod testing;
mod text_forms;
pub mod toml_tables;
pub mod version;

/// The guard's reader of shell commands, a crate of its own (`acc-shell-reader`) because it
/// needs nothing else of the SDK; re-exported where adapters have always found it.
pub use acc_shell_reader as shell_targets;
/// Codex's `apply_patch` reader, which lives with the shell reader (a command may carry one).
pub use acc_shell_reader::patch_targets;
