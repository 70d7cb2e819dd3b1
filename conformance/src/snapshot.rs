//! A byte-level picture of a directory tree, to tell whether something left it exactly as
//! it was: every directory, file (sha256 of its bytes and its permission bits) and symlink
//! (its target), by relative path.

use std::collections::BTreeMap;
use std::fs;
use std::io;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use acc_sdk::certification::digest::sha256_hex;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Entry {
    Dir { mode: u32 },
    File { sha256: String, mode: u32 },
    Symlink { target: PathBuf },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum ChangeKind {
    Added,
    Removed,
    Modified,
}

impl ChangeKind {
    pub fn as_str(self) -> &'static str {
        match self {
            ChangeKind::Added => "added",
            ChangeKind::Removed => "removed",
            ChangeKind::Modified => "modified",
        }
    }
}

/// One path that differs between two snapshots (absolute).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct TreeChange {
    pub path: PathBuf,
    pub kind: ChangeKind,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TreeSnapshot {
    root: PathBuf,
    entries: BTreeMap<PathBuf, Entry>,
}

impl TreeSnapshot {
    /// Everything under `root` (not `root` itself). A missing root is an empty tree.
    pub fn take(root: &Path) -> io::Result<TreeSnapshot> {
        let mut entries = BTreeMap::new();
        if fs::symlink_metadata(root).is_ok() {
            for entry in walkdir::WalkDir::new(root).min_depth(1).sort_by_file_name() {
                let entry = entry.map_err(io::Error::other)?;
                let meta = entry.path().symlink_metadata()?;
                let rel = entry
                    .path()
                    .strip_prefix(root)
                    .map_err(io::Error::other)?
                    .to_path_buf();
                let mode = meta.permissions().mode() & 0o7777;
                let value = if meta.file_type().is_symlink() {
                    Entry::Symlink {
                        target: fs::read_link(entry.path())?,
                    }
                } else if meta.is_dir() {
                    Entry::Dir { mode }
                } else {
                    Entry::File {
                        sha256: sha256_hex(&fs::read(entry.path())?),
                        mode,
                    }
                };
                entries.insert(rel, value);
            }
        }
        Ok(TreeSnapshot {
            root: root.to_path_buf(),
            entries,
        })
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// What differs in `after`, sorted by path.
    pub fn changes(&self, after: &TreeSnapshot) -> Vec<TreeChange> {
        let mut out = Vec::new();
        for (rel, entry) in &self.entries {
            match after.entries.get(rel) {
                None => out.push(self.change(rel, ChangeKind::Removed)),
                Some(other) if other != entry => out.push(self.change(rel, ChangeKind::Modified)),
                Some(_) => {}
            }
        }
        for rel in after.entries.keys() {
            if !self.entries.contains_key(rel) {
                out.push(self.change(rel, ChangeKind::Added));
            }
        }
        out.sort();
        out
    }

    fn change(&self, rel: &Path, kind: ChangeKind) -> TreeChange {
        TreeChange {
            path: self.root.join(rel),
            kind,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_of_change_is_seen() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        fs::create_dir_all(root.join("a")).unwrap();
        fs::write(root.join("a/f"), "1").unwrap();
        fs::write(root.join("g"), "x").unwrap();
        let before = TreeSnapshot::take(root).unwrap();
        assert_eq!(before.len(), 3);
        assert!(
            before
                .changes(&TreeSnapshot::take(root).unwrap())
                .is_empty()
        );

        fs::write(root.join("a/f"), "2").unwrap();
        fs::remove_file(root.join("g")).unwrap();
        fs::write(root.join("h"), "").unwrap();
        let after = TreeSnapshot::take(root).unwrap();
        let kinds: Vec<(String, ChangeKind)> = before
            .changes(&after)
            .into_iter()
            .map(|c| {
                let rel = c.path.strip_prefix(root).unwrap().display().to_string();
                (rel, c.kind)
            })
            .collect();
        assert_eq!(
            kinds,
            [
                ("a/f".to_owned(), ChangeKind::Modified),
                ("g".to_owned(), ChangeKind::Removed),
                ("h".to_owned(), ChangeKind::Added),
            ]
        );
    }

    #[test]
    fn permission_bits_count_and_a_missing_root_is_empty() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("f");
        fs::write(&file, "x").unwrap();
        let before = TreeSnapshot::take(dir.path()).unwrap();
        fs::set_permissions(&file, fs::Permissions::from_mode(0o700)).unwrap();
        let after = TreeSnapshot::take(dir.path()).unwrap();
        assert_eq!(before.changes(&after)[0].kind, ChangeKind::Modified);
        assert!(
            TreeSnapshot::take(&dir.path().join("none"))
                .unwrap()
                .is_empty()
        );
    }
}
