//! Warm connections (issue 30, sixth round): in a process that asked for it
//! ([`enable`], the resident server), [`super::Store::open`] takes an idle SQLite
//! connection to the same store file instead of opening a new one, and dropping the
//! `Store` hands it back. A connection opened anew pays the schema's parse (about 1 M
//! instructions) and a compile of every statement it runs; a warm one has both.
//!
//! What a checkout skips is `sqlite3_open` and nothing else: the open's checks (a regular
//! file, SQLite's magic, the directory writable, the per-connection pragmas, the schema
//! version, the workspace id, a migration) run at every checkout as on a fresh open, and
//! the core's tamper check runs after it as before. What the connection brings with it (the
//! parsed schema, its page cache, its compiled statements) is what it read from `acc.db`,
//! so it is kept only when `acc.db` was not written while it was in use (this process's own
//! hand-back checkpoints aside: they move committed frames, which every connection reads
//! alike), and taken only when `acc.db` was not written since it was handed back: the same
//! path, device and inode, size, modification and change times to the nanosecond, and the
//! same first 100 bytes (SQLite's header: its change counter and schema cookie). No process
//! can set a file's change time and every write gives it a new one (the guard token's seal
//! rests on the same fact; the kernel's fine-grained change times, Linux 6.13 on, separate
//! a write from a `stat` made in the same clock tick), so a store deleted and created anew,
//! moved aside, replaced by a copy, zeroed in place or checkpointed into by another program
//! is opened anew and judged by a fresh connection. What other connections commit to the
//! WAL without touching `acc.db` every connection sees alike: SQLite's own protocol (the WAL
//! index) tells a connection, fresh or warm, what changed, and a schema changed there moves
//! the schema cookie, which makes SQLite parse the schema again. Left: a write to `acc.db`
//! between the hand-back's own checkpoint and its `stat` (microseconds) is taken for the
//! checkpoint's.
//!
//! Handed back are only connections a `Store` opened read-write on a file and left outside
//! a transaction, on a thread that is not panicking; anything else is closed as today.
//! A read-only connection (a directory acc may not write, opened `immutable` when no WAL
//! was there) is never kept: `immutable` promises SQLite the file never changes.
//!
//! The WAL: a closing connection that is the file's last checkpoints and deletes the WAL,
//! so `acc.db` alone holds the store between processes (a copy of it is whole). A kept
//! connection holds the WAL open, so each hand-back that finds frames in the WAL
//! checkpoints them (`TRUNCATE`, under `synchronous = NORMAL`, without waiting for another
//! process's reader or writer): `acc.db` again holds every commit and the WAL is empty,
//! which also lets the next write commit without a sync ([`super::wal_sync`]). Frames another
//! process commits meanwhile stay in the WAL (its close does not checkpoint while a kept
//! connection holds the file), as they do today beside any running acc process, until the
//! next hand-back or [`sweep`], which checkpoints them. The sweep closes connections as a
//! close does today, so the last one deletes the WAL.

use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use rusqlite::Connection;

/// Idle connections kept per store file: one per request served at the same time, beyond
/// which a request opens its own. Each holds a page cache (up to 2 MiB), the schema and up
/// to 64 compiled statements.
pub const MAX_IDLE_PER_FILE: usize = 4;

/// Idle connections kept in all (several workspaces' stores).
pub const MAX_IDLE: usize = 16;

/// How many bytes of `acc.db` a seal compares: SQLite's header.
pub(crate) const SEAL_HEADER_BYTES: usize = 100;

static ENABLED: AtomicBool = AtomicBool::new(false);

/// Checkpoints of this process remembered, so that the other connections of the file
/// (idle, or in use while it ran) are still taken: each moved only committed frames from
/// the WAL into `acc.db`, which every connection reads alike.
const MAX_MOVES: usize = 32;

static POOL: Mutex<Pool> = Mutex::new(Pool {
    idle: Vec::new(),
    reuses: Vec::new(),
    moves: Vec::new(),
});

struct Pool {
    idle: Vec<Idle>,
    /// Checkouts that took an idle connection, per store file (tests and the server's
    /// report).
    reuses: Vec<(PathBuf, u64)>,
    /// `acc.db` before and after a checkpoint a hand-back ran, oldest first.
    moves: Vec<(PathBuf, Seal, Seal)>,
}

