//! The embedded store: one SQLite file per workspace.
//!
//! WAL journal, a 5 s busy timeout, foreign keys on, and every mutation inside one
//! `BEGIN IMMEDIATE` transaction so a check and the write it guards can never interleave with
//! another process. A store is created atomically (built under a temporary name, then
//! hard-linked into place) so a crash never leaves a half-initialised `acc.db` behind; an
//! existing file that is not a readable store of this workspace fails closed and is never
//! recreated.

mod busy_wait;
pub mod claim_lock;
pub mod claims_proof;
pub mod engine;
pub mod guard_snapshot;
pub mod guard_token;
pub mod read_only;
pub mod schema;
mod shared;
pub mod shared_listener;
mod sqlite_build;
pub mod tamper;
mod wal_sync;
pub mod warm;

use crate::error::{AccError, ErrorCode, Result, SQL_ERROR_PREFIX};
use crate::ids::WorkspaceId;
use engine::{OptionalExtension, TxKind};
use rusqlite::{Connection, OpenFlags};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// How long a writer waits for another process's transaction before giving up (exit 3).
pub const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

const SQLITE_MAGIC: &[u8; 16] = b"SQLite format 3\0";

/// Whose store this is. One text for the open's check, the tamper check and the
/// publication, so a process compiles it once (cached) rather than once for each.
pub(crate) const WORKSPACE_ID: &str = "SELECT value FROM meta WHERE key = 'workspace_id'";

/// The schema cookie a publication's tag names ([`guard_token::new_tag`]); cached as
/// [`WORKSPACE_ID`] is.
pub(crate) const SCHEMA_COOKIE: &str = "PRAGMA schema_version";

/// Whether the caller may create the store.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OpenMode {
    /// Never creates anything on disk; an absent store reads as an empty one.
    ReadOnly,
    /// Creates the store (and its directory) when absent.
    ReadWrite,
}

/// What a freshly created store records about its own creation.
#[derive(Debug, Clone)]
pub struct Genesis {
    pub now_ms: i64,
    pub event_id: String,
}

/// An open store. Per connection (kept with it when it is warm, [`warm`]): `conn`, its
/// statement cache, `mmap` and the level `sync` tracks (set back to NORMAL before it is
/// kept). Per open (set afresh at every open, warm or not): every other field.
pub struct Store {
    /// Taken once, by the drop, which closes it or hands it back ([`warm`]).
    conn: std::mem::ManuallyDrop<engine::Connection>,
    path: PathBuf,
    /// An absent store opened read-only: an empty in-memory schema that is never persisted.
    ephemeral: bool,
    /// The busy timeout in force, named when it runs out.
    busy: Duration,
    /// Whether the guarded-claims snapshot is published after each write, or once after
    /// several ([`Store::deferring_publication`]).
    publication: Publication,
    /// The claims version this connection last committed or saw published: a write that
    /// finds another first checks that it was acc's ([`tamper::check_before_write`]).
    known_version: Option<i64>,
    /// The publication whose claim lines the next one may copy: taken by the write that
    /// withdrew its token, kept while no write of this connection changes a claim row.
    prior: Option<guard_snapshot::Published>,
    /// The clock claims' leases are read by (the system's until the core sets its own).
    clock: std::sync::Arc<dyn crate::clock::Clock>,
    /// The sync level of this connection's commits ([`wal_sync`]).
    sync: wal_sync::WalSync,
    /// The `mmap_size` in force on this connection.
    mmap: u64,
    /// `acc.db` as this open found it, when its connection may be kept warm at the drop.
    warm: Option<warm::Seal>,
}

/// When a write that changed what the guard reads publishes its snapshot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Publication {
    AfterEachWrite,
    /// Until the deferral ends; `pending` once a write withdrew the token.
    Deferred {
        pending: bool,
    },
}

impl Drop for Store {
    fn drop(&mut self) {
        // SAFETY: the connection is taken here, once, and the field is not used again.
        let conn = unsafe { std::mem::ManuallyDrop::take(&mut self.conn) };
        let engine::Connection::Sqlite(c) = conn else {
            return;
        };
        if self.ephemeral {
            return;
        }
        // A transaction left open (a run that failed or panicked part-way) is rolled back
        // and its connection closed, never kept.
        let in_transaction = !c.is_autocommit();
        self.sync.before_close(&c);
        match self.warm.take() {
            Some(opened) if !in_transaction => warm::hand_back(&self.path, c, self.mmap, &opened),
            _ => drop(c),
        }
    }
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Store")
            .field("path", &self.path)
            .field("ephemeral", &self.ephemeral)
            .finish()
    }
}

fn corrupt(path: &Path, why: impl std::fmt::Display) -> AccError {
    AccError::new(
        ErrorCode::StoreCorrupt,
        format!(
            "the acc store {} is unreadable ({why}); acc will not recreate it: move it aside to start over",
            path.display()
        ),
    )
    .with("file", path.display().to_string())
}

