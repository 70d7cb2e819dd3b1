//! The install record, `<data home>/acc/installs.json`: what each adapter's install wrote,
//! with digests, the directories it created and where the original bytes of every user
//! file it edited are kept.
//!
//! ```json
//! {"schemaVersion": 1, "installs": [{
//!   "adapterId": "claude-code", "accVersion": "0.1.0",
//!   "artifacts": [{"path": "/home/u/.claude/settings.json", "kind": "merge", "sha256": "…",
//!                  "hooks": [{"event": "PreToolUse", "matcher": "Write|Edit",
//!                             "command": "\"/opt/acc/bin/acc-hook\" claude-code PreToolUse"}]}],
//!   "createdDirectories": ["/home/u/.claude/skills"],
//!   "originals": [{"path": "/home/u/.claude/settings.json", "existed": true,
//!                  "backup": "install-backups/claude-code/….orig", "exact": true}]}]}
//! ```
//!
//! `hooks` names each hook entry install wrote into that file, exactly: install and
//! uninstall replace and remove those entries and no other (another install's, or a user's
//! own program called `acc-hook`, stay). A record written before acc named them has none;
//! then only commands running exactly this install's hook executable with this data home
//! count as this install's ([`acc_sdk::hook_owner::HookOwner`]).
//!
//! A record that cannot be read, or has another schema version, stops every command: it is
//! never treated as empty, because an empty record would make uninstall leave acc's wiring
//! and doctor report nothing installed. Writes go to a temporary file renamed into place,
//! and are skipped when the bytes would not change.

use std::fs;
use std::path::{Path, PathBuf};

use acc_sdk::hook_owner::RecordedHook;
use acc_sdk::install::{ArtifactKind, InstallContext};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::error::{InstallError, InstallErrorKind};

pub const RECORD_FILE: &str = "installs.json";
pub const SCHEMA_VERSION: u64 = 1;

/// `<acc data dir>/installs.json`.
pub fn record_path(acc_data_dir: &Path) -> PathBuf {
    acc_data_dir.join(RECORD_FILE)
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct InstallRecord {
    pub schema_version: u64,
    pub installs: Vec<InstallEntry>,
}

impl Default for InstallRecord {
    fn default() -> Self {
        InstallRecord {
            schema_version: SCHEMA_VERSION,
            installs: Vec::new(),
        }
    }
}

/// One adapter's install. An adapter has at most one entry; a re-install replaces it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct InstallEntry {
    pub adapter_id: String,
    pub acc_version: String,
    pub artifacts: Vec<RecordedArtifact>,
    /// Directories install created (missing parents of artifacts), removed on uninstall
    /// when empty, deepest first.
    pub created_directories: Vec<PathBuf>,
    pub originals: Vec<Original>,
    /// The live delivery policy the user consented to (`off`, `actionable`, `all`), kept
    /// as written: a reader treats an absent or unknown value as `off`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delivery: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RecordedArtifact {
    pub path: PathBuf,
    pub kind: RecordedKind,
    /// What install left there; `null` when nothing was there after install.
    pub sha256: Option<String>,
    /// The hook entries install wrote into this file, exactly; absent for a file holding
    /// none, and in records written before acc named them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub hooks: Vec<ArtifactHook>,
}

/// One hook entry install wrote into an artifact.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ArtifactHook {
    pub event: String,
    /// Its group's matcher; absent when acc wrote none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub matcher: Option<String>,
    pub command: String,
}

/// [`ArtifactKind`], readable back from the record.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RecordedKind {
    Tree,
    Merge,
}

impl From<ArtifactKind> for RecordedKind {
    fn from(kind: ArtifactKind) -> Self {
        match kind {
            ArtifactKind::Tree => RecordedKind::Tree,
            ArtifactKind::Merge => RecordedKind::Merge,
        }
    }
}

/// A user file as it was before acc first edited it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Original {
    pub path: PathBuf,
    /// Whether the file existed at all.
    pub existed: bool,
    /// Where its bytes are kept, relative to the acc data dir; `null` when it did not exist.
    pub backup: Option<String>,
    /// Restoring these bytes gives the user's file back. False once the user edited the
    /// file between two installs: the kept bytes predate that edit, so uninstall removes
    /// acc's entries instead.
    pub exact: bool,
}

impl InstallRecord {
    pub fn entry(&self, adapter_id: &str) -> Option<&InstallEntry> {
        self.installs.iter().find(|e| e.adapter_id == adapter_id)
    }

    /// Replaces the adapter's entry (never a second one), keeping entries sorted by id.
    pub fn put(&mut self, entry: InstallEntry) {
        self.installs.retain(|e| e.adapter_id != entry.adapter_id);
        self.installs.push(entry);
        self.installs
            .sort_by(|a, b| a.adapter_id.cmp(&b.adapter_id));
    }

    pub fn remove(&mut self, adapter_id: &str) {
        self.installs.retain(|e| e.adapter_id != adapter_id);
    }

