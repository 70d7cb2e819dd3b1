//! The running client's version, first available wins: what `identify_client_process`
//! returned, then `client_version_of`, then the client's own executable when the process
//! table names it by absolute path, then `client.command` on `PATH`. The `PATH` probe alone
//! names the wrong build whenever the session outlived an in-place update, which is why it
//! comes last. Every command is bounded by a timeout.

use std::collections::BTreeMap;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::time::Duration;

use super::{ResolvedClient, executable_name};
use crate::adapter::AdapterBehaviour;
use crate::bounded_command::{Answer, Streams, run_bounded};
use crate::manifest::ClientSpec;
use crate::version::{extract_version, version_order};

/// How long a version command may run.
pub const DEFAULT_VERSION_TIMEOUT: Duration = Duration::from_secs(2);

/// Runs `program args` with exactly `env`, returning its stdout when it exits in time.
pub(crate) fn run_with_timeout(
    program: &Path,
    args: &[&str],
    env: &BTreeMap<String, String>,
    timeout: Duration,
) -> Option<String> {
    match run_bounded(program, args, env, timeout, Streams::Stdout) {
        Answer::Ran { output, .. } => Some(output),
        Answer::TimedOut | Answer::Unrunnable(_) => None,
    }
}

/// Runs a client's version command and reads the first version in its output.
pub fn run_version_command(
    program: &Path,
    version_args: &[String],
    env: &BTreeMap<String, String>,
    timeout: Duration,
) -> Option<String> {
    let args: Vec<&str> = version_args.iter().map(String::as_str).collect();
    extract_version(&run_with_timeout(program, &args, env, timeout)?)
}

fn readable(version: Option<String>) -> Option<String> {
    version.filter(|v| version_order(v).is_some())
}

/// `command` on the `PATH` of `env`.
fn on_path(command: &str, env: &BTreeMap<String, String>) -> Option<PathBuf> {
    let path = env.get("PATH")?;
    std::env::split_paths(path)
        .map(|dir| dir.join(command))
        .find(|candidate| candidate.is_file())
}

/// The session's version, in the order above. The executable and `PATH` probes run
/// `client.command`, so they speak only for the primary client, never for a variant.
pub fn session_version(
    resolved: &ResolvedClient,
    client: &ClientSpec,
    behaviour: &dyn AdapterBehaviour,
    env: &BTreeMap<String, String>,
    timeout: Duration,
) -> Option<String> {
    if let Some(v) = readable(resolved.version.clone()) {
        return Some(v);
    }
    let own = catch_unwind(AssertUnwindSafe(|| {
        behaviour.client_version_of(resolved.pid, &resolved.entry, env)
    }))
    .ok()
    .flatten();
    if let Some(v) = readable(own) {
        return Some(v);
    }
    if resolved.certification_name != client.primary() {
        return None;
    }
    let command = executable_name(&client.command);
    if let Some(exe) = resolved.entry.exe.as_ref().filter(|e| e.is_absolute())
        && executable_name(&exe.to_string_lossy()) == command
        && let Some(v) = run_version_command(exe, &client.version_args, env, timeout)
    {
        return Some(v);
    }
    let found = on_path(&client.command, env)?;
    run_version_command(&found, &client.version_args, env, timeout)
}
