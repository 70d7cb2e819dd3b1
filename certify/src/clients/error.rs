//! Errors from obtaining, sandboxing and running real clients, each with a stable code.

use std::fmt;
use std::io;
use std::path::PathBuf;

#[derive(Debug)]
pub enum ClientError {
    /// A client name that is not in the pin table.
    UnknownClient(String),
    /// A requested version that is not an exact semantic version.
    InvalidVersion(String),
    /// The cache location cannot be used (relative, or inside a git repository).
    CacheLocation {
        path: PathBuf,
        reason: String,
    },
    /// A program the step needs (npm, python3, git) is not on PATH.
    ToolMissing {
        tool: &'static str,
    },
    /// The registry install failed; `output` is the tail of its output.
    InstallFailed {
        what: String,
        output: String,
    },
    /// The install finished but the client's program is not where the package puts it.
    BinaryMissing {
        path: PathBuf,
    },
    /// `--version` did not print a version.
    VersionUnreadable {
        program: PathBuf,
        output: String,
    },
    /// The binary reports another version than the one asked for.
    VersionMismatch {
        expected: String,
        found: String,
    },
    /// A config file the sandbox must merge into is not valid.
    ConfigUnreadable {
        path: PathBuf,
        reason: String,
    },
    /// A helper command (git) failed.
    CommandFailed {
        command: String,
        output: String,
    },
    Io {
        context: String,
        source: io::Error,
    },
}

impl ClientError {
    /// Stable code for reports and exit-code mapping.
    pub fn code(&self) -> &'static str {
        match self {
            ClientError::UnknownClient(_) => "client.unknown",
            ClientError::InvalidVersion(_) => "client.invalid-version",
            ClientError::CacheLocation { .. } => "client.cache-location",
            ClientError::ToolMissing { .. } => "client.tool-missing",
            ClientError::InstallFailed { .. } => "client.install-failed",
            ClientError::BinaryMissing { .. } => "client.binary-missing",
            ClientError::VersionUnreadable { .. } => "client.version-unreadable",
            ClientError::VersionMismatch { .. } => "client.version-mismatch",
            ClientError::ConfigUnreadable { .. } => "client.config-unreadable",
            ClientError::CommandFailed { .. } => "client.command-failed",
            ClientError::Io { .. } => "client.io",
        }
    }

    pub(crate) fn io(context: impl Into<String>) -> impl FnOnce(io::Error) -> ClientError {
        let context = context.into();
        move |source| ClientError::Io { context, source }
    }
}

impl fmt::Display for ClientError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: ", self.code())?;
        match self {
            ClientError::UnknownClient(name) => {
                let known: Vec<&str> = super::Client::all().iter().map(|c| c.id()).collect();
                write!(f, "unknown client {name:?}; known: {}", known.join(", "))
            }
            ClientError::InvalidVersion(given) => write!(
                f,
                "{given:?} is not an exact version such as 2.1.332; ranges and tags are not pinned"
            ),
            ClientError::CacheLocation { path, reason } => write!(
                f,
                "cannot use {} as the client cache: {reason}; set ACC_CERTIFY_CACHE to an absolute directory outside any repository",
                path.display()
            ),
            ClientError::ToolMissing { tool } => {
                write!(f, "`{tool}` is not on PATH; install it and retry")
            }
            ClientError::InstallFailed { what, output } => {
                write!(f, "installing {what} failed:\n{output}")
            }
            ClientError::BinaryMissing { path } => write!(
                f,
                "the install finished but {} does not exist; remove its directory from the cache and retry",
                path.display()
            ),
            ClientError::VersionUnreadable { program, output } => write!(
                f,
                "`{} --version` printed no version: {output:?}",
                program.display()
            ),
            ClientError::VersionMismatch { expected, found } => write!(
                f,
                "asked for version {expected} but the binary reports {found}"
            ),
            ClientError::ConfigUnreadable { path, reason } => {
                write!(f, "{} is not a valid config file: {reason}", path.display())
            }
            ClientError::CommandFailed { command, output } => {
                write!(f, "`{command}` failed: {output}")
            }
            ClientError::Io { context, source } => write!(f, "{context}: {source}"),
        }
    }
}

impl std::error::Error for ClientError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ClientError::Io { source, .. } => Some(source),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_lead_with_the_code_and_name_the_fix() {
        let err = ClientError::CacheLocation {
            path: PathBuf::from("/repo/cache"),
            reason: "it is inside the git repository /repo".into(),
        };
        let text = err.to_string();
        assert!(text.starts_with("client.cache-location: "), "{text}");
        assert!(text.contains("ACC_CERTIFY_CACHE"), "{text}");
        let err = ClientError::VersionMismatch {
            expected: "1.0.0".into(),
            found: "1.0.1".into(),
        };
        assert_eq!(err.code(), "client.version-mismatch");
        assert!(err.to_string().contains("1.0.1"));
    }
}
