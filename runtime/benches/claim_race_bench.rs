//! The claim race (issue 30; a benchmark, not a timed test): 8 processes of the release
//! `acc` binary, each acting as its own session, claim the same 100 resources in the same
//! order, round after round, as fast as they can be started. Exactly one claim of each
//! resource may be granted; every other must be refused as a conflict (exit 5).
//!
//! It prints the claims per second (processes finished / wall time) against the spawn
//! limit of this machine: its cores divided by the median time of `acc --version` started
//! the same way (a process that does nothing cannot be started faster), and the number of
//! double grants, read back from the store after the race (it must be 0).
//!
//! Run with `cargo bench -p acc-runtime --bench claim_race_bench`. Results belong in
//! docs/PERFORMANCE.md. `ACC_BENCH_RACERS` and `ACC_BENCH_ROUNDS` change the 8 and the 100;
//! `ACC_BENCH_DIR=<dir>` keeps the store; `ACC_BENCH_ACC=<binary>` races another build of
//! `acc` (a before/after pair run alternately by the same bench). Beside the wall-time rate
//! it prints the CPU time per process (the children's user + system time), which a loaded
//! host does not inflate the way it inflates the wall time, in all and for granted and
//! refused claims apart (each child's own, from `wait4`). With `ACC_BENCH_SERVE=1` the
//! claims run with `ACC_SERVE=1` (handed to the resident `acc-hook serve`, started by a
//! first served claim outside the race) and the server's CPU over the race is added to
//! the CPU per process (`support/served.rs`: the server's whole process, its background
//! thread included); the outcome split stays the clients' own. The server is the
//! `acc-hook` beside the raced `acc` (the one its clients trust), and the bench asks it how
//! many calls it answered before and after the race: every claim must have been served.
//! With `ACC_BENCH_PATHS=1` each claim names how it was judged (`ACC_BENCH_CLAIM_PATH`:
//! refused from the proof at once, after another claim's turn or a withdrawn token, or on
//! the store path and why), and the bench counts them by outcome (an `acc` that does not
//! name its path counts as `unnamed`).

use acc_runtime::core::sessions::OpenSession;
use acc_runtime::env::Env;
use acc_runtime::ids::ParticipantId;
use acc_runtime::store::OpenMode;
use acc_runtime::{Core, Owner, Ports, workspace};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

#[path = "support/served.rs"]
mod served;

const CONFLICT_EXIT: i32 = 5;
const FLOOR_RUNS: usize = 60;

fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// The `acc` raced: `ACC_BENCH_ACC`, else this build's.
fn acc_bin() -> std::path::PathBuf {
    std::env::var_os("ACC_BENCH_ACC")
        .unwrap_or_else(|| env!("CARGO_BIN_EXE_acc").into())
        .into()
}

/// The server that `acc` trusts: the `acc-hook` beside it, of the same build.
fn server_bin() -> std::path::PathBuf {
    acc_bin().with_file_name("acc-hook")
}

fn acc(data: &Path, ws: &Path) -> Command {
    let mut c = Command::new(acc_bin());
    c.env_clear()
        .env("ACC_DATA_HOME", data)
        .envs(served::client_env().iter().copied())
        .arg("--cwd")
        .arg(ws)
        .envs(paths_on().then_some(("ACC_BENCH_CLAIM_PATH", "1")))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    c
}

fn paths_on() -> bool {
    std::env::var("ACC_BENCH_PATHS").is_ok_and(|v| v == "1")
}

/// The path a claim named on stderr (`acc claim path: <name>`).
fn path_of(stderr: &str) -> String {
    stderr
        .lines()
        .find_map(|l| l.strip_prefix("acc claim path: "))
        .unwrap_or("unnamed")
        .to_string()
}

/// User + system CPU time of every child waited for so far.
fn children_cpu() -> Duration {
    // SAFETY: `getrusage` fills the zeroed struct it is given.
    let ru = unsafe {
        let mut ru: libc::rusage = std::mem::zeroed();
        libc::getrusage(libc::RUSAGE_CHILDREN, &mut ru);
        ru
    };
    let tv = |t: libc::timeval| Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1000);
    tv(ru.ru_utime) + tv(ru.ru_stime)
}

fn median(mut xs: Vec<Duration>) -> Duration {
    xs.sort();
    xs[xs.len() / 2]
}

/// What one racer's processes did: claims won and lost, and the CPU time of each kind.
#[derive(Default)]
struct Tally {
    won: usize,
    lost: usize,
    won_cpu: Duration,
    lost_cpu: Duration,
    /// (granted, path) -> processes, with `ACC_BENCH_PATHS=1`.
    paths: std::collections::BTreeMap<(bool, String), usize>,
}

