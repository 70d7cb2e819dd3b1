//! Faults do not open the guard silently (issue 11 §6): a store another process holds with
//! `PRAGMA locking_mode=EXCLUSIVE` is answered from the guarded-claims snapshot within the
//! budget, and a client that keeps stdin open after its payload gets its answer (no timing
//! is asserted: a hook that waited would fail open with `timeout`, which is what fails).

mod hook_support;

use acc_runtime::store::guard_snapshot;
use acc_runtime::{Owner, paths};
use hook_support::*;
use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

fn store_file(sb: &Sandbox) -> PathBuf {
    paths::store_file(&sb.data(), &sb.core().workspace().id)
}

/// Another process's connection in exclusive locking mode, holding the store until told.
fn hold_exclusively(path: PathBuf) -> (mpsc::Sender<()>, std::thread::JoinHandle<()>) {
    let (stop_tx, stop_rx) = mpsc::channel();
    let (ready_tx, ready_rx) = mpsc::channel();
    let holder = std::thread::spawn(move || {
        let conn = rusqlite::Connection::open(&path).unwrap();
        conn.execute_batch("PRAGMA locking_mode=EXCLUSIVE; BEGIN EXCLUSIVE; COMMIT;")
            .unwrap();
        ready_tx.send(()).unwrap();
        let _ = stop_rx.recv_timeout(Duration::from_secs(60));
    });
    ready_rx.recv().unwrap();
    (stop_tx, holder)
}

fn set_up() -> (Sandbox, Owner) {
    me_beside_a_guarded_peer(["file:src/**"])
}

#[test]
fn every_guarded_claim_change_rewrites_the_snapshot_beside_the_store() {
    let (sb, peer) = set_up();
    let file = guard_snapshot::path_for(&store_file(&sb));
    let snap = guard_snapshot::read(&file).unwrap().expect("written");
    assert_eq!(snap.claims.len(), 1);
    assert_eq!(snap.claims[0].resource, "file:src/**");
    assert_eq!(snap.claims[0].owner_session_id, peer.session.as_str());
    assert_eq!(snap.claims[0].owner_participant_id, "peer");
    let mut core = sb.core();
    core.release_resource(
        &peer,
        &acc_runtime::core::resources::Resource::parse("file:src/**").unwrap(),
    )
    .unwrap();
    let snap = guard_snapshot::read(&file).unwrap().unwrap();
    assert!(snap.claims.is_empty());
}

#[test]
fn a_store_held_exclusively_is_answered_from_the_snapshot() {
    let (sb, peer) = set_up();
    let store = store_file(&sb);
    let (stop, holder) = hold_exclusively(store.clone());
    let mut settings = sb.settings(certified, &[]);
    settings.budget = Duration::from_millis(1_500);
    let denied = hook(
        settings.clone(),
        &write_payload("me", &sb.ws(), &["src/a.rs"]),
    );
    // Read before the next deny adds its own line.
    let spool = acc_runtime::core::refusal_spool::path_for(&store);
    let spooled = std::fs::read_to_string(&spool).unwrap_or_default();
    let mut allowed_settings = settings.clone();
    allowed_settings.budget = Duration::from_millis(1_500);
    let allowed = hook(
        allowed_settings,
        &write_payload("me", &sb.ws(), &["docs/x.md"]),
    );
    let whole = hook(settings, &write_payload("me", &sb.ws(), &["./**"]));
    stop.send(()).unwrap();
    holder.join().unwrap();

    assert_eq!(denied.code, 2, "{denied:?}");
    let mut lines = denied.stderr.lines();
    assert_eq!(
        lines.next().unwrap(),
        format!(
            "file:src/a.rs is claimed by peer (session {})",
            peer.session
        )
    );
    // A deny the published snapshot proves is answered like an allow: it never waits for
    // the held store, and its event waits in the spool beside it for the next open.
    assert_eq!(lines.next(), None, "{denied:?}");
    assert_eq!(spooled.lines().count(), 1, "{spooled}");
    assert!(spooled.contains("src/a.rs"), "{spooled}");
    // An allow the published snapshot proves never waits for the store at all.
    assert_eq!(
        (allowed.code, allowed.stderr.as_str()),
        (0, ""),
        "{allowed:?}"
    );
    assert_eq!(
        whole.code, 2,
        "the whole workspace holds the claim: {whole:?}"
    );
}

fn claude_payload(sb: &Sandbox, event: &str, extra: serde_json::Value) -> Vec<u8> {
    let mut p = serde_json::json!({
        "session_id": "5b0c6f2e-0000-4000-8000-0000000000f1",
        "transcript_path": "/nonexistent/transcript.jsonl",
        "cwd": sb.ws().display().to_string(),
        "hook_event_name": event,
    });
    for (k, v) in extra.as_object().unwrap() {
        p[k] = v.clone();
    }
    p.to_string().into_bytes()
}

/// Runs the real `acc-hook` and writes `stdin` without ever closing it.
fn run_keeping_stdin_open(sb: &Sandbox, event: &str, stdin: &[u8]) -> HookRun {
    let mut child = Command::new(env!("CARGO_BIN_EXE_acc-hook"))
        .env_clear()
        .env("ACC_DATA_HOME", sb.data())
        // The sandbox's claims are made on its fixed clock.
        .env("ACC_TEST_CLOCK", FIXED_CLOCK)
        .args(["claude-code", event])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut pipe = child.stdin.take().unwrap();
    pipe.write_all(stdin).unwrap();
    pipe.flush().unwrap();
    let out = child.wait_with_output().unwrap();
    drop(pipe);
    HookRun {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8(out.stdout).unwrap(),
        stderr: String::from_utf8(out.stderr).unwrap(),
    }
}

#[test]
fn a_client_that_keeps_stdin_open_still_gets_the_deny() {
    let sb = Sandbox::new();
    let start = run_keeping_stdin_open(
        &sb,
        "SessionStart",
        &claude_payload(
            &sb,
            "SessionStart",
            serde_json::json!({"source": "startup"}),
        ),
    );
    assert!(!start.stderr.contains("timeout"), "{start:?}");
    let mut core = sb.core();
    let peer = attach(&mut core, "peer", true);
    claim(&mut core, &peer, "file:src/**", true);
    let target = sb.ws().join("src/a.rs");
    let run = run_keeping_stdin_open(
        &sb,
        "PreToolUse",
        &claude_payload(
            &sb,
            "PreToolUse",
            serde_json::json!({
                "tool_name": "Write",
                "tool_input": {"file_path": target.display().to_string(), "content": "x"},
                "tool_use_id": "t1"
            }),
        ),
    );
    assert!(!run.stderr.contains("timeout"), "{run:?}");
    let v: serde_json::Value =
        serde_json::from_str(run.stdout.trim()).unwrap_or_else(|_| panic!("an answer: {run:?}"));
    assert_eq!(
        v["hookSpecificOutput"]["permissionDecision"], "deny",
        "{run:?}"
    );
}
