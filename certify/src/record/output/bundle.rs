//! The raw bundle of one scenario run: `captures/<client>-<version>-<platform>/<scenario>/`.
//!
//! It keeps what the run saw (the double's request log, the client's output, acc-hook's own
//! capture) with sandbox paths and credentials redacted, plus the observations the judge
//! read and how the client was run. Re-recording replaces the directory.

use std::fmt;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use acc_sdk::certification::digest::sha256_hex;

use crate::record::kit::observations::Observations;
pub use crate::record::kit::run::Bundle;
use crate::record::output::canonical::{render, write_atomic};

/// The name of the file the judge reads in a bundle.
pub const OBSERVATIONS_FILE: &str = "observations.json";
pub const REQUESTS_FILE: &str = "requests.jsonl";
pub const STDOUT_FILE: &str = "stdout.txt";
pub const STDERR_FILE: &str = "stderr.txt";
pub const HOOKS_FILE: &str = "hooks.jsonl";
pub const RUN_FILE: &str = "run.json";

/// The bytes `observations.json` is written with (and hashed over).
pub fn observations_bytes(observations: &Observations) -> Vec<u8> {
    render(&serde_json::to_value(observations).expect("observations serialize"))
}

/// Writes `bundle` into `dir`, replacing what was there; returns the sha256 of the
/// `observations.json` bytes written.
pub fn write_bundle(dir: &Path, bundle: &Bundle) -> io::Result<String> {
    if dir.exists() {
        fs::remove_dir_all(dir)?;
    }
    fs::create_dir_all(dir)?;
    let mut requests = String::new();
    for request in &bundle.requests {
        requests.push_str(&serde_json::to_string(request).map_err(io::Error::other)?);
        requests.push('\n');
    }
    write_atomic(&dir.join(REQUESTS_FILE), requests.as_bytes())?;
    write_atomic(&dir.join(STDOUT_FILE), bundle.stdout.as_bytes())?;
    write_atomic(&dir.join(STDERR_FILE), bundle.stderr.as_bytes())?;
    if let Some(hooks) = &bundle.hooks {
        write_atomic(&dir.join(HOOKS_FILE), hooks.as_bytes())?;
    }
    write_atomic(&dir.join(RUN_FILE), &render(&bundle.run))?;
    let observations = observations_bytes(&bundle.observations);
    write_atomic(&dir.join(OBSERVATIONS_FILE), &observations)?;
    Ok(sha256_hex(&observations))
}
/// Why a bundle could not be judged.
#[derive(Debug)]
pub enum BundleError {
    Unreadable {
        path: PathBuf,
        source: std::io::Error,
    },
    Invalid {
        path: PathBuf,
        reason: String,
    },
}

impl BundleError {
    pub fn code(&self) -> &'static str {
        match self {
            BundleError::Unreadable { .. } => "bundle.unreadable",
            BundleError::Invalid { .. } => "bundle.invalid",
        }
    }
}

impl fmt::Display for BundleError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BundleError::Unreadable { path, source } => {
                write!(f, "{}: cannot read: {source}", path.display())
            }
            BundleError::Invalid { path, reason } => {
                write!(f, "{}: not valid observations: {reason}", path.display())
            }
        }
    }
}

impl std::error::Error for BundleError {}

/// Reads `observations.json` from a bundle directory.
pub fn read_observations(dir: &Path) -> Result<Observations, BundleError> {
    let path = dir.join(OBSERVATIONS_FILE);
    let bytes = std::fs::read(&path).map_err(|source| BundleError::Unreadable {
        path: path.clone(),
        source,
    })?;
    serde_json::from_slice(&bytes).map_err(|e| BundleError::Invalid {
        path,
        reason: e.to_string(),
    })
}
