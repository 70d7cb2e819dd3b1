//! The checks every adapter must pass, each with a stable id.
//!
//! [`checks`] is the registry; [`run`] runs every check for one adapter against a
//! [`CheckContext`] (the repository, the `acc-hook` installed hooks run, a scratch
//! directory). Checks that touch a machine do it in a [`sandbox::Sandbox`]: a copy of a
//! realistic home from `fixtures/homes/<id>/`, acc's real installer, and hook commands run
//! exactly as written. `cargo test -p acc-conformance` runs every check for every shipped
//! adapter; `acc-certify gate` runs the same checks and reports them by id.

pub mod check;
pub mod checks;
pub mod context;
pub mod hook_binary;
pub mod hook_commands;
pub mod install_plan;
pub mod probes;
pub mod sandbox;
pub mod snapshot;
pub mod wiring;

pub use check::{Check, CheckId, CheckResult, Finding, Outcome};
pub use context::CheckContext;

use acc_sdk::define::Adapter;

/// Every check, in report order.
pub fn checks() -> &'static [Check] {
    &checks::CHECKS
}

/// The check with `id`, if there is one.
pub fn find(id: &str) -> Option<&'static Check> {
    checks().iter().find(|c| c.id.as_str() == id)
}

/// Runs every check for `adapter`, in registry order.
pub fn run(ctx: &CheckContext, adapter: &Adapter) -> Vec<CheckResult> {
    checks().iter().map(|c| c.run(ctx, adapter)).collect()
}
