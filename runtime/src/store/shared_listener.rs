//! Each host's guard snapshot of a shared store, kept current by a small listener process
//! (`acc-hook shared-listen`), so the write guard's fast path answers an allow on this host
//! from the snapshot, without connecting to the server, as it does beside a SQLite store.
//!
//! Why a listener and not a version polled by the hooks that connect anyway: between two
//! such hooks a host would allow writes from a snapshot that cannot know a claim taken on
//! another host since, for as long as no hook connected. The listener holds one connection
//! that `LISTEN`s on the room's channel; every write that changes what the guard reads sends
//! a `NOTIFY` at its commit ([`super::shared::announce_change`]), and the listener withdraws
//! this host's token at once and publishes the new snapshot. Between notifications it
//! confirms the room's guard version every [`TICK`] (one row) and renews its **lease**.
//!
//! The lease (`guard-lease` beside the snapshot: the tag of the publication it vouches for
//! and a wall-clock expiry) is the freshness rule: the fast path trusts a shared store's
//! snapshot for an allow only while the lease names the published tag and has not run out
//! ([`leased`]). A listener that loses the server (stopped, partitioned, the connection
//! cut) renews nothing, so within [`LEASE`] every covered call goes to the store path,
//! which, with the server away, answers from the copy: a write into a guarded claim is
//! refused, never allowed for want of the server. Any other process that rewrites the copy
//! withdraws the token first, and only the listener publishes one.
//!
//! One listener per workspace and host: it holds an exclusive lock on `guard-listener.lock`
//! (its pid inside) for its life. A hook that connected to a shared store starts one when
//! none holds the lock ([`ensure_running`]). It ends when no session of this host has been
//! open in the room for [`IDLE_EXIT`], when the server has been away for [`AWAY_EXIT`], or
//! when its data home is removed.

use super::engine::config::{STORE_URL_VAR, host_id};
use super::engine::{self, Connection};
use super::{Genesis, OpenMode, Store, guard_snapshot, guard_token};
use crate::error::Result;
use crate::ids::WorkspaceId;
use crate::workspace::WorkspaceDescriptor;
use std::ffi::OsString;
use std::io::{Read, Write};
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use super::guard_token::ANCHOR_FILE;

/// The listener's lease: `<tag>\t<expiry, wall-clock ms>\n`.
pub const LEASE_FILE: &str = "guard-lease";

/// Held by the listener for its life; holds its pid.
pub const LOCK_FILE: &str = "guard-listener.lock";

/// `acc-hook shared-listen …` runs a listener.
pub const SUBCOMMAND: &str = "shared-listen";

/// How long a confirmation of the room's guard version is trusted.
pub const LEASE: Duration = Duration::from_secs(2);

/// How often the listener confirms the version (and renews the lease) between notifications.
pub const TICK: Duration = Duration::from_millis(500);

/// A listener with no open session of its host in the room for this long ends.
pub const IDLE_EXIT: Duration = Duration::from_secs(120);

/// A listener that could not reach the server for this long ends (the next hook that
/// connects starts another).
pub const AWAY_EXIT: Duration = Duration::from_secs(120);

/// How often the listener looks for open sessions of its host.
const PRESENCE_EVERY: Duration = Duration::from_secs(5);

/// The end of every tag the listener publishes: the fast path asks for its lease.
const SHARED_MARK: &str = ".shared";

/// Whether a published tag is a shared store's (its snapshot needs a live lease).
pub fn is_shared_tag(tag: &str) -> bool {
    tag.ends_with(SHARED_MARK)
}

fn wall_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}

/// Whether this host's listener vouches, now, for the publication `tag` of the shared store
/// whose local place is `store_file`: its lease names that tag and has not run out.
pub fn leased(store_file: &Path, tag: &str) -> bool {
    use std::os::unix::fs::OpenOptionsExt;
    let Ok(file) = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(store_file.with_file_name(LEASE_FILE))
    else {
        return false;
    };
    let mut text = String::new();
    if file.take(512).read_to_string(&mut text).is_err() {
        return false;
    }
    let Some((leased_tag, until)) = text.strip_suffix('\n').and_then(|l| l.split_once('\t')) else {
        return false;
    };
    leased_tag == tag && until.parse::<i64>().is_ok_and(|until| wall_ms() < until)
}

fn write_lease(store_file: &Path, tag: &str, until_ms: i64) -> std::io::Result<()> {
    crate::atomic_write::AtomicWrite::new().write(
        &store_file.with_file_name(LEASE_FILE),
        format!("{tag}\t{until_ms}\n").as_bytes(),
    )
}

/// The lock file, locked exclusively: `None` when another process holds it.
fn try_lock(store_file: &Path) -> Option<std::fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    let file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .mode(0o600)
        .custom_flags(libc::O_NOFOLLOW)
        .open(store_file.with_file_name(LOCK_FILE))
        .ok()?;
    // SAFETY: flock on a descriptor this function owns.
    let rc = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) };
    (rc == 0).then_some(file)
}