/// The store cannot exist at `path` because something above it is not a directory. The
/// data home itself is checked earlier (`Core::open`); this names a component below it.
fn blocked_by_file(path: &Path, e: &std::io::Error) -> AccError {
    let blocker = path
        .ancestors()
        .skip(1)
        .find(|a| std::fs::metadata(a).is_ok_and(|m| !m.is_dir()));
    match blocker {
        Some(b) => AccError::new(
            ErrorCode::StoreIo,
            format!(
                "cannot use the acc store {}: {} is not a directory; move it aside",
                path.display(),
                b.display()
            ),
        )
        .with("file", path.display().to_string())
        .with("blocker", b.display().to_string()),
        None => AccError::new(
            ErrorCode::StoreIo,
            format!("cannot use the acc store {}: {e}", path.display()),
        )
        .with("file", path.display().to_string()),
    }
}

/// The store stayed locked by another connection for longer than `busy`.
fn busy_at(path: &Path, busy: Duration) -> AccError {
    AccError::new(
        ErrorCode::StoreBusy,
        format!(
            "the acc store {} stayed locked by another process for more than {} ms; retry when that process is done",
            path.display(),
            busy.as_millis()
        ),
    )
    .with("file", path.display().to_string())
    .with("busyTimeoutMs", busy.as_millis() as u64)
}

/// A memory map large enough for any realistic store, for [`Store::set_mmap_size`]. Only
/// address space is reserved; a larger store reads the rest the usual way.
pub const MMAP_WHOLE_STORE: u64 = 256 * 1024 * 1024;

fn configure(conn: &Connection) -> Result<()> {
    // BUSY_TIMEOUT in finer steps than SQLite's own timeout sleeps (`busy_wait`).
    conn.busy_handler(Some(busy_wait::handler))?;
    // rusqlite keeps 16 statements by default; a hook turn runs about 30 different ones,
    // and each one evicted was compiled again.
    conn.set_prepared_statement_cache_capacity(64);
    // NORMAL is durable against process crashes in WAL mode; only a power loss can roll
    // back the newest commits, and it never corrupts.
    conn.execute_batch("PRAGMA synchronous = NORMAL;")?;
    // Through the connection's configuration, not `PRAGMA foreign_keys = ON`: that pragma
    // expires every compiled statement of the connection even when the value does not
    // change, so a warm connection ([`warm`]) compiled each cached statement again at its
    // first use (1.8 M instructions of a served turn). This expires them only when it
    // turns enforcement on.
    conn.set_db_config(
        rusqlite::config::DbConfig::SQLITE_DBCONFIG_ENABLE_FKEY,
        true,
    )?;
    Ok(())
}

fn user_version(conn: &Connection) -> Result<u32> {
    Ok(conn.query_row("PRAGMA user_version", [], |r| r.get::<_, i64>(0))? as u32)
}

fn apply_migrations(conn: &Connection, from: u32) -> Result<()> {
    for m in schema::MIGRATIONS.iter().filter(|m| m.version > from) {
        conn.execute_batch(m.sql).map_err(|e| {
            // SQLite's own words, without the migration's whole text that rusqlite quotes.
            let cause = match &e {
                rusqlite::Error::SqlInputError { msg, .. } => msg.clone(),
                rusqlite::Error::SqliteFailure(_, Some(msg)) => msg.clone(),
                other => other.to_string(),
            };
            let code = AccError::from(e).code;
            AccError::new(code, format!("migration {} failed: {cause}", m.version))
        })?;
        conn.pragma_update(None, "user_version", m.version as i64)?;
    }
    Ok(())
}

fn write_genesis(conn: &Connection, workspace: &WorkspaceId, genesis: &Genesis) -> Result<()> {
    conn.execute(
        "INSERT INTO meta (key, value) VALUES ('workspace_id', ?1), ('created_at', ?2)",
        rusqlite::params![workspace.as_str(), genesis.now_ms.to_string()],
    )?;
    let payload = serde_json::json!({ "workspaceId": workspace.as_str() }).to_string();
    conn.execute(
        "INSERT INTO events (event_id, actor_session_id, type, occurred_at, payload)
         VALUES (?1, NULL, 'workspace.materialised', ?2, ?3)",
        rusqlite::params![genesis.event_id, genesis.now_ms, payload],
    )?;
    Ok(())
}

impl Store {
    /// Opens the store at `path` for `workspace`. With [`OpenMode::ReadOnly`] an absent file
    /// yields an empty store that writes nothing; with [`OpenMode::ReadWrite`] it is created.
    pub fn open(
        path: &Path,
        workspace: &WorkspaceId,
        mode: OpenMode,
        genesis: impl FnOnce() -> Genesis,
    ) -> Result<Store> {
        match std::fs::symlink_metadata(path) {
            Ok(_) => Store::open_existing(path, workspace, mode),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => match mode {
                OpenMode::ReadOnly => Store::empty(path, workspace, genesis()),
                OpenMode::ReadWrite => {
                    Store::create(path, workspace, genesis())?;
                    Store::open_existing(path, workspace, mode)
                }
            },
            Err(e) if e.kind() == std::io::ErrorKind::NotADirectory => {
                Err(blocked_by_file(path, &e))
            }
            Err(e) => Err(corrupt(path, e)),
        }
    }

    /// The clock by which claims' leases are judged when the store checks itself for
    /// changes made behind acc's back ([`tamper`]).
    pub fn set_clock(&mut self, clock: std::sync::Arc<dyn crate::clock::Clock>) {
        self.clock = clock;
    }

    /// Records that the store's claims version `version` was found to be acc's own.
    pub(crate) fn saw_version(&mut self, version: i64) {
        self.known_version = Some(version);
    }