impl Pool {
    /// Whether `acc.db` at `path` went from `then` to `now` through nothing but this
    /// process's own hand-back checkpoints (or did not change).
    fn unchanged(&self, path: &Path, then: &Seal, now: &Seal) -> bool {
        let mut at = then;
        for _ in 0..=MAX_MOVES {
            if at == now {
                return true;
            }
            match self
                .moves
                .iter()
                .find(|(p, from, _)| p == path && from == at)
            {
                Some((_, _, to)) => at = to,
                None => return false,
            }
        }
        false
    }
}

struct Idle {
    path: PathBuf,
    seal: Seal,
    conn: Connection,
    /// The `mmap_size` the last user left in force.
    mmap: u64,
    since: Instant,
}

/// What `acc.db` was when a connection was handed back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Seal {
    dev: u64,
    ino: u64,
    size: u64,
    mtime: (i64, i64),
    ctime: (i64, i64),
    header: Vec<u8>,
}

impl Seal {
    /// The seal of the file `meta` describes, whose first bytes are `header`.
    pub(crate) fn of(meta: &std::fs::Metadata, header: &[u8]) -> Seal {
        Seal {
            dev: meta.dev(),
            ino: meta.ino(),
            size: meta.size(),
            mtime: (meta.mtime(), meta.mtime_nsec()),
            ctime: (meta.ctime(), meta.ctime_nsec()),
            header: header[..header.len().min(SEAL_HEADER_BYTES)].to_vec(),
        }
    }

    /// The seal of the file at `path` now (`None` when it cannot be read).
    fn read(path: &Path) -> Option<Seal> {
        let meta = std::fs::symlink_metadata(path).ok()?;
        if !meta.is_file() {
            return None;
        }
        let header = read_head(path, &meta).ok()?;
        Some(Seal::of(&meta, &header))
    }
}

/// Descriptors of store files kept open for as long as this process may hold SQLite
/// connections to them. SQLite's locks on `acc.db` are POSIX locks, which belong to the
/// process and the file: closing any descriptor of the file in this process drops them
/// all, and with them what tells another process's close that a connection still uses the
/// WAL (it would checkpoint, then delete the WAL and its index under this process's
/// connections). So the header is read through a descriptor that is never closed while a
/// connection may hold the file. One per file identity (device, inode), and bounded: past
/// [`MAX_ANCHORS`] the oldest whose file no idle connection holds is closed.
static ANCHORS: Mutex<Vec<Anchor>> = Mutex::new(Vec::new());

/// Files kept open for their locks' sake (each a descriptor, no memory to speak of).
pub const MAX_ANCHORS: usize = 64;

struct Anchor {
    dev: u64,
    ino: u64,
    file: std::fs::File,
}

/// Up to the first [`SEAL_HEADER_BYTES`] of the store file `meta` describes, read through
/// its kept descriptor (opened from `path` the first time).
pub fn read_head(path: &Path, meta: &std::fs::Metadata) -> std::io::Result<Vec<u8>> {
    use std::os::unix::fs::FileExt;
    let mut anchors = ANCHORS.lock().unwrap_or_else(|e| e.into_inner());
    let at = match anchors
        .iter()
        .position(|a| a.dev == meta.dev() && a.ino == meta.ino())
    {
        Some(at) => at,
        None => {
            let file = std::fs::File::open(path)?;
            let m = file.metadata()?;
            let (dev, ino) = (m.dev(), m.ino());
            match anchors.iter().position(|a| a.dev == dev && a.ino == ino) {
                // Replaced between the two looks: this descriptor must not be closed
                // either, and the kept one serves.
                Some(at) => {
                    std::mem::forget(file);
                    at
                }
                None => {
                    anchors.push(Anchor { dev, ino, file });
                    if anchors.len() > MAX_ANCHORS {
                        let held: Vec<(u64, u64)> = {
                            let pool = POOL.lock().unwrap_or_else(|e| e.into_inner());
                            pool.idle.iter().map(|i| (i.seal.dev, i.seal.ino)).collect()
                        };
                        if let Some(old) = anchors[..anchors.len() - 1]
                            .iter()
                            .position(|a| !held.contains(&(a.dev, a.ino)))
                        {
                            anchors.remove(old);
                        }
                    }
                    anchors.len() - 1
                }
            }
        }
    };
    let file = &anchors[at].file;
    let mut header = vec![0u8; SEAL_HEADER_BYTES];
    let mut got = 0;
    while got < header.len() {
        match file.read_at(&mut header[got..], got as u64)? {
            0 => break,
            n => got += n,
        }
    }
    header.truncate(got);
    Ok(header)
}