/// The pid of the listener running for the store at `store_file`, if one holds the lock.
pub fn running(store_file: &Path) -> Option<u32> {
    let path = store_file.with_file_name(LOCK_FILE);
    let text = std::fs::read_to_string(&path).ok()?;
    if try_lock(store_file).is_some() {
        return None;
    }
    text.trim().parse().ok()
}

/// Starts this host's listener for the shared store of `workspace` unless one runs: `exe`
/// is `acc-hook`. Best effort: without a listener the fast path does not answer and the
/// guard goes to the server, as before.
pub fn ensure_running(exe: &Path, data_home: &Path, workspace: &WorkspaceDescriptor) {
    use std::os::unix::process::CommandExt;
    let Some(shared) = &workspace.shared else {
        return;
    };
    let store_file = crate::paths::store_file(data_home, &workspace.id);
    if !store_file.parent().is_some_and(Path::exists) {
        return;
    }
    // A probe, released at once: a listener starting meanwhile makes the new one end.
    if try_lock(&store_file).is_none() {
        return;
    }
    let mut cmd = std::process::Command::new(exe);
    cmd.arg(SUBCOMMAND)
        .arg("--data-home")
        .arg(data_home)
        .arg("--workspace")
        .arg(workspace.id.as_str());
    if let Some(repo) = &shared.repository {
        cmd.arg("--repository").arg(repo);
    }
    // The URL may hold a password: in the environment, not on the command line.
    let _ = cmd
        .env(STORE_URL_VAR, &shared.url)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        // Out of the client's process group: ending the hook's group leaves it running.
        .process_group(0)
        .spawn();
}

/// `acc-hook shared-listen --data-home DIR --workspace ID [--repository R]`, with the
/// store's URL in `ACC_STORE_URL`. Exit 0 when it ends as designed, 2 on bad arguments.
pub fn main(args: &[OsString]) -> i32 {
    let mut data_home: Option<PathBuf> = None;
    let mut workspace: Option<String> = None;
    let mut repository: Option<String> = None;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let value = it.next().map(|v| v.to_string_lossy().into_owned());
        match (a.to_str(), value) {
            (Some("--data-home"), Some(v)) => data_home = Some(PathBuf::from(v)),
            (Some("--workspace"), Some(v)) => workspace = Some(v),
            (Some("--repository"), Some(v)) => repository = Some(v),
            _ => {
                eprintln!(
                    "usage: acc-hook {SUBCOMMAND} --data-home DIR --workspace ID [--repository R] (ACC_STORE_URL names the server)"
                );
                return 2;
            }
        }
    }
    let url = std::env::var(STORE_URL_VAR).ok();
    let workspace = workspace
        .as_deref()
        .and_then(|w| WorkspaceId::parse(w).ok());
    let (Some(data_home), Some(workspace), Some(url)) = (data_home, workspace, url) else {
        eprintln!(
            "acc-hook {SUBCOMMAND}: --data-home, a valid --workspace and ACC_STORE_URL are required"
        );
        return 2;
    };
    run(&url, &data_home, &workspace, repository.as_deref());
    0
}

/// The listener's life: see the module's documentation.
pub fn run(url: &str, data_home: &Path, workspace: &WorkspaceId, repository: Option<&str>) {
    let store_file = crate::paths::store_file(data_home, workspace);
    let Some(dir) = store_file.parent().map(Path::to_path_buf) else {
        return;
    };
    let Some(mut lock) = try_lock(&store_file) else {
        return;
    };
    let _ = lock.set_len(0);
    let _ = writeln!(lock, "{}", std::process::id());
    let host = host_id();
    let started = Instant::now();
    let mut away_since: Option<Instant> = None;
    let mut idle_since: Option<Instant> = None;
    while dir.exists() {
        let opened = Store::open_shared(
            url,
            &store_file,
            workspace,
            repository,
            OpenMode::ReadOnly,
            || Genesis {
                now_ms: 0,
                event_id: "event_unused".into(),
            },
        );
        let mut store = match opened {
            Ok(store) if !store.is_ephemeral() => store,
            // No room yet, or the server is away: nothing to vouch for.
            other => {
                if other.is_err()
                    && away_since.get_or_insert_with(Instant::now).elapsed() > AWAY_EXIT
                {
                    return;
                }
                if other.is_ok() && started.elapsed() > IDLE_EXIT {
                    return;
                }
                std::thread::sleep(TICK);
                continue;
            }
        };
        away_since = None;
        if listen(&store).is_err() {
            std::thread::sleep(TICK);
            continue;
        }
        let mut published: Option<(i64, String)> = None;
        let mut presence_at: Option<Instant> = None;
        loop {
            if !dir.exists() {
                return;
            }
            match store.confirm_or_publish(&mut published) {
                Ok(tag) => {
                    let _ = write_lease(&store_file, &tag, wall_ms() + LEASE.as_millis() as i64);
                }
                Err(_) => break,
            }
            if presence_at.is_none_or(|at| at.elapsed() >= PRESENCE_EVERY) {
                presence_at = Some(Instant::now());
                match store.read(|c| open_sessions_of(c, &host)) {
                    Ok(0) => {
                        if idle_since.get_or_insert_with(Instant::now).elapsed() > IDLE_EXIT {
                            return;
                        }
                    }
                    Ok(_) => idle_since = None,
                    Err(_) => break,
                }
            }
            match wait_notification(&store, TICK) {
                Ok(true) => {
                    // Before anything is read: from here on the fast path goes to the server.
                    let _ = guard_token::withdraw(&store_file);
                    published = None;
                }
                Ok(false) => {}
                Err(_) => break,
            }
        }
        // The connection is gone: the lease runs out unrenewed.
        away_since.get_or_insert_with(Instant::now);
        std::thread::sleep(TICK);
    }
}

