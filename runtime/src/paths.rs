//! Where acc keeps its state: the data home, the per-workspace store directory, and the rule
//! that runtime state never lives inside a workspace.

use crate::env::Env;
use crate::error::{AccError, ErrorCode, Result};
use crate::ids::WorkspaceId;
use std::path::{Component, Path, PathBuf};

/// The store's file name inside its workspace directory.
pub const STORE_FILE: &str = "acc.db";

/// Resolves the data home: `ACC_DATA_HOME`, else (macOS) `~/Library/Application Support`,
/// else `$XDG_DATA_HOME`, else `~/.local/share`. Empty variables count as unset.
pub fn data_home(env: &Env) -> Result<PathBuf> {
    if let Some(explicit) = env.get("ACC_DATA_HOME") {
        let p = PathBuf::from(explicit);
        if !p.is_absolute() {
            return Err(AccError::usage(format!(
                "ACC_DATA_HOME must be an absolute path, got {explicit:?}"
            )));
        }
        return Ok(p);
    }
    let home = env.get("HOME").map(PathBuf::from);
    if cfg!(target_os = "macos") {
        if let Some(home) = home {
            return Ok(home.join("Library").join("Application Support"));
        }
    } else {
        // The XDG spec says a relative value is invalid and must be ignored.
        if let Some(xdg) = env.get("XDG_DATA_HOME").map(PathBuf::from)
            && xdg.is_absolute()
        {
            return Ok(xdg);
        }
        if let Some(home) = home {
            return Ok(home.join(".local").join("share"));
        }
    }
    Err(AccError::usage(
        "cannot locate a data home: set ACC_DATA_HOME to an absolute directory",
    ))
}

/// `<data home>/acc/workspaces/<workspaceId>`.
pub fn store_dir(data_home: &Path, workspace: &WorkspaceId) -> PathBuf {
    data_home
        .join("acc")
        .join("workspaces")
        .join(workspace.as_str())
}

/// `<data home>/acc/workspaces/<workspaceId>/acc.db`.
pub fn store_file(data_home: &Path, workspace: &WorkspaceId) -> PathBuf {
    store_dir(data_home, workspace).join(STORE_FILE)
}

/// The real path of `p` even when its tail does not exist yet: the deepest existing ancestor
/// is canonicalised and the missing components are appended unchanged.
pub fn realpath_lenient(p: &Path) -> PathBuf {
    let mut existing = p.to_path_buf();
    let mut tail: Vec<std::ffi::OsString> = Vec::new();
    loop {
        if let Ok(real) = existing.canonicalize() {
            let mut out = real;
            for part in tail.iter().rev() {
                out.push(part);
            }
            return out;
        }
        match (existing.file_name(), existing.parent()) {
            (Some(name), Some(parent)) => {
                tail.push(name.to_os_string());
                existing = parent.to_path_buf();
            }
            _ => return lexical_normalise(p),
        }
    }
}

/// Drops `.` components and folds `x/..` without touching the filesystem.
pub fn lexical_normalise(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    out.push("..");
                }
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// Refuses a data home inside any workspace root (usage error): acc never writes runtime
/// state into a workspace.
pub fn refuse_inside_roots(data_home: &Path, roots: &[PathBuf]) -> Result<()> {
    let home = realpath_lenient(data_home);
    for root in roots {
        let root_real = realpath_lenient(root);
        if home.starts_with(&root_real) {
            return Err(AccError::new(
                ErrorCode::DataHomeInsideWorkspace,
                format!(
                    "the data home {} is inside the workspace root {}; set ACC_DATA_HOME to a directory outside it",
                    home.display(),
                    root_real.display()
                ),
            )
            .with("dataHome", home.display().to_string())
            .with("root", root_real.display().to_string()));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn acc_data_home_wins_and_must_be_absolute() {
        let env = Env::new()
            .with("ACC_DATA_HOME", "/data")
            .with("XDG_DATA_HOME", "/xdg")
            .with("HOME", "/home/u");
        assert_eq!(data_home(&env).unwrap(), PathBuf::from("/data"));
        let rel = Env::new().with("ACC_DATA_HOME", "rel");
        assert_eq!(data_home(&rel).unwrap_err().exit_code(), 2);
    }

    #[cfg(not(target_os = "macos"))]
    #[test]
    fn xdg_then_home_and_empty_counts_as_unset() {
        let env = Env::new()
            .with("ACC_DATA_HOME", "")
            .with("XDG_DATA_HOME", "/xdg")
            .with("HOME", "/home/u");
        assert_eq!(data_home(&env).unwrap(), PathBuf::from("/xdg"));
        let env = Env::new().with("XDG_DATA_HOME", "").with("HOME", "/home/u");
        assert_eq!(
            data_home(&env).unwrap(),
            PathBuf::from("/home/u/.local/share")
        );
        let env = Env::new()
            .with("XDG_DATA_HOME", "relative")
            .with("HOME", "/h");
        assert_eq!(data_home(&env).unwrap(), PathBuf::from("/h/.local/share"));
        assert_eq!(data_home(&Env::new()).unwrap_err().exit_code(), 2);
    }

    #[test]
    fn store_paths() {
        let ws = WorkspaceId::parse("workspace_abc").unwrap();
        assert_eq!(
            store_file(Path::new("/d"), &ws),
            PathBuf::from("/d/acc/workspaces/workspace_abc/acc.db")
        );
    }

    #[test]
    fn refuses_a_data_home_inside_a_root() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("repo");
        std::fs::create_dir(&root).unwrap();
        let inside = root.join("not-yet").join("data");
        let err = refuse_inside_roots(&inside, std::slice::from_ref(&root)).unwrap_err();
        assert_eq!(err.code, ErrorCode::DataHomeInsideWorkspace);
        assert_eq!(err.exit_code(), 2);
        let outside = dir.path().join("data");
        assert!(refuse_inside_roots(&outside, &[root]).is_ok());
    }

    #[test]
    fn lenient_realpath_keeps_missing_tail() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().canonicalize().unwrap();
        assert_eq!(
            realpath_lenient(&dir.path().join("a/b")),
            real.join("a").join("b")
        );
        assert_eq!(
            lexical_normalise(Path::new("a/./b/../c")),
            PathBuf::from("a/c")
        );
    }
}