    /// The file this store lives in (the would-be file for an empty read-only store).
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// True when the store does not exist on disk (read-only open of an absent store).
    pub fn is_ephemeral(&self) -> bool {
        self.ephemeral
    }

    /// True when a write would reach the file: the store exists and acc may write it. A
    /// reader uses this to tidy up (close sessions whose client is gone) only where that
    /// cannot fail for want of permission.
    pub fn is_writable(&self) -> bool {
        !self.ephemeral
            && match self.conn.as_sqlite() {
                Some(c) => !c.is_readonly(rusqlite::MAIN_DB).unwrap_or(true),
                None => true,
            }
    }

    /// Reads up to `bytes` of the store file through a memory map instead of one `pread`
    /// per page (0, the default, reads every page). A process that reads a few hundred
    /// scattered pages gains (a hook turn: about 0.4 ms of 4); one that scans most of a
    /// large store loses about as much to page faults (`acc status` at 10,000 messages).
    pub fn set_mmap_size(&mut self, bytes: u64) -> Result<()> {
        let bytes = i64::try_from(bytes).unwrap_or(i64::MAX);
        // A batch, because an in-memory store answers this pragma with no row at all.
        // A server's pages are its own business.
        if let Some(c) = self.conn.as_sqlite() {
            c.execute_batch(&format!("PRAGMA mmap_size = {bytes}"))?;
            self.mmap = bytes as u64;
        }
        Ok(())
    }

    /// How long a statement waits for another process's lock before failing with
    /// `store_busy` (exit 3), instead of [`BUSY_TIMEOUT`]. Beyond SQLite's limit (about 24
    /// days of milliseconds) it is capped.
    pub fn set_busy_timeout(&mut self, timeout: Duration) -> Result<()> {
        let capped = timeout.min(Duration::from_millis(i32::MAX as u64));
        match &*self.conn {
            engine::Connection::Sqlite(c) => c.busy_timeout(capped)?,
            engine::Connection::Postgres(c) => c.set_lock_timeout(capped)?,
        }
        self.busy = capped;
        Ok(())
    }

    /// Copies the WAL into `acc.db` ahead of the close ([`wal_sync::WalSync::checkpoint`]):
    /// for a process whose close would otherwise hold `acc.db`'s exclusive lock through the
    /// checkpoint's syncs while the next writer waits to open (the claim race's winner,
    /// once it has let go of the claims' turn). `None` where there is nothing of SQLite's
    /// to copy (an ephemeral or a shared store), nothing this connection may write (a store
    /// opened read-only), or a connection kept warm: its hand-back checkpoints
    /// ([`warm`]), and the server's response waits for that alone, as before.
    pub(crate) fn checkpoint(&mut self) -> Result<Option<wal_sync::Checkpoint>> {
        if self.ephemeral || self.warm.is_some() || !self.is_writable() {
            return Ok(None);
        }
        let Some(c) = self.conn.as_sqlite() else {
            return Ok(None);
        };
        self.sync.checkpoint(c, &self.path).map(Some)
    }

    fn empty(path: &Path, workspace: &WorkspaceId, genesis: Genesis) -> Result<Store> {
        let conn = Connection::open_in_memory()?;
        configure(&conn)?;
        apply_migrations(&conn, 0)?;
        write_genesis(&conn, workspace, &genesis)?;
        Ok(Store {
            conn: std::mem::ManuallyDrop::new(engine::Connection::sqlite(conn)),
            path: path.to_path_buf(),
            ephemeral: true,
            busy: BUSY_TIMEOUT,
            publication: Publication::AfterEachWrite,
            known_version: None,
            prior: None,
            clock: std::sync::Arc::new(crate::clock::SystemClock),
            sync: wal_sync::WalSync::default(),
            mmap: 0,
            warm: None,
        })
    }

    fn create(path: &Path, workspace: &WorkspaceId, genesis: Genesis) -> Result<()> {
        let dir = path.parent().expect("store paths have a directory");
        {
            use std::os::unix::fs::DirBuilderExt;
            std::fs::DirBuilder::new()
                .recursive(true)
                .mode(0o700)
                .create(dir)
                .map_err(|e| {
                    AccError::new(
                        ErrorCode::StoreIo,
                        format!("cannot create the store directory {}: {e}", dir.display()),
                    )
                })?;
        }
        let tmp = dir.join(format!(
            ".acc.db.{}.{}.tmp",
            std::process::id(),
            genesis.event_id
        ));
        let built = (|| -> Result<()> {
            let conn = Connection::open(&tmp)?;
            configure(&conn)?;
            conn.query_row("PRAGMA journal_mode = WAL", [], |_| Ok(()))?;
            let tx = conn.unchecked_transaction()?;
            apply_migrations(&tx, 0)?;
            write_genesis(&tx, workspace, &genesis)?;
            tx.commit()?;
            conn.close().map_err(|(_, e)| e)?;
            Ok(())
        })();
        // A token left by a store that was moved aside vouches for nothing here.
        let built = built.and_then(|()| guard_token::withdraw(path));
        let linked = built.and_then(|()| match std::fs::hard_link(&tmp, path) {
            Ok(()) => Ok(()),
            // Another process created it first; theirs is as good as ours.
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(()),
            Err(e) => Err(AccError::new(
                ErrorCode::StoreIo,
                format!("cannot create the store {}: {e}", path.display()),
            )),
        });
        for suffix in ["", "-wal", "-shm", "-journal"] {
            let mut p = tmp.clone().into_os_string();
            p.push(suffix);
            let _ = std::fs::remove_file(PathBuf::from(p));
        }
        linked
    }