fn pg(store: &Store) -> Option<&engine::postgres::PgConnection> {
    match &*store.conn {
        Connection::Postgres(pg) => Some(pg),
        Connection::Sqlite(_) => None,
    }
}

fn listen(store: &Store) -> Result<()> {
    if let Some(pg) = pg(store) {
        pg.listen(pg.schema())?;
    }
    Ok(())
}

fn wait_notification(store: &Store, timeout: Duration) -> Result<bool> {
    match pg(store) {
        Some(pg) => Ok(pg.wait_notification(timeout)?),
        None => {
            std::thread::sleep(timeout);
            Ok(false)
        }
    }
}

fn open_sessions_of(c: &Connection, host: &str) -> Result<i64> {
    Ok(c.query_row(
        "SELECT count(*) FROM sessions
         WHERE state = 'open' AND json_extract(extensions, '$.host') = ?1",
        [host],
        |r| r.get(0),
    )?)
}

impl Store {
    /// Confirms that the snapshot this listener published is the room's present guard
    /// state (one row read), or publishes a new one: the tag its lease is to name.
    fn confirm_or_publish(&mut self, published: &mut Option<(i64, String)>) -> Result<String> {
        let version = self.read(guard_snapshot::fingerprint)?;
        if let Some((v, tag)) = published.as_ref()
            && *v == version
            && guard_token::read(&self.path).is_some_and(|t| &t.tag == tag)
        {
            return Ok(tag.clone());
        }
        *published = None;
        guard_token::withdraw(&self.path)?;
        let anchor = self.path.with_file_name(ANCHOR_FILE);
        // The tag names the anchor, which must be there before it is made.
        std::fs::OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(false)
            .open(&anchor)?;
        let file = guard_snapshot::path_for(&self.path);
        let path = self.path.clone();
        let now_ms = self.clock.now_ms();
        let (version, tag) = self.read(|c| {
            let version = guard_snapshot::fingerprint(c)?;
            let workspace: String = c.query_row(
                "SELECT value FROM meta WHERE key = 'workspace_id'",
                [],
                |r| r.get(0),
            )?;
            let tag = format!("{}{SHARED_MARK}", guard_token::new_tag(&path, version, 0)?);
            guard_snapshot::write(c, &file, &workspace, now_ms, &tag)?;
            Ok((version, tag))
        })?;
        // Same inode (truncated in place): the anchor's identity stays the tag's prefix.
        std::fs::write(&anchor, version.to_string())?;
        guard_token::publish(&self.path, &tag, &file, None)?;
        *published = Some((version, tag.clone()));
        Ok(tag)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lease_vouches_only_for_its_tag_and_only_until_it_runs_out() {
        let dir = tempfile::tempdir().unwrap();
        let store = dir.path().join("acc.db");
        assert!(!leased(&store, "t.shared"), "no lease, no trust");
        write_lease(&store, "t.shared", wall_ms() + 60_000).unwrap();
        assert!(leased(&store, "t.shared"));
        assert!(!leased(&store, "u.shared"), "another publication's tag");
        write_lease(&store, "t.shared", wall_ms() - 1).unwrap();
        assert!(!leased(&store, "t.shared"), "run out");
        std::fs::write(store.with_file_name(LEASE_FILE), "t.shared\tsoon\n").unwrap();
        assert!(!leased(&store, "t.shared"), "not a lease acc wrote");
        assert!(is_shared_tag("1.2.3.4.5.s0.shared"));
        assert!(!is_shared_tag("1.2.3.4.5.s7"));
    }

    #[test]
    fn one_listener_holds_the_lock_at_a_time() {
        let dir = tempfile::tempdir().unwrap();
        let store = dir.path().join("acc.db");
        let held = try_lock(&store).expect("free");
        std::fs::write(store.with_file_name(LOCK_FILE), "4242\n").unwrap();
        assert!(try_lock(&store).is_none(), "held");
        assert_eq!(running(&store), Some(4242));
        drop(held);
        assert_eq!(running(&store), None);
        assert!(try_lock(&store).is_some());
    }
}
