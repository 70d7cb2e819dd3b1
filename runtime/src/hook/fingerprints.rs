//! Writes that got through anyway: a shell call the guard allowed (no parser knows what
//! `make` or a script writes), made while peers hold guarded claims, is bracketed by cheap
//! fingerprints of the claimed files (size, modification time, inode; never contents).
//! `beforeTool` takes them and keeps them beside the conversation's pin; the client's
//! post-tool hook takes them again and names every claimed file that changed, appeared or
//! went away while the call ran. Only claimed paths are looked at, within a budget of
//! entries and time; a walk cut short says so.

use crate::core::claims::ClaimKey;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::io::Read;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// The fingerprint format's version; another version is ignored.
pub const SCHEMA: u32 = 1;
/// At most this many files are fingerprinted per call: a claim on a huge tree is watched
/// only in part, and the record says so.
pub const MAX_ENTRIES: usize = 20_000;
/// A record larger than this was not written by acc.
const MAX_RECORD_BYTES: u64 = 16 * 1024 * 1024;

/// `<data home>/acc/tool-calls`.
pub fn dir(data_home: &Path) -> PathBuf {
    data_home.join("acc").join("tool-calls")
}

/// The record of the conversation with `binding_key`'s call in progress.
pub fn record_path(data_home: &Path, binding_key: &str) -> PathBuf {
    dir(data_home).join(format!("{binding_key}.json"))
}

/// One peer claim's path, watched in every worktree root.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Watched {
    /// The claim, looked up again by id when something under it changed.
    pub claim_id: String,
    /// The claim's path relative to a worktree root.
    pub rel: PathBuf,
    /// A tree claim (`<rel>/**`): every file under `rel`.
    pub tree: bool,
}

/// What identifies a file's content cheaply.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stamp {
    pub len: u64,
    pub mtime_ns: i64,
    pub ino: u64,
    pub ctime_ns: i64,
}

impl Stamp {
    fn of(meta: &std::fs::Metadata) -> Stamp {
        Stamp {
            len: meta.len(),
            mtime_ns: meta.mtime() * 1_000_000_000 + meta.mtime_nsec(),
            ino: meta.ino(),
            ctime_ns: meta.ctime() * 1_000_000_000 + meta.ctime_nsec(),
        }
    }
}

/// The claimed files as one moment found them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Prints {
    pub schema: u32,
    /// The acc session whose call this is.
    #[serde(default)]
    pub session_id: Option<String>,
    /// The worktree roots (real paths), the session's own first.
    pub roots: Vec<PathBuf>,
    pub watched: Vec<Watched>,
    /// Absolute path -> stamp, for every file found under a watched claim.
    pub files: BTreeMap<PathBuf, Stamp>,
    /// False when the walk stopped at [`MAX_ENTRIES`] or at its deadline.
    pub complete: bool,
}

/// The claims to watch: the root-relative path of each of `claims`.
pub fn watched(claims: &[ClaimKey]) -> Vec<Watched> {
    claims
        .iter()
        .filter_map(|claim| {
            let pattern = claim.resource.relative_pattern()?;
            Some(Watched {
                claim_id: claim.claim_id.as_str().to_string(),
                rel: pattern.path,
                tree: pattern.tree,
            })
        })
        .collect()
}

/// Fingerprints every file under `watched` in every one of `roots`, until `until` or
/// [`MAX_ENTRIES`].
pub fn take(roots: Vec<PathBuf>, watched: Vec<Watched>, until: Instant) -> Prints {
    let mut files = BTreeMap::new();
    let mut complete = true;
    'claims: for root in &roots {
        for w in &watched {
            let base = root.join(&w.rel);
            if !w.tree {
                if let Ok(meta) = std::fs::symlink_metadata(&base) {
                    files.insert(base, Stamp::of(&meta));
                }
                continue;
            }
            // A claimed tree that does not exist yet costs one failed stat, not a walk.
            if std::fs::symlink_metadata(&base).is_err() {
                continue;
            }
            for (n, entry) in walkdir::WalkDir::new(&base)
                .follow_links(false)
                .into_iter()
                .enumerate()
            {
                if files.len() >= MAX_ENTRIES || (n % 256 == 255 && Instant::now() >= until) {
                    complete = false;
                    break 'claims;
                }
                let Ok(entry) = entry else { continue };
                if entry.file_type().is_dir() {
                    continue;
                }
                if let Ok(meta) = entry.metadata() {
                    files.insert(entry.into_path(), Stamp::of(&meta));
                }
            }
        }
    }
    Prints {
        schema: SCHEMA,
        session_id: None,
        roots,
        watched,
        files,
        complete,
    }
}

