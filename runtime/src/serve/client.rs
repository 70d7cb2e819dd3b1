//! The short process's side: hand the invocation to a genuine server, or say why not so
//! the caller runs it itself.

use super::peer::{self, CredReader, Distrust};
use super::protocol::{self, Ack, Answer, Kind, RequestRef};
use crate::hook::runner::StoreCall;
use std::collections::BTreeMap;
use std::ffi::OsString;
use std::io::Write;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// How long a client waits for the server to take its request (it acknowledges before it
/// runs anything). Past it, the client runs the call itself.
const ACK_TIMEOUT: Duration = Duration::from_secs(2);

/// What one read of the socket takes at most: an acknowledgement and a usual answer whole.
const READ_BUFFER: usize = 16 << 10;

/// How long `acc` waits for a served command's answer.
const ACC_ANSWER_TIMEOUT: Duration = Duration::from_secs(600);

/// What became of a call handed to the server.
#[derive(Debug)]
pub enum Outcome {
    /// The server ran it: write this and exit with its code.
    Served(Answer),
    /// The server never took it: run it here. `start` when no server was there (start one
    /// for the next call); `distrust` when the one there was not trusted.
    Local {
        start: bool,
        distrust: Option<Distrust>,
    },
    /// The server took it and no answer came (it died, or overran): it may have written, so
    /// it is not run again. `timed_out` tells a late answer from a lost server.
    Lost { timed_out: bool },
}

/// One call to hand over.
pub struct Call<'a> {
    pub kind: Kind,
    pub data_home: &'a Path,
    /// The `acc-hook` the server must be (device and inode of this file).
    pub expected_exe: &'a Path,
    pub argv: &'a [OsString],
    pub env: &'a BTreeMap<String, String>,
    pub cwd: &'a Path,
    pub stdin: &'a [u8],
    pub started: Instant,
    /// How long to wait for the answer, from now.
    pub answer_within: Duration,
}

/// Hands `call` to the data home's server.
pub fn call(call: &Call<'_>) -> Outcome {
    let local = |start, distrust| Outcome::Local { start, distrust };
    let Some(socket) = super::socket_path(call.data_home) else {
        return local(false, None);
    };
    let Some(exe) = peer::file_id(call.expected_exe) else {
        return local(false, None);
    };
    let stream = match UnixStream::connect(&socket) {
        Ok(s) => s,
        Err(e) => {
            let none_there = matches!(
                e.kind(),
                std::io::ErrorKind::NotFound | std::io::ErrorKind::ConnectionRefused
            );
            return local(none_there, None);
        }
    };
    if peer::pass_credentials(&stream).is_err() {
        return local(false, Some(Distrust::Unknown));
    }
    let build = protocol::build();
    let request = RequestRef {
        build: &build,
        kind: call.kind,
        argv: call.argv,
        env: call.env,
        cwd: call.cwd.as_os_str().as_bytes(),
        umask: current_umask(),
        pid: std::process::id(),
        elapsed_ms: call.started.elapsed().as_millis() as u64,
    };
    let Ok(bytes) = protocol::request_frames(&request, call.stdin) else {
        return local(false, None);
    };
    let _ = stream.set_write_timeout(Some(ACK_TIMEOUT));
    if (&stream).write_all(&bytes).is_err() {
        return local(false, None);
    }
    let _ = stream.set_read_timeout(Some(ACK_TIMEOUT));
    // Buffered: the acknowledgement and each part of the answer arrive in one message, read
    // at once instead of a length and then its bytes. The kernel never joins the bytes of two
    // writers in one read, so every buffered byte is still held to the first sender.
    let mut reader = std::io::BufReader::with_capacity(READ_BUFFER, CredReader::new(&stream));
    let ack: Ack = match protocol::read_json(&mut reader) {
        Ok(ack) => ack,
        Err(e) => {
            let distrust =
                (e.kind() == std::io::ErrorKind::PermissionDenied).then_some(Distrust::Unknown);
            // Closing first: a server that reads on after the timeout finds nobody to
            // acknowledge, and does not run the call.
            let _ = stream.shutdown(std::net::Shutdown::Both);
            return local(false, distrust);
        }
    };
    let Some(sender) = reader.get_ref().sender() else {
        return local(false, Some(Distrust::Unknown));
    };
    if let Err(d) = peer::verify(sender, exe) {
        let _ = stream.shutdown(std::net::Shutdown::Both);
        return local(false, Some(d));
    }
    if !ack.accepted || ack.build != build {
        return local(false, None);
    }
    // Only a trusted server is told to run the call; one left without the byte runs nothing.
    if (&stream).write_all(&[protocol::GO]).is_err() {
        return local(false, None);
    }
    let _ = stream.set_read_timeout(Some(call.answer_within.max(Duration::from_millis(1))));
    match protocol::read_answer(&mut reader) {
        Ok(answer) => Outcome::Served(answer),
        Err(e) => Outcome::Lost {
            timed_out: matches!(
                e.kind(),
                std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
            ),
        },
    }
}

