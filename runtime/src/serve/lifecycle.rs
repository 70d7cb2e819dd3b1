//! The server's life: one per data home (a lock held for its life, its pid inside), started
//! detached by the first client that finds none, gone when idle, when its binary or its data
//! home is gone, or when its socket is no longer its own. And its children reaped.

use std::fs::File;
use std::io::Write;
use std::os::fd::AsRawFd;
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// How often the watchdog looks.
const TICK: Duration = Duration::from_millis(250);

/// A child seen as a zombie this long is one nobody waits for: code that waits for its
/// child reaps it as soon as it exits, so the reaper only takes what is left over.
const ZOMBIE_GRACE: Duration = Duration::from_secs(1);

/// Creates `<data home>/acc/serve` (0700) and takes the lock, or `None` when another server
/// holds it (or the directory cannot be made).
pub fn try_lock(data_home: &Path) -> Option<File> {
    let dir = super::dir(data_home);
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(&dir)
        .ok()?;
    let file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .mode(0o600)
        .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
        .open(super::lock_path(data_home))
        .ok()?;
    // SAFETY: flock on a descriptor this function owns.
    let rc = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) };
    (rc == 0).then_some(file)
}

/// Writes this process's pid into the held lock: pid, then a newline (the bench reads it).
pub fn record_pid(lock: &mut File) -> std::io::Result<()> {
    lock.set_len(0)?;
    writeln!(lock, "{}", std::process::id())
}

/// The pid of the server holding the lock of `data_home`, if one does.
pub fn running(data_home: &Path) -> Option<u32> {
    let path = super::lock_path(data_home);
    let text = std::fs::read_to_string(&path).ok()?;
    if !is_locked(data_home) {
        return None;
    }
    text.trim().parse().ok()
}

/// Whether a server holds the lock (without creating anything).
pub fn is_locked(data_home: &Path) -> bool {
    let Ok(file) = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
        .open(super::lock_path(data_home))
    else {
        return false;
    };
    // SAFETY: flock on a descriptor this function owns; closing it releases a lock taken.
    let rc = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_SH | libc::LOCK_NB) };
    rc != 0
}

/// Starts `exe serve --data-home <data_home>` for the next call, unless a server holds the
/// lock: in a session of its own (no terminal, out of the client's process group), with
/// /dev/null for stdin, stdout and stderr and no other inherited descriptor (a test harness
/// waits for EOF on the pipes it gave the client), and an empty environment (the server
/// takes each request's, and a loader variable would make every client distrust it).
pub fn start_detached(exe: &Path, data_home: &Path) {
    use std::os::unix::process::CommandExt;
    if is_locked(data_home) || super::socket_path(data_home).is_none() {
        return;
    }
    let mut cmd = std::process::Command::new(exe);
    cmd.arg(super::SUBCOMMAND)
        .arg("--data-home")
        .arg(data_home)
        .env_clear()
        .current_dir("/")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    // SAFETY: setsid is async-signal-safe and touches no memory of the parent.
    unsafe {
        cmd.pre_exec(|| {
            libc::setsid();
            Ok(())
        });
    }
    // Not waited for: the client exits at once and the server is adopted by init.
    let _ = cmd.spawn();
}

/// What the server watches to know it should go.
pub struct Watch {
    pub data_home: PathBuf,
    pub socket: PathBuf,
    /// The socket file's identity when bound.
    pub socket_id: (u64, u64),
    /// The binary's identity at start.
    pub exe_id: Option<(u64, u64)>,
}

/// Why the server exits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExitReason {
    Idle,
    DataHomeGone,
    BinaryReplaced,
    SocketTaken,
}

impl Watch {
    /// Why the server should exit now, if it should.
    pub fn check(&self, idle_for: Duration) -> Option<ExitReason> {
        if !self.data_home.join("acc").is_dir() {
            return Some(ExitReason::DataHomeGone);
        }
        if exe_replaced(self.exe_id) {
            return Some(ExitReason::BinaryReplaced);
        }
        let now = std::fs::symlink_metadata(&self.socket)
            .ok()
            .map(|m| (m.dev(), m.ino()));
        if now != Some(self.socket_id) {
            return Some(ExitReason::SocketTaken);
        }
        (idle_for >= super::IDLE_EXIT).then_some(ExitReason::Idle)
    }

    /// Removes the socket if it is still this server's.
    pub fn remove_socket(&self) {
        let ours = std::fs::symlink_metadata(&self.socket)
            .is_ok_and(|m| (m.dev(), m.ino()) == self.socket_id);
        if ours {
            let _ = std::fs::remove_file(&self.socket);
        }
    }
}

