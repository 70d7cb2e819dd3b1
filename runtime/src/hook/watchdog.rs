//! The deadline for work done on the hook process's main thread.
//!
//! The runner answers a call the snapshot settles on the calling thread, with no worker to
//! abandon: that work waits for no other process, but it reads stdin (a client may never
//! write its payload) and files (a file system may hang). In the `acc-hook` process a timer
//! (`SIGALRM`) set just past the deadline ends the process as a timed-out call fails open:
//! the fail-open line on stderr, exit 0, nothing on stdout. It is stopped before the first
//! byte of any answer is written, so it can never cut an answer short. A run inside another
//! program (the tests) never sets it: a signal would end that program too.
//!
//! A timeout the timer ends is logged for `acc watch` as any other fail-open is
//! ([`super::fail_log`]): the line and the log's path are built when the call knows them
//! ([`log_to`]), and the handler only opens, appends and closes. It never creates the data
//! home (the open fails without `<data home>/acc`), follows no link at the log's name, and
//! leaves rotation to the next ordinary append (one line per process at most).

use super::failure::Failure;
use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;
use std::path::PathBuf;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// How long after the deadline the timer fires: a thread that can still wait answers the
/// deadline itself (and logs it for `acc watch`); the timer is for one that cannot.
const PAST_THE_DEADLINE: Duration = Duration::from_millis(100);

/// Set by the `acc-hook` process only.
static ENABLED: AtomicBool = AtomicBool::new(false);
static ARMED: AtomicBool = AtomicBool::new(false);
/// The line written when the timer fires, built before it is set (the handler allocates
/// nothing).
static LINE: OnceLock<String> = OnceLock::new();
/// The failure log's path and the line the handler appends to it.
static LOG: OnceLock<(CString, String)> = OnceLock::new();

/// Lets [`arm`] set the timer: called by the `acc-hook` process, before any thread starts.
pub fn enable() {
    ENABLED.store(true, Ordering::SeqCst);
}

/// Sets the timer to fire [`PAST_THE_DEADLINE`] after `budget`, when [`enable`]d.
pub fn arm(budget: Duration) {
    if !ENABLED.load(Ordering::SeqCst) || ARMED.load(Ordering::SeqCst) {
        return;
    }
    LINE.get_or_init(|| Failure::Timeout.line());
    let after = budget + PAST_THE_DEADLINE;
    // SAFETY: the handler only calls async-signal-safe functions (`write`, `_exit`) on a
    // string built before the handler is installed; the structs are zeroed and owned here.
    unsafe {
        let mut action: libc::sigaction = std::mem::zeroed();
        action.sa_sigaction = on_alarm as extern "C" fn(libc::c_int) as libc::sighandler_t;
        libc::sigemptyset(&mut action.sa_mask);
        if libc::sigaction(libc::SIGALRM, &action, std::ptr::null_mut()) != 0 {
            return;
        }
        let mut timer: libc::itimerval = std::mem::zeroed();
        timer.it_value.tv_sec = after.as_secs() as libc::time_t;
        timer.it_value.tv_usec = after.subsec_micros() as libc::suseconds_t;
        if libc::setitimer(libc::ITIMER_REAL, &timer, std::ptr::null_mut()) == 0 {
            ARMED.store(true, Ordering::SeqCst);
        }
    }
}

/// Where the handler logs the timeout, when the timer is armed: `build` gives the failure
/// log's path and its line (called only then, so a run without the timer builds nothing).
pub fn log_to(build: impl FnOnce() -> Option<(PathBuf, String)>) {
    if !ARMED.load(Ordering::SeqCst) || LOG.get().is_some() {
        return;
    }
    if let Some((path, line)) = build()
        && let Ok(path) = CString::new(path.as_os_str().as_bytes())
    {
        let _ = LOG.set((path, line));
    }
}

/// Stops the timer: called before anything is written to stdout or stderr.
pub fn disarm() {
    if !ARMED.swap(false, Ordering::SeqCst) {
        return;
    }
    // SAFETY: a zeroed itimerval stops the timer; nothing else is read or written.
    unsafe {
        let stop: libc::itimerval = std::mem::zeroed();
        libc::setitimer(libc::ITIMER_REAL, &stop, std::ptr::null_mut());
    }
}

extern "C" fn on_alarm(_: libc::c_int) {
    if let Some(line) = LINE.get() {
        // SAFETY: write(2) on the process's stderr from a buffer that lives forever.
        unsafe {
            libc::write(libc::STDERR_FILENO, line.as_ptr().cast(), line.len());
        }
    }
    if let Some((path, line)) = LOG.get() {
        // SAFETY: open(2), write(2) and close(2) are async-signal-safe; the path and the
        // line were built before the timer was set and live forever.
        unsafe {
            let fd = libc::open(
                path.as_ptr(),
                libc::O_WRONLY
                    | libc::O_APPEND
                    | libc::O_CREAT
                    | libc::O_CLOEXEC
                    | libc::O_NOFOLLOW,
                0o666 as libc::c_uint,
            );
            if fd >= 0 {
                libc::write(fd, line.as_ptr().cast(), line.len());
                libc::close(fd);
            }
        }
    }
    // SAFETY: _exit ends the process at once, running nothing else (async-signal-safe).
    unsafe { libc::_exit(0) }
}
