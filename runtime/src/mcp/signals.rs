//! The ways the server can be told to end that it can see: SIGINT, SIGTERM and SIGHUP.
//!
//! A client that stops its MCP server usually signals it rather than closing its input; a
//! server that simply died then would leave its session open, holding its claims as a live
//! session's until the lease ran out. The signals are blocked in every thread and taken by
//! one thread with `sigwait`, so closing the session runs as ordinary code (an SQLite write
//! cannot run inside a signal handler). SIGKILL cannot be seen: the next reader of the store
//! closes a session whose recorded pid is dead.

use std::io;

/// A signal that ends the server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EndSignal {
    Interrupt,
    Terminate,
    HangUp,
}

impl EndSignal {
    const ALL: [EndSignal; 3] = [
        EndSignal::Interrupt,
        EndSignal::Terminate,
        EndSignal::HangUp,
    ];

    fn number(self) -> libc::c_int {
        match self {
            EndSignal::Interrupt => libc::SIGINT,
            EndSignal::Terminate => libc::SIGTERM,
            EndSignal::HangUp => libc::SIGHUP,
        }
    }

    fn from_number(n: libc::c_int) -> Option<EndSignal> {
        EndSignal::ALL.into_iter().find(|s| s.number() == n)
    }

    pub fn name(self) -> &'static str {
        match self {
            EndSignal::Interrupt => "SIGINT",
            EndSignal::Terminate => "SIGTERM",
            EndSignal::HangUp => "SIGHUP",
        }
    }

    /// The shell's convention for a process ended by a signal: 128 + its number.
    pub fn exit_code(self) -> i32 {
        128 + self.number()
    }
}

/// The end signals, blocked in this thread and in every thread it starts afterwards.
/// Child processes start with an empty mask (the standard library resets it).
pub struct EndSignals {
    set: libc::sigset_t,
}

impl EndSignals {
    /// Blocks the end signals. Call it before any other thread starts, or a thread started
    /// earlier may take a signal with its default action.
    pub fn block() -> io::Result<EndSignals> {
        // SAFETY: sigset_t is plain data initialised by sigemptyset before any other use;
        // pthread_sigmask only changes this thread's mask.
        unsafe {
            let mut set: libc::sigset_t = std::mem::zeroed();
            if libc::sigemptyset(&mut set) != 0 {
                return Err(io::Error::last_os_error());
            }
            for s in EndSignal::ALL {
                if libc::sigaddset(&mut set, s.number()) != 0 {
                    return Err(io::Error::last_os_error());
                }
            }
            let rc = libc::pthread_sigmask(libc::SIG_BLOCK, &set, std::ptr::null_mut());
            if rc != 0 {
                return Err(io::Error::from_raw_os_error(rc));
            }
            Ok(EndSignals { set })
        }
    }

    /// Starts the thread that waits for an end signal, runs `on_end` there and exits the
    /// process with [`EndSignal::exit_code`].
    pub fn watch(self, on_end: impl FnOnce(EndSignal) + Send + 'static) -> io::Result<()> {
        let set = self.set;
        std::thread::Builder::new()
            .name("acc-mcp-signals".into())
            .spawn(move || {
                let signal = loop {
                    let mut n: libc::c_int = 0;
                    // SAFETY: `set` is an initialised sigset_t; `n` is a valid out pointer.
                    let rc = unsafe { libc::sigwait(&set, &mut n) };
                    if rc == 0
                        && let Some(s) = EndSignal::from_number(n)
                    {
                        break s;
                    }
                };
                on_end(signal);
                std::process::exit(signal.exit_code());
            })
            .map(|_| ())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exit_codes_follow_the_shell_convention() {
        assert_eq!(EndSignal::Interrupt.exit_code(), 130);
        assert_eq!(EndSignal::Terminate.exit_code(), 143);
        assert_eq!(EndSignal::HangUp.exit_code(), 129);
        for s in EndSignal::ALL {
            assert_eq!(EndSignal::from_number(s.number()), Some(s));
        }
        assert_eq!(EndSignal::from_number(libc::SIGUSR1), None);
    }
}
