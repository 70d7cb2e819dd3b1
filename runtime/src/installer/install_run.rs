//! `acc install`: plan every selected adapter first (a malformed config or a conflict stops
//! the run before anything is written), then, adapter by adapter, keep the originals of the
//! user files it will edit, run its install, and record what it left with digests.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use acc_sdk::adapter::{AdapterError, AdapterErrorKind};
use acc_sdk::define::Adapter;
use acc_sdk::install::{Artifact, ArtifactKind, Detection, InstallContext, InstallPlan};

use super::backups;
use super::context::require_hook_executable;
use super::digest::artifact_sha256;
use super::directories;
use super::error::InstallError;
use super::record::{self, InstallEntry, InstallRecord, Original, RecordedArtifact, RecordedKind};
use super::report::{
    AdapterOutcome, FileAction, FileOutcome, RunAction, RunReport, Skip, command_for,
};
use super::rollback::Journal;
use super::selection::{detect_all, facts, named, not_detected_reason};
use super::set_aside::{self, SetAside};
use super::uninstall_run::KEPT_NOTE;
use super::wiring::DataHomeChoice;

/// What `acc install` was asked.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct InstallOptions {
    /// `--adapter` ids; empty wires every detected client.
    pub adapters: Vec<String>,
    pub dry_run: bool,
    /// The `--home` the user passed, repeated in every command the run suggests.
    pub home: Option<PathBuf>,
    /// `--delivery`: the live delivery policy to record; `None` keeps the recorded one.
    pub delivery: Option<String>,
}

/// What a re-install does with acc's own files the user changed since acc wrote them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EditedFiles {
    /// Leave them and say so, as uninstall does (`acc install`).
    Keep,
    /// Write acc's version over them (`acc doctor --repair`, asked to put acc's files back).
    Replace,
}

/// Installs (or, dry, plans) the selected adapters, keeping acc files the user edited.
pub fn run_install(
    ctx: &InstallContext,
    adapters: &[Adapter],
    options: &InstallOptions,
) -> Result<RunReport, InstallError> {
    run_install_with(ctx, adapters, options, EditedFiles::Keep)
}

