//! Doctor's read-only look at the stores under the data home: every
//! `acc/workspaces/<id>/acc.db` must be an SQLite file of an acc schema this acc knows and
//! pass SQLite's quick check. Nothing is opened for writing, so nothing is migrated,
//! recovered or created.

use std::path::{Path, PathBuf};

use rusqlite::{Connection, OpenFlags};
use serde::Serialize;

use crate::paths::STORE_FILE;
use crate::store::schema;
use crate::store::tamper::{self, TamperKind};

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct StoreHealth {
    /// `<data home>/acc`.
    pub data_dir: PathBuf,
    pub exists: bool,
    /// Workspace stores found.
    pub stores: usize,
    /// One line per store that is not healthy.
    pub problems: Vec<String>,
    /// Stores that changed behind acc's back while guarded claims existed; left out when
    /// there are none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tampered: Vec<TamperedStore>,
    /// Stores whose loss `--accept-store-loss` accepted in this run; left out otherwise.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub accepted_loss: Vec<PathBuf>,
}

impl StoreHealth {
    pub fn healthy(&self) -> bool {
        self.problems.is_empty() && self.tampered.is_empty()
    }
}

/// A store acc found removed, replaced or robbed of claims ([`tamper`]), as doctor explains
/// it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TamperedStore {
    pub store: PathBuf,
    /// `store_missing`, `store_foreign` or `claims_deleted`.
    pub kind: String,
    pub detected_at: String,
    /// What acc found, in one line.
    pub what: String,
    pub detail: String,
    /// The guarded claims the last snapshot named, still refused until each one's expiry.
    pub kept_claims: Vec<KeptClaim>,
    /// The marker, which holds that snapshot.
    pub marker: PathBuf,
    /// What a person can do.
    pub recovery: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct KeptClaim {
    pub claim_id: String,
    pub resource: String,
    pub owner_participant_id: String,
    pub owner_session_id: String,
    pub expires_at: String,
}

/// The command that accepts a store's loss.
pub const ACCEPT_COMMAND: &str = "acc doctor --accept-store-loss";

fn tampered_store(store: &Path) -> Option<TamperedStore> {
    let marker = tamper::read(store)?;
    let recovery = match marker.kind {
        TamperKind::StoreMissing => format!(
            "if it was moved aside, move it back to {}; otherwise run `{ACCEPT_COMMAND}` to accept that its claims are lost (their owners claim again)",
            store.display()
        ),
        TamperKind::StoreForeign => format!(
            "move {} aside (it is another workspace's) and put this workspace's store back, or run `{ACCEPT_COMMAND}` and move it aside (a fresh store is created at the next session start)",
            store.display()
        ),
        TamperKind::ClaimsDeleted => format!(
            "the store's events (`acc sync --json`) show what it still knows; run `{ACCEPT_COMMAND}` to accept that the claims are gone (their owners claim again)"
        ),
    };
    Some(TamperedStore {
        store: store.to_path_buf(),
        kind: marker.kind.as_str().to_owned(),
        detected_at: crate::clock::to_iso(marker.detected_at_ms),
        what: format!("acc's store {} behind acc's back", marker.kind.what()),
        detail: marker.shown_detail(),
        kept_claims: marker
            .claims()
            .into_iter()
            .map(|c| KeptClaim {
                claim_id: c.claim_id,
                resource: c.resource,
                owner_participant_id: c.owner_participant_id,
                owner_session_id: c.owner_session_id,
                expires_at: crate::clock::to_iso(c.expires_at_ms),
            })
            .collect(),
        marker: tamper::path_for(store),
        recovery,
    })
}

/// Every workspace directory's store file under `acc_data_dir`, existing or not.
fn workspace_stores(acc_data_dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(acc_data_dir.join("workspaces")) else {
        return Vec::new();
    };
    let mut stores: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .map(|e| e.path().join(STORE_FILE))
        .collect();
    stores.sort();
    stores
}