    fn open_existing(path: &Path, workspace: &WorkspaceId, mode: OpenMode) -> Result<Store> {
        let meta = std::fs::symlink_metadata(path).map_err(|e| corrupt(path, e))?;
        if !meta.is_file() {
            return Err(corrupt(path, "not a regular file"));
        }
        // The cheap integrity signal: the header must be SQLite's before SQLite touches it,
        // so an empty or foreign file is never mistaken for a new database.
        let warm = warm::enabled();
        let header = if warm {
            // The whole header, which a warm connection's seal compares, through a
            // descriptor whose close cannot drop this process's locks on the file.
            warm::read_head(path, &meta).map_err(|e| corrupt(path, e))?
        } else {
            let mut header = vec![0u8; SQLITE_MAGIC.len()];
            let mut f = std::fs::File::open(path).map_err(|e| corrupt(path, e))?;
            if f.read_exact(&mut header).is_err() {
                header.clear();
            }
            header
        };
        if !header.starts_with(SQLITE_MAGIC) {
            return Err(corrupt(path, "not an SQLite database"));
        }
        // A store acc may not write is still read; a change to it is refused by directory.
        let writable = read_only::store_writable(path);
        if !writable && mode == OpenMode::ReadWrite {
            return Err(read_only::refused(path));
        }
        // Only a read-write connection is kept: a read-only one may be `immutable`.
        let seal = (warm && writable).then(|| warm::Seal::of(&meta, &header));
        let (conn, mmap) = match seal.as_ref().and_then(|s| warm::checkout(path, s)) {
            Some(kept) => kept,
            None => (
                if writable {
                    Connection::open_with_flags(
                        path,
                        OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX,
                    )
                } else {
                    read_only::open(path)
                }
                .map_err(|e| corrupt(path, e))?,
                0,
            ),
        };
        let ctx = |e: AccError| Store::contextualise_at(path, BUSY_TIMEOUT, e);
        configure(&conn).map_err(ctx)?;
        if mmap != 0 {
            // A fresh connection reads without a map until its caller sets one.
            conn.execute_batch("PRAGMA mmap_size = 0")
                .map_err(|e| ctx(e.into()))?;
        }
        let version = user_version(&conn).map_err(ctx)?;
        let current = schema::current_version();
        if version > current {
            return Err(AccError::new(
                ErrorCode::StoreSchemaNewer,
                format!(
                    "the acc store {} has schema version {version}, newer than version {current} that this acc understands; upgrade acc",
                    path.display()
                ),
            )
            .with("file", path.display().to_string())
            .with("storeVersion", version)
            .with("supportedVersion", current));
        }
        if version == 0 {
            return Err(corrupt(path, "no acc schema version"));
        }
        let mut store = Store {
            conn: std::mem::ManuallyDrop::new(engine::Connection::sqlite(conn)),
            path: path.to_path_buf(),
            ephemeral: false,
            busy: BUSY_TIMEOUT,
            publication: Publication::AfterEachWrite,
            known_version: None,
            prior: None,
            clock: std::sync::Arc::new(crate::clock::SystemClock),
            sync: wal_sync::WalSync::default(),
            mmap: 0,
            warm: None,
        };
        // Whose store this is, before anything is written: a foreign store is refused
        // untouched, never migrated. `meta.workspace_id` exists from schema version 1 on.
        let found: Option<String> = store
            .read(|c| {
                Ok(c.prepare_cached(WORKSPACE_ID)?
                    .query_row([], |r| r.get(0))
                    .optional()?)
            })
            .map_err(|e| match e.code {
                ErrorCode::StoreBusy | ErrorCode::StoreCorrupt => e,
                _ => corrupt(
                    path,
                    format!("its workspace id cannot be read: {}", e.message),
                ),
            })?;
        match found {
            Some(id) if id == workspace.as_str() => {}
            Some(id) => {
                return Err(AccError::new(
                    ErrorCode::StoreForeign,
                    format!(
                        "the acc store {} belongs to workspace {id}, not {workspace}",
                        path.display()
                    ),
                )
                .with("file", path.display().to_string())
                .with("workspaceId", id));
            }
            None => return Err(corrupt(path, "no workspace id recorded")),
        }
        if version < current {
            if !writable {
                return Err(read_only::refused(path));
            }
            store.migrate(version, current)?;
        }
        // Only an open that passed every check keeps its connection.
        store.warm = seal;
        Ok(store)
    }

