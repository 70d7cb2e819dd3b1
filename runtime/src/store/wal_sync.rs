//! How much a commit syncs (issue 30, the claim race's fourth round).
//!
//! With `synchronous = NORMAL` a commit appends its frames to the WAL without syncing them;
//! the one sync a commit can still cost is the WAL's header, which SQLite syncs whenever it
//! starts the WAL over (its first frame, after a checkpoint emptied it or the last process's
//! close deleted it). That sync exists for one case: a header written over a WAL that still
//! holds older, already checkpointed frames, where a power loss could keep the old header
//! and some old frames beside new ones and replay the old frames over newer pages
//! (SQLite's ticket ff5be73dee). Each short-lived writer starts the WAL afresh, so it paid
//! that sync, and with it the directory's (SQLite syncs the WAL's directory with the file's
//! first sync), for a file that held nothing older.
//!
//! A commit therefore runs with `synchronous = OFF` only when the WAL it writes to, seen
//! under the write lock, holds nothing another connection wrote: it is empty (the header
//! goes to an empty file, nothing older to mix with), or it is exactly as this connection's
//! own last commit left it (the commit appends, and appending never syncs under NORMAL
//! either). Anything else (another writer's frames, a WAL checkpointed since) commits with
//! NORMAL as before. While OFF is in force the connection never checkpoints (SQLite would
//! checkpoint with OFF's missing syncs): a WAL past [`CHECKPOINT_BYTES`] is checkpointed
//! after the commit under NORMAL, and the close's checkpoint always runs under NORMAL
//! ([`WalSync::before_close`]): WAL and directory synced before `acc.db` is written,
//! `acc.db` synced before the WAL is deleted, as before.

use std::io::Read;
use std::path::{Path, PathBuf};

use rusqlite::Connection;

use crate::error::Result;

/// The WAL size (SQLite's default auto-checkpoint: 1,000 pages of 4 KiB) past which a
/// connection that has turned SQLite's auto-checkpoint off checkpoints itself.
pub const CHECKPOINT_BYTES: u64 = 1000 * 4096;

/// What a WAL looked like: its length and header (the header's salts change whenever the
/// WAL starts over, its length whenever a frame is appended). The WAL index (`-shm`) is
/// not read: SQLite holds POSIX locks on it, and closing any other descriptor of that
/// file in this process would drop them (another process would then take this one's
/// index for abandoned, reset it, and this process would die of SIGBUS on its mapping).
/// SQLite takes no lock on the WAL itself.
#[derive(Debug, Clone, PartialEq, Eq)]
struct WalMark {
    len: u64,
    head: [u8; 32],
}

/// What [`WalSync::checkpoint`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Checkpoint {
    /// Every frame of the WAL copied into `acc.db`, both synced.
    Complete,
    /// Some frames left in the WAL, the WAL synced.
    WalSynced,
    /// Nothing done: a transaction is open on the connection.
    InTransaction,
}

/// The sync level in force on one writable connection, and the WAL its last commit left.
#[derive(Debug, Default)]
pub(crate) struct WalSync {
    off: bool,
    left: Option<WalMark>,
    /// The WAL file's length when the write began (it grows only when frames pass its end).
    len_at_begin: u64,
}

pub(crate) fn wal_path(store: &Path) -> PathBuf {
    let mut p = store.as_os_str().to_owned();
    p.push("-wal");
    PathBuf::from(p)
}

/// The WAL's length beside `store` (0 when there is none).
pub(crate) fn wal_bytes(store: &Path) -> u64 {
    std::fs::metadata(wal_path(store)).map_or(0, |m| m.len())
}

/// The WAL beside `store` (`None` when it cannot be read: treated as someone else's).
fn mark(store: &Path) -> Option<WalMark> {
    let mut f = match std::fs::File::open(wal_path(store)) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Some(WalMark {
                len: 0,
                head: [0; 32],
            });
        }
        Err(_) => return None,
    };
    let len = f.metadata().ok()?.len();
    let mut head = [0u8; 32];
    if len >= 32 {
        f.read_exact(&mut head).ok()?;
    }
    Some(WalMark { len, head })
}

/// Syncs the WAL beside `store` through a descriptor of its own. SQLite takes no lock on
/// the WAL itself, so this descriptor's close drops none. Whatever was put at the WAL's
/// name (a symlink, a fifo that would block the open) is not the WAL SQLite writes, and is
/// left alone.
fn sync_wal(store: &Path) -> Result<()> {
    use std::os::unix::fs::OpenOptionsExt;
    let wal = match std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_CLOEXEC)
        .open(wal_path(store))
    {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) if e.raw_os_error() == Some(libc::ELOOP) => return Ok(()),
        Err(e) => return Err(e.into()),
    };
    if wal.metadata()?.is_file() {
        wal.sync_data()?;
    }
    Ok(())
}

