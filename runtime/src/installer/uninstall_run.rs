//! `acc uninstall`: for each adapter, judge every recorded artifact against its digest,
//! then act. A user file still exactly as install left it gets its original bytes back (or
//! is deleted, when acc created it). A user file edited since keeps the user's edits and
//! loses only acc's entries, removed structurally by the adapter. An acc tree edited since
//! is kept (`keep`) and reported. Created directories go when empty, deepest first; the
//! originals and the record entry go last. Running it again finds nothing to do.

use std::path::{Path, PathBuf};

use acc_sdk::adapter::AdapterErrorKind;
use acc_sdk::define::Adapter;
use acc_sdk::install::{ChangeAction, InstallContext, InstallReport};

use super::backups::{self, Restored};
use super::digest::artifact_sha256;
use super::directories;
use super::error::InstallError;
use super::record::{self, InstallEntry, Original, RecordedKind};
use super::report::{
    AdapterOutcome, FileAction, FileOutcome, RunAction, RunReport, Skip, command_for,
};
use super::selection::named;

const EDITED_NOTE: &str = "changed since acc wrote it; only acc's entries were removed";
pub(super) const KEPT_NOTE: &str = "changed since acc wrote it, so acc leaves it";

/// What `acc uninstall` was asked.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct UninstallOptions {
    /// `--adapter` ids; empty means every adapter in the install record.
    pub adapters: Vec<String>,
    pub dry_run: bool,
    /// The `--home` the user passed, repeated in every command the run suggests.
    pub home: Option<PathBuf>,
}

/// How one recorded artifact is taken back.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Verdict {
    /// A user file as install left it: its original comes back.
    Restore(Original),
    /// A user file changed since: the adapter removes acc's entries.
    Strip {
        created_by_acc: bool,
    },
    /// An acc tree as install left it: the adapter removes it.
    Remove,
    /// An acc tree changed since: kept.
    Keep,
    Missing,
}

pub fn run_uninstall(
    ctx: &InstallContext,
    adapters: &[Adapter],
    options: &UninstallOptions,
) -> Result<RunReport, InstallError> {
    let record_path = record::record_path(&ctx.acc_data_dir);
    let mut record = record::load(&record_path)?;
    let targets: Vec<&Adapter> = if options.adapters.is_empty() {
        let ids: Vec<String> = record
            .installs
            .iter()
            .map(|e| e.adapter_id.clone())
            .collect();
        let known: Vec<String> = ids
            .iter()
            .filter(|id| adapters.iter().any(|a| a.id() == id.as_str()))
            .cloned()
            .collect();
        named(adapters, &known)?
    } else {
        named(adapters, &options.adapters)?
    };
    let mut skipped = Vec::new();
    if options.adapters.is_empty() {
        for entry in &record.installs {
            if !adapters.iter().any(|a| a.id() == entry.adapter_id) {
                skipped.push(Skip {
                    adapter_id: entry.adapter_id.clone(),
                    reason: "this acc has no adapter by that id, so its install is left as it is"
                        .to_owned(),
                });
            }
        }
    }
    // Every refusal of a whole adapter comes before anything is touched; a user file that
    // cannot be read any more is refused alone, and the rest of its adapter still goes.
    let mut refusals = Vec::new();
    for adapter in &targets {
        refusals.push(preflight(ctx, adapter, record.entry(adapter.id()))?);
    }
    let _lock = if options.dry_run || targets.is_empty() {
        None
    } else {
        let lock = record::lock(&ctx.acc_data_dir)?;
        // Read again under the lock: another run may have changed it meanwhile.
        record = record::load(&record_path)?;
        Some(lock)
    };
    let mut outcomes = Vec::new();
    let mut done = Vec::new();
    for (adapter, refused) in targets.into_iter().zip(refusals) {
        let entry = record.entry(adapter.id()).cloned();
        let outcome = match (&entry, options.dry_run, refused) {
            (Some(entry), true, refused) => dry_outcome(adapter, entry, refused.as_ref())?,
            (Some(entry), false, Some(refused)) => {
                let (outcome, left) = uninstall_around(ctx, adapter, entry, &refused)?;
                record.put(left);
                record::save(&record_path, &record)?;
                outcomes.push(outcome);
                continue;
            }
            (Some(entry), false, None) => {
                let outcome = uninstall_recorded(ctx, adapter, entry).map_err(|mut e| {
                    e.completed = done.clone();
                    e
                })?;
                // A directory acc created that another adapter's files still fill goes
                // with the last of them, in this run or a later one.
                let standing = directories::existing(entry.created_directories.iter().cloned());
                record.hand_over_directories(adapter.id(), &standing);
                record.remove(adapter.id());
                record::save(&record_path, &record)?;
                backups::discard(&ctx.acc_data_dir, adapter.id());
                outcome
            }
            (None, dry_run, _) => unrecorded(ctx, adapter, dry_run).map_err(|mut e| {
                e.completed = done.clone();
                e
            })?,
        };
        done.push(adapter.id().to_owned());
        outcomes.push(outcome);
    }
    let changed = !options.dry_run && outcomes.iter().any(|o| !o.files.is_empty());
    Ok(RunReport {
        action: RunAction::Uninstall,
        dry_run: options.dry_run,
        undo: if changed {
            command_for("install", &done, options.home.as_deref())
        } else {
            None
        },
        home: options.home.clone(),
        data_home: None,
        adapters: outcomes,
        skipped,
    })
}

