//! The resident server's share of a measured call (`ACC_BENCH_SERVE=1`): the client runs with
//! `ACC_SERVE=1` and hands its work to `acc-hook serve`, a process the bench did not start and
//! cannot wait for, so `getrusage` of the children misses the work. The server's CPU clock
//! (`clock_getcpuclockid`: the whole process, threads that ended included, in nanoseconds) is
//! read before the call and after it, and the difference is added to the call's CPU. A
//! guard call the published snapshot settles is answered by the client itself, as locally:
//! the server's share of it is nothing.

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

/// Where a served call's measure starts: the server and its CPU so far.
pub struct Mark(Option<(libc::pid_t, Duration)>);

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
    Mark(process_cpu(pid).map(|cpu| (pid, cpu)))
}

/// The server's CPU since `mark`, read once the server has finished with the call (what it
/// does after answering, handing its connection back, counts too).
pub fn since(mark: &Mark) -> Duration {
    let Some((pid, before)) = mark.0 else {
        return Duration::ZERO;
    };
    std::thread::sleep(Duration::from_millis(3));
    let after = process_cpu(pid).unwrap_or_else(|| panic!("the server {pid} ended during a call"));
    // Zero for a guard call the snapshot settles: the client answers it without connecting.
    after.saturating_sub(before)
}

/// Waits (at most 10 s) for the server of `data`. A first served call that needs the store
/// started one; a guard call the snapshot settles never connects and starts none, so one is
/// started here when none holds the lock (as a client would start it: detached).
pub fn await_server(data: &Path) {
    if !on() {
        return;
    }
    if server_pid(data).is_none() {
        acc_runtime::serve::lifecycle::start_detached(
            Path::new(env!("CARGO_BIN_EXE_acc-hook")),
            data,
        );
    }
    let deadline = Instant::now() + Duration::from_secs(10);
    while server_pid(data).is_none() {
        assert!(
            Instant::now() < deadline,
            "no server held {} 10 s after a served call",
            lock_file(data).display()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    EXPECTED.store(true, Ordering::Relaxed);
}
