//! Whether the guarded-claims snapshot beside the store is the store's present state
//! (`<store dir>/guard-token`), so the write guard may answer an allow from the snapshot
//! alone without opening SQLite (whose schema parse is most of a hook's cost).
//!
//! The protocol, all under SQLite's write lock, which serialises every step below:
//! - a write transaction that changes what the guard reads (claims, sessions, bindings:
//!   the counter of schema migrations 4 and 5) **withdraws** the token before it commits;
//! - after the commit, in a fresh `BEGIN IMMEDIATE` (so no other commit can come between),
//!   the snapshot is rewritten from the committed state with a new tag, and the token is
//!   **published** naming that tag.
//!
//! A reader that finds a token whose tag is the snapshot's knows that no change has
//! committed since the snapshot was written: every commit of a change is preceded by a
//! withdrawal. A writer that dies between its withdrawal and its publication leaves no
//! token, and readers go to the store until the next write publishes one. The tag also
//! names the store file (device and inode), so a store replaced by another file is never
//! answered for from the old one's snapshot.

use crate::error::{AccError, ErrorCode, Result};
use std::io::{Read, Write};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

/// The token's file name, beside `acc.db`.
pub const TOKEN_FILE: &str = "guard-token";

/// A token longer than this was not written by acc.
const MAX_TOKEN_BYTES: u64 = 256;

/// `<store dir>/guard-token` for the store at `store_file`.
pub fn path_for(store_file: &Path) -> PathBuf {
    store_file.with_file_name(TOKEN_FILE)
}

/// The store file's identity, the prefix of every tag published for it.
fn identity(store_file: &Path) -> Option<String> {
    let meta = std::fs::symlink_metadata(store_file).ok()?;
    Some(format!("{}.{}.", meta.dev(), meta.ino()))
}

/// A tag no earlier publication for this store used: its identity, the guard version,
/// this process and the time.
pub(crate) fn new_tag(store_file: &Path, version: i64) -> Result<String> {
    let id = identity(store_file).ok_or_else(|| {
        AccError::new(
            ErrorCode::StoreIo,
            format!("{}: cannot be read", store_file.display()),
        )
    })?;
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    Ok(format!("{id}{version}.{}.{nanos}", std::process::id()))
}

/// Removes the token: from now on readers go to the store. A token that cannot be removed
/// is an error, so the change that needed its removal is not committed.
pub(crate) fn withdraw(store_file: &Path) -> Result<()> {
    let path = path_for(store_file);
    match std::fs::remove_file(&path) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(AccError::new(
            ErrorCode::StoreIo,
            format!("{}: cannot be removed ({e})", path.display()),
        )),
    }
}

/// Whether a token is there at all (a store without one publishes at its next write).
pub(crate) fn present(store_file: &Path) -> bool {
    path_for(store_file).symlink_metadata().is_ok()
}

/// Publishes `tag`, atomically (a temporary file renamed over the token).
pub(crate) fn publish(store_file: &Path, tag: &str) -> Result<()> {
    let path = path_for(store_file);
    let dir = path.parent().unwrap_or(Path::new("."));
    let temp = dir.join(format!(".{TOKEN_FILE}.{}.tmp", std::process::id()));
    let written = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .open(&temp)
        .and_then(|mut f| f.write_all(format!("{tag}\n").as_bytes()))
        .and_then(|()| std::fs::rename(&temp, &path));
    written.map_err(|e| {
        let _ = std::fs::remove_file(&temp);
        AccError::new(
            ErrorCode::StoreIo,
            format!("{}: cannot be written ({e})", path.display()),
        )
    })
}

/// The published tag, when there is a token and it names the store file as it is now.
pub fn read(store_file: &Path) -> Option<String> {
    use std::os::unix::fs::OpenOptionsExt;
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(path_for(store_file))
        .ok()?;
    let mut text = String::new();
    file.take(MAX_TOKEN_BYTES).read_to_string(&mut text).ok()?;
    let tag = text.strip_suffix('\n')?;
    if tag.is_empty() || tag.contains(['\n', '\t']) {
        return None;
    }
    tag.starts_with(&identity(store_file)?)
        .then(|| tag.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_published_tag_reads_back_until_withdrawn() {
        let dir = tempfile::tempdir().unwrap();
        let store = dir.path().join("acc.db");
        std::fs::write(&store, b"x").unwrap();
        assert_eq!(read(&store), None);
        let tag = new_tag(&store, 7).unwrap();
        publish(&store, &tag).unwrap();
        assert_eq!(read(&store).as_deref(), Some(tag.as_str()));
        assert!(present(&store));
        withdraw(&store).unwrap();
        assert_eq!(read(&store), None);
        withdraw(&store).unwrap();
    }

    #[test]
    fn a_token_of_another_store_file_is_not_read() {
        let dir = tempfile::tempdir().unwrap();
        let store = dir.path().join("acc.db");
        std::fs::write(&store, b"x").unwrap();
        publish(&store, &new_tag(&store, 1).unwrap()).unwrap();
        // The store moved aside and another file took its name.
        std::fs::rename(&store, dir.path().join("old.db")).unwrap();
        std::fs::write(&store, b"y").unwrap();
        assert_eq!(read(&store), None);
    }

    #[test]
    fn tags_differ_between_publications() {
        let dir = tempfile::tempdir().unwrap();
        let store = dir.path().join("acc.db");
        std::fs::write(&store, b"x").unwrap();
        let a = new_tag(&store, 1).unwrap();
        std::thread::sleep(std::time::Duration::from_millis(1));
        let b = new_tag(&store, 1).unwrap();
        assert_ne!(a, b);
    }

    #[test]
    fn text_acc_did_not_write_is_not_a_token() {
        let dir = tempfile::tempdir().unwrap();
        let store = dir.path().join("acc.db");
        std::fs::write(&store, b"x").unwrap();
        let id = identity(&store).unwrap();
        for bad in [
            String::new(),
            format!("{id}1.2.3"),
            format!("{id}1\t2\n"),
            format!("{}\n", "1".repeat(300)),
        ] {
            std::fs::write(path_for(&store), bad.as_bytes()).unwrap();
            assert_eq!(read(&store), None, "{bad:?}");
        }
    }
}
