//! `acc install`: plan every selected adapter first (a malformed config or a conflict stops
//! the run before anything is written), then, adapter by adapter, keep the originals of the
//! user files it will edit, run its install, and record what it left with digests.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use acc_sdk::define::Adapter;
use acc_sdk::install::{ArtifactKind, Detection, InstallContext, InstallPlan};

use super::backups;
use super::context::require_hook_executable;
use super::digest::artifact_sha256;
use super::directories;
use super::error::InstallError;
use super::record::{self, InstallEntry, InstallRecord, Original, RecordedArtifact, RecordedKind};
use super::report::{
    AdapterOutcome, FileAction, FileOutcome, RunAction, RunReport, Skip, command_for,
};
use super::selection::{detect_all, facts, named, not_detected_reason};

/// What `acc install` was asked.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct InstallOptions {
    /// `--adapter` ids; empty wires every detected client.
    pub adapters: Vec<String>,
    pub dry_run: bool,
}

/// Installs (or, dry, plans) the selected adapters.
pub fn run_install(
    ctx: &InstallContext,
    adapters: &[Adapter],
    options: &InstallOptions,
) -> Result<RunReport, InstallError> {
    let record_path = record::record_path(&ctx.acc_data_dir);
    // A corrupt record stops the run before detection or planning.
    record::load(&record_path)?;
    let explicit = !options.adapters.is_empty();
    let candidates: Vec<&Adapter> = if explicit {
        named(adapters, &options.adapters)?
    } else {
        adapters.iter().collect()
    };
    let detections = detect_all(ctx, &candidates);
    let mut selected: Vec<(&Adapter, Detection)> = Vec::new();
    let mut skipped = Vec::new();
    for (adapter, detection) in candidates.into_iter().zip(detections) {
        if explicit || detection.present {
            selected.push((adapter, detection));
        } else {
            skipped.push(Skip {
                adapter_id: adapter.id().to_owned(),
                reason: not_detected_reason(adapter, &detection),
            });
        }
    }
    if !selected.is_empty() {
        require_hook_executable(ctx)?;
    }
    // Every plan first: nothing is written unless every selected adapter can be installed.
    let mut plans = Vec::new();
    for (adapter, _) in &selected {
        let plan = adapter
            .behaviour()
            .plan_install(ctx)
            .map_err(|e| InstallError::from_adapter(adapter.id(), e))?;
        plans.push(plan);
    }
    // A dry run creates nothing, not even the lock file.
    let _lock = if options.dry_run || selected.is_empty() {
        None
    } else {
        Some(record::lock(&ctx.acc_data_dir)?)
    };
    // Read again under the lock: another run may have changed it meanwhile.
    let mut record = record::load(&record_path)?;
    let mut outcomes = Vec::new();
    let mut completed: Vec<String> = Vec::new();
    for ((adapter, detection), plan) in selected.iter().zip(&plans) {
        let outcome = if options.dry_run {
            Ok(dry_outcome(adapter, detection, plan))
        } else {
            install_one(ctx, adapter, detection, plan, &mut record, &record_path)
        };
        match outcome {
            Ok(outcome) => {
                completed.push(adapter.id().to_owned());
                outcomes.push(outcome);
            }
            Err(mut e) => {
                e.completed = completed;
                if !e.completed.is_empty() {
                    e.message = format!(
                        "{} ({} already installed; undo with: {})",
                        e.message,
                        e.completed.join(", "),
                        command_for("uninstall", &e.completed).unwrap_or_default()
                    );
                }
                return Err(e);
            }
        }
    }
    Ok(RunReport {
        action: RunAction::Install,
        dry_run: options.dry_run,
        undo: if options.dry_run {
            None
        } else {
            command_for("uninstall", &completed)
        },
        adapters: outcomes,
        skipped,
    })
}

fn kind_of(plan: &InstallPlan, path: &Path) -> RecordedKind {
    plan.artifacts
        .iter()
        .find(|a| a.path == path)
        .map_or(RecordedKind::Tree, |a| a.kind.into())
}

/// What install would do, judged from what exists now.
fn dry_outcome(adapter: &Adapter, detection: &Detection, plan: &InstallPlan) -> AdapterOutcome {
    let files = plan
        .artifacts
        .iter()
        .map(|a| FileOutcome {
            path: a.path.clone(),
            kind: a.kind.into(),
            action: if std::fs::symlink_metadata(&a.path).is_ok() {
                FileAction::Edited
            } else {
                FileAction::Created
            },
            note: None,
        })
        .collect();
    AdapterOutcome {
        adapter_id: adapter.id().to_owned(),
        display_name: adapter.manifest().display_name.clone(),
        client: Some(facts(detection)),
        files,
        needs_action: plan.needs_action.clone(),
    }
}

