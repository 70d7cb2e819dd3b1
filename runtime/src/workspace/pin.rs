//! The workspace a client conversation was bound to when it attached.
//!
//! A hook call carries only the client's session id and a `cwd`, and both the `cwd` and the
//! files in the workspace are under the agent's control: a nested `acc.workspace.json`, a
//! `git init` in a subdirectory or a broken config at the root would otherwise move the
//! conversation to another store (or to none) and switch its guard off. So `sessionStart`
//! records here, outside every repository, which workspace (and so which store) the
//! conversation belongs to, and every later call of the conversation opens that one,
//! whatever its `cwd` or the workspace's files say.
//!
//! A pin lives at `<data home>/acc/conversations/<binding key>.json` (the key hashes the
//! client's session id, so the raw id is never stored) and is replaced atomically.

use super::config::{ClaimModePolicy, Policy};
use super::git::GitInfo;
use super::{WorkspaceDescriptor, WorkspaceSource};
use crate::error::{AccError, ErrorCode, Result};
use crate::ids::WorkspaceId;
use serde::{Deserialize, Serialize};
use std::io::Read;
use std::path::{Path, PathBuf};

/// The pin format's version; a pin of another version is ignored (rediscovered).
pub const PIN_SCHEMA: u32 = 1;

/// A pin is a few hundred bytes; anything larger was not written by acc.
pub const MAX_PIN_BYTES: u64 = 64 * 1024;

/// `<data home>/acc/conversations`.
pub fn pins_dir(data_home: &Path) -> PathBuf {
    data_home.join("acc").join("conversations")
}

/// The pin file of the conversation with `binding_key`.
pub fn pin_path(data_home: &Path, binding_key: &str) -> PathBuf {
    pins_dir(data_home).join(format!("{binding_key}.json"))
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct PinFile {
    schema: u32,
    workspace_id: String,
    roots: Vec<PathBuf>,
    source: String,
    display_name: String,
    claim_mode: Option<String>,
    context_budget_bytes: Option<u32>,
    git: Option<PinnedGit>,
    config_path: Option<PathBuf>,
    /// The client process the conversation runs in, when the hook found it: a release
    /// under `--authority` from one of its descendants is an agent's, not a person's.
    #[serde(default)]
    client_pid: Option<u32>,
    /// The acc session the conversation acts as, so the guard can tell its own claims from
    /// its peers' when it must answer from the guarded-claims snapshot.
    #[serde(default)]
    session_id: Option<String>,
    /// The shared store the workspace is on: a later hook call of the conversation opens
    /// it, never an embedded store of the same id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    store_url: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    repository: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct PinnedGit {
    common_dir: PathBuf,
    worktree_root: PathBuf,
    branch: Option<String>,
    head: Option<String>,
}

fn source_name(s: WorkspaceSource) -> &'static str {
    match s {
        WorkspaceSource::Config => "config",
        WorkspaceSource::Git => "git",
        WorkspaceSource::Directory => "directory",
    }
}

impl PinFile {
    fn of(ws: &WorkspaceDescriptor, facts: &PinFacts) -> Self {
        PinFile {
            schema: PIN_SCHEMA,
            workspace_id: ws.id.as_str().to_string(),
            roots: ws.roots.clone(),
            source: source_name(ws.source).to_string(),
            display_name: ws.display_name.clone(),
            claim_mode: ws
                .policy
                .as_ref()
                .and_then(|p| p.claim_mode)
                .map(|m| match m {
                    ClaimModePolicy::Advisory => "advisory".to_string(),
                    ClaimModePolicy::Guarded => "guarded".to_string(),
                }),
            context_budget_bytes: ws.policy.as_ref().map(|p| p.context_budget_bytes),
            git: ws.git.as_ref().map(|g| PinnedGit {
                common_dir: g.common_dir.clone(),
                worktree_root: g.worktree_root.clone(),
                branch: g.branch.clone(),
                head: g.head.clone(),
            }),
            config_path: ws.config_path.clone(),
            client_pid: facts.client_pid,
            session_id: facts.session_id.clone(),
            store_url: ws.shared.as_ref().map(|s| s.url.clone()),
            repository: ws.shared.as_ref().and_then(|s| s.repository.clone()),
        }
    }

