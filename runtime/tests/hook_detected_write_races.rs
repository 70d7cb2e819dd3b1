//! A write the post-tool hook found is not lost to the client's timing or the machine's load
//! (the guard-opaque check that once read "the script's write unseen"). Kimi Code fires
//! `PostToolUse` and forgets it, and ends the hooks still running when its turn ends: a
//! compare that had taken the call's fingerprints and was then killed, or whose write the
//! store could not take in time, used to lose them. The fingerprints stay until the change
//! is in the store, under a lock a second taker (the turn's end) waits for.

mod hook_support;

use acc_runtime::paths;
use hook_support::*;
use serde_json::{Value, json};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

const CONVERSATION: &str = "session_6eb307e1-926c-4052-9ab5-9f9c1a4d426b";
const CALL: &str = "toolu_acc_step1";

fn store_file(sb: &Sandbox) -> PathBuf {
    paths::store_file(&sb.data(), &sb.core().workspace().id)
}

fn records(sb: &Sandbox) -> Vec<PathBuf> {
    std::fs::read_dir(sb.data().join("acc").join("tool-calls"))
        .map(|d| d.flatten().map(|e| e.path()).collect())
        .unwrap_or_default()
}

/// Another connection holding the store's write lock until told (readers go on).
fn hold_writes(path: PathBuf) -> (mpsc::Sender<()>, std::thread::JoinHandle<()>) {
    let (stop_tx, stop_rx) = mpsc::channel();
    let (ready_tx, ready_rx) = mpsc::channel();
    let holder = std::thread::spawn(move || {
        let conn = rusqlite::Connection::open(&path).unwrap();
        conn.execute_batch("BEGIN IMMEDIATE;").unwrap();
        ready_tx.send(()).unwrap();
        let _ = stop_rx.recv_timeout(Duration::from_secs(60));
        conn.execute_batch("COMMIT;").unwrap();
    });
    ready_rx.recv().unwrap();
    (stop_tx, holder)
}

fn detected(sb: &Sandbox) -> Vec<String> {
    sb.core()
        .status(None, false)
        .unwrap()
        .detected_writes
        .listed
        .iter()
        .map(|d| d.target.clone())
        .collect()
}

/// The guard-opaque room: a peer's guarded `file:src/**`, the claimed `src/z`, and this
/// conversation's session.
fn room(sb: &Sandbox, start: impl FnOnce()) {
    std::fs::write(sb.ws().join("src/z"), "more bytes the peer owns\n").unwrap();
    start();
    let mut core = sb.core();
    let peer = attach(&mut core, "peer", true);
    claim(&mut core, &peer, "file:src/**", true);
}

/// The turn's end (`end`) told the script's write of `src/z`, recorded it, and left no
/// call's fingerprints behind.
fn told_at_the_end(sb: &Sandbox, end: &HookRun) {
    assert!(
        end.stderr
            .contains("changed while this shell call ran: file:src/z modified"),
        "{end:?}"
    );
    assert_eq!(detected(sb), ["file:src/z"]);
    assert_eq!(records(sb), Vec::<PathBuf>::new());
}

/// The room with the builder's conversation started by the certified adapter's hook.
fn builder_started(sb: &Sandbox) {
    room(sb, || {
        let run = hook(
            sb.settings(certified, &[]),
            &payload("sessionStart", "builder", &sb.ws()),
        );
        assert_eq!(run.code, 0, "{run:?}");
    });
}

/// The builder's shell call naming `out`, as `event` carries it.
fn shell_call(sb: &Sandbox, event: &str) -> Value {
    let mut p = payload(event, "builder", &sb.ws());
    p["tool"] = json!({"name": "shell", "paths": ["out"], "call_id": CALL});
    p
}

#[test]
fn a_change_the_store_could_not_take_is_compared_again_when_the_turn_ends() {
    let sb = Sandbox::new();
    builder_started(&sb);
    let shell = |event: &str| shell_call(&sb, event);
    assert_eq!(
        hook(sb.settings(certified, &[]), &shell("beforeTool")).code,
        0
    );
    std::fs::write(sb.ws().join("src/z"), "generated").unwrap();

    // The store's write lock is held (eight clients recording at once, a slow disk) for the
    // whole post-tool hook: its change cannot be recorded in its budget.
    let (stop, holder) = hold_writes(store_file(&sb));
    let mut settings = sb.settings(certified, &[]);
    settings.budget = Duration::from_millis(1_500);
    let after = hook(settings, &shell("afterTool"));
    assert_eq!(after.code, 0, "fails open: {after:?}");
    // A worker the runner abandoned at the deadline gives up on the store by itself.
    let record = records(&sb).pop().expect("the call's fingerprints");
    let waited = Instant::now();
    while in_hand(&record) {
        assert!(waited.elapsed() < GENEROUS, "the compare never ended");
        std::thread::sleep(Duration::from_millis(5));
    }
    stop.send(()).unwrap();
    holder.join().unwrap();
    assert_eq!(detected(&sb), Vec::<String>::new());
    assert_eq!(
        records(&sb).len(),
        1,
        "the fingerprints stay for the turn's end"
    );

    let end = hook(
        sb.settings(certified, &[]),
        &payload("turnEnd", "builder", &sb.ws()),
    );
    told_at_the_end(&sb, &end);
}

