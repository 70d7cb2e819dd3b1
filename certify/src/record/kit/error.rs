//! Why `record` could not run, with stable codes mapped once to exit codes. A client that
//! behaves badly is not an error: that is a `fail` verdict.

use std::fmt;
use std::path::PathBuf;

use crate::clients::ClientError;
use crate::envelope::Exit;

#[derive(Debug)]
pub enum RecordError {
    /// A flag combination that cannot work (`--version` with `--client all`, ...).
    Usage(String),
    /// The client could not be obtained or run (npm missing, install failed, ...).
    Client { client: String, source: ClientError },
    /// `acc` or `acc-hook` is not where the recorder runs them from.
    MissingBinary { path: PathBuf },
    /// acc's installer refused to wire the sandbox.
    Install { adapter: String, message: String },
    /// acc's store could not be set up or read.
    Store { message: String },
    /// The model double could not start, or its script was refused.
    Double { message: String },
    /// No repository (a directory with `adapters/`) to write evidence into.
    NoRepository { from: PathBuf },
    /// Writing a bundle or evidence failed.
    Write { message: String },
    /// The recording could not enter its loopback-only network namespace.
    Offline { message: String },
}

impl RecordError {
    pub fn code(&self) -> &'static str {
        match self {
            RecordError::Usage(_) => "record.usage",
            RecordError::Client { source, .. } => source.code(),
            RecordError::MissingBinary { .. } => "record.missing-binary",
            RecordError::Install { .. } => "record.install",
            RecordError::Store { .. } => "record.store",
            RecordError::Double { .. } => "record.double",
            RecordError::NoRepository { .. } => "record.no-repository",
            RecordError::Write { .. } => "record.write",
            RecordError::Offline { .. } => "record.offline",
        }
    }

    /// Every one of them means the recording could not run.
    pub fn exit(&self) -> Exit {
        Exit::CouldNotRun
    }
}

impl fmt::Display for RecordError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RecordError::Usage(message) => f.write_str(message),
            RecordError::Client { client, source } => write!(f, "{client}: {source}"),
            RecordError::MissingBinary { path } => write!(
                f,
                "{} does not exist; build it next to acc-certify with `cargo build -p acc-runtime -p acc-certify`",
                path.display()
            ),
            RecordError::Install { adapter, message } => {
                write!(f, "acc's installer could not wire {adapter}: {message}")
            }
            RecordError::Store { message } => write!(f, "acc's store: {message}"),
            RecordError::Double { message } => write!(f, "model double: {message}"),
            RecordError::NoRepository { from } => write!(
                f,
                "no acc repository (a directory holding adapters/ and Cargo.toml) at or above {}; pass --repo DIR",
                from.display()
            ),
            RecordError::Write { message } | RecordError::Offline { message } => {
                f.write_str(message)
            }
        }
    }
}

impl std::error::Error for RecordError {}

impl From<acc_runtime::AccError> for RecordError {
    fn from(e: acc_runtime::AccError) -> Self {
        RecordError::Store {
            message: e.to_string(),
        }
    }
}
