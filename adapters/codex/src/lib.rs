//! acc adapter for Codex CLI (behaviour being written).

mod install;

use std::path::PathBuf;

use acc_sdk::adapter::{AdapterBehaviour, AdapterError};
use acc_sdk::context::{ContextInput, ContextResult};
use acc_sdk::define::Adapter;
use acc_sdk::error::DefineError;
use acc_sdk::event::{NormalizeError, NormalizedEvent};
use acc_sdk::install::{Detection, DoctorReport, InstallContext, InstallPlan, InstallReport};
use acc_sdk::outcome::HookOutcome;
use serde_json::Value;

/// The adapter id, as `acc-hook` and the registry spell it.
pub const ID: &str = "codex";

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
    define().unwrap_or_else(|e| panic!("the shipped codex adapter is invalid: {e}"))
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
    fn normalize_hook(
        &self,
        _payload: &Value,
        _args: &[String],
    ) -> Result<NormalizedEvent, NormalizeError> {
        Err(NormalizeError::UnknownEvent(String::new()))
    }
    fn render_context_result(&self, input: &ContextInput, budget_bytes: usize) -> ContextResult {
        acc_sdk::projector::project_context_result(input, budget_bytes)
    }
    fn deny_outcome(&self, _event: &NormalizedEvent, _reason: &str) -> HookOutcome {
        HookOutcome::silent()
    }
    fn inject_outcome(&self, _event: &NormalizedEvent, _text: &str) -> HookOutcome {
        HookOutcome::silent()
    }
}