    /// Passes directories acc created for `adapter_id`, still standing because other files
    /// are inside, to every other entry with an artifact under them, so whichever of them
    /// goes last removes them once empty. A directory no other entry uses holds only the
    /// user's files and is forgotten (and left).
    pub fn hand_over_directories(&mut self, adapter_id: &str, dirs: &[PathBuf]) {
        for entry in self
            .installs
            .iter_mut()
            .filter(|e| e.adapter_id != adapter_id)
        {
            let mut inherited: Vec<PathBuf> = dirs
                .iter()
                .filter(|dir| {
                    entry
                        .artifacts
                        .iter()
                        .any(|a| a.path != **dir && a.path.starts_with(dir))
                })
                .cloned()
                .collect();
            if inherited.is_empty() {
                continue;
            }
            inherited.append(&mut entry.created_directories);
            inherited.sort();
            inherited.dedup();
            entry.created_directories = inherited;
        }
    }
}

impl InstallEntry {
    pub fn original(&self, path: &Path) -> Option<&Original> {
        self.originals.iter().find(|o| o.path == path)
    }

    pub fn artifact(&self, path: &Path) -> Option<&RecordedArtifact> {
        self.artifacts.iter().find(|a| a.path == path)
    }

    /// Every hook entry this install wrote, with the file holding it.
    pub fn recorded_hooks(&self) -> Vec<RecordedHook> {
        self.artifacts
            .iter()
            .flat_map(|a| {
                a.hooks.iter().map(|h| RecordedHook {
                    path: a.path.clone(),
                    event: h.event.clone(),
                    matcher: h.matcher.clone(),
                    command: h.command.clone(),
                })
            })
            .collect()
    }
}

/// `ctx` knowing which hook entries `entry`'s install wrote, so the adapter replaces and
/// removes exactly those.
pub fn context_for(ctx: &InstallContext, entry: Option<&InstallEntry>) -> InstallContext {
    InstallContext {
        recorded_hooks: entry.map(InstallEntry::recorded_hooks).unwrap_or_default(),
        ..ctx.clone()
    }
}

/// The hooks of `hooks` that live in `path`, as an artifact records them.
pub fn hooks_in(hooks: &[RecordedHook], path: &Path) -> Vec<ArtifactHook> {
    hooks
        .iter()
        .filter(|h| h.path == path)
        .map(|h| ArtifactHook {
            event: h.event.clone(),
            matcher: h.matcher.clone(),
            command: h.command.clone(),
        })
        .collect()
}

fn corrupt(path: &Path, why: String) -> InstallError {
    InstallError::new(
        InstallErrorKind::RecordCorrupt,
        format!(
            "{why}; acc will not treat the install record as empty: fix it, or move it aside to forget every install it holds"
        ),
    )
    .at(path)
}

/// Reads the record; an absent file is an empty record.
pub fn load(path: &Path) -> Result<InstallRecord, InstallError> {
    let bytes = match fs::read(path) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(InstallRecord::default()),
        Err(e) => return Err(InstallError::io(path, "read the install record", &e)),
    };
    let value: Value = serde_json::from_slice(&bytes).map_err(|e| {
        corrupt(
            path,
            format!(
                "{}:{}:{}: the install record is not valid JSON ({})",
                path.display(),
                e.line(),
                e.column(),
                strip_position(&e)
            ),
        )
    })?;
    match value.get("schemaVersion").and_then(Value::as_u64) {
        Some(SCHEMA_VERSION) => {}
        Some(other) => {
            return Err(corrupt(
                path,
                format!(
                    "{}: the install record has schema version {other}, which this acc does not know (it knows {SCHEMA_VERSION}); use the acc that wrote it",
                    path.display()
                ),
            ));
        }
        None => {
            return Err(corrupt(
                path,
                format!(
                    "{}: the install record has no schemaVersion",
                    path.display()
                ),
            ));
        }
    }
    serde_json::from_value(value).map_err(|e| {
        corrupt(
            path,
            format!(
                "{}: the install record does not have the expected shape ({e})",
                path.display()
            ),
        )
    })
}

fn strip_position(e: &serde_json::Error) -> String {
    let full = e.to_string();
    let suffix = format!(" at line {} column {}", e.line(), e.column());
    full.strip_suffix(&suffix).unwrap_or(&full).to_owned()
}

/// The record's bytes: two-space JSON and a final newline.
pub fn render(record: &InstallRecord) -> Vec<u8> {
    let mut bytes = serde_json::to_vec_pretty(record).expect("the record serialises");
    bytes.push(b'\n');
    bytes
}

/// Writes the record atomically, unless the file already holds these bytes.
pub fn save(path: &Path, record: &InstallRecord) -> Result<(), InstallError> {
    let bytes = render(record);
    if fs::read(path).ok().as_deref() == Some(bytes.as_slice()) {
        return Ok(());
    }
    let dir = path.parent().unwrap_or(Path::new("/"));
    create_private_dir(dir)?;
    crate::atomic_write::AtomicWrite::new()
        .write(path, &bytes)
        .map_err(|e| InstallError::io(path, "write the install record", &e))
}

/// Held while an install or uninstall changes files and the record, so two runs at once
/// cannot interleave their reads and writes of the record (or of one client's config).
#[derive(Debug)]
pub struct RecordLock {
    _file: fs::File,
}

