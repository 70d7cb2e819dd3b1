//! The sha256 an install record keeps per artifact: a file's is the hex digest of its
//! bytes; a directory tree's covers its files sorted by relative path, each contributing
//! `<relative path> NUL <hex digest> NUL` (a symlink contributes `-> <target>` as its
//! digest), so any added, removed, renamed or edited file changes it.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

/// Hex sha256 of `bytes`.
pub fn sha256_hex(bytes: &[u8]) -> String {
    let digest = Sha256::digest(bytes);
    let mut out = String::with_capacity(64);
    for byte in digest {
        out.push_str(&format!("{byte:02x}"));
    }
    out
}

/// The artifact's digest, or `None` when nothing is at `path`.
pub fn artifact_sha256(path: &Path) -> io::Result<Option<String>> {
    let meta = match fs::symlink_metadata(path) {
        Ok(meta) => meta,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e),
    };
    if meta.is_dir() {
        tree_sha256(path).map(Some)
    } else {
        // A symlinked config is judged by what it points to, the bytes the client reads.
        fs::read(path).map(|bytes| Some(sha256_hex(&bytes)))
    }
}

/// The digest of a directory tree.
pub fn tree_sha256(dir: &Path) -> io::Result<String> {
    let mut entries = Vec::new();
    collect(dir, PathBuf::new(), &mut entries)?;
    entries.sort();
    let mut hasher = Sha256::new();
    for (relative, digest) in entries {
        hasher.update(relative.as_bytes());
        hasher.update([0]);
        hasher.update(digest.as_bytes());
        hasher.update([0]);
    }
    Ok(hasher
        .finalize()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect())
}

fn collect(dir: &Path, prefix: PathBuf, out: &mut Vec<(String, String)>) -> io::Result<()> {
    for entry in fs::read_dir(dir)? {
        let entry = entry?;
        let relative = prefix.join(entry.file_name());
        let kind = entry.file_type()?;
        if kind.is_dir() {
            collect(&entry.path(), relative, out)?;
        } else {
            let digest = if kind.is_symlink() {
                format!("-> {}", fs::read_link(entry.path())?.display())
            } else {
                sha256_hex(&fs::read(entry.path())?)
            };
            out.push((relative.to_string_lossy().replace('\\', "/"), digest));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_hash_their_bytes() {
        assert_eq!(
            sha256_hex(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("f");
        assert_eq!(artifact_sha256(&file).unwrap(), None);
        fs::write(&file, "abc").unwrap();
        assert_eq!(artifact_sha256(&file).unwrap(), Some(sha256_hex(b"abc")));
    }

    #[test]
    fn trees_follow_the_documented_formula_and_notice_every_change() {
        let dir = tempfile::tempdir().unwrap();
        let tree = dir.path().join("acc");
        fs::create_dir_all(tree.join("sub")).unwrap();
        fs::write(tree.join("SKILL.md"), "x").unwrap();
        fs::write(tree.join("sub/a"), "y").unwrap();
        let expected = sha256_hex(
            format!(
                "SKILL.md\0{}\0sub/a\0{}\0",
                sha256_hex(b"x"),
                sha256_hex(b"y")
            )
            .as_bytes(),
        );
        let first = artifact_sha256(&tree).unwrap().unwrap();
        assert_eq!(first, expected);
        fs::write(tree.join("notes"), "").unwrap();
        let added = tree_sha256(&tree).unwrap();
        assert_ne!(added, first);
        fs::remove_file(tree.join("notes")).unwrap();
        assert_eq!(tree_sha256(&tree).unwrap(), first);
        fs::rename(tree.join("sub/a"), tree.join("sub/b")).unwrap();
        assert_ne!(tree_sha256(&tree).unwrap(), first);
    }
}
