//! `acc doctor`: the store's health, each client's presence and version, what acc
//! installed for it and whether that is still intact, what each adapter's own check says,
//! and the one next step. Read-only, except that `--repair` re-installs the adapters with
//! a missing file, a changed acc file or a failing check.

use std::path::PathBuf;

use acc_sdk::define::Adapter;
use acc_sdk::install::{Diagnostic, DiagnosticLevel, InstallContext};
use serde::Serialize;

use super::digest::artifact_sha256;
use super::error::InstallError;
use super::install_run::{EditedFiles, InstallOptions, run_install_with};
use super::record::{self, InstallRecord, RecordedKind};
use super::report::{ClientFacts, RunReport};
use super::selection::{detect_all, facts};
use super::store_health::{self, StoreHealth};
use super::wiring::{self, Wiring};

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DoctorRun {
    /// True when the store is healthy and every installed adapter is intact with no error;
    /// a warning (Codex hook trust, say) can still name a next step.
    pub ok: bool,
    pub store: StoreHealth,
    pub record: RecordSummary,
    pub hook_executable: HookRuntime,
    pub clients: Vec<ClientDoctor>,
    /// The one thing to do next.
    pub next_step: String,
    /// What `--repair` re-installed, when it ran.
    pub repaired: Option<RunReport>,
    /// The connection to the shared store the current workspace names; left out for the
    /// embedded store.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shared_store: Option<SharedStoreCheck>,
}

