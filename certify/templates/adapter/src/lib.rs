//! acc adapter for Example CLI (`example`).
//!
//! The manifest and evidence are embedded from `adapter.json` and `certification.json`;
//! [`define`] joins them with [`Behaviour`] through `define_adapter`, which refuses any
//! capability the evidence does not back. Until `acc-certify record` has captured the
//! client, `adapter.json` declares nothing and every capability is false.

mod behaviour;
pub mod events;
pub mod install;
pub mod normalize;
pub mod outcomes;
pub mod tools;

pub use behaviour::Behaviour;

/// The adapter id, as `acc-hook` and the registry spell it.
pub const ID: &str = "example";

/// Where this client reads settings that can add, replace or switch off hooks, as path
/// endings (a `/` at the end names every file in that directory), at any level: an agent's
/// tool writing one could turn acc off, so the guard refuses it. Replace with the files the
/// client really reads hooks from.
pub const HOOK_CONTROL_FILES: &[&str] = &[".example/hooks/"];

acc_sdk::shipped_adapter!(ID, Behaviour);
