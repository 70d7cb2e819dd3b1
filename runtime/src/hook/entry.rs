//! The `acc-hook` process: real stdin, stdout, stderr and environment.

use super::hook_env::HookEnv;
use super::settings::HookSettings;
use std::io::{Read, Write};
use std::os::fd::RawFd;

/// Runs the hook process and returns its exit code. The caller exits with it at once, which
/// also ends a worker that overran the deadline. A call that left a heartbeat's writer
/// ends the process here instead, with the same code ([`super::beat_writer::exit_after`]).
pub fn main() -> i32 {
    let started = std::time::Instant::now();
    one_malloc_arena();
    // A panic is answered by the fail-open line; the default hook would add a second,
    // unbounded stderr message that may quote a payload.
    std::panic::set_hook(Box::new(|_| {}));
    let argv_os: Vec<std::ffi::OsString> = std::env::args_os().collect();
    let argv: Vec<String> = argv_os
        .iter()
        .skip(1)
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let stdin: Box<dyn Read + Send> = if stdin_is_terminal() {
        // Run by hand without a payload: answer at once instead of waiting for the deadline.
        Box::new(std::io::empty())
    } else {
        Box::new(std::io::stdin())
    };
    // Armed by the runner while it reads and settles the call on this thread; a call handed
    // to the server waits for its answer itself.
    super::watchdog::enable();
    // A due heartbeat is written by a copy of this process, made at its end (below) while
    // it has one thread.
    super::beat_writer::enable();
    let env = HookEnv::from_process();
    let stdout = std::io::stdout();
    let stderr = std::io::stderr();
    let mut out = CheckedStdout::new(stdout.lock(), libc::STDOUT_FILENO);
    let mut err = stderr.lock();
    // With ACC_SERVE=1 a resident server runs what the snapshot does not settle; everything
    // before that (a guard's allow or deny, an unreadable payload) is answered here, as a
    // local run answers it, without a connection. An answer nobody can read is left to the
    // local run, which finds out before it marks anything offered; a server would mark them
    // before the client writes. A capture run records itself where it runs: here.
    let served = crate::serve::enabled(env.get(crate::serve::SERVE_VAR))
        && env.get(super::capture::CAPTURE_DIR_VAR).is_none()
        && out.check_reachable().is_ok();
    let mut settings = HookSettings::system(env);
    settings.beat_exe = std::env::current_exe().ok();
    let code = if served {
        let mut handoff =
            |call: &super::runner::StoreCall<'_>, out: &mut dyn Write, err: &mut dyn Write| {
                crate::serve::client::hook(&argv_os, call, out, err, started)
            };
        super::runner::run_with_handoff(
            &argv,
            stdin,
            &mut out,
            &mut err,
            settings,
            Some(&mut handoff),
        )
    } else {
        super::capture::run(&argv, stdin, &mut out, &mut err, settings)
    };
    let _ = out.flush();
    let _ = err.flush();
    crate::serve::client::start_if_missing();
    // Last: a heartbeat's writer the call left is started by a copy of this process, and
    // this process ends there (nothing above runs after the copy is made).
    super::beat_writer::exit_after(code)
}

/// Stdout that fails when the answer cannot reach anyone: its descriptor is closed, or it is
/// `/dev/null`. Started with stdout closed (`acc-hook … >&-`), the Rust runtime puts
/// `/dev/null` on descriptor 1, and `Stdout` treats EBADF as success anyway; either way the
/// bytes vanish while the write "succeeds", and the runner would mark as offered messages
/// the client never received. A client always reads its hook's stdout through a pipe or a
/// file, never `/dev/null`. Where descriptor 1 leads does not change during a run, so it is
/// looked at once.
struct CheckedStdout<W> {
    inner: W,
    fault: Option<Unreachable>,
}

#[derive(Debug, Clone, Copy)]
enum Unreachable {
    /// `fcntl` failed with this errno (EBADF: the descriptor is closed).
    Closed(i32),
    DevNull,
}

impl<W: Write> CheckedStdout<W> {
    fn new(inner: W, fd: RawFd) -> Self {
        // SAFETY: F_GETFD only reads the descriptor's flags; any fd number is safe to ask.
        let fault = if unsafe { libc::fcntl(fd, libc::F_GETFD) } == -1 {
            Some(Unreachable::Closed(
                std::io::Error::last_os_error()
                    .raw_os_error()
                    .unwrap_or(libc::EBADF),
            ))
        } else if is_dev_null(fd) {
            Some(Unreachable::DevNull)
        } else {
            None
        };
        CheckedStdout { inner, fault }
    }

    fn check_reachable(&self) -> std::io::Result<()> {
        match self.fault {
            None => Ok(()),
            Some(Unreachable::Closed(errno)) => Err(std::io::Error::from_raw_os_error(errno)),
            Some(Unreachable::DevNull) => Err(std::io::Error::new(
                std::io::ErrorKind::BrokenPipe,
                "stdout is /dev/null",
            )),
        }
    }
}

fn is_dev_null(fd: RawFd) -> bool {
    use std::os::unix::fs::{FileTypeExt, MetadataExt};
    let Ok(null) = std::fs::metadata("/dev/null") else {
        return false;
    };
    // SAFETY: fstat fills a zeroed stat owned here; it reads nothing else.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    if unsafe { libc::fstat(fd, &mut st) } != 0 {
        return false;
    }
    null.file_type().is_char_device()
        && (st.st_mode & libc::S_IFMT) == libc::S_IFCHR
        && st.st_rdev == null.rdev()
}

impl<W: Write> Write for CheckedStdout<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.check_reachable()?;
        self.inner.write(buf)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()?;
        // Even an empty answer is flushed: an unreachable stdout is reported here.
        self.check_reachable()
    }
}

fn stdin_is_terminal() -> bool {
    use std::io::IsTerminal;
    std::io::stdin().is_terminal()
}

/// The work runs on a worker thread, and glibc gives a new thread an arena of its own that
/// grows one `mprotect` at a time (over 200 calls in a turn with queued messages, about a
/// tenth of the process's time); the main arena grows in 128 KiB steps. The main thread
/// works only before the worker starts (a call the snapshot settles) and then only waits,
/// so sharing its arena costs no contention.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn one_malloc_arena() {
    // SAFETY: mallopt only changes allocator settings; it runs before any other thread
    // exists.
    unsafe {
        libc::mallopt(libc::M_ARENA_MAX, 1);
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn one_malloc_arena() {}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::fd::AsRawFd;

    #[test]
    fn a_closed_descriptor_fails_the_write_and_the_flush() {
        let file = tempfile::tempfile().unwrap();
        let mut open = CheckedStdout::new(Vec::new(), file.as_raw_fd());
        open.write_all(b"shown").unwrap();
        open.flush().unwrap();
        assert_eq!(open.inner, b"shown");
        // No process holds this descriptor (closing a real one would race other tests,
        // which may reuse its number at once).
        let mut closed = CheckedStdout::new(Vec::new(), RawFd::MAX);
        let e = closed.write_all(b"lost").unwrap_err();
        assert_eq!(e.raw_os_error(), Some(libc::EBADF));
        assert!(closed.inner.is_empty());
        assert_eq!(
            closed.flush().unwrap_err().raw_os_error(),
            Some(libc::EBADF)
        );
    }

    #[test]
    fn dev_null_is_nowhere() {
        let null = std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/null")
            .unwrap();
        let mut out = CheckedStdout::new(Vec::new(), null.as_raw_fd());
        assert!(out.write_all(b"lost").is_err());
        assert!(out.flush().is_err());
        assert!(out.inner.is_empty());
    }
}
