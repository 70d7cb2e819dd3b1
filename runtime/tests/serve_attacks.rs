//! What an agent of the same user may do to the server, and what still holds: the guarded
//! write is refused, a claim is granted once, and the answer is always the local one.
//!
//! A guard call the published snapshot settles is answered by the client without a
//! connection (serve_client.rs), so the server is probed here with calls that need the
//! store: a session start, and a turn that delivers a peer's message.

mod hook_support;
mod serve_support;

use acc_runtime::serve::protocol::{self, Ack, Answer, Request};
use hook_support::*;
use serve_support::*;
use std::os::unix::net::UnixListener;
use std::path::{Path, PathBuf};
use std::time::Duration;

fn payload(sb: &Sandbox, event: &str) -> String {
    claude_payload(event, &sb.ws())
}

fn run(sb: &Sandbox, event: &str) -> HookRun {
    run_with(sb, event, "1")
}

fn run_with(sb: &Sandbox, event: &str, serve: &str) -> HookRun {
    let env = [
        ("ACC_TEST_CLOCK", FIXED_CLOCK),
        ("ACC_SERVE", serve),
        ("ACC_CERTIFY_CANDIDATES", "delivery.nextTurn"),
    ];
    hook_process(&sb.data(), event, &payload(sb, event), &env).into()
}

/// The body of the peer's message a turn delivers.
const BODY: &str = "I am rewriting hello.txt until noon; please leave it to me.";

/// A conversation started, a peer's guarded claim on the file its write targets, and the
/// peer's message to it.
fn guarded(sb: &Sandbox) -> PathBuf {
    let file = sb.ws().join("hello.txt");
    std::fs::write(&file, b"the peer's bytes").unwrap();
    // Not served: no server is started before the test sets up its own.
    let start = run_with(sb, "SessionStart", "0");
    assert_eq!(start.code, 0, "{start:?}");
    let mut core = sb.core();
    let me = bound_owner(&mut core, &session_id(sb));
    let participant = core.session(&me.session).unwrap().unwrap().participant_id;
    let peer = attach(&mut core, "peer", true);
    claim(&mut core, &peer, "file:hello.txt", true);
    send(&mut core, &peer, participant.as_str(), "hello.txt", BODY);
    file
}

fn session_id(sb: &Sandbox) -> String {
    let v: serde_json::Value = serde_json::from_str(&payload(sb, "SessionStart")).unwrap();
    v["session_id"].as_str().unwrap().to_string()
}

/// The turn delivers the peer's message: the local answer (a server that answered with
/// an empty allow was believed).
fn delivers(run: &HookRun) -> bool {
    run.code == 0 && run.stdout.contains(BODY)
}

/// A listener of another program (this test binary) that answers every request with an
/// allow: exit 0, nothing printed. Returns how many requests it read.
fn impostor(socket: &Path) -> std::sync::Arc<std::sync::atomic::AtomicUsize> {
    let _ = std::fs::remove_file(socket);
    std::fs::create_dir_all(socket.parent().unwrap()).unwrap();
    let listener = UnixListener::bind(socket).unwrap();
    let seen = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let count = seen.clone();
    std::thread::spawn(move || {
        for conn in listener.incoming() {
            let Ok(mut conn) = conn else { continue };
            let Ok(req) = protocol::read_json::<Request>(&mut conn) else {
                continue;
            };
            let _ = protocol::read_frame(&mut conn, protocol::MAX_STDIN_BYTES);
            count.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            let _ = protocol::write_json(
                &mut conn,
                &Ack {
                    build: req.build,
                    accepted: true,
                },
            );
            let _ = protocol::write_answer(&mut conn, &Answer::default());
        }
    });
    seen
}

fn fail_log(sb: &Sandbox) -> String {
    std::fs::read_to_string(acc_runtime::hook::fail_log::path(&sb.data())).unwrap_or_default()
}

#[test]
fn another_program_behind_the_socket_is_not_believed() {
    let sb = Sandbox::new();
    let file = guarded(&sb);
    let socket = acc_runtime::serve::socket_path(&sb.data()).unwrap();
    let seen = impostor(&socket);
    let denied = run(&sb, "PreToolUse");
    assert!(is_deny(&denied), "{denied:?}");
    assert_eq!(
        seen.load(std::sync::atomic::Ordering::SeqCst),
        0,
        "the snapshot's deny needs no server"
    );
    let turn = run(&sb, "UserPromptSubmit");
    assert!(delivers(&turn), "{turn:?}");
    assert_eq!(
        seen.load(std::sync::atomic::Ordering::SeqCst),
        1,
        "it was asked"
    );
    assert!(
        fail_log(&sb).contains("serve_peer_other_program"),
        "{}",
        fail_log(&sb)
    );
    assert!(!turn.stdout.contains("serve_peer"), "never on stdout");
    assert_eq!(std::fs::read(&file).unwrap(), b"the peer's bytes");
}

