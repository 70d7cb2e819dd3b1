//! The start of the writer of a heartbeat the guard's fast path deferred past its answer
//! ([`super::guard_fast`]): the client waits for this process, not for the heartbeat.
//!
//! In the `acc-hook` process, while its calling thread is its only thread (a call the
//! snapshot settles starts none), the process forks and the child writes the heartbeat with
//! what the call already read. The parent's share is the fork; starting `acc-hook --beat`
//! held it until the kernel had executed the new 13 MB program (about 1 ms of wall time on
//! a quiet host, issue 30), and the new program then read its payload again.
//!
//! The child is a copy of a process with one thread, so it may run anything the process
//! could; what it must not do is what the parent still owns:
//! - it puts `/dev/null` on its stdin, stdout and stderr and closes every other descriptor
//!   first, so the client's pipes reach end-of-file when the parent exits, and a lock held
//!   through a descriptor the parent had open is not kept alive by the child;
//! - it is ended by the kernel (`SIGALRM` at its default action, whatever the client set)
//!   a little after its own budget, whatever it waits on (a store locked by another
//!   process, a file system that hangs);
//! - it leaves with `_exit`: no destructor, `atexit` handler or buffered output of the
//!   parent's runs a second time;
//! - it says nothing, whatever fails: a heartbeat not written is due again once the marker
//!   is 30 s old.
//!
//! Anywhere else (a library caller such as the tests, a thread already running, no
//! `/dev/null`, a failed fork) the writer is `acc-hook --beat`, started as before.

use std::ffi::OsString;
use std::io::Write;
use std::os::fd::{AsRawFd, RawFd};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// How long after its budget the child is ended: its own deadline stops the writer between
/// steps and bounds SQLite's wait for a lock; the timer is for a wait nothing else bounds.
const PAST_THE_BUDGET: Duration = Duration::from_millis(100);

/// Set by the `acc-hook` process only: a library caller's process (a test harness) has
/// threads of its own, and is no process to copy.
static ENABLED: AtomicBool = AtomicBool::new(false);

/// Lets [`fork`] fork: called by the `acc-hook` process.
pub fn enable() {
    ENABLED.store(true, Ordering::SeqCst);
}

/// Runs `write` in a child of this process that is ended `budget` (and a little) after it
/// starts, and returns at once; `false` when this process is not one to fork (not the
/// `acc-hook` process, or not single-threaded) or the fork failed, and nothing was started.
pub fn fork(budget: Duration, write: impl FnOnce()) -> bool {
    if !ENABLED.load(Ordering::SeqCst) || !single_threaded() {
        return false;
    }
    let Ok(null) = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open("/dev/null")
    else {
        return false;
    };
    // SAFETY: this process has one thread (checked just above, and the caller starts none
    // before), so the child is a whole copy in which every function is as safe to call as
    // it was here; it never returns into the caller (`in_child` ends with `_exit`).
    match unsafe { libc::fork() } {
        0 => in_child(null.as_raw_fd(), budget, write),
        pid => pid > 0,
    }
}

/// Starts `acc-hook --beat <argv>` (`exe`) on `payload` and does not wait for it. Best
/// effort: a heartbeat that is not written is due again at the next call.
pub fn spawn(exe: &Path, argv: &[OsString], payload: &[u8]) {
    let child = std::process::Command::new(exe)
        .arg(super::args::BEAT_FLAG)
        .args(argv)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn();
    if let Ok(mut child) = child
        && let Some(mut stdin) = child.stdin.take()
    {
        let _ = stdin.write_all(payload);
    }
}

/// Whether this process runs one thread: `/proc/self/task` holds a directory per thread,
/// and its link count is two more than their number. Unknown (no `/proc`) is `false`.
fn single_threaded() -> bool {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata("/proc/self/task").is_ok_and(|m| m.nlink() == 3)
}

/// The child: the client's descriptors given up, the timer set, `write` run, gone.
fn in_child(null: RawFd, budget: Duration, write: impl FnOnce()) -> ! {
    // SAFETY: dup2, close, sigaction, sigprocmask and setitimer act on this process's own
    // descriptors and signal state with structs zeroed and owned here; _exit ends the
    // process without running anything of the parent's.
    unsafe {
        for fd in [libc::STDIN_FILENO, libc::STDOUT_FILENO, libc::STDERR_FILENO] {
            // A child still holding the client's stdout would hold its answer open.
            if libc::dup2(null, fd) != fd {
                libc::_exit(0);
            }
        }
        close_from(3);
        let mut action: libc::sigaction = std::mem::zeroed();
        action.sa_sigaction = libc::SIG_DFL;
        libc::sigemptyset(&mut action.sa_mask);
        let mut alarm: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut alarm);
        libc::sigaddset(&mut alarm, libc::SIGALRM);
        let after = budget + PAST_THE_BUDGET;
        let mut timer: libc::itimerval = std::mem::zeroed();
        timer.it_value.tv_sec = after.as_secs() as libc::time_t;
        timer.it_value.tv_usec = after.subsec_micros() as libc::suseconds_t;
        if libc::sigaction(libc::SIGALRM, &action, std::ptr::null_mut()) != 0
            || libc::sigprocmask(libc::SIG_UNBLOCK, &alarm, std::ptr::null_mut()) != 0
            || libc::setitimer(libc::ITIMER_REAL, &timer, std::ptr::null_mut()) != 0
        {
            // Unbounded, the child could outlive any deadline: no heartbeat instead.
            libc::_exit(0);
        }
    }
    let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(write));
    // SAFETY: ends the child at once; nothing of the parent's is flushed or dropped twice.
    unsafe { libc::_exit(0) }
}

/// Closes every descriptor from `first` on: `close_range` (Linux 5.9), else one by one up
/// to the descriptor limit (capped: a client leaves no descriptor numbered that high).
///
/// # Safety
/// Only for a process that owns no descriptor from `first` on that it will use again.
unsafe fn close_from(first: libc::c_uint) {
    // SAFETY: the caller gives up every descriptor from `first` on.
    unsafe {
        if libc::syscall(libc::SYS_close_range, first, libc::c_uint::MAX, 0) == 0 {
            return;
        }
        let mut limit: libc::rlimit = std::mem::zeroed();
        let max = if libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) == 0 {
            limit.rlim_cur.min(1 << 16) as libc::c_int
        } else {
            1 << 16
        };
        for fd in first as libc::c_int..max {
            libc::close(fd);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_process_with_a_second_thread_is_not_copied() {
        let (tx, rx) = std::sync::mpsc::channel::<()>();
        let second = std::thread::spawn(move || {
            let _ = rx.recv();
        });
        assert!(!single_threaded());
        drop(tx);
        second.join().unwrap();
    }

    #[test]
    fn outside_the_acc_hook_process_nothing_is_forked() {
        let ran = std::cell::Cell::new(false);
        assert!(!fork(Duration::from_secs(1), || ran.set(true)));
        assert!(!ran.get());
    }
}
