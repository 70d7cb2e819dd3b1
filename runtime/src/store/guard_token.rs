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
//!
//! After the tag the token carries the snapshot file's **seal**: its device, inode, change
//! time (to the nanosecond) and size as they were right after it was written. No process
//! can set a file's change time, and every write, rename or copy gives a file a new one, so
//! a snapshot edited in place (claim lines deleted), replaced, or copied back from an
//! earlier publication together with that publication's token no longer matches the token,
//! and the guard goes to the store. What a same-user process can still do, deliberately, is
//! write a new token naming the forged file's seal: ARCHITECTURE.md says so.

use crate::error::{AccError, ErrorCode, Result};
use std::io::Read;
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

/// A shared store's copy stamp on this host (the room's guard version the shared listener's
/// copy was written at); also the anchor its tokens are named after, as `acc.db` is. Here,
/// below the listener, so naming a token never needs the listener's module.
pub const ANCHOR_FILE: &str = "shared-claims-version";

/// The store file's identity, the prefix of every tag published for it. A shared store has
/// no file on this host: its anchor is this host's copy stamp
/// ([`ANCHOR_FILE`]), which removing (to start over) retires every
/// token published for the room.
fn identity(store_file: &Path) -> Option<String> {
    let meta = std::fs::symlink_metadata(store_file)
        .or_else(|_| std::fs::symlink_metadata(store_file.with_file_name(ANCHOR_FILE)))
        .ok()?;
    Some(format!("{}.{}.", meta.dev(), meta.ino()))
}

/// A tag no earlier publication for this store used: its identity, the guard version,
/// this process, the time, and the store's schema cookie (`PRAGMA schema_version`, which
/// every schema change bumps: a trigger dropped behind acc's back changes it).
pub(crate) fn new_tag(store_file: &Path, version: i64, schema: i64) -> Result<String> {
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
    Ok(format!(
        "{id}{version}.{}.{nanos}{SCHEMA_MARK}{schema}",
        std::process::id()
    ))
}

/// What precedes the schema cookie at the end of a tag.
const SCHEMA_MARK: &str = ".s";

/// The schema cookie a tag names.
pub fn schema_of(tag: &str) -> Option<i64> {
    tag.rsplit_once(SCHEMA_MARK)?.1.parse().ok()
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

/// Whether a token of this store file, in this format, is there (a store without one
/// publishes at its next write; so does one whose token an earlier acc wrote).
pub(crate) fn present(store_file: &Path) -> bool {
    read(store_file).is_some()
}

/// What a published token says: the publication's tag and the snapshot file's seal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Token {
    pub tag: String,
    pub seal: String,
    /// The seal of the claims proof published with the snapshot
    /// ([`super::claims_proof`]), when one was.
    pub proof: Option<String>,
}

/// A file's seal: device, inode, change time and size, which a rewrite, a rename over it or
/// a copy changes and no process can set back.
pub fn seal_of(meta: &std::fs::Metadata) -> String {
    format!(
        "{}.{}.{}.{}.{}",
        meta.dev(),
        meta.ino(),
        meta.ctime(),
        meta.ctime_nsec(),
        meta.len()
    )
}

/// Publishes `tag` with the seal of `snapshot_file` (and of `proof_file`, the claims proof,
/// when one was written) as they are now, atomically (a temporary file renamed over the
/// token).
pub(crate) fn publish(
    store_file: &Path,
    tag: &str,
    snapshot_file: &Path,
    proof_file: Option<&Path>,
) -> Result<()> {
    let path = path_for(store_file);
    let seal_at = |file: &Path| {
        std::fs::symlink_metadata(file)
            .map(|m| seal_of(&m))
            .map_err(|e| {
                AccError::new(
                    ErrorCode::StoreIo,
                    format!("{}: cannot be read ({e})", file.display()),
                )
            })
    };
    let mut line = format!("{tag}\t{}", seal_at(snapshot_file)?);
    if let Some(proof) = proof_file {
        line.push('\t');
        line.push_str(&seal_at(proof)?);
    }
    line.push('\n');
    let written = crate::atomic_write::AtomicWrite::new().write(&path, line.as_bytes());
    written.map_err(|e| {
        AccError::new(
            ErrorCode::StoreIo,
            format!("{}: cannot be written ({e})", path.display()),
        )
    })
}

