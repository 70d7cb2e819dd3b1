//! Shared by the `serve_*` tests: a server the test starts (and ends), and what it says.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

pub fn acc_hook() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_acc-hook"))
}

/// The first Claude Code payload of `event` in the shared fixtures, its workspace `ws`.
pub fn claude_payload(event: &str, ws: &Path) -> String {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../fixtures/payloads/claude-code/plain")
        .join(format!("{event}.jsonl"));
    std::fs::read_to_string(&path)
        .unwrap()
        .lines()
        .next()
        .unwrap()
        .replace("/sandbox/ws", &ws.display().to_string())
}

/// One whole `acc-hook claude-code <event>` process on the data home `data`, in an
/// environment of `env` alone, `stdin` written to it.
pub fn hook_process(
    data: &Path,
    event: &str,
    stdin: &str,
    env: &[(&str, &str)],
) -> std::process::Output {
    use std::io::Write;
    let mut child = Command::new(acc_hook())
        .env_clear()
        .env("ACC_DATA_HOME", data)
        .envs(env.iter().copied())
        .args(["claude-code", event])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

/// An `acc-hook serve` this test started: killed and waited for when dropped.
pub struct Server(pub Child);

impl Server {
    /// Starts a server for `data_home` with `env` (nothing else) and waits until it answers.
    pub fn start(data_home: &Path, env: &[(&str, &str)]) -> Server {
        std::fs::create_dir_all(data_home.join("acc")).unwrap();
        let child = Command::new(acc_hook())
            .env_clear()
            .envs(env.iter().copied())
            .arg("serve")
            .arg("--data-home")
            .arg(data_home)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let server = Server(child);
        wait_for(
            || lock_pid(data_home) == Some(server.0.id()),
            "the server's lock",
        );
        server
    }

    pub fn pid(&self) -> u32 {
        self.0.id()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The pid in the server lock (pid, newline), while a server holds it.
pub fn lock_pid(data_home: &Path) -> Option<u32> {
    acc_runtime::serve::lifecycle::running(data_home)
}

/// How many calls the genuine server of `data_home` answered.
pub fn served(data_home: &Path) -> Option<u64> {
    acc_runtime::serve::client::served_count(data_home, &acc_hook())
}

pub fn wait_for(mut ok: impl FnMut() -> bool, what: &str) {
    let until = Instant::now() + Duration::from_secs(20);
    while !ok() {
        assert!(Instant::now() < until, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

pub fn alive(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|s| {
        s.rsplit_once(')')
            .is_some_and(|(_, r)| !r.trim_start().starts_with('Z'))
    })
}

/// Waits until a detached server (not this test's child) is gone.
pub fn wait_gone(pid: u32) {
    wait_for(|| !alive(pid), "the server to exit");
}

/// An `acc-hook serve` started outside this test's process tree (`setsid -f`: adopted by
/// init, as a server a client starts is): killed by its pid when dropped.
pub struct Detached(pub u32);

impl Detached {
    pub fn start(data_home: &Path, env: &[(&str, &str)]) -> Detached {
        std::fs::create_dir_all(data_home.join("acc")).unwrap();
        let status = Command::new("setsid")
            .env_clear()
            .envs(env.iter().copied())
            .arg("-f")
            .arg(acc_hook())
            .arg("serve")
            .arg("--data-home")
            .arg(data_home)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .unwrap();
        assert!(status.success());
        wait_for(|| lock_pid(data_home).is_some(), "the server's lock");
        let pid = lock_pid(data_home).unwrap();
        assert_ne!(
            parent(pid),
            Some(std::process::id()),
            "not this test's child"
        );
        Detached(pid)
    }
}

impl Drop for Detached {
    fn drop(&mut self) {
        // SAFETY: a signal to the pid this test started.
        unsafe { libc::kill(self.0 as i32, libc::SIGKILL) };
        wait_gone(self.0);
    }
}

pub fn parent(pid: u32) -> Option<u32> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    stat.rsplit_once(')')?
        .1
        .split_whitespace()
        .nth(1)?
        .parse()
        .ok()
}