impl WalSync {
    fn set(&mut self, conn: &Connection, off: bool) -> Result<()> {
        if self.off != off {
            conn.execute_batch(if off {
                "PRAGMA synchronous = OFF; PRAGMA wal_autocheckpoint = 0;"
            } else {
                "PRAGMA synchronous = NORMAL; PRAGMA wal_autocheckpoint = 1000;"
            })?;
            self.off = off;
        }
        Ok(())
    }

    fn ours(&self, now: Option<WalMark>) -> bool {
        match now {
            Some(m) if m.len == 0 => true,
            Some(m) => self.left.as_ref() == Some(&m),
            None => false,
        }
    }

    /// Chooses the level of the write transaction `conn` is about to begin (SQLite takes
    /// no level change inside a transaction); `retry` forces NORMAL.
    pub(crate) fn before_begin(
        &mut self,
        conn: &Connection,
        store: &Path,
        retry: bool,
    ) -> Result<()> {
        let off = !retry && self.ours(mark(store));
        self.set(conn, off)
    }

    /// Whether the level chosen still holds now that the write lock is held (no other
    /// connection appends or starts the WAL over until the transaction ends). False when
    /// another writer came first: the transaction is rolled back and begun again under
    /// NORMAL.
    pub(crate) fn begun(&mut self, store: &Path) -> bool {
        let now = mark(store);
        self.len_at_begin = now.as_ref().map_or(0, |m| m.len);
        let holds = !self.off || self.ours(now);
        // Until this write commits, what it leaves is unknown (a failed write may have
        // written frames).
        self.left = None;
        holds
    }

