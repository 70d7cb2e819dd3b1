//! The hook runtime's benchmark (not a timed test): medians of whole `acc-hook` processes
//! as Claude Code runs them, against a populated store.
//!
//! Every case runs against two populations, 200 live guarded claims of a peer with 1,000
//! queued notes and 10,000 of each, and the table gives both and their ratio: an answer
//! that grows with the claims or the queue shows there. Each measured process follows an
//! `acc-hook --version` of its own, and the "CPU / floor" column is the median of those
//! pairs' ratios (the "within 1.5x of the floor"), steadier than one median over
//! another taken minutes apart.
//!
//! - `PreToolUse` guard: a covered write (deny), an uncovered one (allow), these two and
//!   the readable shell call with the heartbeat due (the first call after 30 s: answered
//!   from the snapshot, the heartbeat written by the writer it starts and does not wait
//!   for), two
//!   readable shell commands naming no claimed path (allow), and a `mv` of 60,000 names
//!   followed by `rm -rf src` (three runs; denied, or failed open when the budget runs
//!   out);
//! - `UserPromptSubmit` with the queued notes (questions would each add an urgent
//!   attention line that the projector shows before bodies), for a Claude Code older than
//!   any evidence: bodies withheld (a run changes only the heartbeat), and the same under
//!   `ACC_CERTIFY_CANDIDATES=delivery.nextTurn`: bodies rendered and offers committed (the
//!   store is restored before every run, outside the timing, so each run sees the whole
//!   queue);
//! - `SessionStart` of a new conversation (client probe, open, bind).
//!
//! The heartbeat-due rows are measured in pairs with their steady call (issue 30: the due
//! call within 1 ms of the steady one): due, steady, steady, due, ... in one loop, each
//! with its own floor run, the order swapped every pair. The due call's marker is set back
//! a minute outside the timing (as a 30 s pause leaves it: the file is there, its time
//! old) and the session's heartbeat with it, and the bench waits, outside the timing, for
//! the writer to land the heartbeat before the next call. The table after the main one
//! gives, per call, the median of the pairs' differences (wall and CPU) and each side's
//! CPU over its floor; it replaces the eleventh round's differences of two medians, taken
//! minutes apart against different floors. The steady rows of the main table are measured
//! as before, in runs of their own.
//!
//! Run with `cargo bench -p acc-runtime --bench hook_bench`. Results belong in
//! docs/PERFORMANCE.md ("Hook runtime"). With `ACC_BENCH_DIR=<dir>` the populated stores
//! (left as populated: the small one in `<dir>`, the large one in `<dir>/large`), their
//! copies `template.db` and each case's payload
//! (`payloads/{deny,allow,reads,post,shell,turn,start}.json`) are kept for profiling one process.
//! `ACC_BENCH_POPULATION=small` or `large` runs one population only; with
//! `ACC_BENCH_POPULATE_ONLY=1` the stores are populated and kept, and nothing is measured.
//! With `ACC_BENCH_SERVE=1` every hook runs with `ACC_SERVE=1` (handed to the resident
//! `acc-hook serve`, which the first call starts) and each call's CPU includes the server's
//! share of the request (`support/served.rs`: its process less its background thread); a
//! second table splits each row into client, request and the server's whole process, and
//! the idle server's background is printed per second. The floor stays a bare
//! `acc-hook --version`. Served, the delivering
//! turn's store is not restored between runs (each run offers the next page of the queue).
//! `ACC_BENCH_HOOK=<binary>` measures another build's `acc-hook` (the calls and the floor,
//! so a before/after pair runs alternately in the same bench; the server `ACC_BENCH_SERVE=1`
//! starts stays the compiled-in binary).
//! `<dir>/data-template` (and `<dir>/large/data-template`) is the whole data home as
//! populated, to restore before profiling a process (see docs/PERFORMANCE.md). The last
//! lines say how many functions of the hot-code list (runtime/link/acc-hook.order) the
//! measured `acc-hook` still defines and whether it follows the list: a stale list costs
//! page faults (runtime/link/README.md).

use acc_runtime::core::claims::ClaimRequest;
use acc_runtime::core::messages::SendMessage;
use acc_runtime::core::model::{Enforcement, MessageKind};
use acc_runtime::core::refusal_spool;
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

#[path = "support/hot_list.rs"]
mod hot_list;
#[path = "support/served.rs"]
mod served;

