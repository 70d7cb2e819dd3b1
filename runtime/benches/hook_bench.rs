//! The hook runtime's benchmark (not a timed test): medians of whole `acc-hook` processes
//! as Claude Code runs them, against a populated store.
//!
//! - `PreToolUse` guard with 200 live guarded claims of a peer: a covered write (deny), an
//!   uncovered one (allow), a readable shell command naming no claimed path (allow), and a
//!   `mv` of 60,000 names followed by `rm -rf src` (three runs; denied, or failed open when
//!   the budget runs out);
//! - `UserPromptSubmit` with 1,000 queued notes (questions would each add an urgent
//!   attention line that the projector shows before bodies), for a Claude Code older than
//!   any evidence: bodies withheld (a run changes only the heartbeat), and the same under
//!   `ACC_CERTIFY_CANDIDATES=delivery.nextTurn`: bodies rendered and offers committed (the
//!   store is restored before every run, outside the timing, so each run sees 1,000 queued
//!   messages);
//! - `SessionStart` of a new conversation (client probe, open, bind).
//!
//! Run with `cargo bench -p acc-runtime --bench hook_bench`. Results belong in
//! docs/PERFORMANCE.md ("Hook runtime"). With `ACC_BENCH_DIR=<dir>` the populated store
//! (left as populated), its copy `template.db` and each case's payload
//! (`payloads/{deny,allow,shell,turn,start}.json`) are kept for profiling one process.

use acc_runtime::core::claims::ClaimRequest;
use acc_runtime::core::messages::SendMessage;
use acc_runtime::core::model::{Enforcement, MessageKind};
use acc_runtime::core::resources::Resource;
use acc_runtime::core::sessions::OpenSession;
use acc_runtime::env::Env;
use acc_runtime::ids::ParticipantId;
use acc_runtime::store::OpenMode;
use acc_runtime::{Core, Owner, Ports, paths, workspace};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const CLAIMS: usize = 200;
const MESSAGES: usize = 1_000;
const RUNS: usize = 60;
const CONVERSATION: &str = "5b0c6f2e-0000-4000-8000-00000000bench";
/// A shell command the reader reads whole, naming no claimed path.
const READABLE: &str = "cargo fmt --all --check && cargo test -p acc-runtime 2>&1 | tee docs/test.log \
    && cp README.md docs/README.copy && mkdir -p build && echo done > build/stamp";
/// Targets of the command too large to judge (a `mv` of padding names).
const HUGE_TARGETS: usize = 60_000;
const HUGE_RUNS: usize = 3;

fn median(mut xs: Vec<Duration>) -> Duration {
    xs.sort();
    xs[xs.len() / 2]
}

fn ms(d: Duration) -> String {
    format!("{:.2} ms", d.as_secs_f64() * 1000.0)
}

fn open(data: &Path, ws: &Path) -> Core {
    let desc = workspace::discover(ws, &Env::new()).unwrap();
    Core::open(desc, data, OpenMode::ReadWrite, Ports::system()).unwrap()
}

