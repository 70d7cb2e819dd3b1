//! The deadline for work done on the hook process's main thread.
//!
//! The runner answers a call the snapshot settles on the calling thread, with no worker to
//! abandon: that work waits for no other process, but it reads stdin (a client may never
//! write its payload) and files (a file system may hang). In the `acc-hook` process a timer
//! (`SIGALRM`) set just past the deadline ends the process as a timed-out call fails open:
//! the fail-open line on stderr, exit 0, nothing on stdout. It is stopped before the first
//! byte of any answer is written, so it can never cut an answer short. A run inside another
//! program (the tests) never sets it: a signal would end that program too.

use super::failure::Failure;
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
    // SAFETY: _exit ends the process at once, running nothing else (async-signal-safe).
    unsafe { libc::_exit(0) }
}
