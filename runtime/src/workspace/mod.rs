//! Workspace discovery: which room a directory belongs to.
//!
//! In order: an `acc.workspace.json` found by walking up; else the Git common directory (all
//! worktrees of one repository are one workspace); else the directory itself.

pub mod config;
pub mod git;
pub mod pin;

use crate::env::Env;
use crate::error::{AccError, ErrorCode, Result};
use crate::ids::WorkspaceId;
use crate::store::engine::config::{
    STORE_URL_VAR, check_store_url, repository_identity, shared_workspace_id,
};
use config::{CONFIG_FILE, Policy, WorkspaceConfig};
use git::GitInfo;
use serde::Serialize;
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};

/// How the workspace was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum WorkspaceSource {
    Config,
    Git,
    Directory,
}

/// Everything discovery learned about the workspace of a directory.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct WorkspaceDescriptor {
    pub id: WorkspaceId,
    /// Real paths of the workspace roots; runtime state never lives under any of them.
    pub roots: Vec<PathBuf>,
    pub source: WorkspaceSource,
    pub display_name: String,
    pub policy: Option<Policy>,
    pub git: Option<GitInfo>,
    #[serde(skip)]
    pub config_path: Option<PathBuf>,
    #[serde(skip)]
    pub config: Option<WorkspaceConfig>,
    /// The shared store the workspace names, if any (else the embedded SQLite store).
    #[serde(skip)]
    pub shared: Option<SharedStore>,
}

/// A workspace whose store is on a server several hosts share.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SharedStore {
    pub url: String,
    /// The checkout's repository (its normalised remote), recorded with the room so that
    /// a checkout of another repository is never let into it.
    pub repository: Option<String>,
}

impl WorkspaceDescriptor {
    /// The root `file:` resources are relative to: the Git worktree root, else the first root.
    pub fn checkout_root(&self) -> &Path {
        match &self.git {
            Some(g) => &g.worktree_root,
            None => &self.roots[0],
        }
    }

    pub fn branch(&self) -> Option<&str> {
        self.git.as_ref().and_then(|g| g.branch.as_deref())
    }

    pub fn context_budget_bytes(&self) -> u32 {
        self.policy
            .as_ref()
            .map(|p| p.context_budget_bytes)
            .unwrap_or(config::DEFAULT_CONTEXT_BUDGET)
    }
}

/// `workspace_` + the first 32 hex digits of sha256 of a real path.
pub fn hashed_id(real_path: &Path) -> WorkspaceId {
    let digest = Sha256::digest(real_path.as_os_str().as_encoded_bytes());
    let hex = crate::ids::lower_hex(&digest[..16]);
    WorkspaceId::parse(&format!("workspace_{hex}")).expect("hex ids are portable")
}

fn dir_name(p: &Path) -> String {
    p.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| p.display().to_string())
}

/// The directory discovery starts from: `ACC_WORKSPACE_ROOT` (absolute) or `cwd`, resolved.
pub fn start_dir(cwd: &Path, env: &Env) -> Result<PathBuf> {
    let start = match env.get("ACC_WORKSPACE_ROOT") {
        Some(root) => {
            let p = PathBuf::from(root);
            if !p.is_absolute() {
                return Err(AccError::usage(format!(
                    "ACC_WORKSPACE_ROOT must be an absolute path, got {root:?}"
                )));
            }
            p
        }
        None => cwd.to_path_buf(),
    };
    let real = crate::paths::canonicalize(&start)
        .map_err(|e| AccError::usage(format!("cannot use directory {}: {e}", start.display())))?;
    // A real path names no link: its kind is the one the resolution just looked at.
    if crate::paths::file_kind(&real).ok() != Some(crate::paths::FileKind::Dir) {
        return Err(AccError::usage(format!(
            "{} is not a directory",
            real.display()
        )));
    }
    Ok(real)
}

/// Discovers the workspace of `cwd` (or of `ACC_WORKSPACE_ROOT`).
pub fn discover(cwd: &Path, env: &Env) -> Result<WorkspaceDescriptor> {
    let mut ws = discover_local(cwd, env)?;
    let from_env = env
        .get(STORE_URL_VAR)
        .filter(|u| !u.trim().is_empty())
        .map(|u| check_store_url(u, STORE_URL_VAR))
        .transpose()?;
    let Some(url) = from_env.or_else(|| ws.config.as_ref().and_then(|c| c.store.clone())) else {
        return Ok(ws);
    };
    let repository = ws
        .git
        .as_ref()
        .and_then(|g| repository_identity(&g.common_dir));
    // Shared by hosts, the room is the repository's: a Git checkout's own id is its path
    // on this host, so it is replaced by one from the remote every host sees the same.
    if ws.source != WorkspaceSource::Config {
        match &repository {
            Some(repo) => ws.id = shared_workspace_id(repo),
            None => {
                return Err(AccError::new(
                    ErrorCode::WorkspaceConfigInvalid,
                    format!(
                        "a shared store ({}) needs the workspace's identity on every host: add a remote named origin to the repository, or an acc.workspace.json with a workspaceId",
                        crate::store::engine::postgres::describe_url(&url)
                    ),
                ));
            }
        }
    }
    ws.shared = Some(SharedStore { url, repository });
    Ok(ws)
}

