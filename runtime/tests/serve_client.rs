//! The served client (`ACC_SERVE=1`) at the process floor: a guard call the published
//! snapshot settles (an allow, a read, a deny) is answered by the client itself, byte for
//! byte as a local run answers it, without connecting; only a call that needs the store
//! reaches the server. Stdin is read on the main thread, under the process's deadline.

mod hook_support;
mod serve_support;

use hook_support::*;
use serve_support::*;
use std::io::Write;
use std::os::unix::net::UnixListener;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

const BODY: &str = "I am rewriting hello.txt until noon; please leave it to me.";

fn env(serve: &str) -> [(&'static str, &str); 3] {
    [
        ("ACC_TEST_CLOCK", FIXED_CLOCK),
        ("ACC_SERVE", serve),
        ("ACC_CERTIFY_CANDIDATES", "delivery.nextTurn"),
    ]
}

fn run_payload(sb: &Sandbox, event: &str, payload: &str, serve: &str) -> HookRun {
    hook_process(&sb.data(), event, payload, &env(serve)).into()
}

fn run(sb: &Sandbox, event: &str, serve: &str) -> HookRun {
    run_payload(sb, event, &claude_payload(event, &sb.ws()), serve)
}

/// The guard's call for a read of the file the write targets.
fn read_payload(sb: &Sandbox) -> String {
    let mut v: serde_json::Value =
        serde_json::from_str(&claude_payload("PreToolUse", &sb.ws())).unwrap();
    v["tool_name"] = "Read".into();
    v["tool_input"] = serde_json::json!({"file_path": sb.ws().join("hello.txt")});
    v.to_string()
}

/// A conversation started locally, its workspace's file written.
fn started() -> Sandbox {
    let sb = Sandbox::new();
    std::fs::write(sb.ws().join("hello.txt"), b"the peer's bytes").unwrap();
    let start = run(&sb, "SessionStart", "0");
    assert_eq!(start.code, 0, "{start:?}");
    sb
}

/// The peer's guarded claim on the file, and its message to the conversation.
fn peer_claims_and_writes(sb: &Sandbox) {
    let mut core = sb.core();
    let v: serde_json::Value =
        serde_json::from_str(&claude_payload("SessionStart", &sb.ws())).unwrap();
    let me = bound_owner(&mut core, v["session_id"].as_str().unwrap());
    let participant = core.session(&me.session).unwrap().unwrap().participant_id;
    let peer = attach(&mut core, "peer", true);
    claim(&mut core, &peer, "file:hello.txt", true);
    send(&mut core, &peer, participant.as_str(), "hello.txt", BODY);
}

/// A listener of another program: counts the connections it accepts, answers none.
fn listener(sb: &Sandbox) -> Arc<AtomicUsize> {
    let socket = acc_runtime::serve::socket_path(&sb.data()).unwrap();
    std::fs::create_dir_all(socket.parent().unwrap()).unwrap();
    let listener = UnixListener::bind(&socket).unwrap();
    let seen = Arc::new(AtomicUsize::new(0));
    let count = seen.clone();
    std::thread::spawn(move || {
        for conn in listener.incoming() {
            count.fetch_add(1, Ordering::SeqCst);
            drop(conn);
        }
    });
    seen
}

#[test]
fn a_settled_guard_call_is_the_local_answer_and_asks_no_server() {
    let sb = started();
    let server = Server::start(&sb.data(), &[]);
    let allow_local = run(&sb, "PreToolUse", "0");
    let allow_served = run(&sb, "PreToolUse", "1");
    assert_eq!(allow_served, allow_local);
    assert_eq!(allow_served.stdout, "", "{allow_served:?}");
    peer_claims_and_writes(&sb);
    let read_local = run_payload(&sb, "PreToolUse", &read_payload(&sb), "0");
    let read_served = run_payload(&sb, "PreToolUse", &read_payload(&sb), "1");
    assert_eq!(read_served, read_local);
    assert!(!is_deny(&read_served), "{read_served:?}");
    let deny_local = run(&sb, "PreToolUse", "0");
    let deny_served = run(&sb, "PreToolUse", "1");
    assert_eq!(deny_served, deny_local);
    assert!(is_deny(&deny_served), "{deny_served:?}");
    assert_eq!(
        served(&sb.data()),
        Some(0),
        "the snapshot settled all three"
    );
    // A call that needs the store is served, and answers as the local run would.
    let turn = run(&sb, "UserPromptSubmit", "1");
    assert!(turn.stdout.contains(BODY), "{turn:?}");
    assert_eq!(served(&sb.data()), Some(1));
    let stop_local = run(&sb, "Stop", "0");
    let stop_served = run(&sb, "Stop", "1");
    assert_eq!(stop_served, stop_local);
    assert_eq!(served(&sb.data()), Some(2));
    drop(server);
}

/// Whatever listens on the socket, a call the snapshot settles never connects: it cannot be
/// answered by a socket's owner, nor held up by one that never answers.
#[test]
fn a_settled_call_never_connects() {
    let sb = started();
    peer_claims_and_writes(&sb);
    let seen = listener(&sb);
    let deny = run(&sb, "PreToolUse", "1");
    assert!(is_deny(&deny), "{deny:?}");
    assert_eq!(run(&sb, "PreToolUse", "0"), deny);
    let read = run_payload(&sb, "PreToolUse", &read_payload(&sb), "1");
    assert!(!is_deny(&read), "{read:?}");
    assert_eq!(seen.load(Ordering::SeqCst), 0);
    let fail_log =
        std::fs::read_to_string(acc_runtime::hook::fail_log::path(&sb.data())).unwrap_or_default();
    assert!(!fail_log.contains("serve_"), "{fail_log}");
}

/// A payload the local run refuses is refused here, as the local run refuses it.
#[test]
fn an_unreadable_payload_is_the_local_refusal() {
    let sb = started();
    let server = Server::start(&sb.data(), &[]);
    for payload in ["{\"not\": \"closed\"", "\u{7f}garbage", "[1] [2]"] {
        let local = run_payload(&sb, "UserPromptSubmit", payload, "0");
        let served_run = run_payload(&sb, "UserPromptSubmit", payload, "1");
        assert_eq!(served_run, local, "{payload}");
        assert!(local.stderr.contains("acc"), "{local:?}");
    }
    assert_eq!(served(&sb.data()), Some(0));
    drop(server);
}

/// `acc-hook` with the payload written and stdin left open (`close` false), or closed.
fn hook_with_stdin(sb: &Sandbox, event: &str, payload: &str, close: bool) -> HookRun {
    let mut child = Command::new(acc_hook())
        .env_clear()
        .env("ACC_DATA_HOME", sb.data())
        .envs(env("1"))
        .args(["claude-code", event])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(payload.as_bytes()).unwrap();
    let kept = if close { None } else { Some(stdin) };
    let out = child.wait_with_output().unwrap();
    drop(kept);
    out.into()
}

/// A client that writes its payload and never closes stdin is served all the same: the
/// payload's read stops at the end of the value, not at the end of stdin.
#[test]
fn stdin_left_open_after_the_payload_is_served() {
    let sb = started();
    peer_claims_and_writes(&sb);
    let server = Server::start(&sb.data(), &[]);
    let turn = hook_with_stdin(
        &sb,
        "UserPromptSubmit",
        &claude_payload("UserPromptSubmit", &sb.ws()),
        false,
    );
    assert!(turn.stdout.contains(BODY), "{turn:?}");
    assert_eq!(served(&sb.data()), Some(1));
    drop(server);
}

/// A client that never finishes its payload nor closes stdin: the hook fails open at its
/// deadline, as a local run does, and the server is never asked.
#[test]
fn a_payload_never_finished_fails_open_at_the_deadline() {
    let sb = started();
    let server = Server::start(&sb.data(), &[]);
    let run = hook_with_stdin(&sb, "UserPromptSubmit", "{\"session_id\": \"s", false);
    assert_eq!(run.code, 0);
    assert_eq!(run.stdout, "");
    assert!(run.stderr.contains("timeout"), "{run:?}");
    assert_eq!(served(&sb.data()), Some(0));
    drop(server);
}
