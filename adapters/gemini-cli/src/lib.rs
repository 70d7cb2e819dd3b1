//! acc adapter for Gemini CLI (`gemini`).
//!
//! The manifest and evidence are embedded from `adapter.json` and `certification.json`;
//! [`define`] joins them with [`Behaviour`] through `define_adapter`, which refuses any
//! capability the evidence does not back.

pub mod events;
mod install;
pub mod normalize;
pub mod outcomes;
pub mod package_version;
pub mod tools;

use std::collections::BTreeMap;
use std::path::PathBuf;

use acc_sdk::adapter::{AdapterBehaviour, AdapterError, ProcessEntry, ToolGuard};
use acc_sdk::context::{ContextInput, ContextResult};
use acc_sdk::define::Adapter;
use acc_sdk::error::DefineError;
use acc_sdk::event::{NormalizeError, NormalizedEvent};
use acc_sdk::install::{Detection, DoctorReport, InstallContext, InstallPlan, InstallReport};
use acc_sdk::outcome::HookOutcome;
use serde_json::Value;

/// The adapter id, as `acc-hook` and the registry spell it.
pub const ID: &str = "gemini-cli";

/// Joins the embedded manifest and evidence with [`Behaviour`] through `define_adapter`.
pub fn define() -> Result<Adapter, DefineError> {
    Adapter::from_embedded(
        include_str!("../adapter.json"),
        include_str!("../certification.json"),
        Box::new(Behaviour),
    )
}

/// The shipped adapter. A refusal here is a bug in this crate's own files.
pub fn adapter() -> Adapter {
    define().unwrap_or_else(|e| panic!("the shipped {ID} adapter is invalid: {e}"))
}

#[derive(Debug, Clone, Copy, Default)]
pub struct Behaviour;

impl AdapterBehaviour for Behaviour {
    fn detect(&self, ctx: &InstallContext) -> Detection {
        install::detect(ctx)
    }

    fn plan_install(&self, ctx: &InstallContext) -> Result<InstallPlan, AdapterError> {
        install::plan(ctx)
    }

    fn install(&self, ctx: &InstallContext) -> Result<InstallReport, AdapterError> {
        install::install(ctx)
    }

    fn uninstall(
        &self,
        ctx: &InstallContext,
        keep: &[PathBuf],
    ) -> Result<InstallReport, AdapterError> {
        install::uninstall(ctx, keep)
    }

    fn doctor(&self, ctx: &InstallContext) -> DoctorReport {
        install::doctor(ctx)
    }

    /// Gemini CLI names the event in the payload, so `args` are not read.
    fn normalize_hook(
        &self,
        payload: &Value,
        _args: &[String],
    ) -> Result<NormalizedEvent, NormalizeError> {
        normalize::normalize(payload)
    }

    fn render_context_result(&self, input: &ContextInput, budget_bytes: usize) -> ContextResult {
        acc_sdk::projector::project_context_result(input, budget_bytes)
    }

    fn deny_outcome(&self, _event: &NormalizedEvent, reason: &str) -> HookOutcome {
        outcomes::deny(reason)
    }

    fn inject_outcome(&self, event: &NormalizedEvent, text: &str) -> HookOutcome {
        outcomes::inject(event, text)
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

    fn guard_write(&self) -> Option<&dyn ToolGuard> {
        Some(&tools::WRITE)
    }

    fn guard_shell(&self) -> Option<&dyn ToolGuard> {
        Some(&tools::SHELL)
    }
}
