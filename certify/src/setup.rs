//! What the judging commands (`validate`, `diff-install`, `wire`, `gate`, `matrix`) need
//! before they can run, and why they could not: the repository root, the `acc-hook` to
//! wire, the adapter asked for. Every failure here means exit 2, with a stable code.

use std::fmt;
use std::path::{Path, PathBuf};

use acc_conformance::hook_binary::{HOOK_EXECUTABLE_VAR, hook_executable, require};

use crate::record::command::find_repo;

/// Why a command could not run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SetupError {
    /// No directory at or above the current one holds `adapters/` and `Cargo.toml`.
    NoRepository { from: PathBuf },
    /// `--root` names a directory without `adapters/`.
    NoAdapters { root: PathBuf },
    /// `--adapter` names neither a shipped adapter nor an existing directory.
    UnknownAdapter { id: String },
    /// `--adapter` names a directory holding neither `certification.json` nor `adapter.json`.
    NotAnAdapterDir { dir: PathBuf },
    /// `--adapter` names a directory whose adapter this build does not ship, for a command
    /// that runs an adapter's code.
    NotShipped { dir: PathBuf, id: String },
    /// The `acc-hook` installed hooks must run is missing or not executable.
    HookMissing { message: String },
    /// The baseline file is unreadable or malformed.
    Baseline { message: String },
    /// Reading or writing a file failed.
    Io { message: String },
    /// The sandbox could not be built, or install into it failed outright.
    Sandbox { message: String },
    /// An adapter directory does not load, so its evidence cannot be read.
    InvalidAdapter { message: String },
    /// `new-adapter` was given an id no adapter can have.
    BadAdapterId { id: String, problem: &'static str },
    /// `new-adapter` would overwrite an existing folder.
    AdapterExists { dir: PathBuf },
}

impl SetupError {
    pub fn code(&self) -> &'static str {
        match self {
            SetupError::NoRepository { .. } => "certify.no-repository",
            SetupError::NoAdapters { .. } => "certify.no-adapters",
            SetupError::UnknownAdapter { .. } => "certify.unknown-adapter",
            SetupError::NotAnAdapterDir { .. } => "certify.not-an-adapter-dir",
            SetupError::NotShipped { .. } => "certify.not-shipped",
            SetupError::HookMissing { .. } => "certify.hook-missing",
            SetupError::Baseline { .. } => "certify.baseline",
            SetupError::Io { .. } => "certify.io",
            SetupError::Sandbox { .. } => "certify.sandbox",
            SetupError::InvalidAdapter { .. } => "certify.invalid-adapter",
            SetupError::BadAdapterId { .. } => "certify.bad-adapter-id",
            SetupError::AdapterExists { .. } => "certify.adapter-exists",
        }
    }
}

/// The shipped adapters' ids, sorted: what every refusal of an adapter argument offers.
pub fn shipped_ids() -> Vec<String> {
    acc_runtime::registry::all()
        .iter()
        .map(|a| a.id().to_owned())
        .collect()
}

impl fmt::Display for SetupError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SetupError::NoRepository { from } => write!(
                f,
                "no acc repository at or above {}: run inside a checkout (a directory holding adapters/ and Cargo.toml) or pass --root DIR",
                from.display()
            ),
            SetupError::NoAdapters { root } => write!(
                f,
                "{} has no adapters/ directory: pass --root with the repository's root",
                root.display()
            ),
            SetupError::UnknownAdapter { id } => {
                let ids = shipped_ids().join(", ");
                if id.contains(std::path::MAIN_SEPARATOR) || id.starts_with('.') {
                    write!(
                        f,
                        "adapter directory {id} does not exist; --adapter takes an adapter directory (one holding certification.json) or a shipped adapter's id: {ids}"
                    )
                } else {
                    write!(
                        f,
                        "no shipped adapter is called {id:?}; use one of {ids}, or an adapter directory (one holding certification.json)"
                    )
                }
            }
            SetupError::NotAnAdapterDir { dir } => write!(
                f,
                "{} holds neither certification.json nor adapter.json, so it is not an adapter directory: pass a directory holding certification.json and adapter.json (such as adapters/codex) or a shipped adapter's id: {}",
                dir.display(),
                shipped_ids().join(", ")
            ),
            SetupError::NotShipped { dir, id } => write!(
                f,
                "{} holds the adapter {id:?}, which this build does not ship, and this command installs and runs a shipped adapter's code: pass one of {}",
                dir.display(),
                shipped_ids().join(", ")
            ),
            SetupError::BadAdapterId { id, problem } => write!(
                f,
                "{id:?} cannot be an adapter id: {problem}; use lowercase letters, digits and single hyphens, such as my-client"
            ),
            SetupError::AdapterExists { dir } => write!(
                f,
                "{} already exists; new-adapter never overwrites a folder: pick another id or move it aside",
                dir.display()
            ),
            SetupError::HookMissing { message }
            | SetupError::Baseline { message }
            | SetupError::Io { message }
            | SetupError::Sandbox { message }
            | SetupError::InvalidAdapter { message } => f.write_str(message),
        }
    }
}

/// `--root` when given (it must hold `adapters/`), else the nearest directory at or above
/// the current one holding `adapters/` and `Cargo.toml`.
pub fn resolve_root(arg: Option<&Path>) -> Result<PathBuf, SetupError> {
    let cwd = std::env::current_dir().map_err(|e| SetupError::Io {
        message: format!("cannot read the current directory: {e}"),
    })?;
    match arg {
        Some(root) => {
            let root = cwd.join(root);
            if root.join("adapters").is_dir() {
                Ok(root)
            } else {
                Err(SetupError::NoAdapters { root })
            }
        }
        None => find_repo(&cwd).ok_or(SetupError::NoRepository { from: cwd }),
    }
}

/// `ACC_HOOK_EXECUTABLE`, else `acc-hook` beside the running `acc-certify`; it must exist.
pub fn resolve_hook_executable() -> Result<PathBuf, SetupError> {
    let exe = std::env::current_exe().map_err(|e| SetupError::HookMissing {
        message: format!("cannot locate the running acc-certify: {e}"),
    })?;
    let path = hook_executable(std::env::var_os(HOOK_EXECUTABLE_VAR).as_deref(), &exe);
    require(&path).map_err(|message| SetupError::HookMissing { message })
}

/// A scratch directory for sandboxes, removed when dropped.
pub fn scratch() -> Result<tempfile::TempDir, SetupError> {
    tempfile::Builder::new()
        .prefix("acc-certify-")
        .tempdir()
        .map_err(|e| SetupError::Io {
            message: format!("cannot create a scratch directory: {e}"),
        })
}