/// From now on this process keeps store connections warm. Off by default: every other
/// process opens and closes its connections as before.
pub fn enable() {
    ENABLED.store(true, Ordering::SeqCst);
}

/// Stops keeping connections and closes every idle one (as a close does).
pub fn disable() {
    ENABLED.store(false, Ordering::SeqCst);
    sweep(Duration::ZERO);
}

/// Whether [`enable`] was called (and not [`disable`]).
pub fn enabled() -> bool {
    ENABLED.load(Ordering::Relaxed)
}

/// How many opens of the store at `path` took an idle connection.
pub fn reuses(path: &Path) -> u64 {
    let pool = POOL.lock().unwrap_or_else(|e| e.into_inner());
    pool.reuses
        .iter()
        .find(|(p, _)| p == path)
        .map_or(0, |(_, n)| *n)
}

/// How many idle connections to the store at `path` are kept.
pub fn idle(path: &Path) -> usize {
    let pool = POOL.lock().unwrap_or_else(|e| e.into_inner());
    pool.idle.iter().filter(|i| i.path == path).count()
}

/// Closes, as a close does today (the last connection of a file checkpoints and deletes
/// its WAL), every idle connection unused for longer than `idle`, and every one whose file
/// is gone, replaced or written since it was handed back (a later open would not take it).
pub fn sweep(idle: Duration) {
    let mut checkpointed: Vec<PathBuf> = Vec::new();
    let stale: Vec<Idle> = {
        let mut pool = POOL.lock().unwrap_or_else(|e| e.into_inner());
        let (stale, kept): (Vec<Idle>, Vec<Idle>) =
            std::mem::take(&mut pool.idle).into_iter().partition(|i| {
                i.since.elapsed() > idle
                    || !Seal::read(&i.path)
                        .is_some_and(|now| pool.unchanged(&i.path, &i.seal, &now))
            });
        pool.idle = kept;
        stale
    };
    for i in stale {
        close(i.conn);
    }
    // Frames another process committed while these connections' shared locks kept its close
    // from checkpointing: `acc.db` alone holds the store again after each sweep.
    loop {
        let next = {
            let mut pool = POOL.lock().unwrap_or_else(|e| e.into_inner());
            let at = pool.idle.iter().rposition(|i| {
                super::wal_sync::wal_bytes(&i.path) > 0 && !checkpointed.contains(&i.path)
            });
            at.map(|at| pool.idle.remove(at))
        };
        let Some(i) = next else {
            break;
        };
        checkpointed.push(i.path.clone());
        if let Some((conn, seal)) = settle(&i.path, i.conn, &i.seal) {
            keep(Idle { conn, seal, ..i });
        }
    }
}

/// Closes every idle connection to the store at `path` (as a close does): a workspace
/// removed, or a test that wants the next open to be a fresh one.
pub fn close_idle(path: &Path) {
    let closing: Vec<Idle> = {
        let mut pool = POOL.lock().unwrap_or_else(|e| e.into_inner());
        let (closing, kept) = std::mem::take(&mut pool.idle)
            .into_iter()
            .partition(|i| i.path == path);
        pool.idle = kept;
        closing
    };
    for i in closing {
        close(i.conn);
    }
}

/// An idle connection to `path` handed back when `acc.db` was as `seal` says (`None`: open
/// one), and the `mmap_size` it has in force. A connection that no longer matches its file
/// is closed.
pub(crate) fn checkout(path: &Path, seal: &Seal) -> Option<(Connection, u64)> {
    if !enabled() {
        return None;
    }
    let (found, stale) = {
        let mut pool = POOL.lock().unwrap_or_else(|e| e.into_inner());
        let mut stale = Vec::new();
        let mut found = None;
        // The most recently handed back first: its pages are the warmest.
        let mut i = pool.idle.len();
        while i > 0 {
            i -= 1;
            if pool.idle[i].path != path {
                continue;
            }
            if !pool.unchanged(path, &pool.idle[i].seal, seal) {
                stale.push(pool.idle.remove(i));
            } else if found.is_none() {
                found = Some(pool.idle.remove(i));
            }
        }
        if found.is_some() {
            match pool.reuses.iter_mut().find(|(p, _)| p == path) {
                Some((_, n)) => *n += 1,
                None => pool.reuses.push((path.to_path_buf(), 1)),
            }
        }
        (found, stale)
    };
    for i in stale {
        close(i.conn);
    }
    let found = found?;
    // Handed back outside a transaction; never taken inside one.
    if !found.conn.is_autocommit() {
        close(found.conn);
        return None;
    }
    Some((found.conn, found.mmap))
}