fn payload(ws: &Path, session: &str, event: &str, extra: serde_json::Value) -> Vec<u8> {
    let mut p = serde_json::json!({
        "session_id": session,
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

/// CPU time (user + system) of every child waited for so far.
fn children_cpu() -> Duration {
    // SAFETY: getrusage only writes the struct it is given.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, &mut usage) };
    let tv = |t: libc::timeval| Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1000);
    tv(usage.ru_utime) + tv(usage.ru_stime)
}

/// Wall time and CPU time of one process.
#[derive(Clone, Copy)]
struct Sample {
    wall: Duration,
    cpu: Duration,
}

fn medians(samples: &[Sample]) -> String {
    let wall = median(samples.iter().map(|s| s.wall).collect());
    let cpu = median(samples.iter().map(|s| s.cpu).collect());
    format!("{} | {}", ms(wall), ms(cpu))
}

/// One whole `acc-hook claude-code <event>` process; returns its times and stdout.
fn hook(data: &Path, event: &str, stdin: &[u8], env: &[(&str, &str)]) -> (Sample, String) {
    let mut c = Command::new(env!("CARGO_BIN_EXE_acc-hook"));
    c.env_clear()
        .env("ACC_DATA_HOME", data)
        .envs(env.iter().copied())
        .args(["claude-code", event])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let cpu = children_cpu();
    let t = Instant::now();
    let mut child = c.spawn().unwrap();
    child.stdin.take().unwrap().write_all(stdin).unwrap();
    let out = child.wait_with_output().unwrap();
    let d = Sample {
        wall: t.elapsed(),
        cpu: children_cpu() - cpu,
    };
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success() && !stderr.contains("coordination unavailable"),
        "acc-hook {event} failed open: {stderr}"
    );
    (d, String::from_utf8(out.stdout).unwrap())
}

/// One `PreToolUse` run that may fail open (a call too large for the budget did before the
/// guard judged paths in linear time): its time, and what it answered.
fn verdict(data: &Path, stdin: &[u8]) -> (Sample, &'static str) {
    let mut c = Command::new(env!("CARGO_BIN_EXE_acc-hook"));
    c.env_clear()
        .env("ACC_DATA_HOME", data)
        .args(["claude-code", "PreToolUse"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let cpu = children_cpu();
    let t = Instant::now();
    let mut child = c.spawn().unwrap();
    child.stdin.take().unwrap().write_all(stdin).unwrap();
    let out = child.wait_with_output().unwrap();
    let d = Sample {
        wall: t.elapsed(),
        cpu: children_cpu() - cpu,
    };
    let stdout = String::from_utf8_lossy(&out.stdout);
    let answer = if stdout.contains("\"deny\"") {
        "denied"
    } else if String::from_utf8_lossy(&out.stderr).contains("coordination unavailable") {
        "failed open"
    } else {
        "allowed"
    };
    (d, answer)
}

fn store_file(data: &Path, ws: &Path) -> PathBuf {
    let desc = workspace::discover(ws, &Env::new()).unwrap();
    paths::store_file(data, &desc.id)
}

/// Replaces the store with `template` (and drops any WAL), so a run starts from it.
fn restore(store: &Path, template: &Path) {
    for suffix in ["-wal", "-shm"] {
        let mut p = store.as_os_str().to_owned();
        p.push(suffix);
        let _ = std::fs::remove_file(PathBuf::from(p));
    }
    std::fs::copy(template, store).unwrap();
}

/// With `ACC_BENCH_DIR`, the payloads of every case go to `<dir>/payloads/` so one process
/// can be profiled by hand (see docs/PERFORMANCE.md).
fn keep_payloads(kept: Option<&Path>, payloads: &[(&str, &[u8])]) {
    let Some(dir) = kept.map(|d| d.join("payloads")) else {
        return;
    };
    std::fs::create_dir_all(&dir).unwrap();
    for (name, bytes) in payloads {
        std::fs::write(dir.join(format!("{name}.json")), bytes).unwrap();
    }
}

fn main() {
    let tmp = tempfile::tempdir().unwrap();
    let kept = std::env::var_os("ACC_BENCH_DIR").map(PathBuf::from);
    let base = kept.clone().unwrap_or_else(|| tmp.path().to_path_buf());
    let data = base.join("data");
    let ws = base.join("project");
    // Discovery reads .git files directly; a HEAD is all it needs.
    std::fs::create_dir_all(ws.join(".git")).unwrap();
    std::fs::write(ws.join(".git/HEAD"), "ref: refs/heads/main\n").unwrap();
    let ws = ws.canonicalize().unwrap();

    let start = payload(
        &ws,
        CONVERSATION,
        "SessionStart",
        serde_json::json!({"source": "startup"}),
    );
    hook(&data, "SessionStart", &start, &[]);

    let mut core = open(&data, &ws);
    let key = acc_runtime::core::bindings::binding_key(CONVERSATION);
    let bound = core
        .binding(&key)
        .unwrap()
        .expect("SessionStart bound the conversation");
    let me = core
        .session(&bound.session_id)
        .unwrap()
        .unwrap()
        .participant_id;
    // Pin the conversation to a client older than any evidence, so next-turn delivery is
    // decided by the recorder's candidate alone, whatever evidence the adapter ships.
    let owner = Owner::new(bound.session_id.clone(), bound.generation.clone());
    core.put_binding(&key, &owner, &bound.client_name, Some("0.0.1"), None)
        .unwrap();
    let mut req = OpenSession::new(ParticipantId::parse("peer").unwrap(), "bench", 60_000);
    req.enforcement = Enforcement::Guarded;
    let s = core.open_session(req).unwrap();
    let peer = Owner::new(s.session_id, s.generation);
    for i in 0..CLAIMS {
        let mut req =
            ClaimRequest::new(Resource::parse(&format!("file:src/module_{i:03}/**")).unwrap());
        req.enforcement = Enforcement::Guarded;
        core.claim(&peer, req).unwrap();
    }
    for i in 0..MESSAGES {
        core.send(
            &peer,
            SendMessage {
                to: vec![me.to_string()],
                kind: MessageKind::Note,
                obligation: None,
                subject: format!("message {i} about module {}", i % CLAIMS),
                body: "a body of a realistic length, ".repeat(8),
                client_message_id: None,
            },
        )
        .unwrap();
    }
    drop(core);
    let store = store_file(&data, &ws);
    let template = base.join("template.db");
    std::fs::copy(&store, &template).unwrap();
    println!("populated {CLAIMS} guarded claims and {MESSAGES} queued messages");

    let write = |path: &str| {
        payload(
            &ws,
            CONVERSATION,
            "PreToolUse",
            serde_json::json!({
                "tool_name": "Write",
                "tool_input": {"file_path": ws.join(path).display().to_string(), "content": "x\n"},
                "tool_use_id": "toolu_bench",
            }),
        )
    };
    let covered = write("src/module_199/new_file.rs");
    let (_, out) = hook(&data, "PreToolUse", &covered, &[]);
    assert!(
        out.contains("\"deny\""),
        "the covered write is denied: {out}"
    );
    let deny: Vec<Sample> = (0..RUNS)
        .map(|_| hook(&data, "PreToolUse", &covered, &[]).0)
        .collect();
    let free = write("docs/notes.md");
    let allow: Vec<Sample> = (0..RUNS)
        .map(|_| hook(&data, "PreToolUse", &free, &[]).0)
        .collect();

    let bash = |command: &str| {
        payload(
            &ws,
            CONVERSATION,
            "PreToolUse",
            serde_json::json!({
                "tool_name": "Bash",
                "tool_input": {"command": command},
                "tool_use_id": "toolu_bench",
            }),
        )
    };
    let readable = bash(READABLE);
    let (_, out) = hook(&data, "PreToolUse", &readable, &[]);
    assert!(
        !out.contains("\"deny\""),
        "the readable command is allowed: {out}"
    );
    let shell: Vec<Sample> = (0..RUNS)
        .map(|_| hook(&data, "PreToolUse", &readable, &[]).0)
        .collect();
    let padding: Vec<String> = (0..HUGE_TARGETS).map(|i| format!("pad_{i:05}")).collect();
    let huge = bash(&format!("mv {} docs/ ; rm -rf src", padding.join(" ")));
    let huge: Vec<(Sample, &'static str)> = (0..HUGE_RUNS).map(|_| verdict(&data, &huge)).collect();

    let turn = payload(
        &ws,
        CONVERSATION,
        "UserPromptSubmit",
        serde_json::json!({"prompt": "go"}),
    );
    let (_, out) = hook(&data, "UserPromptSubmit", &turn, &[]);
    assert!(
        out.contains("withheld"),
        "no evidence: bodies withheld: {out}"
    );
    let withheld: Vec<Sample> = (0..RUNS)
        .map(|_| hook(&data, "UserPromptSubmit", &turn, &[]).0)
        .collect();
    let candidates = [("ACC_CERTIFY_CANDIDATES", "delivery.nextTurn")];
    let delivered: Vec<Sample> = (0..RUNS)
        .map(|_| {
            restore(&store, &template);
            let (d, out) = hook(&data, "UserPromptSubmit", &turn, &candidates);
            assert!(out.contains("acc-peer-message"), "bodies shown: {out}");
            d
        })
        .collect();

    let fresh_start = payload(
        &ws,
        "profile-start",
        "SessionStart",
        serde_json::json!({"source": "startup"}),
    );
    keep_payloads(
        kept.as_deref(),
        &[
            ("deny", &covered),
            ("allow", &free),
            ("shell", &readable),
            ("turn", &turn),
            ("start", &fresh_start),
        ],
    );

    let starts: Vec<Sample> = (0..RUNS)
        .map(|i| {
            let p = payload(
                &ws,
                &format!("fresh-{i}"),
                "SessionStart",
                serde_json::json!({"source": "startup"}),
            );
            hook(&data, "SessionStart", &p, &[]).0
        })
        .collect();

    let baseline: Vec<Sample> = (0..RUNS)
        .map(|_| {
            let cpu = children_cpu();
            let t = Instant::now();
            let out = Command::new(env!("CARGO_BIN_EXE_acc-hook"))
                .arg("--version")
                .env_clear()
                .output()
                .unwrap();
            assert!(out.status.success());
            Sample {
                wall: t.elapsed(),
                cpu: children_cpu() - cpu,
            }
        })
        .collect();

    if kept.is_some() {
        // Leave the kept store as populated, without the conversations the starts added.
        restore(&store, &template);
    }

    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    println!(
        "load average at the end: {}",
        load.split_whitespace()
            .take(3)
            .collect::<Vec<_>>()
            .join(" ")
    );
    println!("| measurement | median wall | median CPU |");
    println!("|---|---|---|");
    println!(
        "| `acc-hook --version` (process start, no work) | {} |",
        medians(&baseline)
    );
    println!(
        "| `PreToolUse`, covered by one of {CLAIMS} guarded claims (deny) | {} |",
        medians(&deny)
    );
    println!(
        "| `PreToolUse`, not covered (allow) | {} |",
        medians(&allow)
    );
    println!(
        "| `PreToolUse` Bash, a readable command naming no claimed path (allow) | {} |",
        medians(&shell)
    );
    let answers: Vec<&str> = huge.iter().map(|(_, a)| *a).collect();
    let huge: Vec<Sample> = huge.into_iter().map(|(s, _)| s).collect();
    println!(
        "| `PreToolUse` Bash, `mv` of {HUGE_TARGETS} names then `rm -rf src` ({}) | {} |",
        answers.join(", "),
        medians(&huge)
    );
    println!(
        "| `UserPromptSubmit`, {MESSAGES} queued, bodies withheld | {} |",
        medians(&withheld)
    );
    println!(
        "| `UserPromptSubmit`, {MESSAGES} queued, bodies delivered and offered | {} |",
        medians(&delivered)
    );
    println!(
        "| `SessionStart` of a new conversation | {} |",
        medians(&starts)
    );
}