/// A user file uninstall cannot read any more, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
struct RefusedFile {
    path: PathBuf,
    reason: String,
}

/// The adapter's own refusal, then the files it would have to read. A recorded user file
/// that is malformed or no longer a file is refused alone (the adapter's other artifacts
/// still go); any other malformed config stops the run here rather than halfway.
fn preflight(
    ctx: &InstallContext,
    adapter: &Adapter,
    recorded: Option<&InstallEntry>,
) -> Result<Option<RefusedFile>, InstallError> {
    let id = adapter.id();
    let ctx = &record::context_for(ctx, recorded);
    adapter
        .behaviour()
        .preflight_uninstall(ctx)
        .map_err(|e| InstallError::from_adapter(id, e))?;
    let Err(e) = adapter.behaviour().plan_install(ctx) else {
        return Ok(None);
    };
    if !matches!(
        e.kind,
        AdapterErrorKind::MalformedUserFile | AdapterErrorKind::Io
    ) {
        return Ok(None);
    }
    let recorded_merge = e.path.as_ref().filter(|path| {
        recorded.is_some_and(|entry| {
            entry
                .artifacts
                .iter()
                .any(|a| a.kind == RecordedKind::Merge && &a.path == *path)
        })
    });
    match recorded_merge {
        Some(path) => Ok(Some(RefusedFile {
            path: path.clone(),
            reason: match std::fs::symlink_metadata(path) {
                Ok(meta) if meta.is_dir() => format!(
                    "{}: a directory now stands where acc edited a file",
                    path.display()
                ),
                _ if e.kind == AdapterErrorKind::Io => format!("{}: {}", path.display(), e.message),
                _ => InstallError::from_adapter(id, e.clone()).message,
            },
        })),
        None if e.kind == AdapterErrorKind::MalformedUserFile => {
            Err(InstallError::from_adapter(id, e))
        }
        None => Ok(None),
    }
}

/// What a refused file's note says.
fn refused_note(refused: &RefusedFile) -> String {
    format!("{}; acc leaves this file exactly as it is", refused.reason)
}

/// Uninstalls what can be taken back without the adapter reading `refused`: unchanged acc
/// trees go whole (they hold exactly what acc wrote), unchanged user files get their
/// originals back, and the refused file and any file only the adapter can strip stay on
/// record for the next uninstall, once the file is fixed.
fn uninstall_around(
    ctx: &InstallContext,
    adapter: &Adapter,
    entry: &InstallEntry,
    refused: &RefusedFile,
) -> Result<(AdapterOutcome, InstallEntry), InstallError> {
    let mut files = Vec::new();
    let mut left = Vec::new();
    for (path, kind, verdict) in judge(entry)? {
        if path == refused.path {
            files.push(file(
                &path,
                kind,
                FileAction::Refused,
                Some(&refused_note(refused)),
            ));
            left.push(path);
            continue;
        }
        match verdict {
            Verdict::Remove => {
                remove_tree(&path)?;
                files.push(file(&path, kind, FileAction::Removed, None));
            }
            Verdict::Restore(original) => {
                let action = match backups::restore(&ctx.acc_data_dir, &original)? {
                    Restored::Bytes => FileAction::Restored,
                    Restored::Deleted => FileAction::Removed,
                };
                files.push(file(&path, kind, action, None));
            }
            Verdict::Keep => files.push(file(&path, kind, FileAction::Kept, Some(KEPT_NOTE))),
            Verdict::Missing => files.push(file(&path, kind, FileAction::Missing, None)),
            Verdict::Strip { .. } => {
                files.push(file(
                    &path,
                    kind,
                    FileAction::Unchanged,
                    Some("acc's entries stay until the refused file is fixed"),
                ));
                left.push(path);
            }
        }
    }
    directories::remove_empty(&entry.created_directories);
    let remaining = InstallEntry {
        artifacts: entry
            .artifacts
            .iter()
            .filter(|a| left.contains(&a.path))
            .cloned()
            .collect(),
        originals: entry
            .originals
            .iter()
            .filter(|o| left.contains(&o.path))
            .cloned()
            .collect(),
        created_directories: directories::existing(entry.created_directories.iter().cloned()),
        delivery: entry.delivery.clone(),
        ..entry.clone()
    };
    Ok((outcome(adapter, files), remaining))
}