/// A claimed file that changed while the call ran.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    /// Index into the watched claims of the claim it is under.
    pub watched: usize,
    /// The worktree root it lies in.
    pub root: PathBuf,
    /// The file's path relative to its worktree root.
    pub rel: PathBuf,
    pub how: How,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum How {
    Modified,
    Created,
    Removed,
}

impl How {
    pub fn as_str(self) -> &'static str {
        match self {
            How::Modified => "modified",
            How::Created => "created",
            How::Removed => "removed",
        }
    }
}

/// What differs between `before` and `after` (taken over the same claims). A walk cut short
/// compares only the files both walks saw, so a cut never reads as a removal.
pub fn changes(before: &Prints, after: &Prints) -> Vec<Change> {
    let partial = !before.complete || !after.complete;
    let mut out = Vec::new();
    let paths: std::collections::BTreeSet<&PathBuf> =
        before.files.keys().chain(after.files.keys()).collect();
    for path in paths {
        let how = match (before.files.get(path), after.files.get(path)) {
            (Some(a), Some(b)) if a != b => How::Modified,
            (Some(_), None) if !partial => How::Removed,
            (None, Some(_)) if !partial => How::Created,
            _ => continue,
        };
        // The deepest root holding it (a worktree may lie inside another), then the claim.
        let Some(root) = before
            .roots
            .iter()
            .filter(|r| path.starts_with(r))
            .max_by_key(|r| r.as_os_str().len())
        else {
            continue;
        };
        let Ok(rel) = path.strip_prefix(root) else {
            continue;
        };
        let Some(i) = before.watched.iter().position(|w| rel.starts_with(&w.rel)) else {
            continue;
        };
        out.push(Change {
            watched: i,
            root: root.clone(),
            rel: rel.to_path_buf(),
            how,
        });
    }
    out
}

/// Keeps `prints` for the post-tool hook, atomically (a reader never sees half a record).
pub fn save(data_home: &Path, binding_key: &str, prints: &Prints) -> std::io::Result<()> {
    let dir = dir(data_home);
    std::fs::create_dir_all(&dir)?;
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    let temp = dir.join(format!(".{binding_key}.{}.{nanos}.tmp", std::process::id()));
    let bytes = serde_json::to_vec(prints).map_err(std::io::Error::other)?;
    std::fs::write(&temp, bytes)?;
    std::fs::rename(&temp, record_path(data_home, binding_key)).inspect_err(|_| {
        let _ = std::fs::remove_file(&temp);
    })
}

/// Takes the record of the call in progress, removing it: `None` when there is none (no
/// guarded peer claim was at stake, or another hook took it), or it is not acc's.
pub fn take_saved(data_home: &Path, binding_key: &str) -> Option<Prints> {
    let path = record_path(data_home, binding_key);
    let file = std::fs::File::open(&path).ok()?;
    let _ = std::fs::remove_file(&path);
    let mut bytes = Vec::new();
    file.take(MAX_RECORD_BYTES).read_to_end(&mut bytes).ok()?;
    let prints: Prints = serde_json::from_slice(&bytes).ok()?;
    (prints.schema == SCHEMA).then_some(prints)
}

