//! A store in a directory acc may not write (a read-only data home, a store another user
//! owns): readers still read it, and writers are refused with the directory named.
//!
//! SQLite opens a WAL database for reading only when it can use the `-shm` file beside it.
//! A writer that is running keeps `-wal` and `-shm` there, and a read-only connection uses
//! them; a store at rest has neither, and a directory nobody may write cannot take a new
//! `-shm`, so the file is opened `immutable`: with no WAL there is nothing to miss.

use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use rusqlite::{Connection, OpenFlags};

use crate::error::{AccError, ErrorCode};

/// Whether this process may write `path` (a file or a directory), as the kernel judges it
/// (permissions, a read-only mount).
pub fn writable(path: &Path) -> bool {
    let Ok(c) = CString::new(path.as_os_str().as_bytes()) else {
        return false;
    };
    // SAFETY: `c` is a valid NUL-terminated string that outlives the call.
    unsafe { libc::access(c.as_ptr(), libc::W_OK) == 0 }
}

/// Whether the store at `path` can be written: its directory (for the journal files) and
/// the file itself.
pub fn store_writable(path: &Path) -> bool {
    let dir = path.parent().unwrap_or(Path::new("."));
    writable(dir) && writable(path)
}

/// Opens the store at `path` for reading only, without creating anything beside it.
pub fn open(path: &Path) -> rusqlite::Result<Connection> {
    let mut wal = path.as_os_str().to_owned();
    wal.push("-wal");
    let query = if Path::new(&wal).exists() {
        "mode=ro"
    } else {
        "immutable=1"
    };
    Connection::open_with_flags(
        format!("file:{}?{query}", uri_path(path)),
        OpenFlags::SQLITE_OPEN_READ_ONLY
            | OpenFlags::SQLITE_OPEN_URI
            | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
}

/// A change refused because the store's directory cannot be written.
pub fn refused(path: &Path) -> AccError {
    let dir = path.parent().unwrap_or(Path::new("."));
    AccError::new(
        ErrorCode::StoreIo,
        format!(
            "the directory {} holding the acc store is read-only, so acc cannot record this change (`acc status`, `acc inbox` and `acc doctor` still read it); make it writable, or set ACC_DATA_HOME to a writable directory",
            dir.display()
        ),
    )
    .with("file", path.display().to_string())
    .with("directory", dir.display().to_string())
}

/// `path` percent-encoded for an SQLite URI.
fn uri_path(path: &Path) -> String {
    let mut out = String::new();
    for &b in path.as_os_str().as_bytes() {
        if b.is_ascii_alphanumeric() || b"/-_.~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_encoded_for_a_uri() {
        assert_eq!(uri_path(Path::new("/a b/c?d#e%")), "/a%20b/c%3Fd%23e%25");
    }

    #[test]
    fn a_store_at_rest_is_read_without_creating_anything() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("acc.db");
        let conn = Connection::open(&path).unwrap();
        conn.query_row("PRAGMA journal_mode = WAL", [], |_| Ok(()))
            .unwrap();
        conn.execute_batch("CREATE TABLE t (x); INSERT INTO t VALUES (7);")
            .unwrap();
        drop(conn);
        let before: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        let conn = open(&path).unwrap();
        let x: i64 = conn.query_row("SELECT x FROM t", [], |r| r.get(0)).unwrap();
        assert_eq!(x, 7);
        assert!(conn.execute("INSERT INTO t VALUES (8)", []).is_err());
        drop(conn);
        let after: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(before.len(), after.len());
    }
}
