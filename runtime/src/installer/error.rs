//! The installer's one error type. Each kind has a stable code and one exit code:
//! 2 usage, 4 data (a malformed user config, a corrupt install record, a failed write),
//! 5 conflict (acc's wiring would collide with something that is not acc's, or an adapter
//! refuses to uninstall).

use std::path::PathBuf;

use acc_sdk::adapter::{AdapterError, AdapterErrorKind};

use crate::error::ErrorCode;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum InstallErrorKind {
    /// A flag or environment value is unusable (an unknown adapter, no home).
    Usage,
    /// The `acc-hook` every hook command runs is missing or not executable.
    HookExecutableMissing,
    /// A user's config file is malformed; nothing was written.
    MalformedUserFile,
    /// `installs.json` is unreadable or of an unknown schema; it is never treated as empty.
    RecordCorrupt,
    /// acc's wiring would overwrite something acc did not write.
    Conflict,
    /// An adapter refused to uninstall before anything was touched.
    Refused,
    /// Reading or writing a file failed.
    Io,
}

impl InstallErrorKind {
    /// The runtime error code this kind is; its exit code comes from the runtime's one
    /// mapping.
    pub fn error_code(self) -> ErrorCode {
        match self {
            InstallErrorKind::Usage => ErrorCode::InvalidArgument,
            InstallErrorKind::HookExecutableMissing => ErrorCode::HookExecutableMissing,
            InstallErrorKind::MalformedUserFile => ErrorCode::MalformedUserFile,
            InstallErrorKind::RecordCorrupt => ErrorCode::InstallRecordCorrupt,
            InstallErrorKind::Conflict => ErrorCode::InstallConflict,
            InstallErrorKind::Refused => ErrorCode::UninstallRefused,
            InstallErrorKind::Io => ErrorCode::InstallIo,
        }
    }

    /// Stable code, part of the JSON contract.
    pub fn code(self) -> &'static str {
        self.error_code().as_str()
    }

    pub fn exit_code(self) -> i32 {
        self.error_code().exit_class() as i32
    }
}

/// A failed install, uninstall or doctor run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InstallError {
    pub kind: InstallErrorKind,
    /// One line; a malformed file is named as `<file>:<line>:<col>: ...`.
    pub message: String,
    /// The file the error is about.
    pub path: Option<PathBuf>,
    /// The adapter being worked on.
    pub adapter: Option<String>,
    /// Adapters this run had already completed when it stopped.
    pub completed: Vec<String>,
}

impl InstallError {
    pub fn new(kind: InstallErrorKind, message: impl Into<String>) -> Self {
        InstallError {
            kind,
            message: message.into(),
            path: None,
            adapter: None,
            completed: Vec::new(),
        }
    }

    pub fn at(mut self, path: impl Into<PathBuf>) -> Self {
        self.path = Some(path.into());
        self
    }

    pub fn io(path: &std::path::Path, action: &str, error: &std::io::Error) -> Self {
        InstallError::new(
            InstallErrorKind::Io,
            format!("cannot {action} {}: {error}", path.display()),
        )
        .at(path)
    }

    /// An adapter's own failure, attributed to it.
    pub fn from_adapter(adapter_id: &str, error: AdapterError) -> Self {
        let kind = match error.kind {
            AdapterErrorKind::MalformedUserFile => InstallErrorKind::MalformedUserFile,
            AdapterErrorKind::Conflict => InstallErrorKind::Conflict,
            AdapterErrorKind::Refused => InstallErrorKind::Refused,
            AdapterErrorKind::Io => InstallErrorKind::Io,
        };
        // Malformed-file messages already begin with `<file>:<line>:<col>:`; others name
        // their file in the text when it matters.
        let message = match &error.path {
            Some(path) if !error.message.contains(&*path.to_string_lossy()) => error.to_string(),
            _ => error.message.clone(),
        };
        InstallError {
            kind,
            message,
            path: error.path,
            adapter: Some(adapter_id.to_owned()),
            completed: Vec::new(),
        }
    }

    pub fn code(&self) -> &'static str {
        self.kind.code()
    }

    pub fn exit_code(&self) -> i32 {
        self.kind.exit_code()
    }
}

impl std::fmt::Display for InstallError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for InstallError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_has_a_distinct_code_and_a_contract_exit() {
        use InstallErrorKind::*;
        let all = [
            Usage,
            HookExecutableMissing,
            MalformedUserFile,
            RecordCorrupt,
            Conflict,
            Refused,
            Io,
        ];
        let codes: std::collections::HashSet<_> = all.iter().map(|k| k.code()).collect();
        assert_eq!(codes.len(), all.len());
        assert_eq!(Usage.exit_code(), 2);
        assert_eq!(MalformedUserFile.exit_code(), 4);
        assert_eq!(RecordCorrupt.exit_code(), 4);
        assert_eq!(Conflict.exit_code(), 5);
    }

    #[test]
    fn adapter_messages_keep_their_file_line_prefix() {
        let e = AdapterError::new(
            AdapterErrorKind::MalformedUserFile,
            "/h/settings.json:3:5: not valid JSON: x",
        )
        .at("/h/settings.json");
        let e = InstallError::from_adapter("claude-code", e);
        assert_eq!(e.message, "/h/settings.json:3:5: not valid JSON: x");
        assert_eq!(e.exit_code(), 4);
        let e = AdapterError::new(AdapterErrorKind::Io, "disk full").at("/h/x");
        assert_eq!(
            InstallError::from_adapter("codex", e).message,
            "/h/x: disk full"
        );
    }
}
