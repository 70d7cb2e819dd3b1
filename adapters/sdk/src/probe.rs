//! Client detection: `<command> --version`, found on the context's `PATH`, bounded by a
//! timeout. Read-only by construction: it runs the client's own version command with the
//! context's environment and nothing else.
//!
//! `identity::run_version_command` serves the hook, which needs only a version; detection
//! also needs to tell "not on PATH" from "did not answer" and reads stderr too (some
//! clients print their version there).

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::bounded_command::{Answer, Streams, run_bounded};
use crate::install::{Detection, InstallContext};
use crate::version::extract_version;

/// How long a version probe may run.
pub const DETECT_TIMEOUT: Duration = Duration::from_millis(3_000);

/// Is `command` installed, and which version? Present iff an executable `command` is on
/// `PATH`: a version probe that is slow, silent or fails leaves the version unknown and
/// says why, and never makes an installed client absent (Gemini CLI 0.61.0 takes about
/// 3 s to answer `--version`). The detail names the executable and how the version was
/// read.
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
    match run_bounded(
        &executable,
        version_args,
        &ctx.env,
        timeout,
        Streams::StdoutAndStderr,
    ) {
        Answer::Ran { success, output } if success || !output.trim().is_empty() => {
            match extract_version(&output) {
                Some(v) => {
                    let detail =
                        format!("{} {v}, read from {probe}'s output", executable.display());
                    present(executable, Some(v), detail)
                }
                None => unknown_version(executable, format!("no version in {probe}'s output")),
            }
        }
        Answer::Ran { .. } => {
            unknown_version(executable, format!("{probe} printed nothing and failed"))
        }
        Answer::TimedOut => unknown_version(
            executable,
            format!("{probe} did not answer within {} ms", timeout.as_millis()),
        ),
        Answer::Unrunnable(e) => unknown_version(executable, format!("{probe} could not run: {e}")),
    }
}

fn present(executable: PathBuf, version: Option<String>, detail: String) -> Detection {
    Detection {
        present: true,
        version,
        executable: Some(executable),
        detail,
    }
}

/// Installed (the executable is there), version unknown, and why.
fn unknown_version(executable: PathBuf, why: String) -> Detection {
    let detail = format!("{}, version unknown: {why}", executable.display());
    present(executable, None, detail)
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
            recorded_hooks: Vec::new(),
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
        assert_eq!(
            d.detail,
            format!(
                "{} 0.171.0, read from `out --version`'s output",
                dir.path().join("out").display()
            )
        );
        let d = detect_command(&ctx, "err", &["--version"], DETECT_TIMEOUT);
        assert_eq!(d.version.as_deref(), Some("2.1.332-beta.1"));
    }

    /// Issue 18: a client whose `--version` outlived the probe window was reported as not
    /// installed.
    #[test]
    fn absent_only_when_missing_and_a_slow_silent_or_failing_probe_is_an_unknown_version() {
        let dir = tempfile::tempdir().unwrap();
        script(dir.path(), "silent-fail", "exit 3");
        script(dir.path(), "hangs", "while :; do :; done");
        script(dir.path(), "answers-unversioned", "echo hello");
        let ctx = ctx_with_path(dir.path());
        let d = detect_command(&ctx, "missing", &["--version"], DETECT_TIMEOUT);
        assert!(!d.present);
        assert_eq!(d.detail, "`missing` is not on PATH");
        let d = detect_command(&ctx, "silent-fail", &["--version"], DETECT_TIMEOUT);
        assert!(d.present && d.version.is_none(), "{d:?}");
        assert_eq!(
            d.detail,
            format!(
                "{}, version unknown: `silent-fail --version` printed nothing and failed",
                dir.path().join("silent-fail").display()
            )
        );
        let d = detect_command(&ctx, "hangs", &["--version"], Duration::from_millis(100));
        assert!(d.present && d.version.is_none(), "{d:?}");
        assert_eq!(d.executable, Some(dir.path().join("hangs")));
        assert!(
            d.detail
                .ends_with("version unknown: `hangs --version` did not answer within 100 ms"),
            "{}",
            d.detail
        );
        let d = detect_command(&ctx, "answers-unversioned", &["--version"], DETECT_TIMEOUT);
        assert!(d.present && d.version.is_none());
        assert!(
            d.detail.ends_with(
                "version unknown: no version in `answers-unversioned --version`'s output"
            ),
            "{}",
            d.detail
        );
    }

    /// Whether `pid` is gone (or a zombie nobody reaped yet: it runs no more).
    fn ended(pid: &str) -> bool {
        match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
            Err(_) => true,
            Ok(stat) => stat
                .rsplit_once(") ")
                .is_some_and(|(_, rest)| rest.starts_with('Z') || rest.starts_with('X')),
        }
    }

    fn wait_for_pid_file(path: &Path) -> String {
        for _ in 0..500 {
            if let Ok(pid) = std::fs::read_to_string(path)
                && !pid.trim().is_empty()
            {
                return pid.trim().to_owned();
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        panic!("{} was never written", path.display());
    }

    #[test]
    fn a_hung_probe_is_killed_with_its_children() {
        let dir = tempfile::tempdir().unwrap();
        let pid_file = dir.path().join("grandchild.pid");
        script(
            dir.path(),
            "claude",
            &format!("/bin/sleep 30 &\necho $! > '{}'\nwait", pid_file.display()),
        );
        let ctx = ctx_with_path(dir.path());
        let d = detect_command(&ctx, "claude", &["--version"], Duration::from_millis(500));
        assert!(d.present && d.version.is_none(), "{d:?}");
        assert!(d.detail.contains("did not answer"), "{}", d.detail);
        let pid = wait_for_pid_file(&pid_file);
        let mut gone = false;
        for _ in 0..200 {
            if ended(&pid) {
                gone = true;
                break;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        if !gone {
            let _ = std::process::Command::new("/bin/kill")
                .args(["-9", &pid])
                .status();
        }
        assert!(gone, "the probe's child {pid} outlived the timeout");
    }

    #[test]
    fn a_child_holding_the_pipe_open_does_not_hide_the_version() {
        let dir = tempfile::tempdir().unwrap();
        let pid_file = dir.path().join("lingering.pid");
        script(
            dir.path(),
            "claude",
            &format!(
                "/bin/sleep 30 &\necho $! > '{}'\necho '2.1.3 (Claude Code)'",
                pid_file.display()
            ),
        );
        let ctx = ctx_with_path(dir.path());
        let d = detect_command(&ctx, "claude", &["--version"], DETECT_TIMEOUT);
        let pid = wait_for_pid_file(&pid_file);
        let _ = std::process::Command::new("/bin/kill")
            .args(["-9", &pid])
            .status();
        assert!(d.present, "{d:?}");
        assert_eq!(d.version.as_deref(), Some("2.1.3"), "{d:?}");
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