fn install_one(
    ctx: &InstallContext,
    adapter: &Adapter,
    detection: &Detection,
    plan: &InstallPlan,
    record: &mut InstallRecord,
    record_path: &Path,
) -> Result<AdapterOutcome, InstallError> {
    let id = adapter.id();
    let previous = record.entry(id).cloned();
    let originals = originals_for(ctx, id, plan, previous.as_ref())?;
    let planned_paths: Vec<PathBuf> = plan.artifacts.iter().map(|a| a.path.clone()).collect();
    let newly_missing = directories::missing_ancestors(&planned_paths);
    let earlier_dirs = previous
        .as_ref()
        .map(|p| p.created_directories.clone())
        .unwrap_or_default();

    // The originals are on record before the first byte of a user file changes, so an
    // interrupted install still knows what to give back.
    let pending = InstallEntry {
        adapter_id: id.to_owned(),
        acc_version: ctx.acc_version.clone(),
        artifacts: previous
            .as_ref()
            .map(|p| p.artifacts.clone())
            .unwrap_or_default(),
        created_directories: merge_dirs(&earlier_dirs, &newly_missing),
        originals: originals.clone(),
    };
    if previous.as_ref().map(|p| &p.originals) != Some(&originals)
        || pending.created_directories != earlier_dirs
    {
        record.put(pending);
        record::save(record_path, record)?;
    }

    let report = adapter
        .behaviour()
        .install(ctx)
        .map_err(|e| InstallError::from_adapter(id, e))?;

    let mut artifacts = Vec::new();
    for artifact in &plan.artifacts {
        artifacts.push(RecordedArtifact {
            path: artifact.path.clone(),
            kind: artifact.kind.into(),
            sha256: artifact_sha256(&artifact.path)
                .map_err(|e| InstallError::io(&artifact.path, "read", &e))?,
        });
    }
    let created_directories = directories::existing(
        earlier_dirs
            .iter()
            .cloned()
            .chain(newly_missing.iter().cloned()),
    );
    record.put(InstallEntry {
        adapter_id: id.to_owned(),
        acc_version: ctx.acc_version.clone(),
        artifacts,
        created_directories,
        originals,
    });
    record::save(record_path, record)?;

    let mut files: Vec<FileOutcome> = report
        .changes
        .iter()
        .map(|c| FileOutcome {
            path: c.path.clone(),
            kind: kind_of(plan, &c.path),
            action: c.action.into(),
            note: None,
        })
        .collect();
    files.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(AdapterOutcome {
        adapter_id: id.to_owned(),
        display_name: adapter.manifest().display_name.clone(),
        client: Some(facts(detection)),
        files,
        needs_action: report.needs_action,
    })
}

fn merge_dirs(a: &[PathBuf], b: &[PathBuf]) -> Vec<PathBuf> {
    let mut all: Vec<PathBuf> = a.iter().chain(b).cloned().collect();
    all.sort();
    all.dedup();
    all
}

/// The originals of the plan's merge files. The first install keeps each file's current
/// bytes; a re-install keeps the first originals, except that a file the user edited since
/// the last install (its digest no longer matches the record) loses byte-exact restore,
/// since restoring would throw that edit away.
fn originals_for(
    ctx: &InstallContext,
    adapter_id: &str,
    plan: &InstallPlan,
    previous: Option<&InstallEntry>,
) -> Result<Vec<Original>, InstallError> {
    let mut by_path: BTreeMap<PathBuf, Original> = BTreeMap::new();
    for artifact in plan
        .artifacts
        .iter()
        .filter(|a| a.kind == ArtifactKind::Merge)
    {
        let earlier = previous.and_then(|p| p.original(&artifact.path).map(|o| (p, o)));
        let original = match earlier {
            Some((entry, original)) => {
                let recorded = entry
                    .artifact(&artifact.path)
                    .and_then(|a| a.sha256.clone());
                let current = artifact_sha256(&artifact.path)
                    .map_err(|e| InstallError::io(&artifact.path, "read", &e))?;
                let mut original = original.clone();
                if current != recorded {
                    original.exact = false;
                }
                original
            }
            None => backups::capture(&ctx.acc_data_dir, adapter_id, &artifact.path)?,
        };
        by_path.insert(artifact.path.clone(), original);
    }
    Ok(by_path.into_values().collect())
}