#[test]
fn a_symlink_to_another_listener_or_a_plain_file_is_not_a_server() {
    let sb = Sandbox::new();
    guarded(&sb);
    let socket = acc_runtime::serve::socket_path(&sb.data()).unwrap();
    let elsewhere = sb.root().join("evil.sock");
    let seen = impostor(&elsewhere);
    std::fs::create_dir_all(socket.parent().unwrap()).unwrap();
    std::os::unix::fs::symlink(&elsewhere, &socket).unwrap();
    assert!(is_deny(&run(&sb, "PreToolUse")));
    assert!(delivers(&run(&sb, "UserPromptSubmit")));
    assert_eq!(seen.load(std::sync::atomic::Ordering::SeqCst), 1);
    std::fs::remove_file(&socket).unwrap();
    std::fs::write(&socket, b"not a socket").unwrap();
    assert_eq!(run(&sb, "SessionStart").code, 0);
    // The plain file told the client nobody serves: it started a server, which replaced it.
    wait_for(|| served(&sb.data()).is_some(), "a server");
    let pid = lock_pid(&sb.data()).unwrap();
    assert!(is_deny(&run(&sb, "PreToolUse")));
    assert_eq!(run(&sb, "SessionStart").code, 0);
    assert_eq!(served(&sb.data()), Some(1));
    drop(sb);
    wait_gone(pid);
}

#[test]
fn a_server_started_with_a_loader_variable_is_not_used() {
    let sb = Sandbox::new();
    let file = guarded(&sb);
    let server = Detached::start(&sb.data(), &[("LD_LIBRARY_PATH", "/nonexistent")]);
    let denied = run(&sb, "PreToolUse");
    assert!(is_deny(&denied), "{denied:?}");
    let turn = run(&sb, "UserPromptSubmit");
    assert!(delivers(&turn), "{turn:?}");
    assert!(
        fail_log(&sb).contains("serve_peer_preloaded"),
        "{}",
        fail_log(&sb)
    );
    assert_eq!(served(&sb.data()), None, "not trusted, not asked");
    assert_eq!(std::fs::read(&file).unwrap(), b"the peer's bytes");
    drop(server);
}

/// A server that does not take the request in time (stopped here) leaves it to the client;
/// when it wakes, it finds the client gone and runs nothing: the claim is made once.
#[test]
fn a_request_not_acknowledged_runs_locally_and_only_there() {
    let sb = Sandbox::new();
    guarded(&sb);
    let server = Detached::start(&sb.data(), &[]);
    // SAFETY: signals to the pid this test started.
    unsafe { libc::kill(server.0 as i32, libc::SIGSTOP) };
    let turn = run(&sb, "UserPromptSubmit");
    unsafe { libc::kill(server.0 as i32, libc::SIGCONT) };
    assert!(delivers(&turn), "{turn:?}");
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(served(&sb.data()), Some(0), "the server ran nothing");
    drop(server);
}

/// A server killed between calls: the next call runs itself and starts another.
#[test]
fn a_killed_server_is_replaced() {
    let sb = Sandbox::new();
    guarded(&sb);
    let first = Detached::start(&sb.data(), &[]);
    assert_eq!(run(&sb, "SessionStart").code, 0);
    assert_eq!(served(&sb.data()), Some(1));
    let old = first.0;
    drop(first);
    assert!(is_deny(&run(&sb, "PreToolUse")));
    assert_eq!(
        run(&sb, "SessionStart").code,
        0,
        "the stale socket: run here"
    );
    wait_for(
        || lock_pid(&sb.data()).is_some_and(|p| p != old) && served(&sb.data()).is_some(),
        "a new server",
    );
    let pid = lock_pid(&sb.data()).unwrap();
    assert!(is_deny(&run(&sb, "PreToolUse")));
    assert_eq!(run(&sb, "SessionStart").code, 0);
    assert_eq!(served(&sb.data()), Some(1));
    drop(sb);
    wait_gone(pid);
}

/// A request of another build is refused, and the server (stale beside the caller's
/// build) exits.
#[test]
fn a_request_of_another_build_is_refused_and_the_server_exits() {
    let sb = Sandbox::new();
    std::fs::create_dir_all(sb.data().join("acc")).unwrap();
    let server = Detached::start(&sb.data(), &[]);
    let socket = acc_runtime::serve::socket_path(&sb.data()).unwrap();
    let mut conn = std::os::unix::net::UnixStream::connect(&socket).unwrap();
    let request = Request {
        build: "0.0.0+0".into(),
        kind: protocol::Kind::Acc,
        argv: vec![b"acc".to_vec(), b"status".to_vec()],
        env: Default::default(),
        cwd: b"/".to_vec(),
        umask: 0o022,
        pid: std::process::id(),
        elapsed_ms: 0,
    };
    protocol::write_json(&mut conn, &request).unwrap();
    // The server may refuse on the header alone and close before the stdin frame arrives.
    let _ = protocol::write_frame(&mut conn, b"");
    let ack: Ack = protocol::read_json(&mut conn).unwrap();
    assert!(!ack.accepted);
    assert_eq!(ack.build, protocol::build());
    wait_gone(server.0);
}