/// Keeps `conn`, the read-write connection of a `Store` on `path` being dropped, opened
/// or checked out when `acc.db` was as `opened` says, or closes it: inside a transaction (a run that failed or panicked part-way), on a panicking thread
/// or with warm connections off it is closed as today. Before it is kept, a WAL holding
/// frames is checkpointed so `acc.db` alone holds the store.
pub(crate) fn hand_back(path: &Path, conn: Connection, mmap: u64, opened: &Seal) {
    if !enabled() || std::thread::panicking() || !conn.is_autocommit() {
        close(conn);
        return;
    }
    if conn.is_readonly(rusqlite::MAIN_DB).unwrap_or(true) {
        close(conn);
        return;
    }
    let Some((conn, seal)) = settle(path, conn, opened) else {
        return;
    };
    keep(Idle {
        path: path.to_path_buf(),
        seal,
        conn,
        mmap,
        since: Instant::now(),
    });
}

/// `conn` back from use, sealed: closed (`None`) when `acc.db` was written while it was
/// in use other than by this process's checkpoints (another process's checkpoint, a
/// forger's bytes: what it cached may be older than the file); otherwise a WAL holding
/// frames is checkpointed so that `acc.db` alone holds the store, and the seal is of the
/// file after it.
fn settle(path: &Path, conn: Connection, opened: &Seal) -> Option<(Connection, Seal)> {
    let before = Seal::read(path);
    let trusted = before.as_ref().is_some_and(|now| {
        let pool = POOL.lock().unwrap_or_else(|e| e.into_inner());
        pool.unchanged(path, opened, now)
    });
    let Some(before) = before.filter(|_| trusted) else {
        close(conn);
        return None;
    };
    if super::wal_sync::wal_bytes(path) == 0 {
        return Some((conn, before));
    }
    // Without waiting: a reader or writer of another process keeps its frames until the
    // next hand-back or sweep. The busy timeout is the next open's to set.
    let _ = conn.busy_timeout(Duration::ZERO);
    let _ = conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()));
    let Some(after) = Seal::read(path) else {
        close(conn);
        return None;
    };
    if after != before {
        let mut pool = POOL.lock().unwrap_or_else(|e| e.into_inner());
        pool.moves.push((path.to_path_buf(), before, after.clone()));
        if pool.moves.len() > MAX_MOVES {
            pool.moves.remove(0);
        }
    }
    Some((conn, after))
}

/// Keeps `idle`, closing the oldest beyond the bounds.
fn keep(idle: Idle) {
    let path = idle.path.clone();
    let evicted: Vec<Idle> = {
        let mut pool = POOL.lock().unwrap_or_else(|e| e.into_inner());
        pool.idle.push(idle);
        let mut evicted = Vec::new();
        // The oldest go first (the list is in hand-back order).
        while pool.idle.iter().filter(|i| i.path == path).count() > MAX_IDLE_PER_FILE {
            let at = pool
                .idle
                .iter()
                .position(|i| i.path == path)
                .expect("counted");
            evicted.push(pool.idle.remove(at));
        }
        while pool.idle.len() > MAX_IDLE {
            evicted.push(pool.idle.remove(0));
        }
        evicted
    };
    for i in evicted {
        close(i.conn);
    }
}

/// Closes `conn` as a `Store`'s drop does when nothing is kept: a transaction left open is
/// rolled back, the close's checkpoint runs under NORMAL.
fn close(conn: Connection) {
    super::wal_sync::WalSync::default().before_close(&conn);
    drop(conn);
}

#[cfg(test)]
mod tests {
    /// The library's own tests never enable warm connections: every open is fresh and every
    /// drop closes, deleting the WAL.
    #[test]
    fn without_enable_every_open_is_fresh_and_every_drop_closes() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("acc.db");
        for _ in 0..2 {
            let mut s = crate::store::testing::open(&path);
            s.write(|c| Ok(c.execute("INSERT OR REPLACE INTO meta VALUES ('k', 'v')", [])?))
                .unwrap();
            drop(s);
            assert!(!super::super::wal_sync::wal_path(&path).exists());
        }
        assert!(!super::enabled());
        assert_eq!(super::reuses(&path), 0);
        assert_eq!(super::idle(&path), 0);
    }
}
