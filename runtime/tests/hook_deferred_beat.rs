//! A guard call whose heartbeat is due (the first after 30 s) is still answered from the
//! published snapshot when that proves an allow; the heartbeat is written after the answer
//! by an `acc-hook --beat` process the call starts and does not wait for (issue 30). A
//! covered write with the heartbeat due is refused from the snapshot the same way: its
//! event spooled, its heartbeat written after the answer.

mod hook_support;

use hook_support::*;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn fixture(rel: &str) -> String {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../fixtures/payloads")
        .join(rel);
    std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .lines()
        .next()
        .expect("one payload per line")
        .to_string()
}

fn payload(sb: &Sandbox, event: &str) -> String {
    fixture(&format!("claude-code/plain/{event}.jsonl"))
        .replace("/sandbox/ws", &sb.ws().display().to_string())
}

fn run(sb: &Sandbox, event: &str, body: &str) -> HookRun {
    let mut child = Command::new(env!("CARGO_BIN_EXE_acc-hook"))
        .env_clear()
        .env("ACC_DATA_HOME", sb.data())
        .args(["claude-code", event])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    {
        use std::io::Write;
        let mut stdin = child.stdin.take().unwrap();
        stdin.write_all(body.as_bytes()).unwrap();
    }
    let out = child.wait_with_output().unwrap();
    HookRun {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8(out.stdout).unwrap(),
        stderr: String::from_utf8(out.stderr).unwrap(),
    }
}

/// A sandbox whose core runs at the time the `acc-hook` processes see (the system's).
fn sandbox() -> Sandbox {
    let sb = Sandbox::new();
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap();
    sb.clock.set(now.as_millis() as i64);
    sb
}

fn heartbeats(sb: &Sandbox) -> PathBuf {
    sb.data().join("acc").join("heartbeats")
}

#[test]
fn a_due_heartbeat_is_written_after_an_allow_answered_from_the_snapshot() {
    let sb = sandbox();
    let start = payload(&sb, "SessionStart");
    assert_eq!(run(&sb, "SessionStart", &start).code, 0);
    let conv: serde_json::Value = serde_json::from_str(&start).unwrap();
    let me = bound_owner(&mut sb.core(), conv["session_id"].as_str().unwrap());
    let before = sb
        .core()
        .session(&me.session)
        .unwrap()
        .unwrap()
        .heartbeat_at;
    // Due: no marker says when the last heartbeat was.
    std::fs::remove_dir_all(heartbeats(&sb)).unwrap();
    std::thread::sleep(Duration::from_millis(20));

    let tool = payload(&sb, "PreToolUse");
    let allowed = run(&sb, "PreToolUse", &tool);
    assert_eq!(
        (
            allowed.code,
            allowed.stdout.as_str(),
            allowed.stderr.as_str()
        ),
        (0, "", ""),
        "{allowed:?}"
    );
    // The marker is set at once, so the calls that follow stay on the fast path.
    assert_eq!(std::fs::read_dir(heartbeats(&sb)).unwrap().count(), 1);
    // The heartbeat reaches the store from the process the call started.
    let until = Instant::now() + GENEROUS;
    loop {
        let now = sb
            .core()
            .session(&me.session)
            .unwrap()
            .unwrap()
            .heartbeat_at;
        if now > before {
            break;
        }
        assert!(Instant::now() < until, "no heartbeat after {before}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn a_covered_write_with_the_heartbeat_due_is_still_refused() {
    let sb = sandbox();
    let start = payload(&sb, "SessionStart");
    assert_eq!(run(&sb, "SessionStart", &start).code, 0);
    let tool = payload(&sb, "PreToolUse");
    let v: serde_json::Value = serde_json::from_str(&tool).unwrap();
    let target = v["tool_input"]["file_path"]
        .as_str()
        .expect("a write payload names its file");
    let rel = std::path::Path::new(target)
        .strip_prefix(sb.ws())
        .expect("the payload writes inside the workspace")
        .to_path_buf();
    let mut core = sb.core();
    let peer = attach(&mut core, "peer", true);
    claim(&mut core, &peer, &format!("file:{}", rel.display()), true);
    drop(core);
    let conv: serde_json::Value = serde_json::from_str(&start).unwrap();
    let me = bound_owner(&mut sb.core(), conv["session_id"].as_str().unwrap());
    let before = sb
        .core()
        .session(&me.session)
        .unwrap()
        .unwrap()
        .heartbeat_at;
    std::fs::remove_dir_all(heartbeats(&sb)).unwrap();
    std::thread::sleep(Duration::from_millis(20));
    let denied = run(&sb, "PreToolUse", &tool);
    assert!(
        denied.stdout.contains("deny") || denied.code == 2,
        "{denied:?}"
    );
    // Answered from the snapshot (the store path's deny sets no marker): the marker is set
    // at once, so the denies that follow (an agent retrying its write) stay there too.
    assert_eq!(std::fs::read_dir(heartbeats(&sb)).unwrap().count(), 1);
    // The heartbeat reaches the store from the process the call started.
    let until = Instant::now() + GENEROUS;
    loop {
        let now = sb
            .core()
            .session(&me.session)
            .unwrap()
            .unwrap()
            .heartbeat_at;
        if now > before {
            break;
        }
        assert!(Instant::now() < until, "no heartbeat after {before}");
        std::thread::sleep(Duration::from_millis(50));
    }
    let status = sb.core().status(None, false).unwrap();
    assert_eq!(
        status.refused_writes.total, 1,
        "{:?}",
        status.refused_writes
    );
}