/// The published token, when there is one and it names the store file as it is now.
pub fn read(store_file: &Path) -> Option<Token> {
    use std::os::unix::fs::OpenOptionsExt;
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(path_for(store_file))
        .ok()?;
    // Room for a whole token at once: grown from empty, the read took four calls.
    let mut text = String::with_capacity(256);
    file.take(MAX_TOKEN_BYTES).read_to_string(&mut text).ok()?;
    let line = text.strip_suffix('\n')?;
    let (tag, seals) = line.split_once('\t')?;
    let (seal, proof) = match seals.split_once('\t') {
        Some((seal, proof)) => (seal, Some(proof)),
        None => (seals, None),
    };
    if tag.is_empty()
        || seal.is_empty()
        || line.contains('\n')
        || proof.is_some_and(|p| p.is_empty() || p.contains('\t'))
    {
        return None;
    }
    tag.starts_with(&identity(store_file)?).then(|| Token {
        tag: tag.to_string(),
        seal: seal.to_string(),
        proof: proof.map(str::to_string),
    })
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
        let snapshot = dir.path().join("snap");
        std::fs::write(&snapshot, b"s").unwrap();
        let tag = new_tag(&store, 7, 3).unwrap();
        publish(&store, &tag, &snapshot, None).unwrap();
        let token = read(&store).unwrap();
        assert_eq!(token.tag, tag);
        assert_eq!(schema_of(&token.tag), Some(3));
        assert_eq!(
            token.seal,
            seal_of(&std::fs::symlink_metadata(&snapshot).unwrap())
        );
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
        publish(&store, &new_tag(&store, 1, 3).unwrap(), &store, None).unwrap();
        // The store moved aside and another file took its name.
        std::fs::rename(&store, dir.path().join("old.db")).unwrap();
        std::fs::write(&store, b"y").unwrap();
        assert_eq!(read(&store), None);
    }

    #[test]
    fn a_snapshot_rewritten_or_copied_back_loses_its_seal() {
        let dir = tempfile::tempdir().unwrap();
        let snapshot = dir.path().join("snap");
        std::fs::write(&snapshot, b"claims").unwrap();
        let sealed = seal_of(&std::fs::symlink_metadata(&snapshot).unwrap());
        let saved = dir.path().join("saved");
        std::fs::copy(&snapshot, &saved).unwrap();
        // Past the file system's timestamp granularity (a clock tick where it is coarse).
        std::thread::sleep(std::time::Duration::from_millis(20));
        // Edited in place, to the same length.
        std::fs::write(&snapshot, b"CLAIMS").unwrap();
        let now = || seal_of(&std::fs::symlink_metadata(&snapshot).unwrap());
        assert_ne!(now(), sealed);
        // Copied back from the saved bytes: a new change time.
        std::fs::copy(&saved, &snapshot).unwrap();
        assert_ne!(now(), sealed);
        std::fs::rename(&saved, &snapshot).unwrap();
        assert_ne!(now(), sealed);
    }

    #[test]
    fn tags_differ_between_publications() {
        let dir = tempfile::tempdir().unwrap();
        let store = dir.path().join("acc.db");
        std::fs::write(&store, b"x").unwrap();
        let a = new_tag(&store, 1, 3).unwrap();
        std::thread::sleep(std::time::Duration::from_millis(1));
        let b = new_tag(&store, 1, 3).unwrap();
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
            format!("{id}1.2.3\n"),
            format!("{id}1\t\n"),
            format!("{id}1\t2\t3\t4\n"),
            format!("{id}1\t2\t\n"),
            format!("{}\n", "1".repeat(300)),
        ] {
            std::fs::write(path_for(&store), bad.as_bytes()).unwrap();
            assert_eq!(read(&store), None, "{bad:?}");
        }
    }
}
