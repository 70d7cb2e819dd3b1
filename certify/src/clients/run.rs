//! Running a real client headless in its sandbox against a double.

use std::collections::BTreeMap;
use std::process::ExitStatus;
use std::time::Duration;

use super::InstalledClient;
use super::environment::{client_path, headless_args, headless_env};
use super::error::ClientError;
use super::network::{NetworkAttempt, NetworkWatch, WatchError};
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
    /// Every address but 127.0.0.1 the client (or any process it started) tried to reach.
    pub network: Vec<NetworkAttempt>,
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
        false,
    )
}

/// Puts the client's own bin directory first on `path`, as an installed client is on its
/// user's PATH: hooks probe `<command> --version` there when they cannot read the running
/// client's version any other way.
fn with_client_bin(program: &std::path::Path, path: &str) -> String {
    match program.parent().filter(|d| !d.as_os_str().is_empty()) {
        Some(dir) => format!("{}:{path}", dir.display()),
        None => path.to_owned(),
    }
}

/// [`run_headless`] with extra environment variables, which win over the defaults.
pub fn run_headless_with(
    client: &InstalledClient,
    sandbox: &Sandbox,
    double_port: u16,
    prompt: &str,
    timeout: Duration,
    extra_env: &BTreeMap<String, String>,
    unasked: bool,
) -> Result<RunOutput, ClientError> {
    let args = headless_args(client.client, prompt, unasked);
    run_headless_args(
        client,
        sandbox,
        double_port,
        &args,
        timeout,
        extra_env,
        unasked,
    )
}

