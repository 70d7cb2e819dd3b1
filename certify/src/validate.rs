//! `acc-certify validate`: every adapter directory's manifest, evidence, provenance,
//! digests and fixtures. By default, every shipped adapter's directory.
//!
//! Every file on disk under an adapter's `fixtures/` must be referenced by an evidence row
//! or a provenance record (`validate_adapter_dir` reports the rest as
//! `unreferenced_fixture`): a fixture nobody points at is either a leftover or evidence
//! someone meant to smuggle in.

use std::path::{Path, PathBuf};

use acc_sdk::certification::validate_adapter_dir;
use acc_sdk::error::Problem;
use serde_json::{Value, json};

use crate::report::{plural, problem_json, problem_line};
use crate::setup::{SetupError, resolve_root};

/// One adapter directory's verdict.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AdapterReport {
    pub dir: PathBuf,
    /// The manifest's id, when it could be read.
    pub id: Option<String>,
    pub problems: Vec<Problem>,
}

/// The verdict over every directory validated.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Report {
    pub adapters: Vec<AdapterReport>,
}

impl Report {
    pub fn valid(&self) -> bool {
        self.adapters.iter().all(|a| a.problems.is_empty())
    }

    pub fn problem_count(&self) -> usize {
        self.adapters.iter().map(|a| a.problems.len()).sum()
    }

    pub fn invalid_count(&self) -> usize {
        self.adapters
            .iter()
            .filter(|a| !a.problems.is_empty())
            .count()
    }

    pub fn summary(&self) -> String {
        if self.valid() {
            format!("{} valid", plural(self.adapters.len(), "adapter"))
        } else {
            format!(
                "{} in {}",
                plural(self.problem_count(), "problem"),
                plural(self.invalid_count(), "adapter")
            )
        }
    }

    /// Problems one per line naming file and field, then one line per valid adapter, then
    /// the summary.
    pub fn human(&self) -> String {
        let mut out = String::new();
        for a in &self.adapters {
            if a.problems.is_empty() {
                out.push_str(&format!(
                    "{}: valid ({})\n",
                    a.dir.display(),
                    a.id.as_deref().unwrap_or("?")
                ));
            }
            for p in &a.problems {
                out.push_str(&problem_line(&a.dir, p));
                out.push('\n');
            }
        }
        out.push_str(&self.summary());
        out.push('\n');
        out
    }

    pub fn json(&self) -> Value {
        let adapters: Vec<Value> = self
            .adapters
            .iter()
            .map(|a| {
                json!({
                    "dir": a.dir.display().to_string(),
                    "id": a.id,
                    "valid": a.problems.is_empty(),
                    "problems": a.problems.iter().map(problem_json).collect::<Vec<_>>(),
                })
            })
            .collect();
        json!({"valid": self.valid(), "adapters": adapters})
    }
}

fn manifest_id(dir: &Path) -> Option<String> {
    let bytes = std::fs::read(dir.join(acc_sdk::error::MANIFEST_FILE)).ok()?;
    let value: Value = serde_json::from_slice(&bytes).ok()?;
    value.get("id")?.as_str().map(str::to_owned)
}

/// Validates each directory. The directories must exist (the command checks that first,
/// since a missing one means it could not run).
pub fn validate_dirs(dirs: &[PathBuf]) -> Report {
    let adapters = dirs
        .iter()
        .map(|dir| AdapterReport {
            dir: dir.clone(),
            id: manifest_id(dir),
            problems: validate_adapter_dir(dir),
        })
        .collect();
    Report { adapters }
}

/// `adapters/<id>` for every shipped adapter, under `root` (default: the repository at or
/// above the current directory), shown relative to the current directory when inside it.
pub fn shipped_dirs(root: Option<&Path>) -> Result<Vec<PathBuf>, SetupError> {
    let root = resolve_root(root)?;
    let cwd = std::env::current_dir().unwrap_or_default();
    Ok(crate::matrix::shipped_ids()
        .iter()
        .map(|id| {
            let dir = root.join("adapters").join(id);
            match dir.strip_prefix(&cwd) {
                Ok(rel) if !rel.as_os_str().is_empty() => rel.to_path_buf(),
                _ => dir,
            }
        })
        .collect())
}