/// Waits for `child` with `wait4`, which gives this one child's CPU time (user + system):
/// the racers' threads wait concurrently, so the process-wide children's total cannot
/// tell a winner's from a loser's.
fn wait_with_cpu(child: std::process::Child) -> (Option<i32>, Duration, String) {
    use std::io::Read;
    let pid = child.id() as libc::pid_t;
    let mut stderr = String::new();
    if let Some(mut e) = child.stderr {
        let _ = e.read_to_string(&mut stderr);
    }
    let mut status = 0;
    // SAFETY: `wait4` fills the zeroed struct and the status it is given; the child is ours
    // and not waited for elsewhere (its `Child` is dropped without waiting).
    let ru = unsafe {
        let mut ru: libc::rusage = std::mem::zeroed();
        assert_eq!(libc::wait4(pid, &mut status, 0, &mut ru), pid, "wait4");
        ru
    };
    let tv = |t: libc::timeval| Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1000);
    let code = libc::WIFEXITED(status).then(|| libc::WEXITSTATUS(status));
    (code, tv(ru.ru_utime) + tv(ru.ru_stime), stderr)
}

/// One racer: claims `file:race/rN.rs` for every round in turn.
fn racer(data: &Path, ws: &Path, owner: &Owner, rounds: usize) -> Tally {
    let mut tally = Tally::default();
    for round in 0..rounds {
        let resource = format!("file:race/r{round:04}.rs");
        let child = acc(data, ws)
            .env("ACC_SESSION", owner.session.as_str())
            .env("ACC_GENERATION", owner.generation.as_str())
            .args(["claim", "--resource", &resource])
            .spawn()
            .expect("acc starts");
        let (code, cpu, stderr) = wait_with_cpu(child);
        if paths_on() {
            *tally
                .paths
                .entry((code == Some(0), path_of(&stderr)))
                .or_default() += 1;
        }
        match code {
            Some(0) => {
                tally.won += 1;
                tally.won_cpu += cpu;
            }
            Some(CONFLICT_EXIT) => {
                tally.lost += 1;
                tally.lost_cpu += cpu;
            }
            other => panic!("acc claim {resource} ended with {other:?}: {stderr}"),
        }
    }
    tally
}

/// One run's figures, for the runs' medians.
struct RunFigures {
    /// Claims per second over the spawn limit.
    of_limit: f64,
    rate: f64,
    /// CPU per race process over the floor's.
    cpu_ratio: f64,
    granted_ms: f64,
    refused_ms: f64,
}

fn main() {
    let racers = env_usize("ACC_BENCH_RACERS", 8);
    let rounds = env_usize("ACC_BENCH_ROUNDS", 100);
    let runs = env_usize("ACC_BENCH_RUNS", 5).max(1);
    let tmp = tempfile::tempdir().unwrap();
    let base = std::env::var_os("ACC_BENCH_DIR")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| tmp.path().to_path_buf());
    let figures: Vec<RunFigures> = (1..=runs)
        .map(|n| {
            if runs > 1 {
                println!("run {n} of {runs}:");
            }
            let dir = if runs > 1 {
                base.join(format!("run-{n}"))
            } else {
                base.clone()
            };
            let f = race(&dir, racers, rounds);
            served::stop_server(&dir.join("data"));
            f
        })
        .collect();
    if runs > 1 {
        let med = |f: fn(&RunFigures) -> f64| {
            let mut xs: Vec<f64> = figures.iter().map(f).collect();
            xs.sort_by(f64::total_cmp);
            (xs[xs.len() / 2], xs[0], xs[xs.len() - 1])
        };
        let (of_limit, lo, hi) = med(|f| f.of_limit);
        let (rate, ..) = med(|f| f.rate);
        let (ratio, rlo, rhi) = med(|f| f.cpu_ratio);
        let (granted, ..) = med(|f| f.granted_ms);
        let (refused, ..) = med(|f| f.refused_ms);
        println!(
            "median of {runs} runs: {rate:.0} claims/s, {:.0}% of the spawn limit ({:.0}-{:.0}%); CPU per process {ratio:.2}x the floor ({rlo:.2}-{rhi:.2}x); granted {granted:.2} ms, refused {refused:.2} ms; 0 double grants in every run",
            100.0 * of_limit,
            100.0 * lo,
            100.0 * hi
        );
    }
}

