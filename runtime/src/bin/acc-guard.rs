//! `acc-guard`: the read-only runner of `acc_runtime::guard_exec`, the same as
//! `acc-hook guard-exec` in a program of its own. The hook rewrites a confined shell call
//! to it when it is installed beside `acc-hook`: it links only the runner (namespaces,
//! mounts, the broker), so it starts in a fraction of `acc-hook`'s time, which every
//! confined call pays.
//!
//! Started as C's `main`, without Rust's runtime set-up: that reads `/proc/self/maps` and
//! installs a stack-overflow handler on an alternate stack, a dozen system calls this
//! short-lived process has no use for. What of it the runner relies on is done here.

#![no_main]

use std::ffi::{c_char, c_int};

#[unsafe(no_mangle)]
pub extern "C" fn main(_argc: c_int, _argv: *const *const c_char) -> c_int {
    // SAFETY: plain system calls on the standard descriptors and a signal disposition.
    unsafe {
        // As Rust's runtime does: a closed standard descriptor is opened on /dev/null, so
        // that no socket or file of the runner takes its number.
        for fd in 0..3 {
            if libc::fcntl(fd, libc::F_GETFD) == -1
                && libc::open(c"/dev/null".as_ptr(), libc::O_RDWR) == -1
            {
                return acc_runtime::guard_exec::SETUP_FAILED;
            }
        }
        // A closed stderr must not kill the runner before it reports the command's status
        // (the command itself gets the default back, as `Command` restores it).
        libc::signal(libc::SIGPIPE, libc::SIG_IGN);
    }
    let mut args = std::env::args_os().skip(1).peekable();
    // `acc-guard guard-exec …` is accepted too, so that either program runs a line made
    // for the other.
    if acc_runtime::guard_exec::selected(args.peek().map(|a| a.as_os_str())) {
        args.next();
    }
    let rest: Vec<_> = args.collect();
    acc_runtime::guard_exec::main(&rest)
}
