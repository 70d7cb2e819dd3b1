//! Install ownership, checked in a sandbox home copied from `fixtures/homes/<id>/`: detect
//! and doctor are read-only, install is idempotent and does what its plan says, uninstall
//! gives the home back byte for byte, twice, and leaves what the user edited since.

use std::path::{Path, PathBuf};

use acc_runtime::installer::report::FileAction;
use acc_sdk::define::Adapter;
use acc_sdk::hook_command::runs_acc_hook;
use acc_sdk::install::{ArtifactKind, DiagnosticLevel};
use serde_json::Value;

use super::sandbox;
use crate::check::{Outcome, Problems};
use crate::context::CheckContext;
use crate::hook_commands::{files_under, installed_commands};
use crate::install_plan::compare_plan_with_install;
use crate::sandbox::Sandbox;
use crate::snapshot::{TreeChange, TreeSnapshot};

/// The JSON key, TOML table and text line a simulated user edit adds.
pub const USER_EDIT_MARK: &str = "accConformanceUserEdit";

/// How many changed paths a message lists before summarising.
const LISTED: usize = 5;

fn install_file(ctx: &CheckContext, adapter: &Adapter) -> Option<String> {
    ctx.source_file(adapter.id(), &["install.rs"])
}

fn snapshot(sb: &Sandbox) -> Result<TreeSnapshot, Outcome> {
    sb.home_snapshot()
        .map_err(|e| Outcome::fail(None, format!("cannot read the sandbox home: {e}")))
}

/// `<home>/a (modified), <home>/b (added)`, at most [`LISTED`] of them.
fn list_changes(sb: &Sandbox, changes: &[TreeChange]) -> String {
    let mut parts: Vec<String> = changes
        .iter()
        .take(LISTED)
        .map(|c| format!("{} ({})", sb.redact_path(&c.path), c.kind.as_str()))
        .collect();
    if changes.len() > LISTED {
        parts.push(format!("and {} more", changes.len() - LISTED));
    }
    parts.join(", ")
}

fn home_label(ctx: &CheckContext, adapter: &Adapter) -> String {
    match ctx.home_fixture(adapter.id()) {
        Some(dir) => format!("a copy of {}", ctx.display(&dir)),
        None => "an empty home".to_owned(),
    }
}

macro_rules! attempt {
    ($e:expr) => {
        match $e {
            Ok(v) => v,
            Err(outcome) => return outcome,
        }
    };
}

pub fn detect_read_only(ctx: &CheckContext, adapter: &Adapter) -> Outcome {
    let sb = attempt!(sandbox(ctx, adapter));
    let read = |sb: &Sandbox| {
        sb.machine_snapshot()
            .map_err(|e| Outcome::fail(None, format!("cannot read the sandbox: {e}")))
    };
    let (home, data) = attempt!(read(&sb));
    let _ = adapter.behaviour().detect(sb.context());
    let (home_after, data_after) = attempt!(read(&sb));
    let mut changes = home.changes(&home_after);
    changes.extend(data.changes(&data_after));
    if changes.is_empty() {
        Outcome::Pass
    } else {
        Outcome::fail(
            install_file(ctx, adapter),
            format!(
                "detect wrote to the machine (in {}): {}; detection must only read",
                home_label(ctx, adapter),
                list_changes(&sb, &changes)
            ),
        )
    }
}

pub fn install_idempotent(ctx: &CheckContext, adapter: &Adapter) -> Outcome {
    let sb = attempt!(sandbox(ctx, adapter));
    let file = install_file(ctx, adapter);
    if let Err(e) = sb.install(adapter) {
        return Outcome::fail(
            file,
            format!(
                "install into {} failed: {}",
                home_label(ctx, adapter),
                sb.redact(&e.message)
            ),
        );
    }
    let once = attempt!(snapshot(&sb));
    let second = match sb.install(adapter) {
        Ok(report) => report,
        Err(e) => {
            return Outcome::fail(
                file,
                format!("a second install failed: {}", sb.redact(&e.message)),
            );
        }
    };
    let twice = attempt!(snapshot(&sb));
    let mut problems = Problems::new(file);
    let changes = once.changes(&twice);
    if !changes.is_empty() {
        problems.push(format!(
            "a second install changed the home: {}; installing twice must equal installing once",
            list_changes(&sb, &changes)
        ));
    }
    for f in second.adapters.iter().flat_map(|a| &a.files) {
        if matches!(f.action, FileAction::Created | FileAction::Edited) {
            problems.push(format!(
                "a second install reported {} as {:?}; an unchanged file must not be rewritten",
                sb.redact_path(&f.path),
                f.action
            ));
        }
    }
    problems.into_outcome()
}

