//! `acc-certify diff-install`: plan against install in a sandbox home (a copy of
//! `fixtures/homes/<id>/` by default), every difference named.

use std::io::Write;
use std::path::{Path, PathBuf};

use acc_conformance::CheckContext;
use acc_conformance::install_plan::compare_plan_with_install;
use acc_conformance::sandbox::Sandbox;
use acc_runtime::installer::report::FileAction;
use acc_sdk::define::Adapter;
use acc_sdk::install::ArtifactKind;
use clap::Args;
use serde_json::{Value, json};

use crate::adapter_arg::{ADAPTER_HELP, shipped_adapter};
use crate::envelope::Exit;
use crate::output::CommandOutput;
use crate::report::plural;
use crate::setup::{SetupError, resolve_hook_executable, resolve_root, scratch};

#[derive(Debug, Args)]
pub struct DiffInstallArgs {
    #[arg(long, value_name = "ID|DIR", help = ADAPTER_HELP)]
    pub adapter: String,
    /// The home to install into, copied first (default: fixtures/homes/<id>/, else empty).
    #[arg(long, value_name = "DIR")]
    pub home_fixture: Option<PathBuf>,
    /// The repository root (default: the nearest directory at or above the current one
    /// holding adapters/ and Cargo.toml).
    #[arg(long, value_name = "DIR", alias = "repo")]
    pub root: Option<PathBuf>,
    /// Print exactly one JSON envelope.
    #[arg(long)]
    pub json: bool,
}

/// One planned artifact and what install reported for it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlannedLine {
    /// Redacted (`<home>/...`).
    pub path: String,
    pub kind: ArtifactKind,
    pub reported: Option<FileAction>,
}

/// The comparison, with sandbox paths redacted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DiffInstall {
    pub adapter: String,
    /// Which home was copied (`fixtures/homes/codex`), or `an empty home`.
    pub home: String,
    pub planned: Vec<PlannedLine>,
    pub differences: Vec<String>,
}

/// Plans and installs `adapter` in a fresh sandbox whose home is a copy of `home_fixture`.
pub fn diff_install(
    ctx: &CheckContext,
    adapter: &Adapter,
    home_fixture: Option<&Path>,
) -> Result<DiffInstall, String> {
    let sb = Sandbox::new(&ctx.scratch, &ctx.hook_executable, adapter, home_fixture)
        .map_err(|e| format!("could not build a sandbox home: {e}"))?;
    let comparison = compare_plan_with_install(&sb, adapter)?;
    let show = |p: &Path| sb.redact_path(p);
    let planned = comparison
        .planned
        .iter()
        .map(|a| PlannedLine {
            path: show(&a.path),
            kind: a.kind,
            reported: comparison
                .reported
                .iter()
                .find(|(p, _)| *p == a.path)
                .map(|(_, action)| *action),
        })
        .collect();
    Ok(DiffInstall {
        adapter: adapter.id().to_owned(),
        home: home_fixture.map_or_else(|| "an empty home".to_owned(), |h| ctx.display(h)),
        planned,
        differences: comparison
            .differences
            .iter()
            .map(|d| d.describe(&show))
            .collect(),
    })
}

fn kind_word(kind: ArtifactKind) -> &'static str {
    match kind {
        ArtifactKind::Tree => "tree",
        ArtifactKind::Merge => "merge",
    }
}

fn action_word(action: Option<FileAction>) -> String {
    action.map_or_else(
        || "not reported".to_owned(),
        |a| {
            serde_json::to_value(a)
                .ok()
                .and_then(|v| v.as_str().map(str::to_owned))
                .unwrap_or_default()
        },
    )
}

impl DiffInstall {
    pub fn human(&self) -> String {
        let mut out = format!("diff-install {} in {}\n", self.adapter, self.home);
        let width = self.planned.iter().map(|p| p.path.len()).max().unwrap_or(0);
        for p in &self.planned {
            out.push_str(&format!(
                "  planned {:<5}  {:<width$}  {}\n",
                kind_word(p.kind),
                p.path,
                action_word(p.reported)
            ));
        }
        for d in &self.differences {
            out.push_str(&format!("difference: {d}\n"));
        }
        if self.differences.is_empty() {
            out.push_str(&format!(
                "no differences: install wrote exactly the {} planned\n",
                plural(self.planned.len(), "artifact")
            ));
        } else {
            out.push_str(&format!(
                "{} between plan and install\n",
                plural(self.differences.len(), "difference")
            ));
        }
        out
    }

    pub fn json(&self) -> Value {
        json!({
            "adapter": self.adapter,
            "home": self.home,
            "planned": self.planned.iter().map(|p| json!({
                "path": p.path,
                "kind": kind_word(p.kind),
                "reported": p.reported,
            })).collect::<Vec<_>>(),
            "differences": self.differences,
        })
    }
}

fn run(args: &DiffInstallArgs) -> Result<CommandOutput, SetupError> {
    let adapter = shipped_adapter(&args.adapter)?;
    let root = resolve_root(args.root.as_deref())?;
    let hook = resolve_hook_executable()?;
    let home = match &args.home_fixture {
        Some(dir) if dir.is_dir() => Some(std::path::absolute(dir).unwrap_or(dir.clone())),
        Some(dir) => {
            return Err(SetupError::Io {
                message: format!("--home-fixture {} is not a directory", dir.display()),
            });
        }
        None => Some(root.join("fixtures").join("homes").join(adapter.id())).filter(|d| d.is_dir()),
    };
    let scratch = scratch()?;
    let ctx = CheckContext::new(&root, &hook, scratch.path());
    let report =
        diff_install(&ctx, &adapter, home.as_deref()).map_err(|message| SetupError::Sandbox {
            message: format!("diff-install {}: {message}", adapter.id()),
        })?;
    Ok(if report.differences.is_empty() {
        CommandOutput::new(Exit::Ok, report.human(), report.json(), String::new())
    } else {
        let message = format!(
            "{} between plan and install",
            plural(report.differences.len(), "difference")
        );
        CommandOutput::new(Exit::Invalid, report.human(), report.json(), message)
    })
}

pub fn execute(args: &DiffInstallArgs, out: &mut dyn Write, err: &mut dyn Write) -> i32 {
    let output = run(args).unwrap_or_else(|e| CommandOutput::could_not_run(&e));
    output.emit(args.json, out, err)
}
