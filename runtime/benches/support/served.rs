//! The resident server's share of a measured call (`ACC_BENCH_SERVE=1`): the client runs with
//! `ACC_SERVE=1` and hands its work to `acc-hook serve`, a process the bench did not start and
//! cannot wait for, so `getrusage` of the children misses the work. A guard call the
//! published snapshot settles is answered by the client itself, as locally: the server's
//! share of it is nothing.
//!
//! Two figures per call, both read by the bench from the kernel, none reported by the server
//! itself (a server cannot make its own work look smaller):
//! - `whole`: the server's process CPU clock (`clock_getcpuclockid`: every thread, those
//!   that ended included) read before the call and after it. It includes whatever the
//!   server's background thread did meanwhile (`acc-serve-watch`: the once-a-second checks,
//!   the warm connections' sweep every four, the reaper).
//! - `request`: the same less that background thread's own CPU over the same span
//!   (`/proc/<pid>/task/<tid>/schedstat`, nanoseconds of the same scheduler clock). What is
//!   left is the accept thread, the worker that ran the request and every thread it
//!   started: the request's work and nothing else, since the bench runs one call at a time.
//!   Work the server moved into its background thread would leave this figure and show in
//!   [`background`], which the bench prints per second beside the rows.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// Set once a server answered: from then on every call must be served.
static EXPECTED: AtomicBool = AtomicBool::new(false);

/// The variable that turns the served mode on in a bench.
pub const BENCH_VAR: &str = "ACC_BENCH_SERVE";

/// True when the bench measures served calls.
pub fn on() -> bool {
    std::env::var(BENCH_VAR).is_ok_and(|v| v == "1")
}

/// The environment a served client needs (nothing when the bench is not served).
pub fn client_env() -> &'static [(&'static str, &'static str)] {
    if on() { &[("ACC_SERVE", "1")] } else { &[] }
}

/// The server's lock (its pid on the first line).
fn lock_file(data: &Path) -> PathBuf {
    data.join("acc").join("serve").join("lock")
}

/// The pid of the server of `data`, when one holds the lock and is alive.
pub fn server_pid(data: &Path) -> Option<libc::pid_t> {
    let text = std::fs::read_to_string(lock_file(data)).ok()?;
    let pid: libc::pid_t = text.lines().next()?.trim().parse().ok()?;
    // SAFETY: signal 0 only checks that the process exists.
    (unsafe { libc::kill(pid, 0) } == 0).then_some(pid)
}

/// The CPU time the process `pid` has used, all its threads included.
fn process_cpu(pid: libc::pid_t) -> Option<Duration> {
    let mut clock: libc::clockid_t = 0;
    // SAFETY: both calls only write the values they are given.
    unsafe {
        if libc::clock_getcpuclockid(pid, &mut clock) != 0 {
            return None;
        }
        let mut ts: libc::timespec = std::mem::zeroed();
        if libc::clock_gettime(clock, &mut ts) != 0 {
            return None;
        }
        Some(Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32))
    }
}

/// The server's background thread: the one thread whose work belongs to no request.
const BACKGROUND_THREAD: &str = "acc-serve-watch";

/// The threads of `pid` named [`BACKGROUND_THREAD`].
fn background_threads(pid: libc::pid_t) -> Vec<u32> {
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return Vec::new();
    };
    tasks
        .flatten()
        .filter(|t| {
            std::fs::read_to_string(t.path().join("comm"))
                .is_ok_and(|c| c.trim_end() == BACKGROUND_THREAD)
        })
        .filter_map(|t| t.file_name().to_str()?.parse().ok())
        .collect()
}

/// The CPU the thread `tid` of `pid` has used (its scheduler clock, the one the process
/// clock sums), or nothing once it ended.
fn thread_cpu(pid: libc::pid_t, tid: u32) -> Duration {
    std::fs::read_to_string(format!("/proc/{pid}/task/{tid}/schedstat"))
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse::<u64>().ok())
        .map_or(Duration::ZERO, Duration::from_nanos)
}

fn background_cpu(pid: libc::pid_t, threads: &[u32]) -> Duration {
    threads.iter().map(|t| thread_cpu(pid, *t)).sum()
}

/// Where a served call's measure starts: the server, its CPU so far and its background
/// thread's.
pub struct Mark(Option<Start>);

struct Start {
    pid: libc::pid_t,
    whole: Duration,
    threads: Vec<u32>,
    background: Duration,
}

/// The server's CPU over one measured span.
#[derive(Clone, Copy, Default, Debug)]
pub struct Share {
    /// The whole process's, background included.
    pub whole: Duration,
    /// Less the background thread's: the requests' own work.
    pub request: Duration,
    /// The background thread's.
    pub background: Duration,
}

