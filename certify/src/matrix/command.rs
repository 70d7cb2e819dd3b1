//! `acc-certify matrix [--check]`: write `docs/CAPABILITIES.md` and the per-client lines of
//! `docs/index.md` from the evidence, or compare the committed ones with it.

use std::io::Write;
use std::path::{Path, PathBuf};

use clap::Args;
use serde_json::json;

use super::index_lines::{self, INDEX_DOC};
use super::{CAPABILITIES_DOC, Drift, Matrix, compute, drift, render::render, shipped_ids};
use crate::envelope::Exit;
use crate::output::CommandOutput;
use crate::setup::{SetupError, resolve_root};

#[derive(Debug, Args)]
pub struct MatrixArgs {
    /// Compare docs/CAPABILITIES.md and docs/index.md's per-client lines with the evidence
    /// instead of writing them: exit 1 on drift.
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

fn matrix(root: &Path) -> Result<Matrix, SetupError> {
    compute(root, &shipped_ids()).map_err(|e| SetupError::InvalidAdapter {
        message: e.to_string(),
    })
}

/// What the evidence in `root` renders to.
pub fn rendered(root: &Path) -> Result<String, SetupError> {
    Ok(render(&matrix(root)?))
}

/// The committed document against the evidence.
pub fn check_drift(root: &Path) -> Result<Drift, SetupError> {
    let expected = rendered(root)?;
    let committed = std::fs::read_to_string(root.join(CAPABILITIES_DOC)).ok();
    Ok(drift(committed.as_deref(), &expected))
}

/// Why the committed `docs/index.md` does not say what the evidence does, if it does not.
pub fn check_index_drift(root: &Path) -> Result<Option<String>, SetupError> {
    let block = index_lines::render(&matrix(root)?);
    let committed = std::fs::read_to_string(root.join(INDEX_DOC)).ok();
    Ok(index_lines::drift(committed.as_deref(), &block))
}

/// Both documents against the evidence: the first drift found, naming its file and the fix.
pub fn check_docs(root: &Path) -> Result<Option<String>, SetupError> {
    match check_drift(root)?.message() {
        Some(message) => Ok(Some(message)),
        None => check_index_drift(root),
    }
}

/// Writes the index's per-client lines; whether the file changed.
fn write_index(root: &Path, matrix: &Matrix) -> Result<bool, SetupError> {
    let path = root.join(INDEX_DOC);
    let committed = std::fs::read_to_string(&path).ok();
    let block = index_lines::render(matrix);
    let Some(message) = index_lines::drift(committed.as_deref(), &block) else {
        return Ok(false);
    };
    let spliced = committed
        .as_deref()
        .and_then(|text| index_lines::splice(text, &block))
        .ok_or(SetupError::InvalidAdapter { message })?;
    std::fs::write(&path, spliced).map_err(|e| SetupError::Io {
        message: format!("cannot write {}: {e}", path.display()),
    })?;
    Ok(true)
}

fn run(args: &MatrixArgs) -> Result<CommandOutput, SetupError> {
    let root = resolve_root(args.root.as_deref())?;
    let ids = shipped_ids();
    if args.check {
        let found = check_drift(&root)?;
        let (file, found) = match found.message() {
            None => (INDEX_DOC, check_index_drift(&root)?),
            message => (CAPABILITIES_DOC, message),
        };
        return Ok(match found {
            None => CommandOutput::new(
                Exit::Ok,
                format!("{CAPABILITIES_DOC} matches the evidence\n"),
                json!({"file": CAPABILITIES_DOC, "drift": false}),
                String::new(),
            ),
            Some(message) => CommandOutput::new(
                Exit::Invalid,
                format!("{message}\n"),
                json!({"file": file, "drift": true}),
                message,
            ),
        });
    }
    let matrix = matrix(&root)?;
    let text = render(&matrix);
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
    let index_written = write_index(&root, &matrix)?;
    let index_verb = if index_written { "wrote" } else { "unchanged" };
    Ok(CommandOutput::new(
        Exit::Ok,
        format!(
            "{verb} {CAPABILITIES_DOC}: {} adapters x 14 capabilities\n{index_verb} {INDEX_DOC}: its per-client lines\n",
            ids.len()
        ),
        json!({"file": CAPABILITIES_DOC, "written": !unchanged, "adapters": ids, "index": {"file": INDEX_DOC, "written": index_written}}),
        String::new(),
    ))
}

pub fn execute(args: &MatrixArgs, out: &mut dyn Write, err: &mut dyn Write) -> i32 {
    let output = run(args).unwrap_or_else(|e| CommandOutput::could_not_run(&e));
    output.emit(args.json, out, err)
}