/// `--accept-store-loss`: for every marked store, drops the marker and the snapshot it was
/// compared with (so the old claims are not found missing again); the next write publishes
/// a fresh snapshot. Returns the stores whose loss was accepted.
pub fn accept_loss(acc_data_dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut accepted = Vec::new();
    for store in workspace_stores(acc_data_dir) {
        if !tamper::marked(&store) {
            continue;
        }
        let witness = crate::store::guard_snapshot::witness_path(&store);
        for file in [
            Some(crate::store::guard_token::path_for(&store)),
            Some(crate::store::guard_snapshot::path_for(&store)),
            witness,
        ]
        .into_iter()
        .flatten()
        {
            match std::fs::remove_file(&file) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(e),
            }
        }
        tamper::clear(&store)?;
        accepted.push(store);
    }
    Ok(accepted)
}

pub fn check(acc_data_dir: &Path) -> StoreHealth {
    let mut health = StoreHealth {
        data_dir: acc_data_dir.to_path_buf(),
        exists: acc_data_dir.is_dir(),
        stores: 0,
        problems: Vec::new(),
        tampered: Vec::new(),
        accepted_loss: Vec::new(),
    };
    let all = workspace_stores(acc_data_dir);
    health.tampered = all.iter().filter_map(|s| tampered_store(s)).collect();
    let stores: Vec<PathBuf> = all.into_iter().filter(|p| p.exists()).collect();
    health.stores = stores.len();
    for store in stores {
        if let Err(problem) = check_store(&store) {
            health
                .problems
                .push(format!("{}: {problem}", store.display()));
        }
    }
    health
}

fn check_store(path: &Path) -> Result<(), String> {
    let mut header = [0u8; 16];
    let read = if crate::store::warm::enabled() {
        // This process may hold warm connections to the file: closing a descriptor of it
        // would drop their locks ([`crate::store::warm`]).
        std::fs::symlink_metadata(path)
            .and_then(|m| crate::store::warm::read_head(path, &m))
            .and_then(|h| match h.get(..header.len()) {
                Some(h) => {
                    header.copy_from_slice(h);
                    Ok(())
                }
                None => Err(std::io::ErrorKind::UnexpectedEof.into()),
            })
    } else {
        std::fs::File::open(path).and_then(|mut f| std::io::Read::read_exact(&mut f, &mut header))
    };
    if read.is_err() || &header != b"SQLite format 3\0" {
        return Err("not an SQLite database".to_owned());
    }
    // A store in a directory acc may not write is read without creating anything beside it.
    let conn = if crate::store::read_only::store_writable(path) {
        Connection::open_with_flags(
            path,
            OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )
    } else {
        crate::store::read_only::open(path)
    }
    .map_err(|e| format!("cannot be opened ({e})"))?;
    let version: i64 = conn
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .map_err(|e| format!("unreadable ({e})"))?;
    let current = i64::from(schema::current_version());
    if version == 0 {
        return Err("has no acc schema".to_owned());
    }
    if version > current {
        return Err(format!(
            "has schema version {version}, newer than {current}; upgrade acc"
        ));
    }
    let verdict: String = conn
        .query_row("PRAGMA quick_check", [], |r| r.get(0))
        .map_err(|e| format!("unreadable ({e})"))?;
    if verdict != "ok" {
        return Err(format!("fails SQLite's quick check ({verdict})"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reports_stores_that_are_not_acc_databases() {
        let dir = tempfile::tempdir().unwrap();
        let acc = dir.path().join("acc");
        let health = check(&acc);
        assert!(!health.exists && health.healthy() && health.stores == 0);
        let bad = acc.join("workspaces/workspace_x");
        std::fs::create_dir_all(&bad).unwrap();
        std::fs::write(bad.join(STORE_FILE), "not sqlite").unwrap();
        let good = acc.join("workspaces/workspace_y");
        std::fs::create_dir_all(&good).unwrap();
        let conn = Connection::open(good.join(STORE_FILE)).unwrap();
        conn.execute_batch("CREATE TABLE t (x); PRAGMA user_version = 1;")
            .unwrap();
        drop(conn);
        let health = check(&acc);
        assert_eq!(health.stores, 2);
        assert_eq!(health.problems.len(), 1);
        assert!(health.problems[0].contains("workspace_x"));
        assert!(health.problems[0].ends_with("not an SQLite database"));
    }
}