    /// Applies the forward migrations in one `BEGIN IMMEDIATE` transaction. A failure rolls
    /// back, leaving the store at `from`, and names the file and both versions.
    fn migrate(&mut self, from: u32, to: u32) -> Result<()> {
        let result = (|| -> Result<()> {
            let tx = self.conn.begin(TxKind::Write)?;
            let c = tx.as_sqlite().expect("a store file is SQLite");
            // Another process may have migrated it while this one waited for the lock.
            let v = user_version(c)?;
            apply_migrations(c, v)?;
            guard_token::withdraw(&self.path)?;
            tx.commit()?;
            Ok(())
        })();
        result.map_err(|e| {
            let why = match e.code {
                ErrorCode::StoreBusy => format!(
                    "another process kept it locked for more than {} ms; retry when that process is done",
                    self.busy.as_millis()
                ),
                _ => format!(
                    "{}; it was left unchanged at version {from}: use an acc that understands version {from}, or move the file aside to start over",
                    e.message.strip_prefix(SQL_ERROR_PREFIX).unwrap_or(&e.message)
                ),
            };
            AccError::new(
                e.code,
                format!(
                    "cannot migrate the acc store {} from schema version {from} to {to}: {why}",
                    self.path.display()
                ),
            )
            .with("file", self.path.display().to_string())
            .with("storeVersion", from)
            .with("supportedVersion", to)
        })
    }

    /// Names the file in an error that arose inside it: corruption (with the advice never to
    /// recreate it), a lock held past `busy`, and SQL failures.
    fn contextualise_at(path: &Path, busy: Duration, e: AccError) -> AccError {
        if e.details.contains_key("file") {
            return e;
        }
        match e.code {
            ErrorCode::StoreCorrupt => corrupt(path, e.message),
            ErrorCode::StoreBusy => busy_at(path, busy),
            ErrorCode::StoreIo if e.message.contains("readonly database") => {
                read_only::refused(path)
            }
            ErrorCode::StoreIo if e.message.starts_with(SQL_ERROR_PREFIX) => {
                let cause = &e.message[SQL_ERROR_PREFIX.len()..];
                AccError::new(
                    ErrorCode::StoreIo,
                    format!("acc store error in {}: {cause}", path.display()),
                )
                .with("file", path.display().to_string())
            }
            _ => e,
        }
    }

    /// Runs `f` in one `BEGIN IMMEDIATE` transaction; commits on `Ok`, rolls back on `Err`.
    pub fn write<T>(&mut self, f: impl FnOnce(&engine::Connection) -> Result<T>) -> Result<T> {
        let (path, busy) = (self.path.clone(), self.busy);
        let ctx = |e: AccError| Store::contextualise_at(&path, busy, e);
        let local = !self.ephemeral && self.conn.as_sqlite().is_some();
        let mut retry = false;
        let tx = loop {
            if local && let Some(c) = self.conn.as_sqlite() {
                self.sync.before_begin(c, &self.path, retry).map_err(ctx)?;
            }
            let tx = self.conn.begin(TxKind::Write).map_err(|e| ctx(e.into()))?;
            if !local || self.sync.begun(&self.path) {
                break tx;
            }
            // Dropped unwritten: rolled back.
            drop(tx);
            retry = true;
        };
        // A shared store's guard reads the server; this host's copy is refreshed below.
        let snapshot = (!self.ephemeral && !self.conn.is_postgres())
            .then(|| guard_snapshot::path_for(&self.path));
        let before = match &snapshot {
            Some(_) => Some(guard_snapshot::fingerprint(&tx).map_err(ctx)?),
            None => None,
        };
        let rows_before = snapshot
            .as_ref()
            .and_then(|_| guard_snapshot::claim_rows(&tx));
        // A change since this connection last looked that no publication vouches for was
        // not acc's: what it removed is kept before this write's publication forgets it.
        if let Some(before) = before
            && self.known_version != Some(before)
        {
            let now_ms = self.clock.now_ms();
            let _ = tamper::check_before_write(&tx, &self.path, before, now_ms);
        }
        let shared_before = match self.conn.is_postgres() {
            true => Some(guard_snapshot::fingerprint(&tx).map_err(ctx)?),
            false => None,
        };
        let out = f(&tx).map_err(ctx)?;
        if let Some(before) = shared_before {
            shared::announce_change(&tx, &self.path, before).map_err(ctx)?;
        }
        let (changed, publish) = match (&snapshot, before) {
            (Some(file), Some(before)) => {
                let after = guard_snapshot::fingerprint(&tx).map_err(ctx)?;
                let changed = after != before;
                // A store without a published snapshot (new, from before snapshots, or
                // left by a writer that died between withdrawing and publishing) gets one
                // at its next write. Looked for only when nothing changed: a change
                // publishes anyway (the token's read and the snapshot's `stat` were a
                // claim's, inside the claims' turn).
                let missing = || !guard_token::present(&self.path) || !file.exists();
                (changed, changed || missing())
            }
            _ => (false, false),
        };
        if changed {
            // What the token vouched for until now is the state this write began from:
            // its claim lines stay the store's if this write moved no claim row.
            let rows_after = guard_snapshot::claim_rows(&tx);
            // Kept only for a write that moved no claim row: a claim, a release or a
            // renewal has its snapshot rendered whole, so the token is not read for it.
            let base = match rows_before.filter(|_| rows_after == rows_before) {
                Some(rows) => guard_snapshot::published(&self.path, rows)
                    .or_else(|| self.prior.take().filter(|p| p.claim_rows() == rows)),
                None => None,
            };
            self.prior = base;
            // Before the commit: from here on no reader takes the snapshot for the store.
            guard_token::withdraw(&self.path).map_err(ctx)?;
        }
        let after = match &snapshot {
            Some(_) => guard_snapshot::fingerprint(&tx).ok(),
            None => None,
        };
        tx.commit().map_err(|e| ctx(e.into()))?;
        if local && let Some(c) = self.conn.as_sqlite() {
            self.sync.after_commit(c, &self.path).map_err(ctx)?;
        }
        if self.conn.is_postgres() {
            let _ = self.refresh_local_copy();
        }
        self.known_version = after;
        if publish && let Some(file) = snapshot {
            match self.publication {
                // Best effort: the commit stands; without a token readers go to the store,
                // and a stale snapshot is only read when the store cannot be (each reader
                // applies expiry itself).
                Publication::AfterEachWrite => {
                    let _ = self.publish_guard_snapshot(&file);
                }
                Publication::Deferred { .. } => {
                    self.publication = Publication::Deferred { pending: true };
                }
            }
        }
        Ok(out)
    }

