//! `acc-certify matrix [--check]`: write `docs/CAPABILITIES.md` from the evidence, or
//! compare the committed one with it.

use std::io::Write;
use std::path::{Path, PathBuf};

use clap::Args;
use serde_json::json;

use super::{CAPABILITIES_DOC, Drift, compute, drift, render::render, shipped_ids};
use crate::envelope::Exit;
use crate::output::CommandOutput;
use crate::setup::{SetupError, resolve_root};

#[derive(Debug, Args)]
pub struct MatrixArgs {
    /// Compare docs/CAPABILITIES.md with the evidence instead of writing it: exit 1 on drift.
    #[arg(long)]
    pub check: bool,
    /// The repository root (default: the nearest directory at or above the current one
    /// holding adapters/ and Cargo.toml).
    #[arg(long, value_name = "DIR", alias = "repo")]
    pub root: Option<PathBuf>,
    /// Print exactly one JSON envelope.
    #[arg(long)]
    pub json: bool,
}

/// What the evidence in `root` renders to.
pub fn rendered(root: &Path) -> Result<String, SetupError> {
    let matrix = compute(root, &shipped_ids()).map_err(|e| SetupError::InvalidAdapter {
        message: e.to_string(),
    })?;
    Ok(render(&matrix))
}

/// The committed document against the evidence.
pub fn check_drift(root: &Path) -> Result<Drift, SetupError> {
    let expected = rendered(root)?;
    let committed = std::fs::read_to_string(root.join(CAPABILITIES_DOC)).ok();
    Ok(drift(committed.as_deref(), &expected))
}

fn run(args: &MatrixArgs) -> Result<CommandOutput, SetupError> {
    let root = resolve_root(args.root.as_deref())?;
    let ids = shipped_ids();
    if args.check {
        let found = check_drift(&root)?;
        return Ok(match found.message() {
            None => CommandOutput::new(
                Exit::Ok,
                format!("{CAPABILITIES_DOC} matches the evidence\n"),
                json!({"file": CAPABILITIES_DOC, "drift": false}),
                String::new(),
            ),
            Some(message) => CommandOutput::new(
                Exit::Invalid,
                format!("{message}\n"),
                json!({"file": CAPABILITIES_DOC, "drift": true}),
                message,
            ),
        });
    }
    let text = rendered(&root)?;
    let path = root.join(CAPABILITIES_DOC);
    let unchanged = std::fs::read_to_string(&path).is_ok_and(|t| t == text);
    if !unchanged {
        let write = || -> std::io::Result<()> {
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent)?;
            }
            std::fs::write(&path, &text)
        };
        write().map_err(|e| SetupError::Io {
            message: format!("cannot write {}: {e}", path.display()),
        })?;
    }
    let verb = if unchanged { "unchanged" } else { "wrote" };
    Ok(CommandOutput::new(
        Exit::Ok,
        format!(
            "{verb} {CAPABILITIES_DOC}: {} adapters x 14 capabilities\n",
            ids.len()
        ),
        json!({"file": CAPABILITIES_DOC, "written": !unchanged, "adapters": ids}),
        String::new(),
    ))
}

pub fn execute(args: &MatrixArgs, out: &mut dyn Write, err: &mut dyn Write) -> i32 {
    let output = run(args).unwrap_or_else(|e| CommandOutput::could_not_run(&e));
    output.emit(args.json, out, err)
}
