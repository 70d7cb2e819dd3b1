//! Fail-open, in-process (with a short budget) and through the real `acc-hook` binary: a
//! locked store, a corrupt store, huge and garbage payloads, unknown adapters and events, a
//! panic. Each answers allow (exit 0, empty stdout) with one short stderr line naming a
//! reason code. Timings are never asserted, except a generous bound that catches a hang.

mod hook_support;

use acc_runtime::hook::failure::FAIL_OPEN_PREFIX;
use acc_runtime::{paths, workspace};
use hook_support::*;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

fn assert_fail_open(run: &HookRun, codes: &[&str]) {
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(run.stdout, "", "{run:?}");
    assert_eq!(run.stderr.lines().count(), 1, "{run:?}");
    assert!(run.stderr.starts_with(FAIL_OPEN_PREFIX), "{run:?}");
    assert!(run.stderr.len() <= 512);
    assert!(
        codes
            .iter()
            .any(|c| run.stderr.ends_with(&format!("({c})\n"))),
        "expected one of {codes:?}: {}",
        run.stderr
    );
}

fn store_file(sb: &Sandbox) -> PathBuf {
    let ws = workspace::discover(&sb.ws(), &acc_runtime::env::Env::new()).unwrap();
    paths::store_file(&sb.data(), &ws.id)
}

/// Holds `BEGIN EXCLUSIVE` on the store from another connection until told to stop.
fn lock_store(path: PathBuf) -> (mpsc::Sender<()>, std::thread::JoinHandle<()>) {
    let (stop_tx, stop_rx) = mpsc::channel();
    let (ready_tx, ready_rx) = mpsc::channel();
    let holder = std::thread::spawn(move || {
        let conn = rusqlite::Connection::open(&path).unwrap();
        conn.execute_batch("BEGIN EXCLUSIVE").unwrap();
        ready_tx.send(()).unwrap();
        let _ = stop_rx.recv_timeout(Duration::from_secs(60));
        conn.execute_batch("ROLLBACK").unwrap();
    });
    ready_rx.recv().unwrap();
    (stop_tx, holder)
}

#[test]
fn a_store_locked_past_the_budget_fails_open_in_process() {
    let sb = Sandbox::new();
    hook(
        sb.settings(certified, &[]),
        &payload("sessionStart", "conv", &sb.ws()),
    );
    let (stop, holder) = lock_store(store_file(&sb));
    let mut settings = sb.settings(certified, &[]);
    settings.budget = Duration::from_millis(400);
    let started = Instant::now();
    let run = hook(settings, &payload("beforeTurn", "conv", &sb.ws()));
    assert!(started.elapsed() < GENEROUS);
    assert_fail_open(&run, &["timeout", "store_busy"]);
    stop.send(()).unwrap();
    holder.join().unwrap();
}

#[test]
fn corrupt_stores_and_bad_inputs_fail_open_in_process() {
    let sb = Sandbox::new();
    let ws = sb.ws();
    let cases: Vec<(Vec<u8>, &str)> = vec![
        (b"\xff\xfe\x00garbage".to_vec(), "payload_not_utf8"),
        (b"not json".to_vec(), "payload_not_json"),
        (b"[1,2]".to_vec(), "payload_foreign"),
        (
            payload("noSuchEvent", "c", &ws).to_string().into_bytes(),
            "event_unknown",
        ),
        (
            serde_json::json!({"event": "beforeTool", "cwd": "/"})
                .to_string()
                .into_bytes(),
            "event_missing_session_id",
        ),
        (
            payload("panic", "c", &ws).to_string().into_bytes(),
            "internal_panic",
        ),
        (
            payload("beforeTool", "c", &sb.root().join("gone"))
                .to_string()
                .into_bytes(),
            "invalid_argument",
        ),
    ];
    for (bytes, code) in cases {
        let run = run_hook(sb.settings(certified, &[]), &[ADAPTER_ID], &bytes);
        assert_fail_open(&run, &[code]);
        assert!(
            !run.stderr.contains("peer text"),
            "never the panic's message"
        );
    }
    let run = run_hook(sb.settings(certified, &[]), &["no-such-adapter"], b"{}");
    assert_fail_open(&run, &["unknown_adapter"]);
    let run = run_hook(
        sb.settings(certified, &[]),
        &["--data-home", "rel", ADAPTER_ID],
        b"{}",
    );
    assert_fail_open(&run, &["usage"]);

    let store = store_file(&sb);
    std::fs::create_dir_all(store.parent().unwrap()).unwrap();
    std::fs::write(&store, b"this is not an sqlite database, just bytes").unwrap();
    for event in ["sessionStart", "beforeTool", "beforeTurn"] {
        let run = hook(sb.settings(certified, &[]), &payload(event, "c", &ws));
        assert_fail_open(&run, &["store_corrupt"]);
    }
    assert_eq!(
        std::fs::read(&store).unwrap(),
        b"this is not an sqlite database, just bytes",
        "the store fails closed: never recreated"
    );
}

#[test]
fn a_data_home_inside_the_workspace_is_refused_and_fails_open() {
    let sb = Sandbox::new();
    let inside = sb.ws().join(".acc-data");
    let mut settings = sb.settings(certified, &[]);
    settings.env = settings
        .env
        .with("ACC_DATA_HOME", &inside.display().to_string());
    let run = hook(settings, &payload("sessionStart", "c", &sb.ws()));
    assert_fail_open(&run, &["data_home_inside_workspace"]);
    assert!(!inside.exists(), "nothing is written inside the repository");
}