/// Removes an acc tree that holds exactly what acc wrote (a file or a directory).
fn remove_tree(path: &Path) -> Result<(), InstallError> {
    let removed = match std::fs::symlink_metadata(path) {
        Ok(meta) if meta.is_dir() => std::fs::remove_dir_all(path),
        Ok(_) => std::fs::remove_file(path),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(e),
    };
    removed.map_err(|e| InstallError::io(path, "remove", &e))
}

fn judge(entry: &InstallEntry) -> Result<Vec<(PathBuf, RecordedKind, Verdict)>, InstallError> {
    let mut out = Vec::new();
    for artifact in &entry.artifacts {
        let current = artifact_sha256(&artifact.path)
            .map_err(|e| InstallError::io(&artifact.path, "read", &e))?;
        let unchanged = current.is_some() && current == artifact.sha256;
        let verdict = match (artifact.kind, current.is_some()) {
            (_, false) => Verdict::Missing,
            (RecordedKind::Merge, true) => match entry.original(&artifact.path) {
                Some(original) if unchanged && original.exact => Verdict::Restore(original.clone()),
                original => Verdict::Strip {
                    created_by_acc: original.is_some_and(|o| !o.existed),
                },
            },
            (RecordedKind::Tree, true) if unchanged => Verdict::Remove,
            (RecordedKind::Tree, true) => Verdict::Keep,
        };
        out.push((artifact.path.clone(), artifact.kind, verdict));
    }
    Ok(out)
}

fn outcome(adapter: &Adapter, files: Vec<FileOutcome>) -> AdapterOutcome {
    let mut files = files;
    files.sort_by(|a, b| a.path.cmp(&b.path));
    AdapterOutcome {
        adapter_id: adapter.id().to_owned(),
        display_name: adapter.manifest().display_name.clone(),
        client: None,
        files,
        needs_action: Vec::new(),
    }
}

fn file(path: &Path, kind: RecordedKind, action: FileAction, note: Option<&str>) -> FileOutcome {
    FileOutcome {
        path: path.to_path_buf(),
        kind,
        action,
        note: note.map(str::to_owned),
    }
}

fn dry_outcome(
    adapter: &Adapter,
    entry: &InstallEntry,
    refused: Option<&RefusedFile>,
) -> Result<AdapterOutcome, InstallError> {
    let files = judge(entry)?
        .into_iter()
        .map(|(path, kind, verdict)| match verdict {
            _ if refused.is_some_and(|r| r.path == path) => file(
                &path,
                kind,
                FileAction::Refused,
                refused.map(refused_note).as_deref(),
            ),
            Verdict::Restore(original) if original.existed => {
                file(&path, kind, FileAction::Restored, None)
            }
            Verdict::Restore(_) | Verdict::Remove => file(&path, kind, FileAction::Removed, None),
            Verdict::Strip { .. } => file(&path, kind, FileAction::Edited, Some(EDITED_NOTE)),
            Verdict::Keep => file(&path, kind, FileAction::Kept, Some(KEPT_NOTE)),
            Verdict::Missing => file(&path, kind, FileAction::Missing, None),
        })
        .collect();
    Ok(outcome(adapter, files))
}

