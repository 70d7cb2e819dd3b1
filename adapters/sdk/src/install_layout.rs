//! One shape for the clients whose wiring is a hook file plus acc's skill tree.
//!
//! A client declares the facts that are its own, as data, by implementing
//! [`HookFileClient`]: the command that detects it, acc's hooks ([`HookSpec`]), where its hook
//! file and skill tree live ([`HookFileLayout`]) and how that hook file takes acc's handlers
//! ([`HookWiring`]). Detect, plan, install, uninstall and doctor are derived here, once, and
//! every one of them starts from the same [`HookFileClient::layout`], so a plan names
//! exactly the paths install writes by construction (`conf.install.plan-matches`).
//!
//! The order is fixed for every client: the hook file is checked, then the skill tree, and
//! only then is anything written, so a refusal leaves the home untouched.

mod wiring;

pub use wiring::{HookWiring, MergedJsonHooks, OwnedJsonHooks};

use std::path::{Path, PathBuf};

use crate::adapter::AdapterError;
use crate::hook_config::{self, HookHandler};
use crate::hook_owner::HookOwner;
use crate::install::{
    Artifact, ArtifactKind, Detection, Diagnostic, DoctorReport, InstallContext, InstallPlan,
    InstallReport, RecordedHook,
};
use crate::probe::{DETECT_TIMEOUT, detect_command};
use crate::skill::{self, SKILL_NAME};

/// Every path an install writes: the client's hook file and acc's skill tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HookFileLayout {
    pub hooks: PathBuf,
    pub skill: PathBuf,
}

impl HookFileLayout {
    /// `<dir>/<hook_file>`, with the skill tree at `<dir>/skills/acc`: every supported client
    /// keeps its user skills in a `skills` directory beside its hook configuration.
    pub fn in_dir(dir: &Path, hook_file: impl AsRef<Path>) -> Self {
        HookFileLayout {
            hooks: dir.join(hook_file),
            skill: dir.join("skills").join(SKILL_NAME),
        }
    }
}

/// One hook acc registers, as data: the client's event name, the tools its group matches
/// (`None` writes no matcher) and the timeout in the client's own unit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HookSpec {
    pub event: &'static str,
    pub matcher: Option<&'static str>,
    pub timeout: u64,
}

impl HookSpec {
    pub const fn new(event: &'static str, timeout: u64) -> Self {
        HookSpec {
            event,
            matcher: None,
            timeout,
        }
    }

    pub const fn matching(self, matcher: &'static str) -> Self {
        HookSpec {
            matcher: Some(matcher),
            ..self
        }
    }

    /// The handler install writes for `adapter_id` under `ctx`.
    pub fn handler(&self, ctx: &InstallContext, adapter_id: &str) -> HookHandler {
        let handler = HookHandler::new(ctx, adapter_id, self.event, self.timeout);
        match self.matcher {
            Some(matcher) => handler.with_matcher(matcher),
            None => handler,
        }
    }
}

/// A client wired through one hook file and acc's skill tree. The constants and `layout`
/// are the client's facts; the provided methods are the places a client may add to the
/// shared flow (a step only the user can take, a warning only doctor gives).
pub trait HookFileClient {
    /// The adapter id every hook command names.
    const ADAPTER_ID: &'static str;
    /// The client's command, as `adapter.json` names it in `client.command`.
    const COMMAND: &'static str;
    /// The arguments that make the command print its version (`client.versionArgs`); every
    /// supported client takes `--version`.
    const VERSION_ARGS: &'static [&'static str] = &["--version"];
    /// acc's hooks, in the order install writes them.
    const HOOKS: &'static [HookSpec];
    /// How the hook file takes acc's handlers.
    const WIRING: &'static dyn HookWiring;

    /// Where the hook file and the skill tree are under `ctx`.
    fn layout(&self, ctx: &InstallContext) -> HookFileLayout;

    /// The handlers install writes: one per [`Self::HOOKS`] entry.
    fn handlers(&self, ctx: &InstallContext) -> Vec<HookHandler> {
        Self::HOOKS
            .iter()
            .map(|spec| spec.handler(ctx, Self::ADAPTER_ID))
            .collect()
    }

    /// Steps only the user can take, as a plan states them.
    fn plan_needs_action(&self, _ctx: &InstallContext, _layout: &HookFileLayout) -> Vec<String> {
        Vec::new()
    }

    /// Steps only the user can take, judged after install wrote its files.
    fn install_needs_action(&self, _ctx: &InstallContext, _layout: &HookFileLayout) -> Vec<String> {
        Vec::new()
    }

    /// What doctor says beyond the hook file and the skill tree.
    fn more_diagnostics(&self, _ctx: &InstallContext, _layout: &HookFileLayout) -> Vec<Diagnostic> {
        Vec::new()
    }
}