/// Whether a call of this conversation left a record to compare against.
pub fn pending(data_home: &Path, binding_key: &str) -> bool {
    record_path(data_home, binding_key).is_file()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn watch(rel: &str, tree: bool) -> Watched {
        Watched {
            claim_id: "claim_A".into(),
            rel: rel.into(),
            tree,
        }
    }

    fn later() -> Instant {
        Instant::now() + Duration::from_secs(5)
    }

    #[test]
    fn a_write_a_new_file_and_a_removal_under_a_claim_are_changes() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().canonicalize().unwrap();
        std::fs::create_dir_all(root.join("src/deep")).unwrap();
        std::fs::write(root.join("src/a.rs"), "a").unwrap();
        std::fs::write(root.join("src/deep/b.rs"), "b").unwrap();
        std::fs::write(root.join("README.md"), "r").unwrap();
        std::fs::write(root.join("notes.txt"), "n").unwrap();
        let w = vec![
            watch("src", true),
            watch("notes.txt", false),
            watch("new.txt", false),
        ];
        let roots = vec![root.clone()];
        let before = take(roots.clone(), w.clone(), later());
        assert!(before.complete);
        assert_eq!(before.files.len(), 3);
        std::fs::write(root.join("src/a.rs"), "changed").unwrap();
        std::fs::remove_file(root.join("src/deep/b.rs")).unwrap();
        std::fs::write(root.join("src/c.rs"), "c").unwrap();
        std::fs::write(root.join("new.txt"), "x").unwrap();
        // Unclaimed: never looked at.
        std::fs::write(root.join("README.md"), "changed too").unwrap();
        let after = take(roots, w, later());
        let found: Vec<(String, &str, usize)> = changes(&before, &after)
            .iter()
            .map(|c| (c.rel.display().to_string(), c.how.as_str(), c.watched))
            .collect();
        assert_eq!(
            found,
            [
                ("new.txt".to_string(), "created", 2),
                ("src/a.rs".to_string(), "modified", 0),
                ("src/c.rs".to_string(), "created", 0),
                ("src/deep/b.rs".to_string(), "removed", 0),
            ]
        );
    }

    #[test]
    fn the_same_bytes_rewritten_in_place_still_count_and_nothing_changed_is_silent() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().canonicalize().unwrap();
        std::fs::create_dir_all(root.join("src")).unwrap();
        std::fs::write(root.join("src/a.rs"), "a").unwrap();
        let w = vec![watch("src", true)];
        let roots = vec![root.clone()];
        let before = take(roots.clone(), w.clone(), later());
        assert!(changes(&before, &take(roots.clone(), w.clone(), later())).is_empty());
        // Same length, same bytes: the inode's change time still moves.
        std::thread::sleep(Duration::from_millis(20));
        std::fs::write(root.join("src/a.rs"), "a").unwrap();
        let after = take(roots, w, later());
        assert_eq!(changes(&before, &after).len(), 1);
    }

    #[test]
    fn a_walk_cut_short_never_reads_as_removals() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().canonicalize().unwrap();
        std::fs::create_dir_all(root.join("src")).unwrap();
        std::fs::write(root.join("src/a.rs"), "a").unwrap();
        let w = vec![watch("src", true)];
        let before = take(vec![root.clone()], w.clone(), later());
        let mut after = take(vec![root], w, later());
        after.files.clear();
        after.complete = false;
        assert!(changes(&before, &after).is_empty());
    }

    #[test]
    fn a_record_is_taken_once_and_a_foreign_one_is_ignored() {
        let tmp = tempfile::tempdir().unwrap();
        let home = tmp.path();
        let prints = take(Vec::new(), Vec::new(), later());
        save(home, "k1", &prints).unwrap();
        assert!(pending(home, "k1"));
        assert_eq!(take_saved(home, "k1"), Some(prints));
        assert!(!pending(home, "k1"));
        assert_eq!(take_saved(home, "k1"), None);
        std::fs::write(record_path(home, "k2"), "{\"schema\":99}").unwrap();
        assert_eq!(take_saved(home, "k2"), None);
    }
}
