//! What the judging commands (`validate`, `diff-install`, `wire`, `gate`, `matrix`) need
//! before they can run, and why they could not: the repository root, the `acc-hook` to
//! wire, the adapter asked for. Every failure here means exit 2, with a stable code.

use std::fmt;
use std::path::{Path, PathBuf};

use acc_conformance::hook_binary::{HOOK_EXECUTABLE_VAR, hook_executable, require};
use acc_sdk::define::Adapter;

use crate::record::command::find_repo;

/// Why a command could not run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SetupError {
    /// No directory at or above the current one holds `adapters/` and `Cargo.toml`.
    NoRepository {
        from: PathBuf,
    },
    /// `--root` names a directory without `adapters/`.
    NoAdapters {
        root: PathBuf,
    },
    UnknownAdapter {
        id: String,
    },
    /// The `acc-hook` installed hooks must run is missing or not executable.
    HookMissing {
        message: String,
    },
    /// The baseline file is unreadable or malformed.
    Baseline {
        message: String,
    },
    /// Reading or writing a file failed.
    Io {
        message: String,
    },
    /// The sandbox could not be built, or install into it failed outright.
    Sandbox {
        message: String,
    },
    /// An adapter directory does not load, so its evidence cannot be read.
    InvalidAdapter {
        message: String,
    },
}

impl SetupError {
    pub fn code(&self) -> &'static str {
        match self {
            SetupError::NoRepository { .. } => "certify.no-repository",
            SetupError::NoAdapters { .. } => "certify.no-adapters",
            SetupError::UnknownAdapter { .. } => "certify.unknown-adapter",
            SetupError::HookMissing { .. } => "certify.hook-missing",
            SetupError::Baseline { .. } => "certify.baseline",
            SetupError::Io { .. } => "certify.io",
            SetupError::Sandbox { .. } => "certify.sandbox",
            SetupError::InvalidAdapter { .. } => "certify.invalid-adapter",
        }
    }
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
                let ids: Vec<String> = acc_runtime::registry::all()
                    .iter()
                    .map(|a| a.id().to_owned())
                    .collect();
                write!(
                    f,
                    "no shipped adapter is called {id:?}; use one of {}",
                    ids.join(", ")
                )
            }
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

/// The shipped adapter with `id`.
pub fn shipped_adapter(id: &str) -> Result<Adapter, SetupError> {
    acc_runtime::registry::find(id).ok_or_else(|| SetupError::UnknownAdapter { id: id.to_owned() })
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
