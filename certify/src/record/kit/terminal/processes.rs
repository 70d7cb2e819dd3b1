//! A terminal client's processes, read from `/proc`: its own, what it left running in the
//! sandbox, and whether one still runs.

use std::path::Path;

/// The pids whose `/proc/<pid>/stat` session id is `sid`, with their command names.
fn session_members(sid: u32) -> Vec<(u32, String)> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    dir.filter_map(Result::ok)
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter_map(|pid| {
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
            let (head, rest) = stat.rsplit_once(')')?;
            let comm = head.split_once('(')?.1.to_owned();
            // After the command: state, ppid, pgrp, session.
            let session: u32 = rest.split_whitespace().nth(3)?.parse().ok()?;
            (session == sid).then_some((pid, comm))
        })
        .collect()
}

/// The client's own terminal processes: everything in the pane's session but the pane's
/// shell and the network watch. A daemon the client detaches (`setsid`) is not among them.
pub fn client_processes(pane_pid: u32) -> Vec<u32> {
    session_members(pane_pid)
        .into_iter()
        .filter(|(pid, comm)| {
            *pid != pane_pid
                && !matches!(comm.as_str(), "sh" | "bash" | "strace" | "sleep" | "touch")
        })
        .map(|(pid, _)| pid)
        .collect()
}

/// Processes the client left running in the sandbox (Codex's daemon), found by the
/// sandbox's own `HOME` in their environment.
pub fn sandbox_processes(home: &Path) -> Vec<u32> {
    let marker = format!("HOME={}", home.display());
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    dir.filter_map(Result::ok)
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            std::fs::read(format!("/proc/{pid}/environ"))
                .is_ok_and(|env| env.split(|b| *b == 0).any(|var| var == marker.as_bytes()))
        })
        .collect()
}

/// Whether any thread of `pid` still runs.
///
/// A thread group's leader is a zombie as soon as it has exited itself, while its other
/// threads may still be on their way out, holding the process's files: a killed client's
/// listening socket still takes connections then. Under the network watch's tracer each
/// thread stops on its way out until strace lets it go, which a loaded machine stretches to
/// seconds (a `live-wake` send in that window was told `woken` by a killed Claude Code).
/// The process is gone once every thread is gone or a zombie.
pub fn alive(pid: u32) -> bool {
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return false;
    };
    tasks
        .filter_map(Result::ok)
        .any(|task| runs(&task.path().join("stat")))
}

/// Whether the `stat` file of one thread shows it neither a zombie nor dead.
fn runs(stat: &Path) -> bool {
    std::fs::read_to_string(stat)
        .ok()
        .and_then(|s| {
            s.rsplit_once(')')
                .map(|(_, r)| r.trim_start().starts_with(['Z', 'X']))
        })
        .is_some_and(|zombie| !zombie)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_process_runs_until_every_thread_is_gone_or_a_zombie() {
        let mut child = std::process::Command::new("sleep")
            .arg("60")
            .spawn()
            .unwrap();
        let pid = child.id();
        assert!(alive(pid));
        child.kill().unwrap();
        // Killed and not yet reaped: a zombie has released everything it held.
        let gone = (0..100).any(|_| {
            std::thread::sleep(std::time::Duration::from_millis(20));
            !alive(pid)
        });
        assert!(gone, "a killed, unreaped process still counts as running");
        child.wait().unwrap();
        assert!(!alive(pid));
        // This test's own process: its leader runs, and so do its other threads.
        assert!(alive(std::process::id()));
    }

    #[test]
    fn a_zombie_leader_with_a_thread_still_exiting_runs() {
        let dir = tempfile::tempdir().unwrap();
        let task = |name: &str, state: char| {
            let t = dir.path().join(name);
            std::fs::create_dir_all(&t).unwrap();
            std::fs::write(t.join("stat"), format!("7 (node) {state} 1 7 7 0")).unwrap();
            t.join("stat")
        };
        assert!(!runs(&task("7", 'Z')));
        assert!(
            runs(&task("9", 't')),
            "a thread stopped by its tracer on its way out"
        );
        assert!(!runs(&dir.path().join("absent/stat")));
    }
}