pub fn uninstall_restores(ctx: &CheckContext, adapter: &Adapter) -> Outcome {
    let sb = attempt!(sandbox(ctx, adapter));
    let file = install_file(ctx, adapter);
    let before = attempt!(snapshot(&sb));
    if let Err(e) = sb.install(adapter) {
        return Outcome::fail(file, format!("install failed: {}", sb.redact(&e.message)));
    }
    if let Err(e) = sb.uninstall(adapter) {
        return Outcome::fail(file, format!("uninstall failed: {}", sb.redact(&e.message)));
    }
    let after = attempt!(snapshot(&sb));
    let changes = before.changes(&after);
    if changes.is_empty() {
        Outcome::Pass
    } else {
        Outcome::fail(
            file,
            format!(
                "after install and uninstall, {} is not byte-identical: {}; uninstall must restore the user's files byte for byte and remove what acc created",
                home_label(ctx, adapter),
                list_changes(&sb, &changes)
            ),
        )
    }
}

pub fn uninstall_idempotent(ctx: &CheckContext, adapter: &Adapter) -> Outcome {
    let sb = attempt!(sandbox(ctx, adapter));
    let file = install_file(ctx, adapter);
    if let Err(e) = sb.install(adapter) {
        return Outcome::fail(file, format!("install failed: {}", sb.redact(&e.message)));
    }
    if let Err(e) = sb.uninstall(adapter) {
        return Outcome::fail(file, format!("uninstall failed: {}", sb.redact(&e.message)));
    }
    let once = attempt!(snapshot(&sb));
    let second = match sb.uninstall(adapter) {
        Ok(report) => report,
        Err(e) => {
            return Outcome::fail(
                file,
                format!(
                    "a second uninstall failed: {}; it must find nothing to do",
                    sb.redact(&e.message)
                ),
            );
        }
    };
    let twice = attempt!(snapshot(&sb));
    let mut problems = Problems::new(file);
    let changes = once.changes(&twice);
    if !changes.is_empty() {
        problems.push(format!(
            "a second uninstall changed the home: {}",
            list_changes(&sb, &changes)
        ));
    }
    let acted: Vec<String> = second
        .adapters
        .iter()
        .flat_map(|a| &a.files)
        .filter(|f| !matches!(f.action, FileAction::Unchanged | FileAction::Missing))
        .map(|f| format!("{} ({:?})", sb.redact_path(&f.path), f.action))
        .collect();
    if !acted.is_empty() {
        problems.push(format!(
            "a second uninstall reported work: {}; it must be a no-op",
            acted.join(", ")
        ));
    }
    problems.into_outcome()
}

pub fn plan_matches(ctx: &CheckContext, adapter: &Adapter) -> Outcome {
    let sb = attempt!(sandbox(ctx, adapter));
    let file = install_file(ctx, adapter);
    match compare_plan_with_install(&sb, adapter) {
        Err(message) => Outcome::fail(file, message),
        Ok(comparison) if comparison.differences.is_empty() => Outcome::Pass,
        Ok(comparison) => {
            let show = |p: &Path| sb.redact_path(p);
            let lines: Vec<String> = comparison
                .differences
                .iter()
                .map(|d| d.describe(&show))
                .collect();
            Outcome::fail(
                file,
                format!(
                    "{}; plan_install must name exactly the paths install creates or edits, computed with the same path helpers",
                    lines.join("; ")
                ),
            )
        }
    }
}