#[test]
fn large_payloads_are_read_up_to_the_cap() {
    let sb = Sandbox::new();
    let mut p = write_payload("c", &sb.ws(), &["src/a.rs"]);
    p["content"] = "x".repeat(10 * 1024 * 1024).into();
    let run = hook(sb.settings(certified, &[]), &p);
    assert_eq!(
        run,
        HookRun {
            code: 0,
            stdout: String::new(),
            stderr: String::new()
        }
    );
    let too_big = vec![b' '; 16 * 1024 * 1024 + 1];
    assert_fail_open(
        &run_hook(sb.settings(certified, &[]), &[ADAPTER_ID], &too_big),
        &["payload_too_large"],
    );
}

// ---- the real binary ----------------------------------------------------------------

fn acc_hook() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_acc-hook"));
    c.env_clear();
    c
}

/// Runs the binary with `stdin` (a writer thread, so a refused oversized payload cannot
/// block the test), returning what it answered.
fn run_bin(mut cmd: Command, stdin: Vec<u8>) -> HookRun {
    let started = Instant::now();
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut pipe = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || {
        use std::io::Write;
        let _ = pipe.write_all(&stdin);
    });
    let out = child.wait_with_output().unwrap();
    let _ = writer.join();
    assert!(
        started.elapsed() < GENEROUS,
        "the hook returned within its budget"
    );
    HookRun {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8(out.stdout).unwrap(),
        stderr: String::from_utf8(out.stderr).unwrap(),
    }
}

fn claude(sb: &Sandbox, event: &str) -> Command {
    let mut c = acc_hook();
    c.env("ACC_DATA_HOME", sb.data())
        .args(["claude-code", event]);
    c
}

fn claude_payload(sb: &Sandbox, event: &str, extra: serde_json::Value) -> Vec<u8> {
    let mut p = serde_json::json!({
        "session_id": "5b0c6f2e-0000-4000-8000-000000000001",
        "transcript_path": "/nonexistent/transcript.jsonl",
        "cwd": sb.ws().display().to_string(),
        "hook_event_name": event,
    });
    for (k, v) in extra.as_object().unwrap() {
        p[k] = v.clone();
    }
    p.to_string().into_bytes()
}

#[test]
fn the_binary_fails_open_on_garbage_unknown_adapters_and_oversized_input() {
    let sb = Sandbox::new();
    let mut garbage = Vec::new();
    for i in 0..4096u32 {
        garbage.extend_from_slice(&(i.wrapping_mul(2_654_435_761)).to_le_bytes());
    }
    assert_fail_open(
        &run_bin(claude(&sb, "PreToolUse"), garbage),
        &["payload_not_utf8"],
    );
    let mut unknown = acc_hook();
    unknown.arg("no-such-client");
    assert_fail_open(&run_bin(unknown, b"{}".to_vec()), &["unknown_adapter"]);
    assert_fail_open(
        &run_bin(claude(&sb, "PreToolUse"), vec![b'{'; 17 * 1024 * 1024]),
        &["payload_too_large"],
    );
    assert_fail_open(&run_bin(acc_hook(), Vec::new()), &["usage"]);
    assert!(sb.store_files_absent(), "refusals never create a store");
}

#[test]
fn the_binary_answers_a_ten_megabyte_payload() {
    let sb = Sandbox::new();
    let bytes = claude_payload(
        &sb,
        "PreToolUse",
        serde_json::json!({
            "tool_name": "Write",
            "tool_input": {"file_path": sb.ws().join("big.txt").display().to_string(),
                           "content": "z".repeat(10 * 1024 * 1024)},
        }),
    );
    let run = run_bin(claude(&sb, "PreToolUse"), bytes);
    assert_eq!(
        run,
        HookRun {
            code: 0,
            stdout: String::new(),
            stderr: String::new()
        }
    );
}

#[test]
fn the_binary_fails_open_on_an_unknown_event_and_a_corrupt_store() {
    let sb = Sandbox::new();
    let run = run_bin(
        claude(&sb, "Bogus"),
        claude_payload(&sb, "NoSuchHookEvent", serde_json::json!({})),
    );
    assert_fail_open(&run, &["event_unknown"]);
    let store = store_file(&sb);
    std::fs::create_dir_all(store.parent().unwrap()).unwrap();
    std::fs::write(&store, vec![0u8; 4096]).unwrap();
    let run = run_bin(
        claude(&sb, "UserPromptSubmit"),
        claude_payload(&sb, "UserPromptSubmit", serde_json::json!({"prompt": "hi"})),
    );
    assert_fail_open(&run, &["store_corrupt"]);
}

#[test]
fn the_binary_fails_open_when_another_process_holds_the_store_past_the_budget() {
    let sb = Sandbox::new();
    let start = run_bin(
        claude(&sb, "SessionStart"),
        claude_payload(
            &sb,
            "SessionStart",
            serde_json::json!({"source": "startup"}),
        ),
    );
    // Claude Code's evidence grants startup context: the start answers with it.
    assert_eq!((start.code, start.stderr.as_str()), (0, ""));
    assert!(start.stdout.contains("SessionStart"), "{}", start.stdout);
    assert!(store_file(&sb).exists(), "the start created the store");
    let (stop, holder) = lock_store(store_file(&sb));
    let run = run_bin(
        claude(&sb, "UserPromptSubmit"),
        claude_payload(&sb, "UserPromptSubmit", serde_json::json!({"prompt": "hi"})),
    );
    stop.send(()).unwrap();
    holder.join().unwrap();
    assert_fail_open(&run, &["timeout", "store_busy"]);
}

trait StoreFiles {
    fn store_files_absent(&self) -> bool;
}

impl StoreFiles for Sandbox {
    fn store_files_absent(&self) -> bool {
        !self.data().exists()
    }
}
