//! The hook on a shared PostgreSQL store beside the embedded SQLite one (issue 29): medians
//! of whole `acc-hook claude-code` processes, as `hook_bench` measures them, against one
//! room populated the same way on each engine (200 guarded claims of a peer, 200 queued
//! notes): an uncovered write (allow), a covered one (deny), and a turn
//! (`UserPromptSubmit`, which heartbeats and reads the inbox). On PostgreSQL the allow is
//! measured once this host's listener (started by the SessionStart hook) has published the
//! snapshot with a live lease, as it is whenever a session of the host is open.
//!
//! The PostgreSQL server is started on 127.0.0.1 the way the shared-store tests start it
//! (`tests/pg_support`); without its binaries only SQLite is measured.
//!
//! Run with `cargo bench -p acc-runtime --bench shared_store_bench`. Results belong in
//! docs/PERFORMANCE.md ("The hook on a shared store").

#[path = "../tests/pg_support/mod.rs"]
mod pg_support;

use acc_runtime::core::claims::ClaimRequest;
use acc_runtime::core::messages::SendMessage;
use acc_runtime::core::model::{Enforcement, MessageKind};
use acc_runtime::core::resources::Resource;
use acc_runtime::core::sessions::OpenSession;
use acc_runtime::env::Env;
use acc_runtime::ids::ParticipantId;
use acc_runtime::store::OpenMode;
use acc_runtime::store::{guard_snapshot, shared_listener};
use acc_runtime::{Core, Owner, Ports, workspace};
use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const CLAIMS: usize = 200;
const MESSAGES: usize = 200;
const RUNS: usize = 40;
const CONVERSATION: &str = "5b0c6f2e-0000-4000-8000-00000000bench";

fn median(mut xs: Vec<Duration>) -> Duration {
    xs.sort();
    xs[xs.len() / 2]
}

fn payload(ws: &Path, event: &str, extra: serde_json::Value) -> Vec<u8> {
    let mut p = serde_json::json!({
        "session_id": CONVERSATION,
        "transcript_path": "/nonexistent/transcript.jsonl",
        "cwd": ws.display().to_string(),
        "permission_mode": "acceptEdits",
        "hook_event_name": event,
    });
    for (k, v) in extra.as_object().unwrap() {
        p[k] = v.clone();
    }
    p.to_string().into_bytes()
}

/// One whole `acc-hook claude-code <event>` process: its wall time and stdout.
fn hook(data: &Path, url: Option<&str>, event: &str, stdin: &[u8]) -> (Duration, String) {
    let mut c = Command::new(env!("CARGO_BIN_EXE_acc-hook"));
    c.env_clear()
        .env("ACC_DATA_HOME", data)
        .args(["claude-code", event])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if let Some(url) = url {
        c.env("ACC_STORE_URL", url);
    }
    let t = Instant::now();
    let mut child = c.spawn().unwrap();
    child.stdin.take().unwrap().write_all(stdin).unwrap();
    let out = child.wait_with_output().unwrap();
    let wall = t.elapsed();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        !stderr.contains("coordination unavailable"),
        "acc-hook {event} failed open: {stderr}"
    );
    (wall, String::from_utf8(out.stdout).unwrap())
}

