//! The start of the writer of a heartbeat the guard's fast path deferred past its answer
//! ([`super::guard_fast`]): the client waits for this process, not for the heartbeat.
//!
//! In the `acc-hook` process the runner hands the writer over ([`start`]) and the process
//! starts it as its very last step ([`exit_after`]): once the answer is written, the
//! capture line (`ACC_HOOK_CAPTURE_DIR`) appended and everything else done, while its
//! calling thread is its only thread (a call the snapshot settles starts none), the process
//! forks, and the parent ends at once with the call's exit code (`_exit`): nothing of it
//! runs after the fork, so it touches no page it now shares with the child (each such
//! write was a copy-on-write fault on the client's clock, issue 30). The child writes the
//! heartbeat with what the call already read. Starting `acc-hook --beat` instead held the
//! parent until the kernel had executed the new 13 MB program (about 1 ms of wall time on
//! a quiet host), and the new program then read its payload again.
//!
//! The child is a copy of a process with one thread, so it may run anything the process
//! could; what it must not do is what the parent still owns:
//! - it holds none of the parent's descriptors: before the fork, with the answer written,
//!   the process puts `/dev/null` on its stdin, stdout and stderr and closes every other
//!   descriptor, so the client's pipes reach end-of-file when the parent exits however
//!   late the child is first scheduled, and a lock held through a descriptor the parent
//!   had open is not kept alive by the child;
//! - it waits for the parent's exit before it works (a pipe whose other end only the
//!   parent holds), so that a child the scheduler runs first never stands between the
//!   parent and its exit;
//! - it is a batch task (`SCHED_BATCH`, set on the process just before the fork): the
//!   kernel does not let it preempt the parent when the fork wakes it, nor the client when
//!   the parent's exit wakes both (an ordinary new task usually ran first, and the parent's
//!   exit then waited behind it and whatever else was queued on its processor);
//! - it runs ten steps nicer than the hook, so that the client it answered, woken by the
//!   same exit, is not kept waiting by it;
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

use std::cell::RefCell;
use std::ffi::OsString;
use std::io::Write;
use std::os::fd::{IntoRawFd, RawFd};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// How long after its budget the child is ended: its own deadline stops the writer between
/// steps and bounds SQLite's wait for a lock; the timer is for a wait nothing else bounds.
const PAST_THE_BUDGET: Duration = Duration::from_millis(100);

/// Set by the `acc-hook` process only, which ends with [`exit_after`]: a library caller's
/// process (a test harness) has threads of its own, is no process to copy, and does not end
/// when a call returns.
static ENABLED: AtomicBool = AtomicBool::new(false);

thread_local! {
    /// The writer [`start`] kept for [`exit_after`] (the runner answers a call the snapshot
    /// settles on the thread that called it, and `acc-hook` calls it on its main thread).
    static KEPT: RefCell<Option<Writer>> = const { RefCell::new(None) };
}

/// Lets [`start`] keep a writer for [`exit_after`], which forks for it: called by the
/// `acc-hook` process, which calls [`exit_after`] as its last step.
pub fn enable() {
    ENABLED.store(true, Ordering::SeqCst);
}

/// A heartbeat's writer: what a copy of this process runs, and the `acc-hook --beat` line
/// that writes the same heartbeat where the process is not one to copy.
pub struct Writer {
    /// How long the copy may take; it is ended a little after.
    pub budget: Duration,
    /// The heartbeat's write, run in the copy.
    pub write: Box<dyn FnOnce()>,
    /// `acc-hook`, its arguments after `--beat`, and the payload it reads on stdin.
    pub exe: PathBuf,
    pub argv: Vec<OsString>,
    pub payload: Vec<u8>,
}

/// Starts `writer` once this process has nothing left to do: in the `acc-hook` process it
/// is kept for [`exit_after`]; anywhere else `acc-hook --beat` is started now.
pub fn start(writer: Writer) {
    if ENABLED.load(Ordering::SeqCst) {
        KEPT.with(|kept| *kept.borrow_mut() = Some(writer));
    } else {
        spawn(&writer.exe, &writer.argv, &writer.payload);
    }
}

/// The `acc-hook` process's last step, with everything written and flushed: when [`start`]
/// kept a writer, this process forks for it and ends at once with `code` (the parent never
/// returns); where it cannot fork soundly, `acc-hook --beat` is started instead and `code`
/// returned, as when no writer was kept.
pub fn exit_after(code: i32) -> i32 {
    let Some(writer) = KEPT.with(|kept| kept.borrow_mut().take()) else {
        return code;
    };
    let Writer {
        budget,
        write,
        exe,
        argv,
        payload,
    } = writer;
    if !fork_and_exit(code, budget, write) {
        spawn(&exe, &argv, &payload);
    }
    code
}

