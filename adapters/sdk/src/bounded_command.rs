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
    let mut child = match Command::new(program)
        .args(args)
        .env_clear()
        .envs(env)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(match streams {
            Streams::Stdout => Stdio::null(),
            Streams::StdoutAndStderr => Stdio::piped(),
        })
        .process_group(0)
        .spawn()
    {
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