/// The medians of allow, deny and turn on one engine.
fn measure(base: &Path, url: Option<&str>) -> [Duration; 3] {
    let data = base.join("data");
    let ws = base.join("project");
    std::fs::create_dir_all(ws.join(".git")).unwrap();
    std::fs::write(ws.join(".git/HEAD"), "ref: refs/heads/main\n").unwrap();
    std::fs::write(
        ws.join(".git/config"),
        "[remote \"origin\"]\n\turl = https://example.invalid/bench/room.git\n",
    )
    .unwrap();
    let ws = ws.canonicalize().unwrap();
    hook(
        &data,
        url,
        "SessionStart",
        &payload(
            &ws,
            "SessionStart",
            serde_json::json!({"source": "startup"}),
        ),
    );
    let env = match url {
        Some(u) => Env::new().with("ACC_STORE_URL", u),
        None => Env::new(),
    };
    let desc = workspace::discover(&ws, &env).unwrap();
    let bound_ws = desc.id.clone();
    let mut core = Core::open(desc, &data, OpenMode::ReadWrite, Ports::system()).unwrap();
    let key = acc_runtime::core::bindings::binding_key(CONVERSATION);
    let bound = core.binding(&key).unwrap().expect("bound");
    let me = core
        .session(&bound.session_id)
        .unwrap()
        .unwrap()
        .participant_id;
    let mut req = OpenSession::new(ParticipantId::parse("peer").unwrap(), "bench", 60_000);
    req.enforcement = Enforcement::Guarded;
    let s = core.open_session(req).unwrap();
    let peer = Owner::new(s.session_id, s.generation);
    core.deferring_publication(|core| {
        for i in 0..CLAIMS {
            let mut req =
                ClaimRequest::new(Resource::parse(&format!("file:src/module_{i:05}/**")).unwrap());
            req.enforcement = Enforcement::Guarded;
            core.claim(&peer, req).unwrap();
        }
    });
    for i in 0..MESSAGES {
        core.send(
            &peer,
            SendMessage {
                to: vec![me.to_string()],
                kind: MessageKind::Note,
                obligation: None,
                subject: format!("message {i}"),
                body: "a body of a realistic length, ".repeat(8),
                client_message_id: None,
            },
        )
        .unwrap();
    }
    drop(core);
    let store = acc_runtime::paths::store_file(&data, &bound_ws);
    if url.is_some() {
        await_listener(&store);
    }
    let write = |path: &str| {
        payload(
            &ws,
            "PreToolUse",
            serde_json::json!({
                "tool_name": "Write",
                "tool_input": {"file_path": ws.join(path).display().to_string(), "content": "x\n"},
                "tool_use_id": "toolu_bench",
            }),
        )
    };
    let free = write("docs/notes.md");
    let covered = write(&format!("src/module_{:05}/new.rs", CLAIMS - 1));
    let turn = payload(
        &ws,
        "UserPromptSubmit",
        serde_json::json!({"prompt": "go on"}),
    );
    let (_, out) = hook(&data, url, "PreToolUse", &covered);
    assert!(
        out.contains("\"deny\""),
        "the covered write is denied: {out}"
    );
    let mut out = [Vec::new(), Vec::new(), Vec::new()];
    for _ in 0..RUNS {
        out[0].push(hook(&data, url, "PreToolUse", &free).0);
        out[1].push(hook(&data, url, "PreToolUse", &covered).0);
        out[2].push(hook(&data, url, "UserPromptSubmit", &turn).0);
    }
    if url.is_some()
        && let Some(pid) = shared_listener::running(&store)
    {
        // SAFETY: the listener this bench's SessionStart hook started; SIGTERM ends it.
        unsafe { libc::kill(pid as i32, libc::SIGTERM) };
    }
    out.map(median)
}

/// Waits until the listener the SessionStart hook started has published every claim with a
/// live lease: from then on an allow is answered from this host's snapshot.
fn await_listener(store: &Path) {
    let start = Instant::now();
    loop {
        if let Some((token, text)) = guard_snapshot::vouched_text(store)
            && shared_listener::leased(store, &token.tag)
            && guard_snapshot::SnapshotText::parse(&text)
                .is_some_and(|t| t.claims().count() == CLAIMS)
        {
            return;
        }
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "no listener published the shared store's snapshot"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn ms(d: Duration) -> String {
    format!("{:.2} ms", d.as_secs_f64() * 1000.0)
}

fn main() {
    let tmp = tempfile::tempdir().unwrap();
    let sqlite = measure(&tmp.path().join("sqlite"), None);
    let pg = pg_support::PgServer::start();
    let shared = pg
        .as_ref()
        .map(|s| measure(&tmp.path().join("postgres"), Some(&s.url())));
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    println!(
        "load average at the end: {}",
        load.split_whitespace()
            .take(3)
            .collect::<Vec<_>>()
            .join(" ")
    );
    println!(
        "| measurement (wall, median of {RUNS}) | SQLite | PostgreSQL | PostgreSQL / SQLite |"
    );
    println!("|---|---|---|---|");
    for (i, name) in [
        "PreToolUse allow",
        "PreToolUse deny",
        "UserPromptSubmit turn",
    ]
    .iter()
    .enumerate()
    {
        match &shared {
            Some(p) => println!(
                "| {name} | {} | {} | {:.2}x |",
                ms(sqlite[i]),
                ms(p[i]),
                p[i].as_secs_f64() / sqlite[i].as_secs_f64()
            ),
            None => println!("| {name} | {} | (no PostgreSQL) | |", ms(sqlite[i])),
        }
    }
}
