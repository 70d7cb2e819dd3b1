//! Types shared by adapters and the installer: where a client lives, what an install
//! writes, and what detection and doctor report.
//!
//! Adapters compute every path from an [`InstallContext`] through the same helpers in
//! `plan_install` and `install`, so a plan can be compared with what install wrote.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// Everything an adapter may read to decide where its client's files are. Nothing here
/// comes from the process environment directly: the installer fills `env` (and tests and
/// sandboxes fill it with what they choose).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InstallContext {
    /// The user's home directory (`--home`, else `$HOME`).
    pub home: PathBuf,
    /// ACC's own data directory: `<data home>/acc`.
    pub acc_data_dir: PathBuf,
    /// Absolute path of the `acc-hook` executable every hook command runs.
    pub hook_executable: PathBuf,
    /// Absolute path of the `acc` executable the skill file teaches.
    pub acc_executable: PathBuf,
    /// A data home to pin into hook commands (a hook's environment may not carry
    /// `ACC_DATA_HOME`); `None` when the platform default applies.
    pub pinned_data_home: Option<PathBuf>,
    /// Selected environment variables (`CODEX_HOME`, `CLAUDE_CONFIG_DIR`, `KIMI_CODE_HOME`,
    /// `PATH`, ...). Missing means unset.
    pub env: BTreeMap<String, String>,
    /// `linux-x64`, `darwin-arm64`, ...
    pub platform: String,
    /// Every known adapter's inbound socket paths, for clients that sandbox the sender.
    pub receiver_sockets: Vec<PathBuf>,
    /// The version of acc doing the install (written into plugin manifests).
    pub acc_version: String,
    /// The hook entries the install record says this adapter's install wrote, so install
    /// and uninstall replace and remove exactly them ([`crate::hook_owner::HookOwner`]).
    /// Empty when nothing is recorded (or the record predates naming them).
    pub recorded_hooks: Vec<RecordedHook>,
}

impl InstallContext {
    /// An environment variable, treating an empty value as unset.
    pub fn var(&self, name: &str) -> Option<&str> {
        self.env
            .get(name)
            .map(String::as_str)
            .filter(|v| !v.is_empty())
    }

    /// A directory named by `var` when set (absolute), else `home/<default_rel>`.
    pub fn dir_from_env(&self, var: &str, default_rel: &str) -> PathBuf {
        match self.var(var) {
            Some(v) if Path::new(v).is_absolute() => PathBuf::from(v),
            _ => self.home.join(default_rel),
        }
    }
}

/// `tree`: a directory or file ACC creates and may remove when unchanged.
/// `merge`: a file the user owns; ACC adds entries and never deletes the file it did not
/// create.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ArtifactKind {
    Tree,
    Merge,
}

#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct Artifact {
    pub path: PathBuf,
    pub kind: ArtifactKind,
}

/// What install would write. `artifacts` is sorted by path and computed by the same path
/// helpers as `install`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct InstallPlan {
    pub artifacts: Vec<Artifact>,
    /// Steps only the user can take (for example trusting hooks in the client).
    pub needs_action: Vec<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ChangeAction {
    Created,
    Edited,
    Removed,
    Kept,
    Unchanged,
}

#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct FileChange {
    pub path: PathBuf,
    pub action: ChangeAction,
}

/// What an install or uninstall did, file by file.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct InstallReport {
    pub changes: Vec<FileChange>,
    pub needs_action: Vec<String>,
    /// The hook entries install wrote, exactly, for the install record.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub hooks: Vec<RecordedHook>,
}

/// Detection is read-only: it never creates, edits or removes a file.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Detection {
    pub present: bool,
    pub version: Option<String>,
    pub executable: Option<PathBuf>,
    /// Why the client was judged absent, or what was found.
    pub detail: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum DiagnosticLevel {
    Ok,
    Warn,
    Error,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Diagnostic {
    pub level: DiagnosticLevel,
    pub message: String,
}

/// Doctor is read-only.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct DoctorReport {
    pub ok: bool,
    pub diagnostics: Vec<Diagnostic>,
}

/// One hook entry an install wrote, as the install record keeps it.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RecordedHook {
    /// The file holding it.
    pub path: PathBuf,
    /// The client's event name.
    pub event: String,
    /// Its group's matcher; `None` when acc wrote none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub matcher: Option<String>,
    /// The exact command text.
    pub command: String,
}