/// Reads the server's CPU before a call (nothing when the bench is not served, or before
/// the first served call started the server).
pub fn mark(data: &Path) -> Mark {
    if !on() {
        return Mark(None);
    }
    let Some(pid) = server_pid(data) else {
        assert!(
            !EXPECTED.load(Ordering::Relaxed),
            "{BENCH_VAR}=1 but no server holds {}: the calls would be measured unserved",
            lock_file(data).display()
        );
        return Mark(None);
    };
    let threads = background_threads(pid);
    if EXPECTED.load(Ordering::Relaxed) {
        assert!(
            !threads.is_empty(),
            "the server {pid} has no {BACKGROUND_THREAD} thread: its background cannot be told apart"
        );
    }
    // The background first, so that the span it covers lies within the process's.
    let background = background_cpu(pid, &threads);
    Mark(process_cpu(pid).map(|whole| Start {
        pid,
        whole,
        threads,
        background,
    }))
}

/// The server's CPU since `mark`, read once the server has finished with the call (what it
/// does after answering, handing its connection back, counts too).
pub fn since(mark: &Mark) -> Share {
    let Some(start) = &mark.0 else {
        return Share::default();
    };
    std::thread::sleep(Duration::from_millis(3));
    let after = process_cpu(start.pid)
        .unwrap_or_else(|| panic!("the server {} ended during a call", start.pid));
    let background = background_cpu(start.pid, &start.threads).saturating_sub(start.background);
    // Zero for a guard call the snapshot settles: the client answers it without connecting.
    let whole = after.saturating_sub(start.whole);
    Share {
        whole,
        request: whole.saturating_sub(background),
        background,
    }
}

/// The server's background CPU per second of wall time over `span` with no call made (the
/// checks, the sweep, the reaper): `None` when the bench is not served.
#[allow(dead_code)] // hook_bench's; the claim race reads it per process instead.
pub fn background(data: &Path, span: Duration) -> Option<Duration> {
    if !on() {
        return None;
    }
    let pid = server_pid(data)?;
    let threads = background_threads(pid);
    let before = background_cpu(pid, &threads);
    let whole_before = process_cpu(pid)?;
    std::thread::sleep(span);
    let used = background_cpu(pid, &threads).saturating_sub(before);
    let whole = process_cpu(pid)?.saturating_sub(whole_before);
    // No call runs meanwhile, so the whole process's CPU is background too: the larger
    // of the two, so that nothing the server does idle is left out.
    Some(used.max(whole).div_f64(span.as_secs_f64()))
}

/// Waits (at most 10 s) for the server of `data`. A first served call that needs the store
/// started one; a guard call the snapshot settles never connects and starts none, so one is
/// started here when none holds the lock (as a client would start it: detached).
#[allow(dead_code)] // hook_bench's; the claim race names the server its `acc` trusts.
pub fn await_server(data: &Path) {
    await_server_of(data, Path::new(env!("CARGO_BIN_EXE_acc-hook")));
}

/// [`await_server`] starting `server` when none runs: the `acc-hook` beside the measured
/// `acc` (a client trusts only the server beside it, so a server of another build would
/// leave every call unserved).
pub fn await_server_of(data: &Path, server: &Path) {
    if !on() {
        return;
    }
    if server_pid(data).is_none() {
        acc_runtime::serve::lifecycle::start_detached(server, data);
    }
    let deadline = Instant::now() + Duration::from_secs(10);
    // The lock is taken before the background thread starts: wait for both, or the first
    // mark finds no thread to tell the background by.
    while server_pid(data).is_none_or(|pid| background_threads(pid).is_empty()) {
        assert!(
            Instant::now() < deadline,
            "no server with its {BACKGROUND_THREAD} thread held {} 10 s after a served call",
            lock_file(data).display()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    EXPECTED.store(true, Ordering::Relaxed);
}

/// Ends the server of `data` (a run's own) and waits (at most 10 s) until it is gone, so that
/// an idle server of an earlier run does not share the cores with the next run.
#[allow(dead_code)] // the claim race's.
pub fn stop_server(data: &Path) {
    let Some(pid) = server_pid(data) else {
        return;
    };
    // SAFETY: `kill` sends a signal to a pid; no memory is touched.
    unsafe { libc::kill(pid, libc::SIGTERM) };
    let deadline = Instant::now() + Duration::from_secs(10);
    // SAFETY: signal 0 only asks whether the process exists.
    while unsafe { libc::kill(pid, 0) } == 0 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// How many calls the server of `data` answered so far, asked as a client would (`server`:
/// the `acc-hook` it must be): `None` when no trusted server answers. Read before and after
/// a race, the difference is how many of its calls were served; a server that answered
/// none (a distrusted one, or one of another build) shows as fewer than the calls made.
#[allow(dead_code)] // the claim race's.
pub fn answered(data: &Path, server: &Path) -> Option<u64> {
    if !on() {
        return None;
    }
    acc_runtime::serve::client::served_count(data, server)
}