    /// The descriptor back, or `None` when the pin does not describe a usable workspace.
    fn descriptor(self) -> Option<WorkspaceDescriptor> {
        if self.schema != PIN_SCHEMA
            || self.roots.is_empty()
            || self.roots.iter().any(|r| !r.is_absolute())
        {
            return None;
        }
        let source = match self.source.as_str() {
            "config" => WorkspaceSource::Config,
            "git" => WorkspaceSource::Git,
            "directory" => WorkspaceSource::Directory,
            _ => return None,
        };
        let policy = match (self.claim_mode.as_deref(), self.context_budget_bytes) {
            (None, None) => None,
            (mode, budget) => Some(Policy {
                claim_mode: match mode {
                    None => None,
                    Some("advisory") => Some(ClaimModePolicy::Advisory),
                    Some("guarded") => Some(ClaimModePolicy::Guarded),
                    Some(_) => return None,
                },
                context_budget_bytes: budget.unwrap_or(super::config::DEFAULT_CONTEXT_BUDGET),
            }),
        };
        let git = match self.git {
            Some(g) if g.common_dir.is_absolute() && g.worktree_root.is_absolute() => {
                Some(GitInfo {
                    common_dir: g.common_dir,
                    worktree_root: g.worktree_root,
                    branch: g.branch,
                    head: g.head,
                })
            }
            Some(_) => return None,
            None => None,
        };
        Some(WorkspaceDescriptor {
            id: WorkspaceId::parse(&self.workspace_id).ok()?,
            roots: self.roots,
            source,
            display_name: self.display_name,
            policy,
            git,
            config_path: self.config_path,
            config: None,
            shared: self.store_url.map(|url| super::SharedStore {
                url,
                repository: self.repository,
            }),
        })
    }
}

/// What a pin records beside the workspace.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PinFacts {
    /// The client process the conversation runs in.
    pub client_pid: Option<u32>,
    /// The acc session the conversation acts as.
    pub session_id: Option<String>,
}

/// A pin as the guard reads it.
#[derive(Debug, Clone, PartialEq)]
pub struct Pinned {
    pub workspace: WorkspaceDescriptor,
    pub facts: PinFacts,
}

/// The pin of the conversation with `binding_key`, with what it records beside the
/// workspace.
pub fn read_pinned(data_home: &Path, binding_key: &str) -> Result<Option<Pinned>> {
    let path = pin_path(data_home, binding_key);
    match read_file(data_home, binding_key)? {
        None => Ok(None),
        Some(pin) => {
            let facts = PinFacts {
                client_pid: pin.client_pid,
                session_id: pin.session_id.clone(),
            };
            let workspace = pin
                .descriptor()
                .ok_or_else(|| pin_error(&path, "does not describe a workspace"))?;
            Ok(Some(Pinned { workspace, facts }))
        }
    }
}

fn pin_error(path: &Path, what: impl std::fmt::Display) -> AccError {
    AccError::new(ErrorCode::StoreIo, format!("{}: {what}", path.display()))
        .with("file", path.display().to_string())
}

/// Records that the conversation with `binding_key` belongs to `ws`: written to a temporary
/// file next to the pin, flushed, then renamed over it, so a reader sees the old pin or the
/// new one, never a part.
pub fn write(
    data_home: &Path,
    binding_key: &str,
    ws: &WorkspaceDescriptor,
    facts: &PinFacts,
) -> Result<()> {
    crate::ids::check_portable_id("binding key", binding_key)?;
    let dir = pins_dir(data_home);
    std::fs::create_dir_all(&dir)
        .map_err(|e| pin_error(&dir, format!("cannot be created ({e})")))?;
    let path = pin_path(data_home, binding_key);
    let mut bytes = serde_json::to_vec_pretty(&PinFile::of(ws, facts)).expect("pins serialise");
    bytes.push(b'\n');
    // Two hooks of one conversation may pin at once: each writes its own temporary file.
    crate::atomic_write::AtomicWrite::new()
        .synced()
        .write(&path, &bytes)
        .map_err(|e| pin_error(&path, format!("cannot be written ({e})")))
}

/// The client pids every pin under `data_home` recorded, whatever their workspace. Pins that
/// cannot be read are skipped: this only ever adds refusals.
pub fn client_pids(data_home: &Path) -> Vec<u32> {
    let mut pids: Vec<u32> = all(data_home)
        .into_iter()
        .filter_map(|p| p.facts.client_pid)
        .collect();
    pids.sort_unstable();
    pids.dedup();
    pids
}

/// Every readable pin under `data_home`, in no particular order.
pub fn all(data_home: &Path) -> Vec<Pinned> {
    let Ok(entries) = std::fs::read_dir(pins_dir(data_home)) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(key) = name.to_str().and_then(|n| n.strip_suffix(".json")) else {
            continue;
        };
        if let Ok(Some(pinned)) = read_pinned(data_home, key) {
            out.push(pinned);
        }
    }
    out
}

/// The workspaces conversations were bound to whose roots hold `dir` (a real path), one
/// per workspace id.
pub fn bound_workspaces_holding(data_home: &Path, dir: &Path) -> Vec<WorkspaceDescriptor> {
    let mut out: Vec<WorkspaceDescriptor> = Vec::new();
    for pinned in all(data_home) {
        let ws = pinned.workspace;
        if ws.roots.iter().any(|r| dir.starts_with(r)) && !out.iter().any(|o| o.id == ws.id) {
            out.push(ws);
        }
    }
    out.sort_by(|a, b| a.id.cmp(&b.id));
    out
}