/// Whether the shared store's server answers, in one line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SharedStoreCheck {
    pub ok: bool,
    pub line: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RecordSummary {
    pub path: PathBuf,
    pub installs: usize,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HookRuntime {
    pub path: PathBuf,
    pub executable: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ClientDoctor {
    pub adapter_id: String,
    pub display_name: String,
    pub client: ClientFacts,
    /// The acc version that installed it, when it is installed.
    pub installed_by: Option<String>,
    pub artifacts: Vec<ArtifactHealth>,
    /// acc's hooks found in the client's own files, with the data home they use, whether
    /// or not this data home's install record lists them.
    pub wiring: Vec<Wiring>,
    /// The adapter's own checks (for installed adapters), and where the wiring points
    /// elsewhere.
    pub diagnostics: Vec<Diagnostic>,
    /// Whether a peer's message may wake a session of this client: eligible, or the reason
    /// code, with the recorded consent.
    pub native_delivery: crate::live::contract::NativeStatus,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ArtifactHealth {
    pub path: PathBuf,
    pub kind: RecordedKind,
    pub state: ArtifactState,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ArtifactState {
    Intact,
    Edited,
    Missing,
}

impl ClientDoctor {
    /// A missing artifact, an acc tree changed since install, or an adapter check that
    /// failed. A user file edited since install is not a fault: it is the user's (and
    /// Gemini CLI rewrites its own on start); whether acc's entries in it still hold is the
    /// adapter's check.
    fn needs_repair(&self) -> bool {
        self.installed_by.is_some()
            && (self.artifacts.iter().any(|a| match a.state {
                ArtifactState::Intact => false,
                ArtifactState::Missing => true,
                ArtifactState::Edited => a.kind == RecordedKind::Tree,
            }) || self
                .diagnostics
                .iter()
                .any(|d| d.level == DiagnosticLevel::Error))
    }
}

pub fn run_doctor(
    ctx: &InstallContext,
    adapters: &[Adapter],
    repair: bool,
) -> Result<DoctorRun, InstallError> {
    let first = examine(ctx, adapters)?;
    if !repair {
        return Ok(first);
    }
    let ids: Vec<String> = first
        .clients
        .iter()
        .filter(|c| c.needs_repair())
        .map(|c| c.adapter_id.clone())
        .collect();
    if ids.is_empty() {
        return Ok(first);
    }
    let repaired = run_install_with(
        ctx,
        adapters,
        &InstallOptions {
            adapters: ids,
            dry_run: false,
            home: None,
            delivery: None,
        },
        EditedFiles::Replace,
    )?;
    let mut after = examine(ctx, adapters)?;
    after.repaired = Some(repaired);
    Ok(after)
}

fn examine(ctx: &InstallContext, adapters: &[Adapter]) -> Result<DoctorRun, InstallError> {
    let record_path = record::record_path(&ctx.acc_data_dir);
    let record = record::load(&record_path)?;
    let store = store_health::check(&ctx.acc_data_dir);
    let all: Vec<&Adapter> = adapters.iter().collect();
    let detections = detect_all(ctx, &all);
    let clients: Vec<ClientDoctor> = all
        .iter()
        .zip(&detections)
        .map(|(adapter, detection)| client_doctor(ctx, adapter, facts(detection), &record))
        .collect::<Result<_, _>>()?;
    let hook_executable = HookRuntime {
        path: ctx.hook_executable.clone(),
        executable: super::context::require_hook_executable(ctx).is_ok(),
    };
    let next_step = next_step(&store, &hook_executable, &clients);
    let ok = store.healthy()
        && (hook_executable.executable || record.installs.is_empty())
        && !clients.iter().any(ClientDoctor::needs_repair);
    Ok(DoctorRun {
        ok,
        store,
        record: RecordSummary {
            path: record_path,
            installs: record.installs.len(),
        },
        hook_executable,
        clients,
        next_step,
        repaired: None,
        shared_store: None,
    })
}

fn client_doctor(
    ctx: &InstallContext,
    adapter: &Adapter,
    client: ClientFacts,
    record: &InstallRecord,
) -> Result<ClientDoctor, InstallError> {
    let entry = record.entry(adapter.id());
    let mut artifacts = Vec::new();
    for artifact in entry.map(|e| e.artifacts.as_slice()).unwrap_or_default() {
        let current = artifact_sha256(&artifact.path)
            .map_err(|e| InstallError::io(&artifact.path, "read", &e))?;
        let state = match current {
            None => ArtifactState::Missing,
            Some(digest) if Some(&digest) == artifact.sha256.as_ref() => ArtifactState::Intact,
            Some(_) => ArtifactState::Edited,
        };
        artifacts.push(ArtifactHealth {
            path: artifact.path.clone(),
            kind: artifact.kind,
            state,
        });
    }
    let mut diagnostics = match entry {
        Some(_) => {
            adapter
                .behaviour()
                .doctor(&record::context_for(ctx, entry))
                .diagnostics
        }
        None => Vec::new(),
    };
    let wiring = wiring::find(ctx, adapter);
    diagnostics.extend(wiring_diagnostics(
        ctx,
        &record::record_path(&ctx.acc_data_dir),
        entry.is_some(),
        &wiring,
    ));
    let native_delivery = crate::live::contract::status(adapter, ctx, client.version.as_deref());
    Ok(ClientDoctor {
        adapter_id: adapter.id().to_owned(),
        display_name: adapter.manifest().display_name.clone(),
        native_delivery,
        client,
        installed_by: entry.map(|e| e.acc_version.clone()),
        artifacts,
        wiring,
        diagnostics,
    })
}

/// Where the hooks found in the client's files point away from the data home this doctor
/// reads, or are wired with no record here: the command that shows their install.
fn wiring_diagnostics(
    ctx: &InstallContext,
    record_path: &std::path::Path,
    recorded: bool,
    found: &[Wiring],
) -> Vec<Diagnostic> {
    let here = ctx.acc_data_dir.parent().unwrap_or(&ctx.acc_data_dir);
    let mut out = Vec::new();
    for w in found {
        let diagnostic = match &w.data_home {
            Some(home) if home != here => Some(format!(
                "{}: acc's {} hook(s) use the data home {}, not {} that this run reads; run `ACC_DATA_HOME={} acc doctor` to see that install",
                w.file.display(),
                w.hooks,
                home.display(),
                here.display(),
                home.display()
            )),
            _ if !recorded => Some(format!(
                "{}: acc's {} hook(s) are wired, but the install record {} does not list them (installed with another data home, or the record was moved); `acc install --adapter <id>` records them again",
                w.file.display(),
                w.hooks,
                record_path.display()
            )),
            _ => None,
        };
        out.extend(diagnostic.map(|message| Diagnostic {
            level: DiagnosticLevel::Warn,
            message,
        }));
    }
    out
}

fn next_step(store: &StoreHealth, hook: &HookRuntime, clients: &[ClientDoctor]) -> String {
    if let Some(t) = store.tampered.first() {
        return format!(
            "{} ({}): a person decides what happened, then: {}",
            t.what,
            t.store.display(),
            t.recovery
        );
    }
    if let Some(problem) = store.problems.first() {
        return format!(
            "move the unreadable store aside (acc never recreates a store over your data): {problem}"
        );
    }
    let installed: Vec<&ClientDoctor> = clients
        .iter()
        .filter(|c| c.installed_by.is_some())
        .collect();
    if !installed.is_empty() && !hook.executable {
        return format!(
            "reinstall acc so that {} exists beside acc; every installed hook runs it",
            hook.path.display()
        );
    }
    let broken: Vec<&str> = installed
        .iter()
        .filter(|c| c.needs_repair())
        .map(|c| c.adapter_id.as_str())
        .collect();
    if !broken.is_empty() {
        return format!(
            "run `acc doctor --repair` to re-install {}",
            broken.join(", ")
        );
    }
    for client in &installed {
        if let Some(warning) = client
            .diagnostics
            .iter()
            .find(|d| d.level == DiagnosticLevel::Warn)
        {
            return format!("{}: {}", client.adapter_id, warning.message);
        }
    }
    for client in clients.iter().filter(|c| c.installed_by.is_none()) {
        if let Some(warning) = client
            .diagnostics
            .iter()
            .find(|d| d.level == DiagnosticLevel::Warn)
        {
            return format!("{}: {}", client.adapter_id, warning.message);
        }
    }
    let unwired: Vec<&str> = clients
        .iter()
        .filter(|c| c.client.present && c.installed_by.is_none() && c.wiring.is_empty())
        .map(|c| c.adapter_id.as_str())
        .collect();
    if !unwired.is_empty() {
        return format!("run `acc install` to wire {}", unwired.join(", "));
    }
    if installed.is_empty() {
        return "no supported client was found; install one and run `acc install`, or wire one explicitly with `acc install --adapter <id>`".to_owned();
    }
    "nothing to do".to_owned()
}