/// The populations measured: the everyday one and the one the answers must stay flat to
/// (issue 30: the large figure within 1.25x of the small one).
const POPULATIONS: [Population; 2] = [
    Population {
        name: "small",
        claims: 200,
        messages: 1_000,
    },
    Population {
        name: "large",
        claims: 10_000,
        messages: 10_000,
    },
];
const RUNS: usize = 60;
const STEADY_DENY: &str = "`PreToolUse`, covered by a guarded claim (deny)";
const STEADY_ALLOW: &str = "`PreToolUse`, not covered (allow)";
/// A row's name with the heartbeat due: the same call, the first after 30 s.
const DUE: &str = ", heartbeat due (starts its writer)";

fn steady_reads() -> String {
    format!("`PreToolUse` Bash, `{READS}` (allow)")
}
const CONVERSATION: &str = "5b0c6f2e-0000-4000-8000-00000000bench";
/// The readable shell call: it names no path it writes.
const READS: &str = "cat src/lib.rs | grep -c x";
/// A shell command the reader reads whole, naming no claimed path.
const READABLE: &str = "cargo fmt --all --check && cargo test -p acc-runtime 2>&1 | tee docs/test.log \
    && cp README.md docs/README.copy && mkdir -p build && echo done > build/stamp";
/// Targets of the command too large to judge (a `mv` of padding names).
const HUGE_TARGETS: usize = 60_000;
const HUGE_RUNS: usize = 3;

/// The `acc-hook` measured: `ACC_BENCH_HOOK`, else the one built with this bench.
fn hook_exe() -> PathBuf {
    std::env::var_os("ACC_BENCH_HOOK")
        .map(PathBuf::from)
        .unwrap_or_else(|| env!("CARGO_BIN_EXE_acc-hook").into())
}

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

/// Wall time and CPU time of one process (served: with the server's share of the call),
/// and the CPU of the floor (`acc-hook --version`) run just before it: on a host whose
/// process start moves by a third from minute to minute, only a ratio taken pair by pair
/// says how far a call is from the floor.
#[derive(Clone, Copy)]
struct Sample {
    wall: Duration,
    /// The client's CPU plus the server's for the request (`server.request`).
    cpu: Duration,
    /// The client process's own.
    client: Duration,
    server: served::Share,
    floor: Duration,
}

impl Sample {
    /// A process nothing serves.
    fn alone(wall: Duration, cpu: Duration, floor: Duration) -> Sample {
        Sample {
            wall,
            cpu,
            client: cpu,
            server: served::Share::default(),
            floor,
        }
    }

    fn served(wall: Duration, client: Duration, server: served::Share, floor: Duration) -> Sample {
        Sample {
            wall,
            cpu: client + server.request,
            client,
            server,
            floor,
        }
    }
}

/// One `acc-hook --version`, the process floor: its wall time and CPU.
fn floor_run() -> (Duration, Duration) {
    let cpu = children_cpu();
    let t = Instant::now();
    let out = Command::new(hook_exe())
        .arg("--version")
        .env_clear()
        .output()
        .unwrap();
    assert!(out.status.success());
    (t.elapsed(), children_cpu() - cpu)
}

fn floor_cpu() -> Duration {
    floor_run().1
}

/// The median of each call's CPU over the floor's just before it.
fn paired_ratio(samples: &[Sample]) -> f64 {
    let mut ratios: Vec<f64> = samples
        .iter()
        .map(|s| s.cpu.as_secs_f64() / s.floor.as_secs_f64().max(1e-6))
        .collect();
    ratios.sort_by(f64::total_cmp);
    ratios[ratios.len() / 2]
}

fn medians(samples: &[Sample]) -> String {
    let wall = median(samples.iter().map(|s| s.wall).collect());
    let cpu = median(samples.iter().map(|s| s.cpu).collect());
    format!("{} | {} | {:.2}x", ms(wall), ms(cpu), paired_ratio(samples))
}