/// The workspace the conversation with `binding_key` is bound to. `Ok(None)` when it has no
/// pin; an error when a pin exists but cannot be read or does not describe a workspace (a
/// pin is acc's own file, so that is damage, reported, never a silent rebinding).
pub fn read(data_home: &Path, binding_key: &str) -> Result<Option<WorkspaceDescriptor>> {
    let path = pin_path(data_home, binding_key);
    match read_file(data_home, binding_key)? {
        None => Ok(None),
        Some(pin) => pin
            .descriptor()
            .map(Some)
            .ok_or_else(|| pin_error(&path, "does not describe a workspace")),
    }
}

fn read_file(data_home: &Path, binding_key: &str) -> Result<Option<PinFile>> {
    use std::os::unix::fs::OpenOptionsExt;
    if crate::ids::check_portable_id("binding key", binding_key).is_err() {
        return Ok(None);
    }
    let path = pin_path(data_home, binding_key);
    let file = match std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(&path)
    {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(pin_error(&path, format!("cannot be read ({e})"))),
    };
    let meta = file
        .metadata()
        .map_err(|e| pin_error(&path, format!("cannot be read ({e})")))?;
    if !meta.is_file() {
        return Err(pin_error(&path, "is not a regular file"));
    }
    // Sized from the descriptor: grown from empty, a pin took six reads.
    let mut bytes = Vec::with_capacity(meta.len().min(MAX_PIN_BYTES) as usize + 1);
    file.take(MAX_PIN_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| pin_error(&path, format!("cannot be read ({e})")))?;
    if bytes.len() as u64 > MAX_PIN_BYTES {
        return Err(pin_error(&path, "is too large to be acc's pin"));
    }
    serde_json::from_slice(&bytes)
        .map(Some)
        .map_err(|_| pin_error(&path, "is not a workspace pin acc wrote"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::env::Env;

    #[test]
    fn a_pin_reads_back_as_the_descriptor_it_was_written_from() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("repo")).unwrap();
        let root = dir.path().join("repo").canonicalize().unwrap();
        std::fs::create_dir_all(root.join(".git")).unwrap();
        std::fs::write(root.join(".git/HEAD"), "ref: refs/heads/dev\n").unwrap();
        std::fs::write(
            root.join(super::super::config::CONFIG_FILE),
            r#"{"schemaVersion":1,"workspaceId":"proj","policy":{"contextBudgetBytes":900}}"#,
        )
        .unwrap();
        let ws = super::super::discover(&root, &Env::new()).unwrap();
        let home = dir.path().join("data");
        assert_eq!(read(&home, "k1").unwrap(), None);
        let facts = PinFacts {
            client_pid: Some(4242),
            session_id: Some("session_x".into()),
        };
        write(&home, "k1", &ws, &facts).unwrap();
        assert_eq!(read_pinned(&home, "k1").unwrap().unwrap().facts, facts);
        let back = read(&home, "k1").unwrap().unwrap();
        assert_eq!(back.id, ws.id);
        assert_eq!(back.roots, ws.roots);
        assert_eq!(back.source, ws.source);
        assert_eq!(back.policy, ws.policy);
        assert_eq!(back.git, ws.git);
        assert_eq!(back.config_path, ws.config_path);
        // Rewritten in place, atomically: no temporary file is left behind.
        write(&home, "k1", &ws, &PinFacts::default()).unwrap();
        let k2 = PinFacts {
            client_pid: Some(77),
            session_id: None,
        };
        write(&home, "k2", &ws, &k2).unwrap();
        assert_eq!(client_pids(&home), vec![77]);
        std::fs::remove_file(pin_path(&home, "k2")).unwrap();
        let names: Vec<_> = std::fs::read_dir(pins_dir(&home))
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, vec![std::ffi::OsString::from("k1.json")]);
    }

    #[test]
    fn a_damaged_pin_is_an_error_never_a_silent_rebinding() {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path();
        std::fs::create_dir_all(pins_dir(home)).unwrap();
        std::fs::write(pin_path(home, "bad"), "{").unwrap();
        assert_eq!(read(home, "bad").unwrap_err().code, ErrorCode::StoreIo);
        let fifo = pin_path(home, "fifo");
        let c = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).unwrap();
        // SAFETY: mkfifo only reads the NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        // A FIFO is refused without waiting for a writer.
        assert!(read(home, "fifo").is_err());
        assert_eq!(read(home, "../x").unwrap(), None);
    }
}