/// [`run_install`], choosing what happens to acc files the user edited.
pub fn run_install_with(
    ctx: &InstallContext,
    adapters: &[Adapter],
    options: &InstallOptions,
    edited: EditedFiles,
) -> Result<RunReport, InstallError> {
    let record_path = record::record_path(&ctx.acc_data_dir);
    // A corrupt record stops the run before detection or planning.
    let initial = record::load(&record_path)?;
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
                reason: not_detected_reason(adapter, &detection, options.home.as_deref()),
            });
        }
    }
    if !selected.is_empty() {
        require_hook_executable(ctx)?;
    }
    // acc's own files the user changed since acc wrote them are kept, as uninstall keeps
    // them: moved out of the adapter's way for its plan and install, then put back.
    let mut kept = changed_trees_of(&initial, &selected, edited)?;
    let early_lock = if !options.dry_run && kept.iter().any(|k| !k.is_empty()) {
        let lock = record::lock(&ctx.acc_data_dir)?;
        kept = changed_trees_of(&record::load(&record_path)?, &selected, edited)?;
        Some(lock)
    } else {
        None
    };
    let mut asides: Vec<Vec<SetAside>> = Vec::new();
    for paths in &kept {
        let mut these = Vec::new();
        if !options.dry_run {
            for path in paths {
                these.push(SetAside::new(path)?);
            }
        }
        asides.push(these);
    }
    // Every plan first: nothing is written unless every selected adapter can be installed.
    let mut plans = Vec::new();
    for ((adapter, _), kept) in selected.iter().zip(&kept) {
        let ctx = &record::context_for(ctx, initial.entry(adapter.id()));
        let plan = match adapter.behaviour().plan_install(ctx) {
            Ok(plan) => plan,
            // A dry run moves nothing, so the adapter may take the user's edit of its own
            // file for a stranger's; the record says what install would write.
            Err(e) if options.dry_run && conflict_within(&e, kept) => {
                plan_from_record(initial.entry(adapter.id()))
            }
            Err(e) => return Err(InstallError::from_adapter(adapter.id(), e)),
        };
        plans.push(plan);
    }
    // A dry run creates nothing, not even the lock file.
    let _lock = if options.dry_run || selected.is_empty() || early_lock.is_some() {
        None
    } else {
        Some(record::lock(&ctx.acc_data_dir)?)
    };
    // Read again under the lock: another run may have changed it meanwhile.
    let mut record = record::load(&record_path)?;
    // All or nothing: what every adapter's install may change is kept first, and put back
    // if any of them fails. Files set aside for the user are theirs and go back on their own.
    let journal = if options.dry_run {
        Journal::default()
    } else {
        let mut paths: Vec<PathBuf> = plans
            .iter()
            .zip(&kept)
            .flat_map(|(plan, kept)| {
                plan.artifacts
                    .iter()
                    .map(|a| a.path.clone())
                    .filter(|p| !kept.contains(p))
                    .collect::<Vec<_>>()
            })
            .collect();
        paths.push(record_path.clone());
        paths.push(ctx.acc_data_dir.join(backups::BACKUPS_DIR));
        Journal::capture(&paths)?
    };
    let mut outcomes = Vec::new();
    let mut completed: Vec<String> = Vec::new();
    for (((adapter, detection), plan), (kept, asides)) in selected
        .iter()
        .zip(&plans)
        .zip(kept.iter().zip(asides.drain(..)))
    {
        let outcome = if options.dry_run {
            Ok(dry_outcome(adapter, detection, plan, kept))
        } else {
            install_one(
                ctx,
                adapter,
                detection,
                plan,
                asides,
                &mut record,
                &record_path,
                options.delivery.as_deref(),
            )
        };
        match outcome {
            Ok(outcome) => {
                completed.push(adapter.id().to_owned());
                outcomes.push(outcome);
            }
            Err(mut e) if !options.dry_run => {
                let failed = journal.roll_back();
                if failed.is_empty() {
                    e.message = format!(
                        "{}; acc rolled this run back, so nothing was installed and every file is as it was",
                        e.message
                    );
                    return Err(e);
                }
                e.completed = completed;
                e.message = format!(
                    "{}; acc rolled this run back but could not put back {}{}",
                    e.message,
                    failed.join(", "),
                    command_for("uninstall", &e.completed, options.home.as_deref())
                        .map(|undo| format!("; undo the rest with: {undo}"))
                        .unwrap_or_default()
                );
                return Err(e);
            }
            Err(mut e) => {
                e.completed = completed;
                if !e.completed.is_empty() {
                    e.message = format!(
                        "{} ({} already installed; undo with: {})",
                        e.message,
                        e.completed.join(", "),
                        command_for("uninstall", &e.completed, options.home.as_deref())
                            .unwrap_or_default()
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
            command_for("uninstall", &completed, options.home.as_deref())
        },
        home: options.home.clone(),
        data_home: (!selected.is_empty()).then(|| DataHomeChoice::of(ctx)),
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

fn changed_trees_of(
    record: &InstallRecord,
    selected: &[(&Adapter, Detection)],
    edited: EditedFiles,
) -> Result<Vec<Vec<PathBuf>>, InstallError> {
    selected
        .iter()
        .map(|(adapter, _)| match edited {
            EditedFiles::Keep => set_aside::changed_trees(record.entry(adapter.id())),
            EditedFiles::Replace => Ok(Vec::new()),
        })
        .collect()
}

fn conflict_within(error: &AdapterError, kept: &[PathBuf]) -> bool {
    error.kind == AdapterErrorKind::Conflict
        && error
            .path
            .as_ref()
            .is_some_and(|p| kept.iter().any(|k| p.starts_with(k)))
}

/// The plan an earlier install recorded (the same path helpers made both).
fn plan_from_record(entry: Option<&InstallEntry>) -> InstallPlan {
    let artifacts = entry
        .into_iter()
        .flat_map(|e| &e.artifacts)
        .map(|a| Artifact {
            path: a.path.clone(),
            kind: match a.kind {
                RecordedKind::Tree => ArtifactKind::Tree,
                RecordedKind::Merge => ArtifactKind::Merge,
            },
        })
        .collect();
    InstallPlan {
        artifacts,
        needs_action: Vec::new(),
    }
}

fn kept_file(path: &Path, kind: RecordedKind) -> FileOutcome {
    FileOutcome {
        path: path.to_path_buf(),
        kind,
        action: FileAction::Kept,
        note: Some(KEPT_NOTE.to_owned()),
    }
}

/// What install would do, judged from what exists now.
fn dry_outcome(
    adapter: &Adapter,
    detection: &Detection,
    plan: &InstallPlan,
    kept: &[PathBuf],
) -> AdapterOutcome {
    let files = plan
        .artifacts
        .iter()
        .map(|a| {
            if kept.contains(&a.path) {
                return kept_file(&a.path, a.kind.into());
            }
            FileOutcome {
                path: a.path.clone(),
                kind: a.kind.into(),
                action: if std::fs::symlink_metadata(&a.path).is_ok() {
                    FileAction::Edited
                } else {
                    FileAction::Created
                },
                note: None,
            }
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

#[allow(clippy::too_many_arguments)]
fn install_one(
    ctx: &InstallContext,
    adapter: &Adapter,
    detection: &Detection,
    plan: &InstallPlan,
    mut kept: Vec<SetAside>,
    record: &mut InstallRecord,
    record_path: &Path,
    delivery: Option<&str>,
) -> Result<AdapterOutcome, InstallError> {
    let id = adapter.id();
    let previous = record.entry(id).cloned();
    // The adapter replaces exactly the hook entries this install wrote before.
    let ctx = &record::context_for(ctx, previous.as_ref());
    let delivery = delivery
        .map(str::to_owned)
        .or_else(|| previous.as_ref().and_then(|p| p.delivery.clone()));
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
        delivery: previous.as_ref().and_then(|p| p.delivery.clone()),
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
    for aside in &mut kept {
        aside.restore()?;
    }
    let kept_paths: Vec<&Path> = kept.iter().map(SetAside::path).collect();

    let mut artifacts = Vec::new();
    for artifact in &plan.artifacts {
        // A kept file stays "changed since acc wrote it": its digest, and the hooks in it,
        // are still what acc wrote there before.
        let (sha256, hooks) = match previous.as_ref().and_then(|p| p.artifact(&artifact.path)) {
            Some(recorded) if kept_paths.contains(&artifact.path.as_path()) => {
                (recorded.sha256.clone(), recorded.hooks.clone())
            }
            _ => (
                artifact_sha256(&artifact.path)
                    .map_err(|e| InstallError::io(&artifact.path, "read", &e))?,
                record::hooks_in(&report.hooks, &artifact.path),
            ),
        };
        artifacts.push(RecordedArtifact {
            path: artifact.path.clone(),
            kind: artifact.kind.into(),
            sha256,
            hooks,
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
        delivery,
    });
    record::save(record_path, record)?;

    let mut files: Vec<FileOutcome> = report
        .changes
        .iter()
        .map(|c| {
            if kept_paths.contains(&c.path.as_path()) {
                return kept_file(&c.path, kind_of(plan, &c.path));
            }
            FileOutcome {
                path: c.path.clone(),
                kind: kind_of(plan, &c.path),
                action: c.action.into(),
                note: None,
            }
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