    /// From now on the snapshot is published once, at [`Store::end_deferral`], instead of
    /// after each write (a session start opens a session and binds it: two writes, one
    /// snapshot); until then the token stays withdrawn and readers go to the store. False
    /// when a deferral is already running (the outer one publishes).
    pub(crate) fn begin_deferral(&mut self) -> bool {
        let outer = self.publication == Publication::AfterEachWrite;
        if outer {
            self.publication = Publication::Deferred { pending: false };
        }
        outer
    }

    /// Ends the deferral `begin_deferral` started (when it returned true), publishing if a
    /// write withdrew the token meanwhile.
    pub(crate) fn end_deferral(&mut self, began: bool) {
        if !began {
            return;
        }
        let pending = self.publication == Publication::Deferred { pending: true };
        self.publication = Publication::AfterEachWrite;
        if pending {
            let _ = self.publish_guard_snapshot(&guard_snapshot::path_for(&self.path));
        }
    }

    /// Rewrites the guarded-claims snapshot beside the store and publishes its tag, under
    /// the write lock (`BEGIN IMMEDIATE`, nothing written), so no other commit can come
    /// between the state read and the token that vouches for it ([`guard_token`]).
    fn publish_guard_snapshot(&mut self, file: &Path) -> Result<()> {
        let now_ms = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_millis() as i64)
            .unwrap_or(0);
        let tx = self.conn.begin(TxKind::Write)?;
        let workspace: String = tx
            .prepare_cached(WORKSPACE_ID)?
            .query_row([], |r| r.get(0))?;
        let schema: i64 = tx
            .prepare_cached(SCHEMA_COOKIE)?
            .query_row([], |r| r.get(0))?;
        let tag = guard_token::new_tag(&self.path, guard_snapshot::fingerprint(&tx)?, schema)?;
        let reused = match self.prior.take() {
            Some(prior) => {
                guard_snapshot::write_reusing(&tx, file, &workspace, now_ms, &tag, &prior)?
            }
            None => false,
        };
        // One read of the claims for both files: the proof's, which also hands the snapshot
        // its guarded rows when it is written whole. Best effort: without a proof every
        // claim takes the store path, and without the rows the snapshot reads its own.
        let rendered =
            claims_proof::render(&tx, &tag, self.clock.now_ms(), !reused).unwrap_or_default();
        if !reused {
            guard_snapshot::write_with(
                &tx,
                file,
                &workspace,
                now_ms,
                &tag,
                rendered.guarded.as_ref(),
            )?;
        }
        // A claim refused from the proof must be refused on the same state: both sealed by
        // the one token.
        let proof = claims_proof::put(&self.path, rendered.proof)
            .unwrap_or(false)
            .then(|| claims_proof::path_for(&self.path));
        guard_token::publish(&self.path, &tag, file, proof.as_deref())?;
        tx.commit()?;
        Ok(())
    }

    /// Runs `f` in one read transaction, so every query sees the same snapshot.
    pub fn read<T>(&mut self, f: impl FnOnce(&engine::Connection) -> Result<T>) -> Result<T> {
        let (path, busy) = (self.path.clone(), self.busy);
        let ctx = |e: AccError| Store::contextualise_at(&path, busy, e);
        let tx = self.conn.begin(TxKind::Read).map_err(|e| ctx(e.into()))?;
        let out = f(&tx).map_err(ctx)?;
        tx.commit().map_err(|e| ctx(e.into()))?;
        Ok(out)
    }
}

/// Test set-up the store's modules share: workspace `ws1` and its genesis.
#[cfg(test)]
pub(crate) mod testing {
    use super::{Genesis, OpenMode, Store};
    use crate::ids::WorkspaceId;
    use std::path::Path;

    pub fn ws() -> WorkspaceId {
        WorkspaceId::parse("ws1").unwrap()
    }

    pub fn genesis() -> Genesis {
        Genesis {
            now_ms: 1000,
            event_id: "event_genesis".into(),
        }
    }

    /// The store at `path` opened read-write, created with [`genesis`] when absent.
    pub fn open(path: &Path) -> Store {
        Store::open(path, &ws(), OpenMode::ReadWrite, genesis).unwrap()
    }
}

#[cfg(test)]
mod tests {
    use super::testing::{genesis, ws};
    use super::*;

