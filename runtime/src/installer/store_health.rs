//! Doctor's read-only look at the stores under the data home: every
//! `acc/workspaces/<id>/acc.db` must be an SQLite file of an acc schema this acc knows and
//! pass SQLite's quick check. Nothing is opened for writing, so nothing is migrated,
//! recovered or created.

use std::path::{Path, PathBuf};

use rusqlite::{Connection, OpenFlags};
use serde::Serialize;

use crate::paths::STORE_FILE;
use crate::store::schema;

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
}

impl StoreHealth {
    pub fn healthy(&self) -> bool {
        self.problems.is_empty()
    }
}

pub fn check(acc_data_dir: &Path) -> StoreHealth {
    let mut health = StoreHealth {
        data_dir: acc_data_dir.to_path_buf(),
        exists: acc_data_dir.is_dir(),
        stores: 0,
        problems: Vec::new(),
    };
    let Ok(entries) = std::fs::read_dir(acc_data_dir.join("workspaces")) else {
        return health;
    };
    let mut stores: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|e| e.path().join(STORE_FILE))
        .filter(|p| p.exists())
        .collect();
    stores.sort();
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
    let read =
        std::fs::File::open(path).and_then(|mut f| std::io::Read::read_exact(&mut f, &mut header));
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
