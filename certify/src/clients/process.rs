//! Running a child in its own process group with a deadline, capturing its output, and
//! leaving nothing behind: the whole group is killed on timeout and once the child exits.

use std::io::{self, Read};
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

/// How long output readers may take after the group is gone; a descendant that escaped the
/// group and still holds a pipe must not hang the caller.
const READER_GRACE: Duration = Duration::from_secs(5);
const POLL: Duration = Duration::from_millis(10);

#[derive(Debug)]
pub struct Finished {
    pub status: ExitStatus,
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
    pub duration: Duration,
    pub timed_out: bool,
}

/// Runs `command` with stdin from /dev/null until it exits or `timeout` passes.
pub fn run_with_timeout(command: &mut Command, timeout: Duration) -> io::Result<Finished> {
    command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0);
    let started = Instant::now();
    let mut child = acc_sdk::bounded_command::spawn(command)?;
    let stdout = spawn_reader(child.stdout.take());
    let stderr = spawn_reader(child.stderr.take());
    let mut timed_out = false;
    loop {
        if has_exited(&child)? {
            break;
        }
        if started.elapsed() >= timeout {
            timed_out = true;
            break;
        }
        thread::sleep(POLL);
    }
    // The child is exited-but-unreaped (or still running), so its pid, which is also the
    // group id, cannot have been reused yet.
    kill_group(&child);
    let status = child.wait()?;
    let duration = started.elapsed();
    Ok(Finished {
        status,
        stdout: collect(stdout),
        stderr: collect(stderr),
        duration,
        timed_out,
    })
}

fn spawn_reader<R: Read + Send + 'static>(source: Option<R>) -> mpsc::Receiver<Vec<u8>> {
    let (sender, receiver) = mpsc::channel();
    if let Some(mut source) = source {
        thread::spawn(move || {
            let mut bytes = Vec::new();
            let _ = source.read_to_end(&mut bytes);
            let _ = sender.send(bytes);
        });
    }
    receiver
}

fn collect(receiver: mpsc::Receiver<Vec<u8>>) -> Vec<u8> {
    receiver.recv_timeout(READER_GRACE).unwrap_or_default()
}

/// Whether the child has exited, without reaping it.
fn has_exited(child: &Child) -> io::Result<bool> {
    // SAFETY: waitid writes only into the zeroed siginfo we own; WNOWAIT leaves the child
    // to be reaped by `Child::wait`.
    unsafe {
        let mut info: libc::siginfo_t = std::mem::zeroed();
        let rc = libc::waitid(
            libc::P_PID,
            child.id() as libc::id_t,
            &mut info,
            libc::WEXITED | libc::WNOHANG | libc::WNOWAIT,
        );
        if rc != 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(info.si_pid() != 0)
    }
}

fn kill_group(child: &Child) {
    let group = child.id() as libc::pid_t;
    // SAFETY: plain signal delivery to the group this module created; ESRCH (already gone)
    // is the expected outcome after a clean exit.
    unsafe {
        libc::kill(-group, libc::SIGKILL);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn output_and_status_are_captured() {
        let finished = run_with_timeout(
            Command::new("sh").args(["-c", "echo out; echo err >&2; exit 3"]),
            Duration::from_secs(30),
        )
        .unwrap();
        assert_eq!(finished.status.code(), Some(3));
        assert_eq!(finished.stdout, b"out\n");
        assert_eq!(finished.stderr, b"err\n");
        assert!(!finished.timed_out);
    }

    #[test]
    fn a_child_past_its_deadline_is_killed_with_its_group() {
        let dir = tempfile::tempdir().unwrap();
        let marker = dir.path().join("survivor");
        // The background grandchild would write the marker after the parent is killed if the
        // kill missed the group.
        let script = format!("(sleep 2; touch {}) & sleep 30", marker.display());
        let finished = run_with_timeout(
            Command::new("sh").args(["-c", &script]),
            Duration::from_millis(300),
        )
        .unwrap();
        assert!(finished.timed_out);
        assert!(finished.status.code().is_none(), "killed by a signal");
        thread::sleep(Duration::from_millis(2500));
        assert!(!marker.exists(), "the grandchild outlived the timeout kill");
    }

    #[test]
    fn stragglers_are_ended_when_the_child_exits() {
        let dir = tempfile::tempdir().unwrap();
        let marker = dir.path().join("straggler");
        let script = format!("(sleep 2; touch {}) > /dev/null 2>&1 &", marker.display());
        let finished = run_with_timeout(
            Command::new("sh").args(["-c", &script]),
            Duration::from_secs(30),
        )
        .unwrap();
        assert!(!finished.timed_out);
        assert_eq!(finished.status.code(), Some(0));
        thread::sleep(Duration::from_millis(2500));
        assert!(!marker.exists(), "a background process outlived its client");
    }
}