    #[test]
    fn read_only_open_of_an_absent_store_creates_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("acc/workspaces/ws1/acc.db");
        let mut store = Store::open(&path, &ws(), OpenMode::ReadOnly, genesis).unwrap();
        assert!(store.is_ephemeral());
        store.set_mmap_size(MMAP_WHOLE_STORE).unwrap();
        store.set_busy_timeout(Duration::from_millis(10)).unwrap();
        let n: i64 = store
            .read(|c| Ok(c.query_row("SELECT count(*) FROM sessions", [], |r| r.get(0))?))
            .unwrap();
        assert_eq!(n, 0);
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }

    #[test]
    fn creates_wal_store_with_genesis_event_and_reopens() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("acc/workspaces/ws1/acc.db");
        let mut store = Store::open(&path, &ws(), OpenMode::ReadWrite, genesis).unwrap();
        assert!(!store.is_ephemeral());
        let (mode, ty): (String, String) = store
            .read(|c| {
                let mode = c.query_row("PRAGMA journal_mode", [], |r| r.get(0))?;
                let ty = c.query_row("SELECT type FROM events WHERE sequence = 1", [], |r| {
                    r.get(0)
                })?;
                Ok((mode, ty))
            })
            .unwrap();
        assert_eq!(mode, "wal");
        assert_eq!(ty, "workspace.materialised");
        let mapped = |s: &mut Store| -> i64 {
            s.read(|c| Ok(c.query_row("PRAGMA mmap_size", [], |r| r.get(0))?))
                .unwrap()
        };
        assert_eq!(
            mapped(&mut store),
            0,
            "pages are read, not mapped, by default"
        );
        store.set_mmap_size(MMAP_WHOLE_STORE).unwrap();
        assert_eq!(mapped(&mut store), MMAP_WHOLE_STORE as i64);
        drop(store);
        // No temporary files are left next to the store.
        let names: Vec<String> = std::fs::read_dir(path.parent().unwrap())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.contains(".tmp"))
            .collect();
        assert!(names.is_empty(), "{names:?}");
        Store::open(&path, &ws(), OpenMode::ReadOnly, genesis).unwrap();
    }

    #[test]
    fn refuses_a_newer_schema_naming_file_and_versions() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("acc.db");
        let store = Store::open(&path, &ws(), OpenMode::ReadWrite, genesis).unwrap();
        store
            .conn
            .as_sqlite()
            .unwrap()
            .pragma_update(None, "user_version", 99)
            .unwrap();
        drop(store);
        let err = Store::open(&path, &ws(), OpenMode::ReadOnly, genesis).unwrap_err();
        assert_eq!(err.code, ErrorCode::StoreSchemaNewer);
        assert_eq!(err.exit_code(), 4);
        assert!(err.message.contains(&path.display().to_string()));
        assert!(err.message.contains("version 99"));
        assert!(
            err.message
                .contains(&format!("version {}", schema::current_version()))
        );
    }

    #[test]
    fn corrupt_and_empty_files_fail_closed_and_are_kept() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("acc.db");
        for bytes in [
            &b""[..],
            b"this is not a database at all, just text",
            &[0u8; 4096],
        ] {
            std::fs::write(&path, bytes).unwrap();
            let err = Store::open(&path, &ws(), OpenMode::ReadWrite, genesis).unwrap_err();
            assert_eq!(err.code, ErrorCode::StoreCorrupt, "{}", err.message);
            assert!(err.message.contains(&path.display().to_string()));
            assert_eq!(std::fs::read(&path).unwrap(), bytes, "never recreated");
        }
    }

    #[test]
    fn damaged_pages_fail_closed() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("acc.db");
        drop(Store::open(&path, &ws(), OpenMode::ReadWrite, genesis).unwrap());
        let mut bytes = std::fs::read(&path).unwrap();
        // Keep the header magic, destroy the rest of page 1 (the schema table).
        for b in bytes.iter_mut().skip(100).take(3000) {
            *b = 0xA5;
        }
        std::fs::write(&path, &bytes).unwrap();
        let err = Store::open(&path, &ws(), OpenMode::ReadOnly, genesis).unwrap_err();
        assert_eq!(err.exit_code(), 4, "{}", err.message);
    }

    #[test]
    fn a_store_of_another_workspace_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("acc.db");
        drop(Store::open(&path, &ws(), OpenMode::ReadWrite, genesis).unwrap());
        let other = WorkspaceId::parse("ws2").unwrap();
        let err = Store::open(&path, &other, OpenMode::ReadOnly, genesis).unwrap_err();
        assert_eq!(err.code, ErrorCode::StoreForeign);
    }

    #[test]
    fn the_busy_timeout_can_be_shortened_and_is_capped() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("acc.db");
        let mut store = Store::open(&path, &ws(), OpenMode::ReadWrite, genesis).unwrap();
        let timeout = |s: &mut Store| -> i64 {
            s.read(|c| Ok(c.query_row("PRAGMA busy_timeout", [], |r| r.get(0))?))
                .unwrap()
        };
        // At open the wait is `busy_wait`'s handler (BUSY_TIMEOUT in finer steps), which
        // SQLite reports as no timeout of its own; a lock let go during it is taken.
        assert_eq!(timeout(&mut store), 0);
        let other = Connection::open(&path).unwrap();
        other.execute_batch("BEGIN IMMEDIATE").unwrap();
        let letting_go = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(30));
            other.execute_batch("COMMIT").unwrap();
        });
        store
            .write(|tx| Ok(tx.execute("INSERT INTO meta (key, value) VALUES ('w', 'v')", [])?))
            .expect("waited for the other writer");
        letting_go.join().unwrap();
        store.set_busy_timeout(Duration::from_millis(1234)).unwrap();
        assert_eq!(timeout(&mut store), 1234);
        store.set_busy_timeout(Duration::MAX).unwrap();
        assert_eq!(timeout(&mut store), i64::from(i32::MAX));

        // With no wait at all, a lock held by another connection fails the write at once
        // as busy (exit 3) rather than waiting.
        store.set_busy_timeout(Duration::ZERO).unwrap();
        let other = Connection::open(&path).unwrap();
        other.execute_batch("BEGIN IMMEDIATE").unwrap();
        let err = store
            .write(|tx| Ok(tx.execute("INSERT INTO meta (key, value) VALUES ('k', 'v')", [])?))
            .unwrap_err();
        assert_eq!(err.code, ErrorCode::StoreBusy, "{}", err.message);
        assert_eq!(err.exit_code(), 3);
        assert_eq!(
            err.message,
            format!(
                "the acc store {} stayed locked by another process for more than 0 ms; retry when that process is done",
                path.display()
            )
        );
        assert_eq!(err.details["file"], path.display().to_string());
        other.execute_batch("ROLLBACK").unwrap();
    }

    /// A version-1 store of workspace `id`, as an older acc left it.
    fn version_1_store(path: &Path, id: &str) {
        let conn = Connection::open(path).unwrap();
        conn.execute_batch(schema::MIGRATIONS[0].sql).unwrap();
        conn.pragma_update(None, "user_version", 1).unwrap();
        conn.execute(
            "INSERT INTO meta (key, value) VALUES ('workspace_id', ?1)",
            [id],
        )
        .unwrap();
    }

    fn version_and_tables(path: &Path) -> (i64, i64) {
        let conn = Connection::open(path).unwrap();
        let version = conn
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .unwrap();
        let tables = conn
            .query_row(
                "SELECT count(*) FROM sqlite_master WHERE type = 'table'",
                [],
                |r| r.get(0),
            )
            .unwrap();
        (version, tables)
    }

    #[test]
    fn a_foreign_store_is_refused_before_it_is_migrated() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("acc.db");
        version_1_store(&path, "ws2");
        let before = version_and_tables(&path);
        assert_eq!(before.0, 1);
        let err = Store::open(&path, &ws(), OpenMode::ReadWrite, genesis).unwrap_err();
        assert_eq!(err.code, ErrorCode::StoreForeign, "{}", err.message);
        assert!(
            err.message.contains("belongs to workspace ws2"),
            "{}",
            err.message
        );
        assert_eq!(version_and_tables(&path), before, "nothing was migrated");
    }

    #[test]
    fn a_failed_migration_names_the_file_and_versions_and_rolls_back() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("acc.db");
        version_1_store(&path, "ws1");
        // A table in the way makes migration 2 fail part-way.
        Connection::open(&path)
            .unwrap()
            .execute_batch("CREATE TABLE decision_links (x INTEGER)")
            .unwrap();
        let before = version_and_tables(&path);
        let err = Store::open(&path, &ws(), OpenMode::ReadOnly, genesis).unwrap_err();
        assert_eq!(err.exit_code(), 4, "{}", err.message);
        assert!(
            err.message.starts_with(&format!(
                "cannot migrate the acc store {} from schema version 1 to {}: ",
                path.display(),
                schema::current_version()
            )),
            "{}",
            err.message
        );
        assert!(
            err.message.ends_with(
                ": migration 2 failed: table decision_links already exists; it was left unchanged at version 1: use an acc that understands version 1, or move the file aside to start over"
            ),
            "{}",
            err.message
        );
        assert_eq!(err.details["file"], path.display().to_string());
        assert_eq!(
            version_and_tables(&path),
            before,
            "the migration rolled back"
        );
    }

    #[test]
    fn a_file_in_the_way_of_the_store_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let blocker = dir.path().join("acc");
        std::fs::write(&blocker, b"x").unwrap();
        let path = blocker.join("workspaces/ws1/acc.db");
        for mode in [OpenMode::ReadOnly, OpenMode::ReadWrite] {
            let err = Store::open(&path, &ws(), mode, genesis).unwrap_err();
            assert_eq!(err.code, ErrorCode::StoreIo, "{}", err.message);
            assert_eq!(
                err.message,
                format!(
                    "cannot use the acc store {}: {} is not a directory; move it aside",
                    path.display(),
                    blocker.display()
                )
            );
        }
        assert_eq!(std::fs::read(&blocker).unwrap(), b"x");
    }

    #[test]
    fn failed_write_rolls_back() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("acc.db");
        let mut store = Store::open(&path, &ws(), OpenMode::ReadWrite, genesis).unwrap();
        let r: Result<()> = store.write(|tx| {
            tx.execute("INSERT INTO meta (key, value) VALUES ('k', 'v')", [])?;
            Err(AccError::usage("stop"))
        });
        assert!(r.is_err());
        let n: i64 = store
            .read(|c| {
                Ok(
                    c.query_row("SELECT count(*) FROM meta WHERE key = 'k'", [], |r| {
                        r.get(0)
                    })?,
                )
            })
            .unwrap();
        assert_eq!(n, 0);
    }
}