fn uninstall_recorded(
    ctx: &InstallContext,
    adapter: &Adapter,
    entry: &InstallEntry,
) -> Result<AdapterOutcome, InstallError> {
    let id = adapter.id();
    // The adapter removes exactly the hook entries the record says this install wrote.
    let ctx = &record::context_for(ctx, Some(entry));
    let verdicts = judge(entry)?;
    let mut files = Vec::new();
    let mut keep = Vec::new();
    for (path, kind, verdict) in &verdicts {
        match verdict {
            Verdict::Keep => {
                keep.push(path.clone());
                files.push(file(path, *kind, FileAction::Kept, Some(KEPT_NOTE)));
            }
            Verdict::Missing => files.push(file(path, *kind, FileAction::Missing, None)),
            Verdict::Restore(_) | Verdict::Strip { .. } | Verdict::Remove => {}
        }
    }
    let report: InstallReport = adapter
        .behaviour()
        .uninstall(ctx, &keep)
        .map_err(|e| InstallError::from_adapter(id, e))?;
    // Originals come back after the adapter's pass, never before it: an original may hold
    // entries that look like acc's (an older acc's, or the user's own copy), and they are
    // the user's bytes now.
    for (path, kind, verdict) in &verdicts {
        let change = report.changes.iter().find(|c| &c.path == path);
        match verdict {
            Verdict::Restore(original) => {
                let action = match backups::restore(&ctx.acc_data_dir, original)? {
                    Restored::Bytes => FileAction::Restored,
                    Restored::Deleted => FileAction::Removed,
                };
                files.push(file(path, *kind, action, None));
            }
            Verdict::Strip { created_by_acc } => {
                let mut action = change.map_or(FileAction::Unchanged, |c| c.action.into());
                // A file acc created that holds nothing else now goes, as it came.
                if *created_by_acc && is_blank_config(path) {
                    acc_sdk::install_files::remove_file(path)
                        .map_err(|e| InstallError::from_adapter(id, e))?;
                    action = FileAction::Removed;
                }
                files.push(file(path, *kind, action, Some(EDITED_NOTE)));
            }
            Verdict::Remove => {
                let action = change.map_or(FileAction::Removed, |c| c.action.into());
                let note = (action == FileAction::Kept)
                    .then_some("holds files acc did not write, so acc leaves them");
                files.push(file(path, *kind, action, note));
            }
            _ => {}
        }
    }
    directories::remove_empty(&entry.created_directories);
    Ok(outcome(adapter, files))
}

/// An adapter with no record entry, named explicitly: its own uninstall removes the entries
/// whose command is exactly this acc's for this data home, and the acc files it recognises.
fn unrecorded(
    ctx: &InstallContext,
    adapter: &Adapter,
    dry_run: bool,
) -> Result<AdapterOutcome, InstallError> {
    let id = adapter.id();
    if dry_run {
        let plan = adapter
            .behaviour()
            .plan_install(ctx)
            .map_err(|e| InstallError::from_adapter(id, e))?;
        let files = plan
            .artifacts
            .iter()
            .filter(|a| std::fs::symlink_metadata(&a.path).is_ok())
            .map(|a| {
                let (action, note) = match a.kind {
                    acc_sdk::install::ArtifactKind::Merge => (
                        FileAction::Edited,
                        Some("no install record: acc's entries, if any, would be removed"),
                    ),
                    acc_sdk::install::ArtifactKind::Tree => (
                        FileAction::Removed,
                        Some("no install record: only files acc recognises would go"),
                    ),
                };
                file(&a.path, a.kind.into(), action, note)
            })
            .collect();
        return Ok(outcome(adapter, files));
    }
    let kinds = adapter
        .behaviour()
        .plan_install(ctx)
        .map(|p| p.artifacts)
        .unwrap_or_default();
    let report = adapter
        .behaviour()
        .uninstall(ctx, &[])
        .map_err(|e| InstallError::from_adapter(id, e))?;
    let files = report
        .changes
        .iter()
        .filter(|c| c.action != ChangeAction::Unchanged)
        .map(|c| {
            let kind = kinds
                .iter()
                .find(|a| a.path == c.path)
                .map_or(RecordedKind::Tree, |a| a.kind.into());
            file(
                &c.path,
                kind,
                c.action.into(),
                Some("no install record; removed what acc recognised"),
            )
        })
        .collect();
    Ok(outcome(adapter, files))
}

/// An empty JSON object or whitespace-only text: what a config acc created holds once
/// acc's entries are gone.
fn is_blank_config(path: &Path) -> bool {
    let Ok(bytes) = std::fs::read(path) else {
        return false;
    };
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return true;
    }
    serde_json::from_slice::<serde_json::Value>(&bytes)
        .is_ok_and(|v| v.as_object().is_some_and(|o| o.is_empty()))
}
