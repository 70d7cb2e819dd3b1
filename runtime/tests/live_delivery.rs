//! Live delivery end to end with the shipped Claude Code adapter and a fake session: the
//! session's own SessionStart hook publishes its binding, `acc message` (the real binary)
//! wakes it through its socket, and a session gone since is reported and left queued.

mod hook_support;

use hook_support::*;
use serde_json::{Value, json};
use std::io::BufRead;
use std::os::unix::net::UnixListener;
use std::path::{Path, PathBuf};
use std::process::Command;

const CLIENT_SESSION: &str = "5fa4df22-f1d5-4191-80de-f7f8e5f9ae09";
const PID: u32 = 4_194_000;

/// A fake running Claude Code session: its record and its listening socket.
struct FakeClaude {
    home: PathBuf,
    socket: PathBuf,
    listener: Option<UnixListener>,
}

fn fake_claude(root: &Path) -> FakeClaude {
    let home = root.join("home");
    let sessions = home.join(".claude/sessions");
    std::fs::create_dir_all(&sessions).unwrap();
    let socks = root.join("tmp/cc-socks");
    std::fs::create_dir_all(&socks).unwrap();
    let socket = socks.join(format!("{PID}.sock"));
    let listener = UnixListener::bind(&socket).unwrap();
    std::fs::write(
        sessions.join(format!("{PID}.json")),
        json!({"pid": PID, "sessionId": CLIENT_SESSION, "version": "2.1.332", "peerProtocol": 1,
               "kind": "interactive", "status": "idle", "messagingSocketPath": socket})
        .to_string(),
    )
    .unwrap();
    FakeClaude {
        home,
        socket,
        listener: Some(listener),
    }
}

fn consent(sb: &Sandbox, policy: &str) {
    let dir = sb.data().join("acc");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("installs.json"),
        format!(
            r#"{{"schemaVersion":1,"installs":[{{"adapterId":"claude-code","accVersion":"0.1.0",
            "artifacts":[],"createdDirectories":[],"originals":[],"delivery":"{policy}"}}]}}"#
        ),
    )
    .unwrap();
}

fn acc_message(sb: &Sandbox, from: &acc_runtime::Owner, body: &str) -> Value {
    let out = Command::new(env!("CARGO_BIN_EXE_acc"))
        .current_dir(sb.ws())
        .env_clear()
        .env("ACC_DATA_HOME", sb.data())
        .env("ACC_TEST_CLOCK", FIXED_CLOCK)
        .env("PATH", "/usr/bin:/bin")
        .args([
            "message",
            "--json",
            "--to",
            "bob",
            "--subject",
            "s",
            "--body",
            body,
        ])
        .args(["--session", from.session.as_str()])
        .args(["--generation", from.generation.as_str()])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "the send never fails on delivery: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    v.get("data").cloned().unwrap_or(v)
}

#[test]
fn a_bound_idle_session_is_woken_by_acc_message_and_a_dead_one_is_reported() {
    let sb = Sandbox::new();
    let mut fake = fake_claude(&sb.root());
    let env = [
        ("HOME", fake.home.to_str().unwrap().to_owned()),
        ("CLAUDE_PID", PID.to_string()),
        (
            "CLAUDE_CODE_MESSAGING_SOCKET",
            fake.socket.to_str().unwrap().to_owned(),
        ),
        ("ACC_PARTICIPANT", "bob".to_owned()),
    ];
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let start = json!({"session_id": CLIENT_SESSION, "transcript_path": "/t.jsonl",
        "cwd": sb.ws(), "hook_event_name": "SessionStart", "source": "startup"});
    let run = run_hook(
        sb.settings(acc_adapter_claude_code::adapter, &env),
        &["claude-code", "SessionStart"],
        start.to_string().as_bytes(),
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stderr.is_empty(), "{}", run.stderr);

    let mut core = sb.core();
    let bob = bound_owner(&mut core, CLIENT_SESSION);
    let binding = core.native_binding(&bob.session).unwrap().expect("bound");
    assert_eq!(binding.protocol_contract, "claude-code-inbox-socket-v1");
    assert_eq!(binding.client_version.as_deref(), Some("2.1.332"));
    let alice = attach(&mut core, "alice", false);
    drop(core);

    // Consent off (no record): nothing is written to the socket.
    let off = acc_message(&sb, &alice, "first body");
    assert_eq!(off["live"][0]["outcome"], "notOffered");
    assert_eq!(off["live"][0]["reasonCode"], "delivery_off");

    consent(&sb, "all");
    let sent = acc_message(&sb, &alice, "the peer body");
    assert_eq!(sent["live"][0]["outcome"], "woken", "{sent}");
    assert_eq!(sent["live"][0]["recipientParticipantId"], "bob");
    let (conn, _) = fake.listener.as_ref().unwrap().accept().unwrap();
    let mut line = String::new();
    std::io::BufReader::new(conn).read_line(&mut line).unwrap();
    let frame: Value = serde_json::from_str(&line).unwrap();
    assert_eq!(frame["type"], "user");
    assert_eq!(frame["session_id"], CLIENT_SESSION);
    let text = frame["message"]["content"].as_str().unwrap();
    assert!(text.starts_with("acc: a message is waiting"), "{text}");
    assert!(
        !line.contains("the peer body"),
        "a wake carries no peer text"
    );
    let mut core = sb.core();
    assert!(
        inbox(&mut core, &bob)
            .iter()
            .all(|i| i.receipt_state.as_str() == "queued"),
        "woken, not offered: the next-turn hook shows it"
    );
    drop(core);

    // Killed: the socket file stays, nobody listens.
    fake.listener = None;
    let failed = acc_message(&sb, &alice, "third body");
    assert_eq!(failed["live"][0]["outcome"], "failed");
    assert_eq!(
        failed["live"][0]["reasonCode"],
        "native_session_unavailable"
    );
    let mut core = sb.core();
    let id = acc_runtime::ids::MessageId::parse(failed["message"]["messageId"].as_str().unwrap())
        .unwrap();
    let history = core.offer_history(&id).unwrap();
    assert_eq!(history.len(), 1);
    assert!(!history[0].succeeded);
    assert!(
        core.native_binding(&bob.session).unwrap().is_none(),
        "retired"
    );
    assert_eq!(inbox(&mut core, &bob).len(), 3, "everything stays queued");
}