/// [`run_headless_with`] with the client's whole argument list given (a resumed
/// conversation's flags, say).
pub fn run_headless_args(
    client: &InstalledClient,
    sandbox: &Sandbox,
    double_port: u16,
    args: &[String],
    timeout: Duration,
    extra_env: &BTreeMap<String, String>,
    unasked: bool,
) -> Result<RunOutput, ClientError> {
    let path = with_client_bin(
        &client.program,
        &client_path(std::env::var_os("PATH").as_deref()),
    );
    let env = headless_env(
        client.client,
        &path,
        &sandbox.env(),
        double_port,
        extra_env,
        unasked,
    );
    // strace would start and report a missing program on its own stderr; say it here.
    if !client.program.is_file() {
        return Err(ClientError::Io {
            context: format!("starting {}", client.program.display()),
            source: std::io::Error::from(std::io::ErrorKind::NotFound),
        });
    }
    // Watched, never trusted: the client runs with its network features off, and anything
    // it still tries is seen here and fails the capture.
    let watch = NetworkWatch::start(
        sandbox.root(),
        &std::env::var_os("PATH").unwrap_or_default(),
    )
    .map_err(|e| match e {
        WatchError::NoStrace => ClientError::ToolMissing { tool: "strace" },
        WatchError::Proxy(source) => ClientError::Io {
            context: "starting the refusing proxy on 127.0.0.1 that watches the client".to_owned(),
            source,
        },
    })?;
    let mut command = watch.command(&client.program, args);
    command
        .env_clear()
        .envs(watch.env())
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
        network: watch.finish(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clients::Client;
    use std::fs;
    use std::os::unix::fs::PermissionsExt;
    use std::path::Path;

    /// A stand-in client program: reports its cwd, arguments, stdin and environment.
    fn fake_client(dir: &Path, client: Client, body: &str) -> InstalledClient {
        let program = dir.join("fake-client");
        fs::write(&program, format!("#!/bin/sh\n{body}\n")).unwrap();
        fs::set_permissions(&program, fs::Permissions::from_mode(0o755)).unwrap();
        InstalledClient {
            client,
            version: "0.0.1".into(),
            version_output: "fake 0.0.1".into(),
            dir: dir.to_path_buf(),
            program,
        }
    }

    #[test]
    fn the_client_runs_in_the_workspace_with_only_the_explicit_environment() {
        let bin = tempfile::tempdir().unwrap();
        let installed = fake_client(
            bin.path(),
            Client::Codex,
            "echo \"cwd:$(pwd)\"; for a in \"$@\"; do echo \"arg:$a\"; done; \
             if read line; then echo \"stdin:$line\"; else echo stdin:eof; fi; env | sort",
        );
        let sandbox = Sandbox::new(Client::Codex).unwrap();
        let extra: BTreeMap<String, String> = [("ACC_PROBE".into(), "1".into())].into();
        let output = run_headless_with(
            &installed,
            &sandbox,
            4321,
            "do it",
            Duration::from_secs(60),
            &extra,
            false,
        )
        .unwrap();
        assert_eq!(output.exit_code(), Some(0));
        assert!(!output.timed_out);
        let lines: Vec<&str> = output.stdout.lines().collect();
        assert_eq!(lines[0], format!("cwd:{}", sandbox.workspace().display()));
        let args: Vec<&str> = lines
            .iter()
            .filter_map(|line| line.strip_prefix("arg:"))
            .collect();
        assert_eq!(args, headless_args(Client::Codex, "do it", false));
        assert!(lines.contains(&"stdin:eof"), "stdin is /dev/null");
        let env: BTreeMap<&str, &str> = lines
            .iter()
            .filter_map(|line| line.split_once('='))
            .collect();
        assert_eq!(
            env["CODEX_HOME"],
            sandbox.codex_home().unwrap().to_str().unwrap()
        );
        assert_eq!(env["HOME"], sandbox.home().to_str().unwrap());
        assert_eq!(
            env["ACC_DATA_HOME"],
            sandbox.acc_data_home().to_str().unwrap()
        );
        assert_eq!(env["ACC_DOUBLE_API_KEY"], "dummy");
        assert_eq!(env["ACC_PROBE"], "1");
        // The client's own directory comes first, as it does on its user's PATH.
        assert!(
            env["PATH"].starts_with(&format!("{}:", bin.path().display())),
            "{}",
            env["PATH"]
        );
        // Cargo sets these for the test process; env_clear keeps them from the client.
        assert!(!env.contains_key("CARGO_PKG_NAME"));
        assert!(!env.contains_key("CARGO_MANIFEST_DIR"));
    }

    /// A stand-in client written in bash (for `/dev/tcp`).
    fn bash_client(dir: &Path, body: &str) -> InstalledClient {
        let mut installed = fake_client(dir, Client::ClaudeCode, "");
        fs::write(&installed.program, format!("#!/bin/bash\n{body}\n")).unwrap();
        installed.client = Client::ClaudeCode;
        installed
    }

    fn targets(output: &RunOutput) -> Vec<String> {
        output.network.iter().map(|a| a.describe()).collect()
    }

    fn has_nameserver() -> bool {
        fs::read_to_string("/etc/resolv.conf")
            .is_ok_and(|t| t.lines().any(|l| l.trim_start().starts_with("nameserver")))
    }

    #[test]
    fn every_address_but_127_0_0_1_a_client_tries_is_named() {
        let bin = tempfile::tempdir().unwrap();
        // A direct connection, a DNS lookup, and a request through the proxy variables, as
        // an update check or a plugin catalog would make them; stderr is quiet on purpose.
        let installed = bash_client(
            bin.path(),
            r#"exec 3<>/dev/tcp/203.0.113.7/443 2>/dev/null
getent hosts plugins.example.invalid >/dev/null
proxy=${HTTPS_PROXY#http://}
exec 4<>/dev/tcp/${proxy%:*}/${proxy##*:}
printf 'CONNECT telemetry.example.com:443 HTTP/1.1
Host: telemetry.example.com:443

' >&4
head -c 12 <&4
exit 0"#,
        );
        let sandbox = Sandbox::new(Client::ClaudeCode).unwrap();
        let output = run_headless(&installed, &sandbox, 1, "go", Duration::from_secs(60)).unwrap();
        assert_eq!(output.exit_code(), Some(0), "{}", output.stderr);
        assert_eq!(output.stdout, "HTTP/1.1 403", "the proxy refuses");
        let tried = targets(&output);
        assert!(
            tried.contains(&"203.0.113.7:443 (connect)".to_owned()),
            "{tried:?}"
        );
        assert!(
            tried.contains(&"telemetry.example.com:443 (asked of the proxy)".to_owned()),
            "{tried:?}"
        );
        if has_nameserver() {
            assert!(
                tried.contains(&"plugins.example.invalid (DNS query)".to_owned()),
                "{tried:?}"
            );
        }
        assert!(
            !tried.iter().any(|t| t.starts_with("127.0.0.1")),
            "the proxy itself and the double are allowed: {tried:?}"
        );
    }

    #[test]
    fn a_client_that_only_talks_to_the_double_tried_nothing() {
        let double = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = double.local_addr().unwrap().port();
        let server = std::thread::spawn(move || {
            let (mut stream, _) = double.accept().unwrap();
            let mut buf = [0u8; 64];
            let n = std::io::Read::read(&mut stream, &mut buf).unwrap();
            std::io::Write::write_all(&mut stream, b"ok\n").unwrap();
            String::from_utf8_lossy(&buf[..n]).into_owned()
        });
        let bin = tempfile::tempdir().unwrap();
        let installed = bash_client(
            bin.path(),
            r#"base=${ANTHROPIC_BASE_URL#http://}
exec 3<>/dev/tcp/${base%:*}/${base##*:}
printf 'POST /v1/messages
' >&3
head -c 3 <&3"#,
        );
        let sandbox = Sandbox::new(Client::ClaudeCode).unwrap();
        let output =
            run_headless(&installed, &sandbox, port, "go", Duration::from_secs(60)).unwrap();
        assert_eq!(server.join().unwrap(), "POST /v1/messages\n");
        assert_eq!(output.stdout, "ok\n");
        assert_eq!(output.network, Vec::new());
    }

    #[test]
    fn a_hanging_client_is_killed_at_the_deadline() {
        let bin = tempfile::tempdir().unwrap();
        let installed = fake_client(bin.path(), Client::GeminiCli, "echo started; sleep 30");
        let sandbox = Sandbox::new(Client::GeminiCli).unwrap();
        let output =
            run_headless(&installed, &sandbox, 1, "hang", Duration::from_millis(300)).unwrap();
        assert!(output.timed_out);
        assert_eq!(output.exit_code(), None, "ended by a signal");
        // Whatever the client printed before the kill is kept (how much depends on load).
        assert!(
            "started\n".starts_with(&output.stdout),
            "{:?}",
            output.stdout
        );
    }

    #[test]
    fn a_missing_program_is_an_io_error_naming_it() {
        let sandbox = Sandbox::new(Client::ClaudeCode).unwrap();
        let installed = InstalledClient {
            client: Client::ClaudeCode,
            version: "0.0.1".into(),
            version_output: String::new(),
            dir: sandbox.root().to_path_buf(),
            program: sandbox.root().join("no-such-client"),
        };
        let err = run_headless(&installed, &sandbox, 1, "x", Duration::from_secs(5)).unwrap_err();
        assert_eq!(err.code(), "client.io");
        assert!(err.to_string().contains("no-such-client"), "{err}");
    }
}
