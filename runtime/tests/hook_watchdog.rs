//! The `acc-hook` process answers a call the snapshot settles on its main thread, with no
//! worker to abandon at the deadline; its watchdog still ends a call that cannot finish (a
//! client that never writes its payload) the way a timed-out call fails open.

use acc_runtime::hook::DEFAULT_BUDGET;
use acc_runtime::hook::fail_log;
use acc_runtime::hook::failure::FAIL_OPEN_PREFIX;
use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Runs `acc-hook claude-code PreToolUse` with a stdin held open and never written; returns
/// its exit code, stdout, stderr and how long it took.
fn never_written(data: &Path) -> (Option<i32>, String, String, Duration) {
    let started = Instant::now();
    let mut child = Command::new(env!("CARGO_BIN_EXE_acc-hook"))
        .env_clear()
        .env("ACC_DATA_HOME", data)
        .args(["claude-code", "PreToolUse"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Held open and never written: the read on the main thread would wait forever.
    let stdin = child.stdin.take().unwrap();
    let mut stdout = String::new();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut stdout)
        .unwrap();
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    let status = child.wait().unwrap();
    let took = started.elapsed();
    drop(stdin);
    (status.code(), stdout, stderr, took)
}

#[test]
fn a_client_that_never_writes_its_payload_gets_the_fail_open_answer_at_the_deadline() {
    let data = tempfile::tempdir().unwrap();
    let (code, stdout, stderr, took) = never_written(data.path());
    assert_eq!(code, Some(0), "fails open: {stderr}");
    assert!(stdout.is_empty(), "no answer on stdout: {stdout:?}");
    assert_eq!(stderr, format!("{FAIL_OPEN_PREFIX} (timeout)\n"));
    assert!(took >= DEFAULT_BUDGET, "not before the deadline: {took:?}");
    assert!(
        took < DEFAULT_BUDGET + Duration::from_secs(5),
        "ended by the watchdog, not by the client: {took:?}"
    );
}

#[test]
fn the_timeout_the_watchdog_ends_is_logged_for_acc_watch() {
    let data = tempfile::tempdir().unwrap();
    std::fs::create_dir(data.path().join("acc")).unwrap();
    let (code, _, stderr, _) = never_written(data.path());
    assert_eq!(code, Some(0), "fails open: {stderr}");
    let logged = fail_log::recent(data.path(), 0, 10);
    assert_eq!(logged.len(), 1, "{logged:?}");
    assert_eq!(logged[0].adapter, "claude-code");
    assert_eq!(logged[0].code, "timeout");
    assert!(logged[0].at_ms > 0, "{logged:?}");
}

#[test]
fn the_watchdog_creates_no_data_home_and_follows_no_link_at_the_log() {
    // No `<data home>/acc`: nothing is created.
    let data = tempfile::tempdir().unwrap();
    let (code, _, _, _) = never_written(data.path());
    assert_eq!(code, Some(0));
    assert!(!data.path().join("acc").exists());
    // The log's name is a link to another file: that file keeps its bytes.
    let elsewhere = data.path().join("elsewhere");
    std::fs::write(&elsewhere, b"kept").unwrap();
    std::fs::create_dir(data.path().join("acc")).unwrap();
    std::os::unix::fs::symlink(&elsewhere, fail_log::path(data.path())).unwrap();
    let (code, _, _, _) = never_written(data.path());
    assert_eq!(code, Some(0));
    assert_eq!(std::fs::read(&elsewhere).unwrap(), b"kept");
}