    /// Notes the WAL this connection's commit left, and checkpoints under NORMAL a WAL this
    /// commit grew past [`CHECKPOINT_BYTES`] (after which the WAL is no longer "as left":
    /// the next commit may start it over, and does so under NORMAL). The file keeps its
    /// length when the WAL starts over, so growth, not length, says frames accumulate.
    pub(crate) fn after_commit(&mut self, conn: &Connection, store: &Path) -> Result<()> {
        self.left = mark(store);
        let len = self.left.as_ref().map_or(0, |m| m.len);
        if self.off && len >= CHECKPOINT_BYTES && len > self.len_at_begin {
            self.set(conn, false)?;
            self.left = None;
            conn.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |_| Ok(()))?;
        }
        Ok(())
    }

    /// Copies the WAL into `acc.db` now, under NORMAL (the WAL synced before `acc.db` is
    /// written, `acc.db` synced before the frames count as copied), holding only SQLite's
    /// checkpointer lock: other connections open, read and commit meanwhile, where the
    /// close's checkpoint holds `acc.db`'s exclusive lock through the same syncs. A close
    /// after it finds nothing to copy and syncs nothing (`sqlite3WalClose` checkpoints only
    /// frames not yet copied); when it is the last, it still deletes the WAL.
    ///
    /// Every commit of this connection is on disk when this returns `Ok`: copied and
    /// synced, or, where the checkpoint could not reach it (another checkpointer at work, a
    /// reader on an older snapshot), the WAL synced here.
    pub(crate) fn checkpoint(&mut self, conn: &Connection, store: &Path) -> Result<Checkpoint> {
        if !conn.is_autocommit() {
            return Ok(Checkpoint::InTransaction);
        }
        self.set(conn, false)?;
        // The WAL is no longer "as left": the next commit may start it over, which needs
        // NORMAL's header sync.
        self.left = None;
        let (busy, log, copied): (i64, i64, i64) =
            conn.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?))
            })?;
        if busy == 0 && log == copied {
            return Ok(Checkpoint::Complete);
        }
        sync_wal(store)?;
        Ok(Checkpoint::WalSynced)
    }

    /// Back to NORMAL before the connection closes: the close's checkpoint syncs with the
    /// level in force.
    pub(crate) fn before_close(&mut self, conn: &Connection) {
        // SQLite takes no level change inside a transaction, and the close would roll an
        // open one back anyway.
        if !conn.is_autocommit() {
            let _ = conn.execute_batch("ROLLBACK");
        }
        let _ = self.set(conn, false);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::Store;
    use crate::store::testing::open;

    fn insert(store: &mut Store, key: &str, bytes: usize) {
        store
            .write(|c| {
                c.execute(
                    "INSERT INTO meta (key, value) VALUES (?1, ?2)",
                    rusqlite::params![key, "x".repeat(bytes)],
                )?;
                Ok(())
            })
            .unwrap();
    }

    fn raw(store: &Store) -> &Connection {
        store.conn.as_sqlite().unwrap()
    }

    /// The sync level in force: 0 OFF, 1 NORMAL.
    fn level(store: &mut Store) -> i64 {
        raw(store)
            .query_row("PRAGMA synchronous", [], |r| r.get(0))
            .unwrap()
    }

    fn wal_len(store: &Path) -> u64 {
        std::fs::metadata(wal_path(store)).map_or(0, |m| m.len())
    }

    #[test]
    fn a_lone_writer_commits_without_syncs_and_closes_under_normal() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("acc.db");
        drop(open(&path));
        let mut store = open(&path);
        assert_eq!(level(&mut store), 1, "a connection opens under NORMAL");
        insert(&mut store, "a", 10);
        assert_eq!(
            level(&mut store),
            0,
            "an empty WAL: the header syncs nothing"
        );
        insert(&mut store, "b", 10);
        assert_eq!(level(&mut store), 0, "the WAL as this connection left it");
        let before = wal_len(&path);
        assert!(before > 0);
        drop(store);
        // The close checkpointed and deleted the WAL: acc.db alone holds every commit.
        assert!(!wal_path(&path).exists());
        let copy = dir.path().join("copy.db");
        std::fs::copy(&path, &copy).unwrap();
        let c = Connection::open(&copy).unwrap();
        let n: i64 = c
            .query_row(
                "SELECT count(*) FROM meta WHERE key IN ('a', 'b')",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(n, 2);
    }

    #[test]
    fn a_wal_another_connection_wrote_is_written_under_normal() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("acc.db");
        drop(open(&path));
        let mut mine = open(&path);
        let mut other = open(&path);
        insert(&mut mine, "a", 10);
        assert_eq!(level(&mut mine), 0);
        insert(&mut other, "b", 10);
        assert_eq!(
            level(&mut other),
            1,
            "the WAL holds another connection's frames"
        );
        insert(&mut mine, "c", 10);
        assert_eq!(
            level(&mut mine),
            1,
            "the WAL changed since this connection's commit"
        );
        insert(&mut mine, "d", 10);
        assert_eq!(level(&mut mine), 0, "as left again");
    }

    #[test]
    fn a_checkpoint_never_runs_without_syncs() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("acc.db");
        drop(open(&path));
        let mut store = open(&path);
        // SQLite's own auto-checkpoint would run under OFF: it is off while OFF is in force.
        insert(&mut store, "a", 10);
        let auto: i64 = raw(&store)
            .query_row("PRAGMA wal_autocheckpoint", [], |r| r.get(0))
            .unwrap();
        assert_eq!(auto, 0);
        // A WAL grown past the limit is checkpointed under NORMAL after the commit that
        // grew it, and the commit after that (which starts the WAL over, writing its
        // header over checkpointed frames) is NORMAL.
        let mut i = 0;
        while wal_len(&path) < CHECKPOINT_BYTES {
            assert_eq!(level(&mut store), 0);
            insert(&mut store, &format!("big{i}"), 100_000);
            i += 1;
        }
        assert_eq!(level(&mut store), 1, "checkpointed under NORMAL");
        let head = mark(&path).unwrap().head;
        insert(&mut store, "after", 10);
        assert_eq!(level(&mut store), 1);
        assert_ne!(
            mark(&path).unwrap().head,
            head,
            "the checkpoint was complete: the next commit started the WAL over"
        );
        insert(&mut store, "after2", 10);
        assert_eq!(level(&mut store), 0);
    }

    fn keys(path: &Path, like: &str) -> i64 {
        let c = Connection::open(path).unwrap();
        c.query_row("SELECT count(*) FROM meta WHERE key LIKE ?1", [like], |r| {
            r.get(0)
        })
        .unwrap()
    }

    /// `acc.db` alone, as a copy without its WAL would see it.
    fn keys_in_db_alone(dir: &Path, path: &Path, like: &str) -> i64 {
        let copy = dir.join("alone.db");
        std::fs::copy(path, &copy).unwrap();
        let n = keys(&copy, like);
        std::fs::remove_file(&copy).unwrap();
        n
    }

    #[test]
    fn a_checkpoint_runs_beside_another_writer_and_leaves_the_close_nothing_to_copy() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("acc.db");
        drop(open(&path));
        let mut mine = open(&path);
        insert(&mut mine, "k1", 10);
        assert_eq!(level(&mut mine), 0, "a lone writer's commit, unsynced");
        let other = open(&path);
        // Another connection holds the write lock (the next claim's turn, writing).
        raw(&other).execute_batch("BEGIN IMMEDIATE").unwrap();
        assert_eq!(
            mine.checkpoint().unwrap(),
            Some(Checkpoint::Complete),
            "copied without the write lock"
        );
        assert_eq!(level(&mut mine), 1, "checkpointed under NORMAL");
        assert_eq!(keys_in_db_alone(dir.path(), &path, "k%"), 1);
        raw(&other)
            .execute_batch("INSERT INTO meta (key, value) VALUES ('k2', 'x'); COMMIT")
            .unwrap();
        // The next commit of the checkpointed connection writes under NORMAL: the WAL is
        // not as it left it.
        insert(&mut mine, "k3", 10);
        assert_eq!(level(&mut mine), 1);
        drop(other);
        drop(mine);
        assert!(!wal_path(&path).exists(), "the last close deleted the WAL");
        assert_eq!(keys_in_db_alone(dir.path(), &path, "k%"), 3);
    }

    #[test]
    fn a_checkpoint_a_reader_holds_back_syncs_the_wal_and_the_close_copies_the_rest() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("acc.db");
        drop(open(&path));
        let mut mine = open(&path);
        insert(&mut mine, "k1", 10);
        let reader = open(&path);
        raw(&reader)
            .execute_batch("BEGIN; SELECT count(*) FROM meta;")
            .unwrap();
        insert(&mut mine, "k2", 10);
        assert_eq!(
            mine.checkpoint().unwrap(),
            Some(Checkpoint::WalSynced),
            "the reader's snapshot keeps the newest frames in the WAL"
        );
        // (What was copied is SQLite's choice: a page whose newest frame is past the
        // reader's snapshot is left for later.)
        raw(&reader).execute_batch("COMMIT").unwrap();
        drop(reader);
        drop(mine);
        assert!(!wal_path(&path).exists());
        assert_eq!(keys_in_db_alone(dir.path(), &path, "k%"), 2);
    }

    #[test]
    fn a_checkpoint_inside_a_transaction_does_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("acc.db");
        let mut store = open(&path);
        raw(&store).execute_batch("BEGIN").unwrap();
        assert_eq!(store.checkpoint().unwrap(), Some(Checkpoint::InTransaction));
        raw(&store).execute_batch("ROLLBACK").unwrap();
    }

    /// A crash during the checkpoint leaves the synced WAL beside an `acc.db` holding any
    /// prefix of the pages it copies (in page order), unsynced; after it, both complete.
    /// Every such store opens and holds every commit.
    #[test]
    fn a_store_crashed_at_any_page_of_the_checkpoint_opens_with_every_commit() {
        const PAGE: usize = 4096;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("acc.db");
        drop(open(&path));
        let mut mine = open(&path);
        for i in 0..20 {
            insert(&mut mine, &format!("k{i}"), 3000);
        }
        let before = std::fs::read(&path).unwrap();
        let wal = std::fs::read(wal_path(&path)).unwrap();
        assert_eq!(mine.checkpoint().unwrap(), Some(Checkpoint::Complete));
        let after = std::fs::read(&path).unwrap();
        assert!(after.len() > before.len(), "the checkpoint grew acc.db");
        drop(mine);
        let pages = after.len().div_ceil(PAGE);
        for copied in 0..=pages {
            let mut image = before.clone();
            let end = (copied * PAGE).min(after.len());
            if image.len() < end {
                image.resize(end, 0);
            }
            image[..end].copy_from_slice(&after[..end]);
            let crashed = tempfile::tempdir().unwrap();
            let at = crashed.path().join("acc.db");
            std::fs::write(&at, &image).unwrap();
            std::fs::write(wal_path(&at), &wal).unwrap();
            let mut store = open(&at);
            let ok: String = raw(&store)
                .query_row("PRAGMA integrity_check", [], |r| r.get(0))
                .unwrap();
            assert_eq!(ok, "ok", "{copied} pages copied");
            let n: i64 = store
                .read(|c| {
                    Ok(
                        c.query_row("SELECT count(*) FROM meta WHERE key LIKE 'k%'", [], |r| {
                            r.get(0)
                        })?,
                    )
                })
                .unwrap();
            assert_eq!(n, 20, "{copied} pages copied");
            drop(store);
            assert!(!wal_path(&at).exists(), "{copied} pages copied");
        }
    }

    #[test]
    fn a_wal_name_taken_by_a_fifo_or_a_symlink_is_not_synced_and_does_not_block() {
        let dir = tempfile::tempdir().unwrap();
        let store = dir.path().join("acc.db");
        let fifo = std::ffi::CString::new(wal_path(&store).to_str().unwrap()).unwrap();
        // SAFETY: a NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o600) }, 0);
        sync_wal(&store).unwrap();
        std::fs::remove_file(wal_path(&store)).unwrap();
        std::os::unix::fs::symlink(dir.path().join("elsewhere"), wal_path(&store)).unwrap();
        sync_wal(&store).unwrap();
        std::fs::remove_file(wal_path(&store)).unwrap();
        sync_wal(&store).unwrap();
        std::fs::write(wal_path(&store), b"frames").unwrap();
        sync_wal(&store).unwrap();
    }
}
