//! Presence is computed at read time, never stored.
//!
//! offline: closed, or silent for more than 24 h, or its recorded pid is dead, or it has no
//! pid and the shared host that ran it is dead, or it has no pid and has been silent for more
//! than 30 min. online: silent for at most 3 heartbeat
//! cadences. stale: everything else. Stale presence never releases anything.

use super::model::{Presence, SessionState};

/// A session silent this long is offline whatever else is known.
pub const OFFLINE_AFTER_MS: i64 = 24 * 60 * 60 * 1000;
/// Without a pid to probe, silence this long means offline.
pub const OFFLINE_WITHOUT_PID_AFTER_MS: i64 = 30 * 60 * 1000;

/// Answers "is this process alive?"; injected so tests control it.
pub trait PidProbe: Send + Sync {
    fn is_alive(&self, pid: u32) -> bool;
}

/// Probes with `kill(pid, 0)`. EPERM means the process exists but belongs to someone else,
/// which still counts as alive. On Linux a zombie (exited, not yet reaped by its parent)
/// counts as dead: `kill` still succeeds on it, but the client it was has ended.
#[derive(Debug, Default, Clone, Copy)]
pub struct SystemPidProbe;

impl PidProbe for SystemPidProbe {
    fn is_alive(&self, pid: u32) -> bool {
        if pid == 0 || pid > i32::MAX as u32 {
            return false;
        }
        // SAFETY: signal 0 performs only the existence and permission check.
        let rc = unsafe { libc::kill(pid as libc::pid_t, 0) };
        let exists = rc == 0 || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM);
        exists && !is_zombie(pid)
    }
}

/// Whether `/proc` shows `pid` as exited and unreaped (state `Z` or `X`). Unknown (no
/// `/proc`, unreadable) is "no": only a confirmed end counts.
fn is_zombie(pid: u32) -> bool {
    if !cfg!(target_os = "linux") {
        return false;
    }
    let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
        return false;
    };
    // `pid (comm) state …`: comm may hold spaces and parentheses, so read after the last `)`.
    stat.rsplit_once(')')
        .and_then(|(_, rest)| rest.trim_start().chars().next())
        .is_some_and(|state| matches!(state, 'Z' | 'X'))
}

/// The facts presence is computed from.
#[derive(Debug, Clone, Copy)]
pub struct PresenceFacts {
    pub state: SessionState,
    pub heartbeat_at_ms: i64,
    pub cadence_ms: i64,
    pub pid: Option<u32>,
    /// Without a client pid: the shared host that runs the session's hooks. Its death ends the
    /// session; its life proves nothing.
    pub host_pid: Option<u32>,
}

/// Whether the facts prove the session's client gone: its pid is dead, or, without one, the
/// shared host that ran it is.
pub fn client_gone(facts: &PresenceFacts, probe: &dyn PidProbe) -> bool {
    match (facts.pid, facts.host_pid) {
        (Some(pid), _) | (None, Some(pid)) => !probe.is_alive(pid),
        (None, None) => false,
    }
}

pub fn compute(facts: PresenceFacts, now_ms: i64, probe: &dyn PidProbe) -> Presence {
    if facts.state == SessionState::Closed {
        return Presence::Offline;
    }
    let age = now_ms - facts.heartbeat_at_ms;
    if age > OFFLINE_AFTER_MS {
        return Presence::Offline;
    }
    if client_gone(&facts, probe) {
        return Presence::Offline;
    }
    if facts.pid.is_none() && age > OFFLINE_WITHOUT_PID_AFTER_MS {
        return Presence::Offline;
    }
    if age <= 3 * facts.cadence_ms {
        Presence::Online
    } else {
        Presence::Stale
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use std::collections::HashSet;
    use std::sync::Mutex;

    /// A probe whose live pids the test chooses.
    #[derive(Default)]
    pub struct FakeProbe(pub Mutex<HashSet<u32>>);

    impl PidProbe for FakeProbe {
        fn is_alive(&self, pid: u32) -> bool {
            self.0.lock().unwrap().contains(&pid)
        }
    }

    fn facts(age_ms: i64, pid: Option<u32>) -> (PresenceFacts, i64) {
        let now = 100 * OFFLINE_AFTER_MS;
        (
            PresenceFacts {
                state: SessionState::Open,
                heartbeat_at_ms: now - age_ms,
                cadence_ms: 30_000,
                pid,
                host_pid: None,
            },
            now,
        )
    }

    #[test]
    fn the_exact_rules() {
        let probe = FakeProbe::default();
        probe.0.lock().unwrap().insert(42);
        let at = |age, pid| {
            let (f, now) = facts(age, pid);
            compute(f, now, &probe)
        };
        assert_eq!(at(0, None), Presence::Online);
        assert_eq!(at(90_000, None), Presence::Online);
        assert_eq!(at(90_001, None), Presence::Stale);
        assert_eq!(at(OFFLINE_WITHOUT_PID_AFTER_MS, None), Presence::Stale);
        assert_eq!(
            at(OFFLINE_WITHOUT_PID_AFTER_MS + 1, None),
            Presence::Offline
        );
        // A live pid keeps a silent session stale, not offline, up to 24 h.
        assert_eq!(
            at(OFFLINE_WITHOUT_PID_AFTER_MS + 1, Some(42)),
            Presence::Stale
        );
        assert_eq!(at(OFFLINE_AFTER_MS + 1, Some(42)), Presence::Offline);
        // A dead pid is offline at once, however fresh the heartbeat.
        assert_eq!(at(0, Some(7)), Presence::Offline);
        let (mut f, now) = facts(0, Some(42));
        f.state = SessionState::Closed;
        assert_eq!(compute(f, now, &probe), Presence::Offline);
    }

    #[test]
    fn a_shared_host_only_proves_a_session_gone_when_it_is_gone() {
        let probe = FakeProbe::default();
        probe.0.lock().unwrap().insert(42);
        let at = |age, host| {
            let (mut f, now) = facts(age, None);
            f.host_pid = host;
            compute(f, now, &probe)
        };
        // A live host says nothing of the session: the rules for no pid apply.
        assert_eq!(at(0, Some(42)), Presence::Online);
        assert_eq!(at(OFFLINE_WITHOUT_PID_AFTER_MS, Some(42)), Presence::Stale);
        assert_eq!(
            at(OFFLINE_WITHOUT_PID_AFTER_MS + 1, Some(42)),
            Presence::Offline
        );
        // A dead host took every session it ran with it.
        assert_eq!(at(0, Some(7)), Presence::Offline);
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_zombie_is_dead() {
        // An exited child nobody has waited for yet: kill(pid, 0) still succeeds on it.
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let pid = child.id();
        let stat = format!("/proc/{pid}/stat");
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
        while !std::fs::read_to_string(&stat)
            .unwrap()
            .rsplit(')')
            .next()
            .unwrap()
            .trim_start()
            .starts_with('Z')
        {
            assert!(
                std::time::Instant::now() < deadline,
                "the child never exited"
            );
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        assert!(!SystemPidProbe.is_alive(pid), "a zombie has ended");
        child.wait().unwrap();
    }

    #[test]
    fn system_probe_sees_this_process_and_not_a_dead_one() {
        assert!(SystemPidProbe.is_alive(std::process::id()));
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let pid = child.id();
        child.wait().unwrap();
        assert!(!SystemPidProbe.is_alive(pid));
        assert!(!SystemPidProbe.is_alive(0));
        // pid 1 belongs to root; EPERM (as non-root) still counts as alive.
        assert!(SystemPidProbe.is_alive(1));
    }
}
