//! Running a short-lived helper command (a client's `--version`, `ps`) within a deadline.
//!
//! Shared by detection and the hook's version probe because both meet the same hostile
//! cases: a wrapper script whose children outlive it, and a grandchild that keeps the
//! output pipe open after the command itself printed its answer and exited.

use std::collections::BTreeMap;
use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How a bounded command ended.
pub enum Answer {
    Ran { success: bool, output: String },
    TimedOut,
    Unrunnable(std::io::Error),
}

/// How long output may stay quiet after the probe exited before what was read is taken:
/// a grandchild holding the pipe open must not cost the version the probe printed.
const QUIET_AFTER_EXIT: Duration = Duration::from_millis(100);

/// Which of the command's output streams are captured (the other is discarded).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Streams {
    Stdout,
    StdoutAndStderr,
}

/// Runs `program` with exactly `env` and reads the chosen streams. The command runs in a
/// process group of its own, and the whole group is killed at the deadline, so a wrapper
/// script's children do not outlive a command that hung.
pub fn run_bounded(
    program: &Path,
    args: &[&str],
    env: &BTreeMap<String, String>,
    timeout: Duration,
    streams: Streams,
) -> Answer {
    use std::os::unix::process::CommandExt;
    let deadline = Instant::now() + timeout;
    let mut command = Command::new(program);
    command
        .args(args)
        .env_clear()
        .envs(env)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(match streams {
            Streams::Stdout => Stdio::null(),
            Streams::StdoutAndStderr => Stdio::piped(),
        })
        .process_group(0);
    let mut child = match spawn(&mut command) {
        Ok(child) => child,
        Err(e) => return Answer::Unrunnable(e),
    };
    let readers: Vec<Captured> = [
        child
            .stdout
            .take()
            .map(|s| Box::new(s) as Box<dyn Read + Send>),
        child
            .stderr
            .take()
            .map(|s| Box::new(s) as Box<dyn Read + Send>),
    ]
    .into_iter()
    .flatten()
    .map(Captured::start)
    .collect();
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(5)),
            _ => {
                kill_group(&mut child);
                let _ = child.wait();
                return Answer::TimedOut;
            }
        }
    };
    // Everything the probe printed is in the pipes now; wait for the readers to drain them
    // (end of file, or quiet while a grandchild keeps a pipe open), never past the deadline.
    let mut seen = 0;
    let mut quiet_since = Instant::now();
    while !readers.iter().all(Captured::finished) {
        let now = Instant::now();
        let total: usize = readers.iter().map(Captured::len).sum();
        if total != seen {
            seen = total;
            quiet_since = now;
        }
        if now >= deadline || now.duration_since(quiet_since) >= QUIET_AFTER_EXIT {
            break;
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    let output = readers.iter().map(Captured::text).collect();
    Answer::Ran {
        success: status.success(),
        output,
    }
}

/// How often, and how far apart, a spawn that met a busy executable is tried again.
const BUSY_RETRIES: u32 = 20;
const BUSY_PAUSE: Duration = Duration::from_millis(10);

/// `command.spawn()`, tried again while the executable is busy (ETXTBSY). An executable
/// written a moment ago is busy as long as any process still holds it open for writing, and
/// a process forked by another thread during the write holds that descriptor until it execs:
/// a race of a few milliseconds, not a reason to report the program missing.
pub fn spawn(command: &mut Command) -> std::io::Result<std::process::Child> {
    let mut tries = 0;
    loop {
        match command.spawn() {
            Err(e)
                if e.kind() == std::io::ErrorKind::ExecutableFileBusy && tries < BUSY_RETRIES =>
            {
                tries += 1;
                std::thread::sleep(BUSY_PAUSE);
            }
            other => return other,
        }
    }
}

/// SIGKILL to the probe's process group (its id is the probe's pid).
fn kill_group(child: &mut std::process::Child) {
    match libc::pid_t::try_from(child.id()) {
        // SAFETY: kill only sends a signal; the group was created for this probe alone.
        Ok(pid) if unsafe { libc::kill(-pid, libc::SIGKILL) } == 0 => {}
        _ => {
            let _ = child.kill();
        }
    }
}

/// One captured stream, read on its own thread (a chatty child must not block on a full
/// pipe) into a buffer that can be taken before the stream ends.
struct Captured {
    bytes: Arc<Mutex<Vec<u8>>>,
    thread: std::thread::JoinHandle<()>,
}

impl Captured {
    fn start(mut stream: Box<dyn Read + Send>) -> Captured {
        let bytes = Arc::new(Mutex::new(Vec::new()));
        let sink = Arc::clone(&bytes);
        let thread = std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            loop {
                match stream.read(&mut buf) {
                    Ok(0) => break,
                    Ok(n) => match sink.lock() {
                        Ok(mut out) => out.extend_from_slice(&buf[..n]),
                        Err(_) => break,
                    },
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                    Err(_) => break,
                }
            }
        });
        Captured { bytes, thread }
    }

    fn finished(&self) -> bool {
        self.thread.is_finished()
    }

    fn len(&self) -> usize {
        self.bytes.lock().map_or(0, |b| b.len())
    }

    fn text(&self) -> String {
        self.bytes
            .lock()
            .map(|b| String::from_utf8_lossy(&b).into_owned())
            .unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_program_fails_as_itself_and_a_present_one_runs() {
        let err = spawn(&mut Command::new("/nonexistent/acc-test-program")).unwrap_err();
        assert_eq!(err.kind(), std::io::ErrorKind::NotFound);
        let status = spawn(Command::new("/bin/sh").args(["-c", "exit 3"]))
            .unwrap()
            .wait()
            .unwrap();
        assert_eq!(status.code(), Some(3));
    }

    #[test]
    fn a_busy_executable_is_tried_again_until_it_is_free() {
        use std::io::Write;
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("tool");
        let mut file = std::fs::File::create(&path).unwrap();
        file.write_all(b"#!/bin/sh\nexit 7\n").unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        // Still open for writing: the executable is busy until the writer lets go.
        let writer = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(50));
            drop(file);
        });
        let status = spawn(&mut Command::new(&path)).unwrap().wait().unwrap();
        writer.join().unwrap();
        assert_eq!(status.code(), Some(7));
    }
}