/// One `acc-hook kimi-code <event>` process, on the sandbox's clock, with `payload` written.
fn spawn_kimi(sb: &Sandbox, event: &str, payload: &Value) -> std::process::Child {
    let mut child = Command::new(env!("CARGO_BIN_EXE_acc-hook"))
        .env_clear()
        .env("ACC_DATA_HOME", sb.data())
        .env("ACC_TEST_CLOCK", FIXED_CLOCK)
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .args(["kimi-code", event])
        .current_dir(sb.ws())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(payload.to_string().as_bytes()).unwrap();
    child
}

fn kimi(sb: &Sandbox, event: &str, payload: &Value) -> HookRun {
    let run = HookRun::from(spawn_kimi(sb, event, payload).wait_with_output().unwrap());
    assert_eq!(run.code, 0, "{event}: {run:?}");
    run
}

/// Kimi Code 2.1.0's payloads, as the guard-opaque capture holds them.
fn kimi_payload(sb: &Sandbox, event: &str) -> Value {
    let mut p = json!({
        "hook_event_name": event,
        "session_id": CONVERSATION,
        "cwd": sb.ws(),
        "client_type": "kimi_code_cli",
    });
    match event {
        "SessionStart" => {
            p["source"] = "startup".into();
            p["model"] = "double".into();
            p["profile"] = "agent".into();
        }
        "PreToolUse" | "PostToolUse" => {
            p["tool_name"] = "Bash".into();
            p["tool_input"] = json!({"command": "python3 tools/gen.py"});
            p["tool_call_id"] = CALL.into();
            if event == "PostToolUse" {
                p["tool_output"] = "Command executed successfully.".into();
            }
        }
        "Stop" => p["stop_hook_active"] = false.into(),
        _ => {}
    }
    p
}

/// Whether another process holds `path`'s lock now, or has taken it away.
fn in_hand(path: &Path) -> bool {
    use std::os::fd::AsRawFd;
    let Ok(file) = std::fs::File::open(path) else {
        return true;
    };
    // SAFETY: flock on a descriptor owned here; the lock goes with it.
    unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) != 0 }
}

#[test]
fn a_post_tool_hook_killed_in_its_compare_leaves_the_write_to_the_turns_end() {
    let sb = Sandbox::new();
    room(&sb, || {
        kimi(&sb, "SessionStart", &kimi_payload(&sb, "SessionStart"));
    });
    kimi(&sb, "PreToolUse", &kimi_payload(&sb, "PreToolUse"));
    let record = match records(&sb).as_slice() {
        [one] => one.clone(),
        other => panic!("one call's fingerprints: {other:?}"),
    };
    std::fs::write(sb.ws().join("src/z"), "generated").unwrap();

    // The post-tool hook takes the fingerprints, then waits for the store's write lock;
    // the client ends its turn and kills it there (Kimi Code aborts the hooks it fired and
    // forgot when the turn's signal aborts).
    let (stop, holder) = hold_writes(store_file(&sb));
    let mut post = spawn_kimi(&sb, "PostToolUse", &kimi_payload(&sb, "PostToolUse"));
    let waited = Instant::now();
    while !in_hand(&record) {
        assert!(
            waited.elapsed() < GENEROUS,
            "the post-tool hook never took its call's fingerprints"
        );
        assert!(post.try_wait().unwrap().is_none(), "ended before the kill");
        std::thread::sleep(Duration::from_millis(5));
    }
    std::thread::sleep(Duration::from_millis(100));
    post.kill().unwrap();
    post.wait().unwrap();
    stop.send(()).unwrap();
    holder.join().unwrap();
    assert_eq!(
        detected(&sb),
        Vec::<String>::new(),
        "killed before it recorded"
    );

    let end = kimi(&sb, "Stop", &kimi_payload(&sb, "Stop"));
    told_at_the_end(&sb, &end);
}

#[test]
fn a_compare_cut_short_says_so_instead_of_reading_as_nothing_changed() {
    let sb = Sandbox::new();
    let many = sb.ws().join("src/many");
    std::fs::create_dir_all(&many).unwrap();
    // More claimed files than the fingerprints take: the walk stops at its limit.
    for n in 0..=acc_runtime::hook::fingerprints::MAX_ENTRIES {
        std::fs::write(many.join(n.to_string()), "").unwrap();
    }
    builder_started(&sb);
    let shell = |event: &str| shell_call(&sb, event);
    assert_eq!(
        hook(sb.settings(certified, &[]), &shell("beforeTool")).code,
        0
    );
    let after = hook(sb.settings(certified, &[]), &shell("afterTool"));
    assert_eq!(after.code, 0, "{after:?}");
    assert!(
        after
            .stderr
            .contains("the files under other sessions' guarded claims were compared only in part"),
        "{after:?}"
    );
}