/// Is the client installed, and which version? Read-only.
pub fn detect<C: HookFileClient>(_client: &C, ctx: &InstallContext) -> Detection {
    detect_command(ctx, C::COMMAND, C::VERSION_ARGS, DETECT_TIMEOUT)
}

/// What install would write, refused exactly where install would refuse.
pub fn plan<C: HookFileClient>(
    client: &C,
    ctx: &InstallContext,
) -> Result<InstallPlan, AdapterError> {
    let layout = client.layout(ctx);
    let owner = HookOwner::new(ctx, C::ADAPTER_ID);
    C::WIRING.check(&layout.hooks, &client.handlers(ctx), &owner)?;
    skill::check_owned(&layout.skill)?;
    let needs_action = client.plan_needs_action(ctx, &layout);
    let mut artifacts = vec![
        Artifact {
            path: layout.hooks,
            kind: C::WIRING.kind(),
        },
        Artifact {
            path: layout.skill,
            kind: ArtifactKind::Tree,
        },
    ];
    artifacts.sort();
    Ok(InstallPlan {
        artifacts,
        needs_action,
    })
}

/// Writes acc's handlers and the skill. Idempotent: unchanged files are not rewritten.
pub fn install<C: HookFileClient>(
    client: &C,
    ctx: &InstallContext,
) -> Result<InstallReport, AdapterError> {
    let layout = client.layout(ctx);
    let handlers = client.handlers(ctx);
    let owner = HookOwner::new(ctx, C::ADAPTER_ID);
    C::WIRING.check(&layout.hooks, &handlers, &owner)?;
    skill::check_owned(&layout.skill)?;
    let mut changes = vec![
        C::WIRING.install(&layout.hooks, &handlers, &owner)?,
        skill::install(&layout.skill, &ctx.acc_executable)?,
    ];
    changes.sort();
    let needs_action = client.install_needs_action(ctx, &layout);
    let hooks = handlers
        .iter()
        .map(|h| RecordedHook {
            path: layout.hooks.clone(),
            event: h.event.clone(),
            matcher: h.matcher.clone(),
            command: h.command.clone(),
        })
        .collect();
    Ok(InstallReport {
        changes,
        needs_action,
        hooks,
    })
}

/// Takes acc's handlers out of the hook file and removes the skill tree; whatever is in
/// `keep` (changed since install) stays.
pub fn uninstall<C: HookFileClient>(
    client: &C,
    ctx: &InstallContext,
    keep: &[PathBuf],
) -> Result<InstallReport, AdapterError> {
    let layout = client.layout(ctx);
    let owner = HookOwner::new(ctx, C::ADAPTER_ID);
    let mut changes: Vec<_> = C::WIRING
        .uninstall(&layout.hooks, keep, &owner)?
        .into_iter()
        .chain(skill::uninstall(&layout.skill, keep)?)
        .collect();
    changes.sort();
    Ok(InstallReport {
        changes,
        needs_action: Vec::new(),
        hooks: Vec::new(),
    })
}

/// The health of the client's wiring. Read-only.
pub fn doctor<C: HookFileClient>(client: &C, ctx: &InstallContext) -> DoctorReport {
    let layout = client.layout(ctx);
    let owner = HookOwner::new(ctx, C::ADAPTER_ID);
    let mut diagnostics = C::WIRING.diagnose(&layout.hooks, &client.handlers(ctx), &owner);
    diagnostics.push(skill::diagnose(&layout.skill, &ctx.acc_executable));
    diagnostics.extend(client.more_diagnostics(ctx, &layout));
    hook_config::doctor_report(diagnostics)
}

#[cfg(test)]
mod tests;