fn discover_local(cwd: &Path, env: &Env) -> Result<WorkspaceDescriptor> {
    let start = start_dir(cwd, env)?;
    let git = git::probe(&start);
    let mut dir = Some(start.as_path());
    while let Some(d) = dir {
        let path = d.join(CONFIG_FILE);
        if let Some(text) = config::read_no_follow(&path)? {
            let cfg = config::parse_config(&text, &path)?;
            let roots = config::resolve_roots(&cfg, d, &path)?;
            return Ok(WorkspaceDescriptor {
                id: cfg.workspace_id.clone(),
                roots,
                source: WorkspaceSource::Config,
                display_name: cfg.display_name.clone().unwrap_or_else(|| dir_name(d)),
                policy: Some(cfg.policy.clone()),
                git,
                config_path: Some(path),
                config: Some(cfg),
                shared: None,
            });
        }
        dir = d.parent();
    }
    if let Some(g) = git {
        return Ok(WorkspaceDescriptor {
            id: hashed_id(&g.common_dir),
            roots: vec![g.worktree_root.clone()],
            source: WorkspaceSource::Git,
            display_name: dir_name(&g.worktree_root),
            policy: None,
            git: Some(g),
            config_path: None,
            config: None,
            shared: None,
        });
    }
    Ok(WorkspaceDescriptor {
        id: hashed_id(&start),
        roots: vec![start.clone()],
        source: WorkspaceSource::Directory,
        display_name: dir_name(&start),
        policy: None,
        git: None,
        config_path: None,
        config: None,
        shared: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_directory_hashes_its_real_path() {
        let dir = tempfile::tempdir().unwrap();
        let ws = discover(dir.path(), &Env::new()).unwrap();
        let real = dir.path().canonicalize().unwrap();
        assert_eq!(ws.source, WorkspaceSource::Directory);
        assert_eq!(ws.id, hashed_id(&real));
        assert_eq!(ws.id.as_str().len(), "workspace_".len() + 32);
        assert_eq!(ws.roots, vec![real.clone()]);
        assert_eq!(ws.checkout_root(), real.as_path());
    }

    #[test]
    fn config_found_by_walking_up_wins_over_git() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::create_dir_all(root.join(".git")).unwrap();
        std::fs::write(root.join(".git/HEAD"), "ref: refs/heads/dev\n").unwrap();
        std::fs::write(
            root.join(CONFIG_FILE),
            r#"{"schemaVersion":1,"workspaceId":"proj","roots":[".","sub"]}"#,
        )
        .unwrap();
        std::fs::create_dir_all(root.join("sub/deeper")).unwrap();
        let ws = discover(&root.join("sub/deeper"), &Env::new()).unwrap();
        assert_eq!(ws.source, WorkspaceSource::Config);
        assert_eq!(ws.id.as_str(), "proj");
        assert_eq!(ws.roots, vec![root.clone(), root.join("sub")]);
        assert_eq!(ws.branch(), Some("dev"));
    }

    #[test]
    fn git_worktree_is_found_and_a_bad_config_fails_closed() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::create_dir_all(root.join(".git")).unwrap();
        std::fs::write(root.join(".git/HEAD"), "ref: refs/heads/main\n").unwrap();
        let ws = discover(&root, &Env::new()).unwrap();
        assert_eq!(ws.source, WorkspaceSource::Git);
        assert_eq!(ws.id, hashed_id(&root.join(".git")));
        std::fs::write(root.join(CONFIG_FILE), "{nope").unwrap();
        assert_eq!(discover(&root, &Env::new()).unwrap_err().exit_code(), 4);
    }

    #[test]
    fn workspace_root_env_must_be_absolute() {
        let dir = tempfile::tempdir().unwrap();
        let env = Env::new().with("ACC_WORKSPACE_ROOT", "relative");
        assert_eq!(discover(dir.path(), &env).unwrap_err().exit_code(), 2);
        let other = tempfile::tempdir().unwrap();
        let env = Env::new().with("ACC_WORKSPACE_ROOT", other.path().to_str().unwrap());
        let ws = discover(dir.path(), &env).unwrap();
        assert_eq!(ws.roots[0], other.path().canonicalize().unwrap());
    }
}