fn exe_replaced(at_start: Option<(u64, u64)>) -> bool {
    let deleted = std::fs::read_link("/proc/self/exe")
        .map(|p| p.to_string_lossy().ends_with(" (deleted)"))
        .unwrap_or(false);
    if deleted {
        return true;
    }
    // The path the binary was started from now names another file: a new build.
    let Ok(path) = std::fs::read_link("/proc/self/exe") else {
        return false;
    };
    at_start.is_some_and(|id| super::peer::file_id(&path) != Some(id))
}

/// How often idle warm connections are swept (closed past [`WARM_IDLE`], the WAL
/// checkpointed into `acc.db`).
const SWEEP_EVERY: u32 = 4;

/// A warm connection unused this long is closed.
const WARM_IDLE: Duration = Duration::from_secs(30);

/// Checks the watch every tick and exits the process with the first reason it gives, its
/// warm connections closed as a process's close would. Sweeps the warm connections and
/// reaps leftover children on the way.
pub fn watchdog(
    watch: Watch,
    idle_for: impl Fn() -> Duration + Send + 'static,
) -> std::io::Result<std::thread::JoinHandle<()>> {
    std::thread::Builder::new()
        .name("acc-serve-watch".into())
        .spawn(move || {
            let mut reaper = Reaper::default();
            for tick in 1u32.. {
                std::thread::sleep(TICK);
                reaper.sweep();
                if watch.check(idle_for()).is_some() {
                    watch.remove_socket();
                    crate::store::warm::disable();
                    std::process::exit(0);
                }
                if tick % SWEEP_EVERY == 0 {
                    crate::store::warm::sweep(WARM_IDLE);
                }
            }
        })
}

/// Reaps children nobody waits for: a served hook starts `acc-hook --beat` and does not
/// wait, a version probe that overran leaves its child. `SIGCHLD` stays at its default, so
/// code that waits for its own child still gets its status; only a child that has been a
/// zombie for [`ZOMBIE_GRACE`] is taken, by its pid.
#[derive(Default)]
struct Reaper {
    seen: Vec<(u32, Instant)>,
}

impl Reaper {
    fn sweep(&mut self) {
        self.sweep_among(zombie_children());
    }

    fn sweep_among(&mut self, zombies: Vec<u32>) {
        self.seen.retain(|(pid, _)| zombies.contains(pid));
        for pid in zombies {
            match self.seen.iter().find(|(p, _)| *p == pid) {
                Some((_, since)) if since.elapsed() >= ZOMBIE_GRACE => {
                    let mut status = 0;
                    // SAFETY: waits for one exited child by its pid, without blocking.
                    unsafe { libc::waitpid(pid as i32, &mut status, libc::WNOHANG) };
                }
                Some(_) => {}
                None => self.seen.push((pid, Instant::now())),
            }
        }
    }
}

/// This process's children in state Z.
fn zombie_children() -> Vec<u32> {
    let mut pids = Vec::new();
    let Ok(tasks) = std::fs::read_dir("/proc/self/task") else {
        return pids;
    };
    for task in tasks.flatten() {
        let Ok(children) = std::fs::read_to_string(task.path().join("children")) else {
            continue;
        };
        pids.extend(
            children
                .split_whitespace()
                .filter_map(|p| p.parse::<u32>().ok()),
        );
    }
    pids.retain(|pid| {
        std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
            // The state follows the command's closing parenthesis.
            stat.rsplit_once(')')
                .is_some_and(|(_, rest)| rest.trim_start().starts_with('Z'))
        })
    });
    pids
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_lock_holder_and_its_pid() {
        let home = tempfile::tempdir().unwrap();
        assert_eq!(running(home.path()), None);
        let mut lock = try_lock(home.path()).unwrap();
        record_pid(&mut lock).unwrap();
        assert!(try_lock(home.path()).is_none(), "a second server");
        assert_eq!(running(home.path()), Some(std::process::id()));
        assert_eq!(
            std::fs::read_to_string(crate::serve::lock_path(home.path())).unwrap(),
            format!("{}\n", std::process::id())
        );
        let mode = std::fs::metadata(crate::serve::dir(home.path()))
            .unwrap()
            .mode();
        assert_eq!(mode & 0o777, 0o700);
        drop(lock);
        assert_eq!(running(home.path()), None);
    }

    #[test]
    fn a_child_left_a_zombie_is_reaped_after_the_grace() {
        let left = std::process::Command::new("true").spawn().unwrap();
        let pid = left.id();
        std::mem::forget(left);
        let mut reaper = Reaper::default();
        // Only this test's child: the harness's other tests wait for their own.
        let mine = || {
            zombie_children()
                .into_iter()
                .filter(|p| *p == pid)
                .collect()
        };
        let until = Instant::now() + Duration::from_secs(10);
        while Instant::now() < until && std::path::Path::new(&format!("/proc/{pid}")).exists() {
            reaper.sweep_among(mine());
            std::thread::sleep(Duration::from_millis(100));
        }
        assert!(
            !std::path::Path::new(&format!("/proc/{pid}")).exists(),
            "the zombie is gone"
        );
    }
}
