//! Running a real client headless in its sandbox against a double.

use std::collections::BTreeMap;
use std::process::{Command, ExitStatus};
use std::time::Duration;

use super::InstalledClient;
use super::environment::{client_path, headless_args, headless_env};
use super::error::ClientError;
use super::process::run_with_timeout;
use super::sandbox::Sandbox;

/// What a headless run left behind.
#[derive(Debug)]
pub struct RunOutput {
    pub status: ExitStatus,
    pub stdout: String,
    pub stderr: String,
    pub duration: Duration,
    /// The run was killed (with its whole process group) at the deadline.
    pub timed_out: bool,
}

impl RunOutput {
    /// The exit code; `None` when a signal ended the client.
    pub fn exit_code(&self) -> Option<i32> {
        self.status.code()
    }
}

/// Runs the client once with `prompt`: explicit minimal environment, stdin from /dev/null,
/// cwd the sandbox workspace, killed with its process group at `timeout`.
pub fn run_headless(
    client: &InstalledClient,
    sandbox: &Sandbox,
    double_port: u16,
    prompt: &str,
    timeout: Duration,
) -> Result<RunOutput, ClientError> {
    run_headless_with(
        client,
        sandbox,
        double_port,
        prompt,
        timeout,
        &BTreeMap::new(),
    )
}

/// [`run_headless`] with extra environment variables, which win over the defaults.
pub fn run_headless_with(
    client: &InstalledClient,
    sandbox: &Sandbox,
    double_port: u16,
    prompt: &str,
    timeout: Duration,
    extra_env: &BTreeMap<String, String>,
) -> Result<RunOutput, ClientError> {
    let path = client_path(std::env::var_os("PATH").as_deref());
    let env = headless_env(client.client, &path, &sandbox.env(), double_port, extra_env);
    let mut command = Command::new(&client.program);
    command
        .args(headless_args(client.client, prompt))
        .env_clear()
        .envs(&env)
        .current_dir(sandbox.workspace());
    let finished = run_with_timeout(&mut command, timeout).map_err(ClientError::io(format!(
        "starting {}",
        client.program.display()
    )))?;
    Ok(RunOutput {
        status: finished.status,
        stdout: String::from_utf8_lossy(&finished.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&finished.stderr).into_owned(),
        duration: finished.duration,
        timed_out: finished.timed_out,
    })
}