/// One whole `acc-hook claude-code <event>` process; returns its times and stdout.
fn hook(data: &Path, event: &str, stdin: &[u8], env: &[(&str, &str)]) -> (Sample, String) {
    let mut c = Command::new(hook_exe());
    c.env_clear()
        .env("ACC_DATA_HOME", data)
        .envs(served::client_env().iter().copied())
        .envs(env.iter().copied())
        .args(["claude-code", event])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let floor = floor_cpu();
    let server = served::mark(data);
    let cpu = children_cpu();
    let t = Instant::now();
    let mut child = c.spawn().unwrap();
    child.stdin.take().unwrap().write_all(stdin).unwrap();
    let out = child.wait_with_output().unwrap();
    let wall = t.elapsed();
    let cpu = children_cpu() - cpu;
    let d = Sample::served(wall, cpu, served::since(&server), floor);
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
    let mut c = Command::new(hook_exe());
    c.env_clear()
        .env("ACC_DATA_HOME", data)
        .envs(served::client_env().iter().copied())
        .args(["claude-code", "PreToolUse"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let floor = floor_cpu();
    let server = served::mark(data);
    let cpu = children_cpu();
    let t = Instant::now();
    let mut child = c.spawn().unwrap();
    child.stdin.take().unwrap().write_all(stdin).unwrap();
    let out = child.wait_with_output().unwrap();
    let wall = t.elapsed();
    let cpu = children_cpu() - cpu;
    let d = Sample::served(wall, cpu, served::since(&server), floor);
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

/// Makes the conversation's heartbeat due, as 30 s without a hook call leave it: the
/// session's last heartbeat a minute ago and the guard's marker (its modification time)
/// set back to it; the marker stays, as after a pause. Returns that minute ago (ms).
fn age_heartbeat(data: &Path, store: &Path, session: &str, key: &str) -> i64 {
    let conn = rusqlite::Connection::open(store).unwrap();
    let ago = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64
        - 60_000;
    conn.execute(
        "UPDATE sessions SET heartbeat_at = ?2 WHERE session_id = ?1",
        rusqlite::params![session, ago],
    )
    .unwrap();
    let marker = data.join("acc").join("heartbeats").join(key);
    std::fs::File::open(&marker)
        .and_then(|f| f.set_modified(std::time::UNIX_EPOCH + Duration::from_millis(ago as u64)))
        .unwrap_or_else(|e| panic!("the marker {} set back: {e}", marker.display()));
    ago
}

/// Waits, outside the timing, for the heartbeat a due call left to its writer: due calls
/// come 30 s apart, so the next one never runs beside the last one's writer (which would
/// share the two processors with it, and hold the deny spool while it takes it in).
fn await_beat(store: &Path, session: &str, aged: i64) {
    let conn = rusqlite::Connection::open(store).unwrap();
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let at: i64 = conn
            .query_row(
                "SELECT heartbeat_at FROM sessions WHERE session_id = ?1",
                [session],
                |r| r.get(0),
            )
            .unwrap();
        if at > aged {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the deferred heartbeat was not written within 20 s"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    // The writer closes the store after its write.
    std::thread::sleep(Duration::from_millis(30));
}

/// A population that outlived the heartbeat (30 s, on a loaded host) makes the first call
/// start the heartbeat's writer and not wait for it; that writer opens the store, which takes
/// in the deny spool. One allow, then the marker awaited, so that no open is pending while
/// the steady-state rows run.
fn settle_heartbeat(data: &Path, key: &str, allow: &[u8]) {
    hook(data, "PreToolUse", allow, &[]);
    let marker = data.join("acc").join("heartbeats").join(key);
    let deadline = Instant::now() + Duration::from_secs(20);
    while !marker.exists() {
        assert!(
            Instant::now() < deadline,
            "the heartbeat marker {} was not written within 20 s",
            marker.display()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    // The writer may still hold the store after touching the marker.
    std::thread::sleep(Duration::from_millis(500));
}

fn store_file(data: &Path, ws: &Path) -> PathBuf {
    let desc = workspace::discover(ws, &Env::new()).unwrap();
    paths::store_file(data, &desc.id)
}

/// Replaces the store with `template` (and drops any WAL), so a run starts from it. A
/// served bench's server may hold the store open: the template is copied in through
/// SQLite's backup, as a writer would, so the server's connection reads the change.
fn restore(store: &Path, template: &Path) {
    if served::on() {
        backup_into(store, template);
        return;
    }
    for suffix in ["-wal", "-shm"] {
        let mut p = store.as_os_str().to_owned();
        p.push(suffix);
        let _ = std::fs::remove_file(PathBuf::from(p));
    }
    std::fs::copy(template, store).unwrap();
    // Written back before the run: otherwise the turn's checkpoint, which syncs the file,
    // pays for writing out every page the copy dirtied (a 10,000-message store's whole file).
    std::fs::File::open(store).unwrap().sync_all().unwrap();
}

/// Copies every page of `template` into `store` through SQLite's online backup (the
/// `backup` feature is not enabled for the workspace, so through the C interface).
fn backup_into(store: &Path, template: &Path) {
    use rusqlite::ffi;
    let dst = rusqlite::Connection::open(store).unwrap();
    let src =
        rusqlite::Connection::open_with_flags(template, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
            .unwrap();
    let main = c"main";
    // SAFETY: both handles stay open for the whole backup, which is finished before either
    // connection is dropped.
    unsafe {
        let b = ffi::sqlite3_backup_init(dst.handle(), main.as_ptr(), src.handle(), main.as_ptr());
        assert!(
            !b.is_null(),
            "backup of {} could not start",
            template.display()
        );
        let mut rc = ffi::SQLITE_BUSY;
        while rc == ffi::SQLITE_BUSY || rc == ffi::SQLITE_LOCKED || rc == ffi::SQLITE_OK {
            rc = ffi::sqlite3_backup_step(b, -1);
            if rc == ffi::SQLITE_BUSY || rc == ffi::SQLITE_LOCKED {
                std::thread::sleep(Duration::from_millis(1));
            }
        }
        assert_eq!(rc, ffi::SQLITE_DONE, "backup into {}", store.display());
        assert_eq!(ffi::sqlite3_backup_finish(b), ffi::SQLITE_OK);
    }
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

/// A call measured heartbeat-due and steady alternately: `due[i]` and `steady[i]` ran one
/// after the other.
struct Pair {
    steady_name: String,
    due: Vec<Sample>,
    steady: Vec<Sample>,
}

struct Population {
    name: &'static str,
    claims: usize,
    messages: usize,
}

/// One population's medians, by case, in the order printed.
struct Measured {
    rows: Vec<(String, Vec<Sample>)>,
    /// Each heartbeat-due call with the steady calls it was paired with.
    pairs: Vec<Pair>,
    huge_answers: Vec<&'static str>,
    /// Served: the idle server's CPU per second (its checks, sweep and reaper).
    background: Option<Duration>,
}

fn main() {
    let tmp = tempfile::tempdir().unwrap();
    let kept = std::env::var_os("ACC_BENCH_DIR").map(PathBuf::from);
    let only = std::env::var("ACC_BENCH_POPULATION").ok();
    let mut measured = Vec::new();
    for population in POPULATIONS
        .iter()
        .filter(|p| only.as_deref().is_none_or(|o| o == p.name))
    {
        let base = kept.clone().unwrap_or_else(|| tmp.path().to_path_buf());
        let base = match population.name {
            "small" => base,
            other => base.join(other),
        };
        measured.push((population, measure(population, &base, kept.is_some())));
    }

    if measured.iter().all(|(_, m)| m.rows.is_empty()) {
        return;
    }
    println!("{}", hot_list::report("acc-hook", &hook_exe()));
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    println!(
        "load average at the end: {}",
        load.split_whitespace()
            .take(3)
            .collect::<Vec<_>>()
            .join(" ")
    );
    let header: Vec<String> = measured
        .iter()
        .map(|(p, _)| {
            let at = format!("{} claims, {} queued", p.claims, p.messages);
            format!("{at}, wall | {at}, CPU | {at}, CPU / floor (paired)")
        })
        .collect();
    let ratio = measured.len() == 2;
    println!(
        "| measurement | {}{} |",
        header.join(" | "),
        if ratio { " | large / small (CPU)" } else { "" }
    );
    println!(
        "|---|{}{}",
        "---|".repeat(3 * measured.len()),
        if ratio { "---|" } else { "" }
    );
    for (i, (name, _)) in measured[0].1.rows.iter().enumerate() {
        let cells: Vec<String> = measured
            .iter()
            .map(|(_, m)| medians(&m.rows[i].1))
            .collect();
        let mut line = format!("| {name} | {} |", cells.join(" | "));
        if ratio {
            let cpu =
                |m: &Measured| median(m.rows[i].1.iter().map(|s| s.cpu).collect()).as_secs_f64();
            line.push_str(&format!(
                " {:.2}x |",
                cpu(&measured[1].1) / cpu(&measured[0].1)
            ));
        }
        println!("{line}");
    }
    beat_table(&measured);
    if served::on() {
        served_table(&measured);
    }
    for (p, m) in &measured {
        println!(
            "{} claims: the `mv` of {HUGE_TARGETS} names then `rm -rf src` was {}",
            p.claims,
            m.huge_answers.join(", ")
        );
    }
}

/// Each heartbeat-due call over the steady call it was paired with (issue 30: within
/// 1 ms): the median of the pairs' differences of wall time and of CPU, how many pairs of
/// wall time differ by more than 1 ms, and each side's CPU over its own floor (paired, as
/// in the main table): what starting the writer costs the call the client waits for.
fn beat_table(measured: &[(&Population, Measured)]) {
    let header: Vec<String> = measured
        .iter()
        .map(|(p, _)| {
            format!(
                "{} claims: wall | CPU | pairs over 1 ms (wall) | CPU / floor, due, steady",
                p.claims
            )
        })
        .collect();
    println!(
        "heartbeat due over steady, medians of paired differences: | call | {} |",
        header.join(" | ")
    );
    println!("|---|{}", "---|".repeat(4 * measured.len()));
    for (i, pair) in measured[0].1.pairs.iter().enumerate() {
        let cells: Vec<String> = measured
            .iter()
            .map(|(_, m)| {
                let p = &m.pairs[i];
                let differences = |f: fn(&Sample) -> Duration| -> Vec<f64> {
                    p.due
                        .iter()
                        .zip(&p.steady)
                        .map(|(d, s)| (f(d).as_secs_f64() - f(s).as_secs_f64()) * 1e3)
                        .collect()
                };
                let wall = differences(|s| s.wall);
                let over = wall.iter().filter(|d| **d > 1.0).count();
                format!(
                    "{:+.2} ms | {:+.2} ms | {over} of {} | {:.2}x, {:.2}x",
                    median_of(wall.clone()),
                    median_of(differences(|s| s.cpu)),
                    wall.len(),
                    paired_ratio(&p.due),
                    paired_ratio(&p.steady)
                )
            })
            .collect();
        println!("| {} | {} |", pair.steady_name, cells.join(" | "));
    }
}

fn median_of(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[xs.len() / 2]
}

/// Served, each row's CPU split: the client, the server's share of the request (its whole
/// process less its background thread, which the CPU column above counts) and the server's
/// whole process over the call (background included, as earlier rounds counted it); then
/// the background alone, per second of an idle server.
fn served_table(measured: &[(&Population, Measured)]) {
    let header: Vec<String> = measured
        .iter()
        .map(|(p, _)| {
            let at = format!("{} claims", p.claims);
            format!(
                "{at}: client | server, the request | server, whole process | server, background"
            )
        })
        .collect();
    println!(
        "served CPU medians, split: | measurement | {} |",
        header.join(" | ")
    );
    println!("|---|{}", "---|".repeat(4 * measured.len()));
    let col = |samples: &[Sample], f: fn(&Sample) -> Duration| {
        ms(median(samples.iter().map(f).collect()))
    };
    for (i, (name, _)) in measured[0].1.rows.iter().enumerate() {
        let cells: Vec<String> = measured
            .iter()
            .map(|(_, m)| {
                let s = &m.rows[i].1;
                format!(
                    "{} | {} | {} | {}",
                    col(s, |s| s.client),
                    col(s, |s| s.server.request),
                    col(s, |s| s.server.whole),
                    col(s, |s| s.server.background)
                )
            })
            .collect();
        println!("| {name} | {} |", cells.join(" | "));
    }
    for (p, m) in measured {
        if let Some(b) = m.background {
            println!(
                "{} claims: the idle server's background (checks, sweep, reaper) {:.3} ms CPU per second",
                p.claims,
                b.as_secs_f64() * 1000.0
            );
        }
    }
}

fn measure(population: &Population, base: &Path, keep: bool) -> Measured {
    let (claims, messages) = (population.claims, population.messages);
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
    // One publication for all the claims (each claim alone would rewrite the snapshot).
    core.deferring_publication(|core| {
        for i in 0..claims {
            let mut req =
                ClaimRequest::new(Resource::parse(&format!("file:src/module_{i:05}/**")).unwrap());
            req.enforcement = Enforcement::Guarded;
            core.claim(&peer, req).unwrap();
        }
    });
    for i in 0..messages {
        core.send(
            &peer,
            SendMessage {
                to: vec![me.to_string()],
                kind: MessageKind::Note,
                obligation: None,
                subject: format!("message {i} about module {}", i % claims),
                body: "a body of a realistic length, ".repeat(8),
                client_message_id: None,
            },
        )
        .unwrap();
    }
    drop(core);
    let store = store_file(&data, &ws);
    let template = base.join("template.db");
    if served::on() {
        // The server may hold the store open: read it through SQLite, not as bytes.
        let _ = std::fs::remove_file(&template);
        backup_into(&template, &store);
    } else {
        std::fs::copy(&store, &template).unwrap();
    }
    println!("populated {claims} guarded claims and {messages} queued messages");
    if keep {
        // The whole data home as the population left it: the store with the snapshot and
        // token it published (a store copied back alone is one acc no longer vouches for,
        // and every open of it compares every claim until the next publication).
        let copy = base.join("data-template");
        let _ = std::fs::remove_dir_all(&copy);
        let copied = Command::new("cp")
            .arg("-a")
            .arg(&data)
            .arg(&copy)
            .status()
            .unwrap();
        assert!(copied.success(), "cp -a {}", data.display());
    }
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
    let covered = write(&format!("src/module_{:05}/new_file.rs", claims - 1));
    let free = write("docs/notes.md");
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
    let reads = bash(READS);
    let readable = bash(READABLE);
    let after_reads = payload(
        &ws,
        CONVERSATION,
        "PostToolUse",
        serde_json::json!({
            "tool_name": "Bash",
            "tool_input": {"command": READS},
            "tool_response": {"stdout": "3", "stderr": "", "interrupted": false},
            "tool_use_id": "toolu_bench",
        }),
    );
    let turn = payload(
        &ws,
        CONVERSATION,
        "UserPromptSubmit",
        serde_json::json!({"prompt": "go"}),
    );
    let fresh_start = payload(
        &ws,
        "profile-start",
        "SessionStart",
        serde_json::json!({"source": "startup"}),
    );
    if keep {
        keep_payloads(
            Some(base),
            &[
                ("deny", &covered),
                ("allow", &free),
                ("reads", &reads),
                ("post", &after_reads),
                ("shell", &readable),
                ("turn", &turn),
                ("start", &fresh_start),
            ],
        );
    }
    if std::env::var_os("ACC_BENCH_POPULATE_ONLY").is_some() {
        return Measured {
            rows: Vec::new(),
            pairs: Vec::new(),
            huge_answers: Vec::new(),
            background: None,
        };
    }

    let mut rows: Vec<(String, Vec<Sample>)> = Vec::new();
    // Served: the first served call started the server; the rows measure warm ones.
    hook(&data, "PreToolUse", &free, &[]);
    served::await_server(&data);
    settle_heartbeat(&data, &key, &free);
    let (_, out) = hook(&data, "PreToolUse", &covered, &[]);
    assert!(
        out.contains("\"deny\""),
        "the covered write is denied: {out}"
    );
    rows.push((
        STEADY_DENY.into(),
        (0..RUNS)
            .map(|_| hook(&data, "PreToolUse", &covered, &[]).0)
            .collect(),
    ));
    // Answered from the snapshot: the events wait in the spool for the next open.
    assert!(
        refusal_spool::path_for(&store).exists(),
        "the deny is answered without the store"
    );
    rows.push((
        STEADY_ALLOW.into(),
        (0..RUNS)
            .map(|_| hook(&data, "PreToolUse", &free, &[]).0)
            .collect(),
    ));
    // Every call the snapshot answers may be the one whose heartbeat is due: it answers,
    // then starts the heartbeat's writer and does not wait for it. Each due call is paired
    // with a steady one of the same kind, in one loop, the order swapped every pair.
    let paired = |call: &[u8]| -> (Vec<Sample>, Vec<Sample>) {
        let session = bound.session_id.as_str();
        let due_one = || {
            let aged = age_heartbeat(&data, &store, session, &key);
            let sample = hook(&data, "PreToolUse", call, &[]).0;
            await_beat(&store, session, aged);
            sample
        };
        let steady_one = || hook(&data, "PreToolUse", call, &[]).0;
        (0..RUNS)
            .map(|i| {
                if i % 2 == 0 {
                    let due = due_one();
                    (due, steady_one())
                } else {
                    let steady = steady_one();
                    (due_one(), steady)
                }
            })
            .unzip()
    };
    let mut pairs = Vec::new();
    for (steady_name, call) in [
        (STEADY_ALLOW.to_string(), &free),
        (STEADY_DENY.to_string(), &covered),
        (steady_reads(), &reads),
    ] {
        let (due, steady) = paired(call);
        rows.push((format!("{steady_name}{DUE}"), due.clone()));
        pairs.push(Pair {
            steady_name,
            due,
            steady,
        });
    }

    for (name, call) in [(READS, &reads), (READABLE, &readable)] {
        let (_, out) = hook(&data, "PreToolUse", call, &[]);
        assert!(!out.contains("\"deny\""), "`{name}` is allowed: {out}");
    }
    rows.push((
        steady_reads(),
        (0..RUNS)
            .map(|_| hook(&data, "PreToolUse", &reads, &[]).0)
            .collect(),
    ));
    rows.push((
        format!("`PostToolUse` after `{READS}`"),
        (0..RUNS)
            .map(|_| {
                hook(&data, "PreToolUse", &reads, &[]);
                hook(&data, "PostToolUse", &after_reads, &[]).0
            })
            .collect(),
    ));
    rows.push((
        "`PreToolUse` Bash, a longer readable command naming no claimed path (allow)".into(),
        (0..RUNS)
            .map(|_| hook(&data, "PreToolUse", &readable, &[]).0)
            .collect(),
    ));
    let padding: Vec<String> = (0..HUGE_TARGETS).map(|i| format!("pad_{i:05}")).collect();
    let huge = bash(&format!("mv {} docs/ ; rm -rf src", padding.join(" ")));
    let huge: Vec<(Sample, &'static str)> = (0..HUGE_RUNS).map(|_| verdict(&data, &huge)).collect();
    let huge_answers: Vec<&str> = huge.iter().map(|(_, a)| *a).collect();
    rows.push((
        format!("`PreToolUse` Bash, `mv` of {HUGE_TARGETS} names then `rm -rf src`"),
        huge.into_iter().map(|(s, _)| s).collect(),
    ));

    let (_, out) = hook(&data, "UserPromptSubmit", &turn, &[]);
    assert!(
        out.contains("withheld"),
        "no evidence: bodies withheld: {out}"
    );
    rows.push((
        "`UserPromptSubmit`, bodies withheld".into(),
        (0..RUNS)
            .map(|_| hook(&data, "UserPromptSubmit", &turn, &[]).0)
            .collect(),
    ));
    let candidates = [("ACC_CERTIFY_CANDIDATES", "delivery.nextTurn")];
    rows.push((
        "`UserPromptSubmit`, bodies delivered and offered".into(),
        (0..RUNS)
            .map(|_| {
                // Served, the queue is not put back: a restore is another program's write
                // of every page, which the server's next hand-back would checkpoint whole
                // (counted against the turn). The runs offer 11 each, so the queue (1,000
                // or 10,000) still holds a full page at the last run.
                if !served::on() {
                    restore(&store, &template);
                }
                let (d, out) = hook(&data, "UserPromptSubmit", &turn, &candidates);
                assert!(out.contains("acc-peer-message"), "bodies shown: {out}");
                d
            })
            .collect(),
    ));

    rows.push((
        "`SessionStart` of a new conversation".into(),
        (0..RUNS)
            .map(|i| {
                let p = payload(
                    &ws,
                    &format!("fresh-{i}"),
                    "SessionStart",
                    serde_json::json!({"source": "startup"}),
                );
                hook(&data, "SessionStart", &p, &[]).0
            })
            .collect(),
    ));

    rows.insert(
        0,
        (
            "`acc-hook --version` (process start, no work)".into(),
            (0..RUNS)
                .map(|_| {
                    let floor = floor_cpu();
                    let (wall, cpu) = floor_run();
                    Sample::alone(wall, cpu, floor)
                })
                .collect(),
        ),
    );

    // Over several sweeps (one every 4 s), with no call.
    let background = served::background(&data, Duration::from_secs(8));
    if keep {
        // Leave the kept store as populated, without the conversations the starts added.
        restore(&store, &template);
    }
    Measured {
        rows,
        pairs,
        huge_answers,
        background,
    }
}
