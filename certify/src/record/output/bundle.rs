//! The raw bundle of one scenario run: `captures/<client>-<version>-<platform>/<scenario>/`.
//!
//! It keeps what the run saw (the double's request log, the client's output, acc-hook's own
//! capture) with sandbox paths and credentials redacted, plus the observations the judge
//! read and how the client was run. Re-recording replaces the directory.

use std::fs;
use std::io;
use std::path::Path;

use acc_sdk::certification::digest::sha256_hex;
use serde_json::Value;

use super::canonical::{render, write_atomic};
use super::judge::OBSERVATIONS_FILE;
use super::observations::Observations;
use crate::doubles::LoggedRequest;

pub const REQUESTS_FILE: &str = "requests.jsonl";
pub const STDOUT_FILE: &str = "stdout.txt";
pub const STDERR_FILE: &str = "stderr.txt";
pub const HOOKS_FILE: &str = "hooks.jsonl";
pub const RUN_FILE: &str = "run.json";

/// Everything a bundle holds, already redacted.
#[derive(Debug, Clone)]
pub struct Bundle {
    pub requests: Vec<LoggedRequest>,
    pub stdout: String,
    pub stderr: String,
    pub hooks: Option<String>,
    pub observations: Observations,
    /// How the client ran: command line (prompt replaced), environment names, timing, exit.
    pub run: Value,
}

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