/// Runs `write` in a child of this process that is ended `budget` (and a little) after it
/// starts, and ends this process with `code` at once; returns `false` (nothing started)
/// when this process is not one to fork (not the `acc-hook` process, or not
/// single-threaded) or the fork failed.
///
/// Only as the process's last step: it gives up its descriptors first (stdin, stdout and
/// stderr become `/dev/null`), so the client's pipes reach end-of-file with this process's
/// exit whenever the child is first scheduled; on a loaded host that can be milliseconds
/// later, and a child that still held them until then held the client.
fn fork_and_exit(code: i32, budget: Duration, write: impl FnOnce()) -> bool {
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
    let null = null.into_raw_fd();
    // SAFETY: everything is written and flushed, and the process only exits after this;
    // every descriptor is given up (the `/dev/null` one with the rest), so none is used
    // again by anything that owned it.
    if !unsafe { give_up_descriptors(null) } {
        return false;
    }
    // The child waits for this process to end before it works: a new task may be run
    // first, on this process's processor, and the writer's milliseconds would then pass
    // before this process's exit. Its end of the gate reads end-of-file when this process
    // exits, which holds the other end until then.
    let mut gate = [-1; 2];
    // SAFETY: pipe2 fills the two descriptors of an array owned here.
    if unsafe { libc::pipe2(gate.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return false;
    }
    let [wait_end, held_end] = gate;
    // SAFETY: sched_getscheduler and sched_setscheduler act on this process's own policy,
    // with a struct owned here.
    unsafe { batch_from_here() };
    // SAFETY: this process has one thread (checked just above, and the caller starts none
    // before), so the child is a whole copy in which every function is as safe to call as
    // it was here; it never returns into the caller (`in_child` ends with `_exit`). The
    // parent ends at once: its answer, its capture line and its flushes are done, and
    // nothing it would run on the way out (destructors, `atexit`) is owed to anyone; every
    // page it wrote after the fork would be a copy-on-write fault the client waits for. Its
    // exit closes the gate's end the child waits on.
    unsafe {
        match libc::fork() {
            0 => {
                libc::close(held_end);
                in_child(wait_end, budget, write)
            }
            -1 => {
                libc::close(wait_end);
                libc::close(held_end);
                false
            }
            _ => libc::_exit(code),
        }
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

/// Puts `null` (an open `/dev/null`) on stdin, stdout and stderr and closes every other
/// descriptor, `null` included; `false` if stdin, stdout or stderr could not be replaced.
///
/// # Safety
/// Only for a process that will not use any of its descriptors again.
unsafe fn give_up_descriptors(null: RawFd) -> bool {
    // SAFETY: the caller gives up every descriptor; dup2 and close act on this process's
    // own descriptor table only.
    unsafe {
        for fd in [libc::STDIN_FILENO, libc::STDOUT_FILENO, libc::STDERR_FILENO] {
            if libc::dup2(null, fd) != fd {
                libc::close(null);
                return false;
            }
        }
        close_from(3);
    }
    true
}

/// Makes this process, and so the copy about to be made of it, a batch task
/// (`SCHED_BATCH`, same nice) when it is an ordinary one: the kernel never lets a batch
/// task it wakes preempt the running one. A new task is woken at the fork, and an ordinary
/// one usually ran first on this process's processor: its start until it blocks on the
/// gate, then whatever else was waiting there, before this process's exit (the client's
/// wait). This process only exits after it; the writer then keeps the batch policy, so the
/// client woken by the same exit is not preempted by it either. Best effort: a policy that
/// cannot be changed is left.
///
/// # Safety
/// Only just before the fork, in a process that exits right after it.
unsafe fn batch_from_here() {
    // SAFETY: the caller is the process about to fork and exit; sched_param is owned here.
    unsafe {
        if libc::sched_getscheduler(0) == libc::SCHED_OTHER {
            let param = libc::sched_param { sched_priority: 0 };
            libc::sched_setscheduler(0, libc::SCHED_BATCH, &param);
        }
    }
}

/// The child: the timer set, the parent's end awaited on `gate`, `write` run, gone.
fn in_child(gate: RawFd, budget: Duration, write: impl FnOnce()) -> ! {
    // SAFETY: sigaction, sigprocmask, setitimer, nice, read and close act on this process's
    // own signal state, priority and gate descriptor, with structs zeroed and owned here;
    // _exit ends the process without running anything of the parent's.
    unsafe {
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
        // Behind the client it answered: both wake when the parent exits, and the client's
        // next step is the one someone waits for. Ten steps lower keeps a tenth of a
        // processor's share against each busy peer, well inside the writer's budget.
        libc::nice(10);
        let mut byte = 0u8;
        while libc::read(gate, (&raw mut byte).cast(), 1) < 0
            && std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted
        {}
        libc::close(gate);
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
        assert!(!fork_and_exit(3, Duration::from_secs(1), || ran.set(true)));
        assert!(!ran.get());
    }

    #[test]
    fn outside_the_acc_hook_process_nothing_is_kept_for_the_end() {
        // `--beat` of a program that is not there: nothing starts, and nothing is kept.
        start(Writer {
            budget: Duration::from_secs(1),
            write: Box::new(|| panic!("no copy of a library caller's process")),
            exe: PathBuf::from("/nonexistent/acc-hook"),
            argv: Vec::new(),
            payload: Vec::new(),
        });
        assert!(KEPT.with(|kept| kept.borrow().is_none()));
        assert_eq!(exit_after(7), 7);
    }
}