/// Waits for and takes the installer's lock, `<acc data dir>/installs.lock`.
pub fn lock(acc_data_dir: &Path) -> Result<RecordLock, InstallError> {
    use std::os::unix::io::AsRawFd;
    create_private_dir(acc_data_dir)?;
    let path = acc_data_dir.join("installs.lock");
    let file = fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .map_err(|e| InstallError::io(&path, "open the install lock", &e))?;
    // SAFETY: flock on a descriptor this function owns; the lock goes when the file closes.
    let rc = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX) };
    if rc != 0 {
        let e = std::io::Error::last_os_error();
        return Err(InstallError::io(&path, "lock", &e));
    }
    Ok(RecordLock { _file: file })
}

/// Creates `dir` (and parents) readable by the owner only: backups may hold secrets that
/// were in a client's config.
pub fn create_private_dir(dir: &Path) -> Result<(), InstallError> {
    use std::os::unix::fs::DirBuilderExt;
    fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
        .map_err(|e| InstallError::io(dir, "create the directory", &e))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(id: &str) -> InstallEntry {
        InstallEntry {
            adapter_id: id.to_owned(),
            acc_version: "0.1.0".to_owned(),
            artifacts: vec![RecordedArtifact {
                path: PathBuf::from("/h/.codex/hooks.json"),
                kind: RecordedKind::Merge,
                sha256: Some("ab".to_owned()),
                hooks: Vec::new(),
            }],
            created_directories: vec![PathBuf::from("/h/.codex")],
            delivery: None,
            originals: vec![Original {
                path: PathBuf::from("/h/.codex/hooks.json"),
                existed: false,
                backup: None,
                exact: true,
            }],
        }
    }

    #[test]
    fn round_trips_and_replaces_entries() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("acc").join(RECORD_FILE);
        assert_eq!(load(&path).unwrap(), InstallRecord::default());
        let mut record = InstallRecord::default();
        record.put(entry("codex"));
        record.put(entry("claude-code"));
        let mut again = entry("codex");
        again.acc_version = "0.2.0".to_owned();
        record.put(again);
        assert_eq!(record.installs.len(), 2);
        assert_eq!(record.installs[0].adapter_id, "claude-code");
        save(&path, &record).unwrap();
        assert_eq!(load(&path).unwrap(), record);
        let text = fs::read_to_string(&path).unwrap();
        assert!(text.starts_with("{\n  \"schemaVersion\": 1,\n  \"installs\": ["));
        assert!(text.contains("\"kind\": \"merge\""));
        assert!(text.ends_with("}\n"));
    }

    #[test]
    fn corrupt_or_unknown_records_stop_with_the_file_named() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(RECORD_FILE);
        for (text, needle) in [
            ("{\"schemaVersion\": 1,\n \"installs\": [", ":2:"),
            (
                "{\"schemaVersion\": 2, \"installs\": []}",
                "schema version 2",
            ),
            ("{\"installs\": []}", "no schemaVersion"),
            ("{\"schemaVersion\": 1, \"installs\": {}}", "expected shape"),
            ("", "not valid JSON"),
        ] {
            fs::write(&path, text).unwrap();
            let err = load(&path).unwrap_err();
            assert_eq!(err.kind, InstallErrorKind::RecordCorrupt, "{text}");
            assert_eq!(err.exit_code(), 4);
            assert!(err.message.contains(needle), "{text}: {}", err.message);
            assert!(err.message.contains(&*path.to_string_lossy()));
        }
    }

    #[test]
    fn unchanged_records_are_not_rewritten() {
        use std::os::unix::fs::MetadataExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(RECORD_FILE);
        let mut record = InstallRecord::default();
        record.put(entry("codex"));
        save(&path, &record).unwrap();
        let inode = fs::metadata(&path).unwrap().ino();
        save(&path, &record).unwrap();
        assert_eq!(fs::metadata(&path).unwrap().ino(), inode);
    }

    #[test]
    fn standing_directories_pass_only_to_entries_with_files_under_them() {
        let mut record = InstallRecord::default();
        let mut first = entry("antigravity");
        first.created_directories = vec![PathBuf::from("/h/.gemini")];
        let mut second = entry("gemini-cli");
        second.artifacts[0].path = PathBuf::from("/h/.gemini/settings.json");
        second.created_directories = vec![PathBuf::from("/h/.gemini/skills")];
        record.put(first);
        record.put(second);
        record.put(entry("codex"));
        record.hand_over_directories(
            "antigravity",
            &[PathBuf::from("/h/.gemini"), PathBuf::from("/h/.other")],
        );
        assert_eq!(
            record.entry("gemini-cli").unwrap().created_directories,
            [
                PathBuf::from("/h/.gemini"),
                PathBuf::from("/h/.gemini/skills")
            ]
        );
        assert_eq!(
            record.entry("codex").unwrap().created_directories,
            [PathBuf::from("/h/.codex")]
        );
        assert_eq!(
            record.entry("antigravity").unwrap().created_directories,
            [PathBuf::from("/h/.gemini")]
        );
    }
}
