//! What every check runs against: the repository (adapter directories at
//! `adapters/<id>/`, shared inputs under `fixtures/`), the `acc-hook` executable installed
//! hooks must run, and a scratch directory for sandboxes.

use std::path::{Path, PathBuf};

/// Where checks find the repository and the hook runtime.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckContext {
    /// The repository root: `adapters/`, `fixtures/`, `captures/` live here.
    pub root: PathBuf,
    /// The absolute `acc-hook` every sandbox install wires.
    pub hook_executable: PathBuf,
    /// Sandboxes are created (and removed) under this directory.
    pub scratch: PathBuf,
}

impl CheckContext {
    pub fn new(root: &Path, hook_executable: &Path, scratch: &Path) -> CheckContext {
        CheckContext {
            root: root.to_path_buf(),
            hook_executable: hook_executable.to_path_buf(),
            scratch: scratch.to_path_buf(),
        }
    }

    /// `adapters/<id>` under the root.
    pub fn adapter_dir(&self, id: &str) -> PathBuf {
        self.root.join("adapters").join(id)
    }

    /// `adapters/<id>/<rel>`, as reports name it (relative to the root).
    pub fn adapter_file(&self, id: &str, rel: &str) -> String {
        format!("adapters/{id}/{rel}")
    }

    /// The first of the adapter's source files `names` (under `src/`) that exists, else its
    /// `src/lib.rs` when that exists: the file a behaviour failure points at.
    pub fn source_file(&self, id: &str, names: &[&str]) -> Option<String> {
        names
            .iter()
            .copied()
            .chain(["lib.rs"])
            .map(|name| format!("src/{name}"))
            .find(|rel| self.adapter_dir(id).join(rel).is_file())
            .map(|rel| self.adapter_file(id, &rel))
    }

    /// `fixtures/homes/<id>`, when the repository has a realistic home for this client.
    pub fn home_fixture(&self, id: &str) -> Option<PathBuf> {
        Some(self.root.join("fixtures").join("homes").join(id)).filter(|p| p.is_dir())
    }

    /// A path as reports show it: relative to the root when it is inside it.
    pub fn display(&self, path: &Path) -> String {
        match path.strip_prefix(&self.root) {
            Ok(rel) => rel.display().to_string(),
            Err(_) => path.display().to_string(),
        }
    }
}