/// How many calls the genuine server of `data_home` answered (`server` is the `acc-hook`
/// it must be), or `None` when none answers.
pub fn served_count(data_home: &Path, server: &Path) -> Option<u64> {
    let outcome = call(&Call {
        kind: Kind::Status,
        data_home,
        expected_exe: server,
        argv: &[],
        env: &BTreeMap::new(),
        cwd: Path::new("/"),
        stdin: &[],
        started: Instant::now(),
        answer_within: ACK_TIMEOUT,
    });
    match outcome {
        Outcome::Served(a) => String::from_utf8(a.stdout).ok()?.trim().parse().ok(),
        _ => None,
    }
}

/// The first word of `argv` that is neither an option nor the value of `--cwd` (the one
/// global option with a value): the subcommand, read without building the CLI's parser
/// (which costs a served call more than the rest of its client).
fn subcommand(argv: &[OsString]) -> Option<&str> {
    let mut args = argv.iter().skip(1);
    while let Some(a) = args.next() {
        let a = a.to_str()?;
        if a == "--cwd" {
            args.next();
        } else if !a.starts_with('-') {
            return Some(a);
        }
    }
    None
}

/// Writes a served answer byte for byte (stdout first, as a local run does) and gives its
/// exit code.
fn write_answer(answer: &Answer, stdout: &mut dyn Write, stderr: &mut dyn Write) -> i32 {
    let _ = stdout.write_all(&answer.stdout);
    let _ = stdout.flush();
    let _ = stderr.write_all(&answer.stderr);
    let _ = stderr.flush();
    answer.code
}

fn current_umask() -> u32 {
    // SAFETY: umask cannot fail; it is set back at once. The client has started no thread
    // that creates files.
    unsafe {
        let m = libc::umask(0o022);
        libc::umask(m);
        m as u32
    }
}

/// `acc-hook`'s side, for a call the runner could not settle without the store
/// ([`crate::hook::runner::run_with_handoff`]): `Some(code)` once the server's answer (or
/// the fail-open line of a server lost after taking it) is written, `None` to run it here.
pub fn hook(
    argv: &[OsString],
    store_call: &StoreCall<'_>,
    stdout: &mut dyn Write,
    stderr: &mut dyn Write,
    started: Instant,
) -> Option<i32> {
    let settings = store_call.settings;
    // The path this process was started from, as the kernel reports it (a profiler that
    // runs the program under its own loader reports the program, not itself).
    let exe = settings.beat_exe.as_deref()?;
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("/"));
    let budget = settings.budget;
    let outcome = call(&Call {
        kind: Kind::Hook,
        data_home: store_call.data_home,
        expected_exe: exe,
        argv,
        env: settings.env.vars(),
        cwd: &cwd,
        stdin: store_call.stdin,
        started,
        answer_within: budget.saturating_sub(started.elapsed()) + super::ANSWER_MARGIN,
    });
    match outcome {
        Outcome::Served(answer) => Some(write_answer(&answer, stdout, stderr)),
        Outcome::Lost { timed_out } => {
            let failure = if timed_out {
                crate::hook::failure::Failure::Timeout
            } else {
                crate::hook::failure::Failure::Panic
            };
            let _ = stderr.write_all(failure.line().as_bytes());
            let _ = stderr.flush();
            log_failure(store_call.data_home, store_call.adapter_id, failure.code());
            Some(0)
        }
        Outcome::Local { start, distrust } => {
            if let Some(d) = distrust {
                log_failure(store_call.data_home, store_call.adapter_id, d.code());
            }
            if start {
                START_AFTER.with(|s| {
                    *s.borrow_mut() = Some((exe.to_path_buf(), store_call.data_home.to_path_buf()))
                });
            }
            None
        }
    }
}

