//! A small read-only copy of the guarded claims, next to the store
//! (`<store dir>/guarded-claims.json`), for the write guard to answer from when the store
//! itself cannot be read within its budget: another process holding it with
//! `PRAGMA locking_mode=EXCLUSIVE`, a read-only data home where SQLite cannot open its
//! shared-memory file, a store being repaired.
//!
//! Every write transaction that changes the guarded claims (a claim, a release, a renewal,
//! a forced release, a session closing its claims, a prune) rewrites it after the commit,
//! atomically (a temporary file renamed over it), so a reader sees one whole snapshot. A
//! reader applies each claim's expiry itself, so an old snapshot never denies for a claim
//! that ran out.

use crate::error::{AccError, ErrorCode, Result};
use rusqlite::Connection;
use serde::{Deserialize, Serialize};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

/// The snapshot's file name, beside `acc.db`.
pub const SNAPSHOT_FILE: &str = "guarded-claims.json";

/// A snapshot larger than this is not read (10,000 claims fit several times over).
pub const MAX_SNAPSHOT_BYTES: u64 = 8 * 1024 * 1024;

/// One guarded claim as the guard needs it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SnapshotClaim {
    pub claim_id: String,
    pub resource: String,
    pub owner_session_id: String,
    pub owner_participant_id: String,
    pub expires_at_ms: i64,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Snapshot {
    pub schema: u32,
    pub workspace_id: String,
    pub written_at_ms: i64,
    pub claims: Vec<SnapshotClaim>,
}

/// `<store dir>/guarded-claims.json` for the store at `store_file`.
pub fn path_for(store_file: &Path) -> PathBuf {
    store_file.with_file_name(SNAPSHOT_FILE)
}

/// Which version of the claims the store holds: a counter every insert, update and delete
/// of a claim bumps (schema migration 4), read in one row lookup. Equal before and after a
/// write: the write touched no claim.
pub(crate) fn fingerprint(conn: &Connection) -> Result<i64> {
    Ok(conn.query_row(
        "SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'claims_version'",
        [],
        |r| r.get(0),
    )?)
}

/// Whether the store holds any guarded claim (for a store that has no snapshot yet).
pub(crate) fn has_guarded_claims(conn: &Connection) -> Result<bool> {
    Ok(conn.query_row(
        "SELECT EXISTS (SELECT 1 FROM claims WHERE enforcement = 'guarded')",
        [],
        |r| r.get(0),
    )?)
}

/// Writes the snapshot of every guarded claim to `path`, atomically (a temporary file renamed
/// over it), so a reader sees the old snapshot or the new one, never half of one.
pub(crate) fn write(conn: &Connection, path: &Path, workspace_id: &str, now_ms: i64) -> Result<()> {
    let mut stmt = conn.prepare_cached(
        "SELECT c.claim_id, c.resource, c.owner_session_id, s.participant_id, c.expires_at
         FROM claims c JOIN sessions s ON s.session_id = c.owner_session_id
         WHERE c.enforcement = 'guarded' ORDER BY c.acquired_at, c.rowid",
    )?;
    let claims = stmt
        .query_map([], |r| {
            Ok(SnapshotClaim {
                claim_id: r.get(0)?,
                resource: r.get(1)?,
                owner_session_id: r.get(2)?,
                owner_participant_id: r.get(3)?,
                expires_at_ms: r.get(4)?,
            })
        })?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    let snapshot = Snapshot {
        schema: 1,
        workspace_id: workspace_id.to_string(),
        written_at_ms: now_ms,
        claims,
    };
    let bytes = serde_json::to_vec(&snapshot).expect("snapshots serialise");
    let dir = path.parent().unwrap_or(Path::new("."));
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    let temp = dir.join(format!(
        ".{SNAPSHOT_FILE}.{}.{nanos}.tmp",
        std::process::id()
    ));
    let written = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&temp)
        .and_then(|mut f| f.write_all(&bytes))
        .and_then(|()| std::fs::rename(&temp, path));
    if let Err(e) = written {
        let _ = std::fs::remove_file(&temp);
        return Err(AccError::new(
            ErrorCode::StoreIo,
            format!("{}: cannot be written ({e})", path.display()),
        ));
    }
    Ok(())
}

/// Reads the snapshot at `path`: `Ok(None)` when there is none. Opened non-blocking and
/// without following a symlink; its size is capped.
pub fn read(path: &Path) -> Result<Option<Snapshot>> {
    use std::os::unix::fs::OpenOptionsExt;
    let io =
        |what: String| AccError::new(ErrorCode::StoreIo, format!("{}: {what}", path.display()));
    let file = match std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(path)
    {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(io(format!("cannot be read ({e})"))),
    };
    let meta = file
        .metadata()
        .map_err(|e| io(format!("cannot be read ({e})")))?;
    if !meta.is_file() || meta.len() > MAX_SNAPSHOT_BYTES {
        return Err(io("is not a snapshot acc wrote".into()));
    }
    let mut bytes = Vec::new();
    file.take(MAX_SNAPSHOT_BYTES)
        .read_to_end(&mut bytes)
        .map_err(|e| io(format!("cannot be read ({e})")))?;
    serde_json::from_slice(&bytes)
        .map(Some)
        .map_err(|_| io("is not a snapshot acc wrote".into()))
}
