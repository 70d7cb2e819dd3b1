//! The `acc-hook` process answers a call the snapshot settles on its main thread, with no
//! worker to abandon at the deadline; its watchdog still ends a call that cannot finish (a
//! client that never writes its payload) the way a timed-out call fails open.

use acc_runtime::hook::DEFAULT_BUDGET;
use acc_runtime::hook::failure::FAIL_OPEN_PREFIX;
use std::io::Read;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

#[test]
fn a_client_that_never_writes_its_payload_gets_the_fail_open_answer_at_the_deadline() {
    let data = tempfile::tempdir().unwrap();
    let started = Instant::now();
    let mut child = Command::new(env!("CARGO_BIN_EXE_acc-hook"))
        .env_clear()
        .env("ACC_DATA_HOME", data.path())
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
    assert_eq!(status.code(), Some(0), "fails open: {stderr}");
    assert!(stdout.is_empty(), "no answer on stdout: {stdout:?}");
    assert_eq!(stderr, format!("{FAIL_OPEN_PREFIX} (timeout)\n"));
    assert!(took >= DEFAULT_BUDGET, "not before the deadline: {took:?}");
    assert!(
        took < DEFAULT_BUDGET + Duration::from_secs(5),
        "ended by the watchdog, not by the client: {took:?}"
    );
}