/// One race on a fresh store under `base`, its floor measured just before it.
fn race(base: &Path, racers: usize, rounds: usize) -> RunFigures {
    let data = base.join("data");
    let ws = base.join("project");
    std::fs::create_dir_all(&ws).unwrap();
    let desc = workspace::discover(&ws, &Env::new()).unwrap();
    let mut core = Core::open(desc, &data, OpenMode::ReadWrite, Ports::system()).unwrap();
    let owners: Vec<Owner> = (0..racers)
        .map(|i| {
            let req = OpenSession::new(
                ParticipantId::parse(&format!("racer-{i}")).unwrap(),
                "bench",
                600_000,
            );
            let s = core.open_session(req).unwrap();
            Owner::new(s.session_id, s.generation)
        })
        .collect();
    drop(core);

    // The floor, started the same way.
    let cpu_before_floor = children_cpu();
    let floor = median(
        (0..FLOOR_RUNS)
            .map(|_| {
                let t = Instant::now();
                let s = acc(&data, &ws).arg("--version").status().unwrap();
                assert!(s.success());
                t.elapsed()
            })
            .collect(),
    );
    let floor_cpu = (children_cpu() - cpu_before_floor) / FLOOR_RUNS as u32;
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let limit = cores as f64 / floor.as_secs_f64();

    if served::on() {
        // A served claim outside the race starts the server; the race measures warm ones.
        let s = acc(&data, &ws)
            .env("ACC_SESSION", owners[0].session.as_str())
            .env("ACC_GENERATION", owners[0].generation.as_str())
            .args(["claim", "--resource", "file:warm-up.rs"])
            .status()
            .unwrap();
        assert!(s.success(), "the warm-up claim");
        served::await_server_of(&data, &server_bin());
    }
    let answered_before = served::answered(&data, &server_bin());
    let server = served::mark(&data);
    let cpu_before_race = children_cpu();
    let started = Instant::now();
    let tally = std::thread::scope(|s| {
        let handles: Vec<_> = owners
            .iter()
            .map(|o| s.spawn(|| racer(&data, &ws, o, rounds)))
            .collect();
        let mut all = Tally::default();
        for h in handles {
            let t = h.join().unwrap();
            all.won += t.won;
            all.lost += t.lost;
            all.won_cpu += t.won_cpu;
            all.lost_cpu += t.lost_cpu;
            for (k, n) in t.paths {
                *all.paths.entry(k).or_default() += n;
            }
        }
        all
    });
    let won = tally.won;
    let wall = started.elapsed();
    let processes = racers * rounds;
    let rate = processes as f64 / wall.as_secs_f64();
    let clients_cpu = children_cpu() - cpu_before_race;
    let server = served::since(&server);
    let answered = served::answered(&data, &server_bin())
        .zip(answered_before)
        .map(|(after, before)| after.saturating_sub(before));
    // The whole process's: its background thread (the warm connections' sweep, the
    // checks) works for the race's claims too.
    let server_cpu = server.whole;
    let claim_cpu = (clients_cpu + server_cpu) / processes as u32;

    // Every resource granted once: read back from the store, not from the exit codes.
    let desc = workspace::discover(&ws, &Env::new()).unwrap();
    let mut core = Core::open(desc, &data, OpenMode::ReadOnly, Ports::system()).unwrap();
    let status = core.status(None, true).unwrap();
    let mut held = std::collections::HashMap::<String, usize>::new();
    for c in &status.claims {
        let resource = c.claim.resource.to_string();
        if resource.starts_with("file:race/") {
            *held.entry(resource).or_default() += 1;
        }
    }
    let double = held.values().filter(|n| **n > 1).count();
    let missing = rounds - held.len().min(rounds);

    println!(
        "claim race: {racers} processes x {rounds} rounds of `acc claim` on one resource each"
    );
    println!(
        "  `acc --version` (the floor): {:.2} ms median; spawn limit {cores} cores / floor = {limit:.0} processes/s",
        floor.as_secs_f64() * 1000.0
    );
    println!(
        "  {processes} processes in {:.2} s: {rate:.0} claims/s, {:.0}% of the spawn limit",
        wall.as_secs_f64(),
        100.0 * rate / limit
    );
    println!(
        "  CPU per process: `acc claim` {:.2} ms, `acc --version` {:.2} ms ({:.1}x); CPU-bound limit {:.0} claims/s",
        claim_cpu.as_secs_f64() * 1000.0,
        floor_cpu.as_secs_f64() * 1000.0,
        claim_cpu.as_secs_f64() / floor_cpu.as_secs_f64(),
        cores as f64 / claim_cpu.as_secs_f64()
    );
    let per = |cpu: Duration, n: usize| cpu.as_secs_f64() * 1000.0 / n.max(1) as f64;
    if served::on() {
        println!(
            "  served: the server's CPU {:.2} ms per process of the race (its whole process, included above; the requests' threads {:.2} ms, its background thread {:.2} ms)",
            per(server_cpu, processes),
            per(server.request, processes),
            per(server.background, processes)
        );
        let answered = answered.unwrap_or(0);
        println!(
            "  served: the server ({}) answered {answered} of the {processes} claims",
            server_bin().display()
        );
        assert_eq!(
            answered, processes as u64,
            "ACC_BENCH_SERVE=1 but the server answered {answered} of {processes} claims: the rest ran unserved"
        );
    }
    println!(
        "  CPU per process by outcome: granted {:.2} ms ({} processes), refused {:.2} ms ({})",
        per(tally.won_cpu, tally.won),
        tally.won,
        per(tally.lost_cpu, tally.lost),
        tally.lost
    );
    for ((granted, path), n) in &tally.paths {
        let outcome = if *granted { "granted" } else { "refused" };
        println!("  path: {outcome} {path}: {n}");
    }
    println!(
        "  granted {won} of {rounds} resources; double grants: {double}; resources never granted: {missing}"
    );
    assert_eq!(double, 0, "a resource was granted twice");
    assert_eq!(won, rounds, "every resource is granted exactly once");
    RunFigures {
        of_limit: rate / limit,
        rate,
        cpu_ratio: claim_cpu.as_secs_f64() / floor_cpu.as_secs_f64(),
        granted_ms: per(tally.won_cpu, tally.won),
        refused_ms: per(tally.lost_cpu, tally.lost),
    }
}
