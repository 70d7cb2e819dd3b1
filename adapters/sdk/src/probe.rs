//! Client detection: `<command> --version`, found on the context's `PATH`, bounded by a
//! timeout. Read-only by construction: it runs the client's own version command with the
//! context's environment and nothing else.
//!
//! `identity::run_version_command` serves the hook, which needs only a version; detection
//! also needs to tell "not on PATH" from "did not answer" and reads stderr too (some
//! clients print their version there).

use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::install::{Detection, InstallContext};
use crate::version::extract_version;

/// How long a version probe may run.
pub const DETECT_TIMEOUT: Duration = Duration::from_millis(3_000);

/// Is `command` installed, and which version? Present iff `<command> <version_args>` ran
/// and answered (exit 0, or any output) within `timeout`.
pub fn detect_command(
    ctx: &InstallContext,
    command: &str,
    version_args: &[&str],
    timeout: Duration,
) -> Detection {
    let Some(executable) = find_on_path(command, ctx.var("PATH")) else {
        return Detection {
            present: false,
            version: None,
            executable: None,
            detail: format!("`{command}` is not on PATH"),
        };
    };
    let probe = format!("`{command} {}`", version_args.join(" "));
    match run_bounded(&executable, version_args, &ctx.env, timeout) {
        Answer::Ran { success, output } if success || !output.trim().is_empty() => {
            let version = extract_version(&output);
            let detail = match &version {
                Some(v) => format!("{} {v}", executable.display()),
                None => format!("{} (no version in {probe}'s output)", executable.display()),
            };
            Detection {
                present: true,
                version,
                executable: Some(executable),
                detail,
            }
        }
        Answer::Ran { .. } => absent(executable, format!("{probe} printed nothing and failed")),
        Answer::TimedOut => absent(
            executable,
            format!("{probe} did not answer within {} ms", timeout.as_millis()),
        ),
        Answer::Unrunnable(e) => absent(executable, format!("{probe} could not run: {e}")),
    }
}

fn absent(executable: PathBuf, detail: String) -> Detection {
    Detection {
        present: false,
        version: None,
        executable: Some(executable),
        detail,
    }
}

/// The first executable file named `command` in `path` (a `PATH` value).
pub fn find_on_path(command: &str, path: Option<&str>) -> Option<PathBuf> {
    if command.contains('/') {
        let p = PathBuf::from(command);
        return is_executable(&p).then_some(p);
    }
    std::env::split_paths(path?)
        .filter(|dir| dir.is_absolute())
        .map(|dir| dir.join(command))
        .find(|candidate| is_executable(candidate))
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

enum Answer {
    Ran { success: bool, output: String },
    TimedOut,
    Unrunnable(std::io::Error),
}

/// Runs `program` with exactly `env`, stdout and stderr captured, killed at the deadline.
fn run_bounded(
    program: &Path,
    args: &[&str],
    env: &BTreeMap<String, String>,
    timeout: Duration,
) -> Answer {
    let mut child = match Command::new(program)
        .args(args)
        .env_clear()
        .envs(env)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
    {
        Ok(child) => child,
        Err(e) => return Answer::Unrunnable(e),
    };
    // Readers on their own threads keep a chatty child from blocking on a full pipe.
    let readers: Vec<_> = [
        child
            .stdout
            .take()
            .map(|s| Box::new(s) as Box<dyn Read + Send>),
        child
            .stderr
            .take()
            .map(|s| Box::new(s) as Box<dyn Read + Send>),
    ]
    .into_iter()
    .flatten()
    .map(|mut stream| {
        std::thread::spawn(move || {
            let mut out = Vec::new();
            let _ = stream.read_to_end(&mut out);
            out
        })
    })
    .collect();
    let deadline = Instant::now() + timeout;
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(5)),
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                return Answer::TimedOut;
            }
        }
    };
    let mut output = String::new();
    for reader in readers {
        // A grandchild holding the pipe open past exit would block the join; such a
        // probe's output is not worth waiting for.
        if (reader.is_finished() || wait_briefly(&reader))
            && let Ok(bytes) = reader.join()
        {
            output.push_str(&String::from_utf8_lossy(&bytes));
        }
    }
    Answer::Ran {
        success: status.success(),
        output,
    }
}

fn wait_briefly<T>(handle: &std::thread::JoinHandle<T>) -> bool {
    let until = Instant::now() + Duration::from_millis(200);
    while Instant::now() < until {
        if handle.is_finished() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn ctx_with_path(path: &Path) -> InstallContext {
        InstallContext {
            home: PathBuf::from("/nonexistent"),
            acc_data_dir: PathBuf::from("/nonexistent/acc"),
            hook_executable: PathBuf::from("/nonexistent/acc-hook"),
            acc_executable: PathBuf::from("/nonexistent/acc"),
            pinned_data_home: None,
            env: [("PATH".to_owned(), path.display().to_string())].into(),
            platform: "linux-x64".to_owned(),
            receiver_sockets: Vec::new(),
            acc_version: "0.0.0".to_owned(),
        }
    }

    fn script(dir: &Path, name: &str, body: &str) {
        let path = dir.join(name);
        std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }

    #[test]
    fn reads_the_first_version_from_stdout_or_stderr() {
        let dir = tempfile::tempdir().unwrap();
        script(dir.path(), "out", "echo 'codex-cli 0.171.0'");
        script(
            dir.path(),
            "err",
            "echo 'v2.1.332-beta.1 (Claude Code)' >&2",
        );
        let ctx = ctx_with_path(dir.path());
        let d = detect_command(&ctx, "out", &["--version"], DETECT_TIMEOUT);
        assert!(d.present);
        assert_eq!(d.version.as_deref(), Some("0.171.0"));
        assert_eq!(d.executable, Some(dir.path().join("out")));
        let d = detect_command(&ctx, "err", &["--version"], DETECT_TIMEOUT);
        assert_eq!(d.version.as_deref(), Some("2.1.332-beta.1"));
    }

    #[test]
    fn absent_when_missing_silent_failing_or_hung() {
        let dir = tempfile::tempdir().unwrap();
        script(dir.path(), "silent-fail", "exit 3");
        script(dir.path(), "hangs", "while :; do :; done");
        script(dir.path(), "answers-unversioned", "echo hello");
        let ctx = ctx_with_path(dir.path());
        let d = detect_command(&ctx, "missing", &["--version"], DETECT_TIMEOUT);
        assert!(!d.present);
        assert_eq!(d.detail, "`missing` is not on PATH");
        let d = detect_command(&ctx, "silent-fail", &["--version"], DETECT_TIMEOUT);
        assert!(!d.present);
        assert!(
            d.detail.ends_with("printed nothing and failed"),
            "{}",
            d.detail
        );
        let d = detect_command(&ctx, "hangs", &["--version"], Duration::from_millis(100));
        assert!(!d.present);
        assert!(
            d.detail.contains("did not answer within 100 ms"),
            "{}",
            d.detail
        );
        let d = detect_command(&ctx, "answers-unversioned", &["--version"], DETECT_TIMEOUT);
        assert!(d.present && d.version.is_none());
    }

    #[test]
    fn only_absolute_path_entries_are_searched() {
        let dir = tempfile::tempdir().unwrap();
        script(dir.path(), "tool", "echo 1.2.3");
        assert_eq!(find_on_path("tool", Some("relative/dir")), None);
        let joined = format!("relative:{}", dir.path().display());
        assert_eq!(
            find_on_path("tool", Some(&joined)),
            Some(dir.path().join("tool"))
        );
        assert_eq!(find_on_path("tool", None), None);
    }
}
