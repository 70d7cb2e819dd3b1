//! A process sending messages in a loop is killed with SIGKILL. Afterwards the store opens,
//! every send that had returned success is there, and no message exists without its
//! receipts (sends are atomic).

mod common;

use acc_runtime::core::messages::SendMessage;
use acc_runtime::core::model::MessageKind;
use acc_runtime::ids::{Generation, MessageId, SessionId};
use acc_runtime::store::OpenMode;
use acc_runtime::{Core, Owner, Ports, env::Env, workspace};
use common::Sandbox;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};

const CHILD_VAR: &str = "ACC_CRASH_TEST_CHILD";

/// A message id the child printed (the test harness prints other lines too).
fn parse_id(line: &str) -> Option<MessageId> {
    let t = line.trim();
    t.starts_with("message_")
        .then(|| MessageId::parse(t).ok())
        .flatten()
}

fn open(data: &Path, ws: &Path) -> Core {
    let wsd = workspace::discover(ws, &Env::new()).unwrap();
    Core::open(wsd, data, OpenMode::ReadOnly, Ports::system()).unwrap()
}

/// The child half: sends forever, printing each message id once its send returned.
#[test]
#[ignore = "the child half of the SIGKILL test, which runs it"]
fn crash_child_sender() {
    let Ok(spec) = std::env::var(CHILD_VAR) else {
        return; // Only runs when the parent test spawns it.
    };
    let parts: Vec<&str> = spec.split('|').collect();
    let (data, ws, session, generation) = (parts[0], parts[1], parts[2], parts[3]);
    let mut core = open(Path::new(data), Path::new(ws));
    let owner = Owner::new(
        SessionId::parse(session).unwrap(),
        Generation::parse(generation).unwrap(),
    );
    for i in 0.. {
        let out = core
            .send(
                &owner,
                SendMessage {
                    to: vec!["bob".into(), "carol".into()],
                    kind: MessageKind::Note,
                    obligation: None,
                    subject: format!("note {i}"),
                    body: "x".repeat(2000),
                    client_message_id: None,
                },
            )
            .unwrap();
        println!("{}", out.message.message_id);
    }
}

#[test]
fn sigkill_mid_send_loses_no_acknowledged_message_and_leaves_no_partial_one() {
    let sb = Sandbox::with_real_clock();
    let (s, g) = sb.attach("alice", &[]);
    sb.attach("bob", &[]);
    sb.attach("carol", &[]);
    let spec = format!(
        "{}|{}|{s}|{g}",
        sb.data_path().display(),
        sb.ws_path().display()
    );
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "crash_child_sender", "--ignored", "--nocapture"])
        .env(CHILD_VAR, spec)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut acknowledged = Vec::new();
    while acknowledged.len() < 150 {
        let Some(line) = lines.next() else {
            panic!("the child stopped sending: {:?}", child.wait());
        };
        let line = line.unwrap();
        if let Some(id) = parse_id(&line) {
            acknowledged.push(id);
        }
    }
    // SIGKILL while the child is in the middle of further sends.
    child.kill().unwrap();
    child.wait().unwrap();
    for line in lines.map_while(Result::ok) {
        if let Some(id) = parse_id(&line) {
            acknowledged.push(id);
        }
    }

    let mut core = open(&sb.data_path(), &sb.ws_path());
    for id in &acknowledged {
        let m = core
            .message(id)
            .unwrap()
            .unwrap_or_else(|| panic!("{id} was acknowledged but is missing"));
        assert_eq!(m.body.len(), 2000);
    }
    // Every message in the store has exactly its two receipts.
    let r = sb.run(&["status", "--json"]).json();
    let queued = r["data"]["counts"]["unretrieved"]["queued"]
        .as_u64()
        .unwrap();
    let db = sb.db_path();
    let conn = rusqlite::Connection::open(db).unwrap();
    let messages: u64 = conn
        .query_row("SELECT count(*) FROM messages", [], |r| r.get(0))
        .unwrap();
    let partial: u64 = conn
        .query_row(
            "SELECT count(*) FROM messages m WHERE (SELECT count(*) FROM receipts r WHERE r.message_seq = m.seq) <> 2",
            [],
            |r| r.get(0),
        )
        .unwrap();
    let recorded: u64 = conn
        .query_row(
            "SELECT count(*) FROM events WHERE type = 'message.recorded'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert!(messages >= acknowledged.len() as u64);
    assert_eq!(partial, 0, "no message without its receipts");
    assert_eq!(recorded, messages, "one event per message");
    assert_eq!(queued, messages * 2);
    let integrity: String = conn
        .query_row("PRAGMA integrity_check", [], |r| r.get(0))
        .unwrap();
    assert_eq!(integrity, "ok");
}
