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

pub fn alive(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|s| {
            s.rsplit_once(')')
                .map(|(_, r)| r.trim_start().starts_with(['Z', 'X']))
        })
        .is_some_and(|zombie| !zombie)
}