pub fn doctor_read_only(ctx: &CheckContext, adapter: &Adapter) -> Outcome {
    let sb = attempt!(sandbox(ctx, adapter));
    let file = install_file(ctx, adapter);
    let mut problems = Problems::new(file.clone());
    let read = |sb: &Sandbox| {
        sb.machine_snapshot()
            .map_err(|e| Outcome::fail(None, format!("cannot read the sandbox: {e}")))
    };
    for installed in [false, true] {
        if installed && let Err(e) = sb.install(adapter) {
            return Outcome::fail(file, format!("install failed: {}", sb.redact(&e.message)));
        }
        let (home, data) = attempt!(read(&sb));
        let report = adapter.behaviour().doctor(sb.context());
        let _ =
            acc_runtime::installer::run_doctor(sb.context(), std::slice::from_ref(adapter), false);
        let (home_after, data_after) = attempt!(read(&sb));
        let mut changes = home.changes(&home_after);
        changes.extend(data.changes(&data_after));
        let when = if installed {
            "after install"
        } else {
            "before install"
        };
        if !changes.is_empty() {
            problems.push(format!(
                "doctor {when} wrote to the machine: {}; doctor must only read",
                list_changes(&sb, &changes)
            ));
        }
        if installed {
            for d in report
                .diagnostics
                .iter()
                .filter(|d| d.level == DiagnosticLevel::Error)
            {
                problems.push(format!(
                    "doctor reports an error right after a clean install: {}",
                    sb.redact(&d.message)
                ));
            }
        }
    }
    problems.into_outcome()
}

/// Adds the user's edit to one installed artifact; returns what to look for afterwards.
fn edit_like_a_user(path: &Path) -> std::io::Result<Option<PathBuf>> {
    if path.is_dir() {
        let note = path.join("user-notes.txt");
        std::fs::write(&note, format!("{USER_EDIT_MARK}\n"))?;
        return Ok(Some(note));
    }
    let Ok(text) = std::fs::read_to_string(path) else {
        return Ok(None);
    };
    let edited = match serde_json::from_str::<Value>(&text) {
        Ok(Value::Object(mut map)) => {
            map.insert(USER_EDIT_MARK.to_owned(), Value::Bool(true));
            serde_json::to_string_pretty(&Value::Object(map)).map_err(std::io::Error::other)?
        }
        Ok(_) => return Ok(None),
        Err(_) if path.extension().is_some_and(|e| e == "toml") => {
            format!("{text}\n[{USER_EDIT_MARK}]\nkept = true\n")
        }
        Err(_) => format!("{text}\n{USER_EDIT_MARK}\n"),
    };
    std::fs::write(path, edited)?;
    Ok(Some(path.to_path_buf()))
}

fn holds_acc_hook(path: &Path) -> bool {
    installed_commands(&[path.to_path_buf()])
        .iter()
        .any(|c| runs_acc_hook(&c.command))
}

pub fn uninstall_keeps_user_edits(ctx: &CheckContext, adapter: &Adapter) -> Outcome {
    let sb = attempt!(sandbox(ctx, adapter));
    let file = install_file(ctx, adapter);
    let plan = match adapter.behaviour().plan_install(sb.context()) {
        Ok(plan) => plan,
        Err(e) => {
            return Outcome::fail(
                file,
                format!("plan_install refused: {}", sb.redact(&e.to_string())),
            );
        }
    };
    if plan.artifacts.is_empty() {
        return Outcome::not_applicable("install plans no artifact");
    }
    if let Err(e) = sb.install(adapter) {
        return Outcome::fail(file, format!("install failed: {}", sb.redact(&e.message)));
    }
    let mut edits = Vec::new();
    for artifact in &plan.artifacts {
        match edit_like_a_user(&artifact.path) {
            Ok(Some(marked)) => edits.push((artifact.clone(), marked)),
            Ok(None) => {}
            Err(e) => {
                return Outcome::fail(
                    None,
                    format!("could not edit {}: {e}", sb.redact_path(&artifact.path)),
                );
            }
        }
    }
    if let Err(e) = sb.uninstall(adapter) {
        return Outcome::fail(
            file,
            format!(
                "uninstall after the user edited acc's files failed: {}",
                sb.redact(&e.message)
            ),
        );
    }
    let mut problems = Problems::new(file);
    for (artifact, marked) in &edits {
        let kept = std::fs::read_to_string(marked).is_ok_and(|t| t.contains(USER_EDIT_MARK));
        if !kept {
            problems.push(format!(
                "the user's edit to {} was lost: uninstall must leave paths the user edited since install (keep) and strip only acc's entries",
                sb.redact_path(&artifact.path)
            ));
        }
        if artifact.kind == ArtifactKind::Merge && artifact.path.is_file() {
            let leftover = files_under(std::slice::from_ref(&artifact.path))
                .iter()
                .any(|f| holds_acc_hook(f));
            if leftover {
                problems.push(format!(
                    "{} still runs acc-hook after uninstall: acc's entries must be removed from a user's file even when the user edited it",
                    sb.redact_path(&artifact.path)
                ));
            }
        }
    }
    problems.into_outcome()
}