thread_local! {
    /// A server to start once the local run is over (its answer first).
    static START_AFTER: std::cell::RefCell<Option<(PathBuf, PathBuf)>> =
        const { std::cell::RefCell::new(None) };
}

/// Starts the server a call found missing, after the call's own work.
pub fn start_if_missing() {
    if let Some((exe, home)) = START_AFTER.with(|s| s.borrow_mut().take()) {
        super::lifecycle::start_detached(&exe, &home);
    }
}

fn log_failure(data_home: &Path, adapter: &str, code: &str) {
    let at_ms = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0);
    crate::hook::fail_log::append(
        data_home,
        &crate::hook::fail_log::HookFailure {
            at_ms,
            adapter: adapter.to_string(),
            code: code.to_string(),
        },
    );
}

/// `acc`'s side: `Some(code)` when the server answered (or took the call and was lost:
/// reported), `None` to run locally.
pub fn acc(
    argv: &[OsString],
    env: &crate::env::Env,
    cwd: &Path,
    stdout: &mut dyn Write,
    stderr: &mut dyn Write,
    started: Instant,
) -> Option<i32> {
    if !super::enabled(env.get(super::SERVE_VAR)) {
        return None;
    }
    if !super::SERVED_ACC_COMMANDS.contains(&subcommand(argv)?) {
        return None;
    }
    let data_home = crate::paths::data_home(env).ok()?;
    let exe = std::env::current_exe().ok()?.with_file_name("acc-hook");
    let outcome = call(&Call {
        kind: Kind::Acc,
        data_home: &data_home,
        expected_exe: &exe,
        argv,
        env: env.vars(),
        cwd,
        stdin: &[],
        started,
        answer_within: ACC_ANSWER_TIMEOUT,
    });
    match outcome {
        Outcome::Served(answer) => Some(write_answer(&answer, stdout, stderr)),
        Outcome::Lost { .. } => {
            let json = argv.iter().skip(1).any(|a| a == "--json");
            let e = crate::error::AccError::new(
                crate::error::ErrorCode::StoreIo,
                format!(
                    "the acc server for {} took this command and ended before answering: it may have run. Check with `acc status`; unset {} to run commands without the server",
                    data_home.display(),
                    super::SERVE_VAR
                ),
            )
            .with("why", "serverLost");
            Some(crate::cli::output::emit(Err(e), json, stdout, stderr))
        }
        Outcome::Local { start, .. } => {
            if start {
                START_AFTER.with(|s| *s.borrow_mut() = Some((exe, data_home)));
            }
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_subcommand_is_found_past_options_and_the_cwd_value() {
        let argv = |words: &[&str]| -> Vec<OsString> { words.iter().map(Into::into).collect() };
        assert_eq!(
            subcommand(&argv(&["acc", "--cwd", "claim", "status", "--json"])),
            Some("status")
        );
        assert_eq!(
            subcommand(&argv(&["acc", "--json", "claim", "--resource", "x"])),
            Some("claim")
        );
        assert_eq!(
            subcommand(&argv(&["acc", "--cwd=/w", "watch"])),
            Some("watch")
        );
        assert_eq!(subcommand(&argv(&["acc", "--version"])), None);
    }
}
