//! The hook's layout of peers' claims ([`super::layout`]), remembered between calls: listing
//! the claimed directories is most of what a rewritten call costs the hook (at 200 claimed
//! modules in one `src/`, one `getdents` pass over 200 entries, against one `stat` here).
//!
//! An entry is kept in `<store dir>/guard-layout` (acc's per-workspace state, never the
//! repository), found by a digest of what the layout is computed from (the worktree roots
//! and the claimed paths, so a claim taken or released since is another entry), and used
//! only while every directory the layout listed is the same directory, unchanged: device,
//! inode, modification and change time, or still absent (a created, removed or renamed
//! entry changes its directory's times). A directory changed within [`RACY`] of the
//! listing is not remembered: a change in the same clock tick could keep its times.
//!
//! Any process of the user can write that file, so an entry is never trusted for what it
//! says: before it is used, its mounts are checked against the claims themselves
//! ([`no_wider`]): every claimed path is under a read-only mount (or under a path the
//! entry proved absent or not a directory), nothing under a claimed path is re-opened, and
//! what is re-opened is an entry of a directory mounted read-only before it. An entry that
//! cannot be read, does not match, or fails the check is laid out again from the listings.

use super::layout::{self, Kind, Mount, Unlisted};
use serde::{Deserialize, Serialize};
use std::collections::{HashMap, HashSet};
use std::ffi::OsString;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::MetadataExt;
use std::path::{Component, Path, PathBuf};
use std::time::{Duration, SystemTime};

/// The cache's file name, in the workspace's store directory.
pub const CACHE_FILE: &str = "guard-layout";

/// Entries kept (one per set of claims seen recently: each session sees its peers' claims,
/// not its own).
const ENTRIES: usize = 8;

/// A larger file was not written by acc.
const MAX_CACHE_BYTES: u64 = 4 << 20;

/// A directory whose times are this close to the listing is not remembered: file times
/// come from a clock that ticks every few milliseconds, so a change right after the
/// listing could leave them as they were.
pub const RACY: Duration = Duration::from_millis(100);

/// What a directory was when it was listed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Identity {
    pub dir: bool,
    pub dev: u64,
    pub ino: u64,
    pub mtime: (i64, i64),
    pub ctime: (i64, i64),
}

impl Identity {
    fn of(meta: &std::fs::Metadata) -> Identity {
        Identity {
            dir: meta.is_dir(),
            dev: meta.dev(),
            ino: meta.ino(),
            mtime: (meta.mtime(), meta.mtime_nsec()),
            ctime: (meta.ctime(), meta.ctime_nsec()),
        }
    }

    /// `path` as it is now (following links, as the listing does); `None` when absent.
    pub fn now(path: &Path) -> std::io::Result<Option<Identity>> {
        match std::fs::metadata(path) {
            Ok(meta) => Ok(Some(Identity::of(&meta))),
            Err(e)
                if e.kind() == std::io::ErrorKind::NotFound
                    || e.raw_os_error() == Some(libc::ENOTDIR) =>
            {
                Ok(None)
            }
            Err(e) => Err(e),
        }
    }

    fn changed_since(&self, at: SystemTime) -> bool {
        let t = |(s, ns): (i64, i64)| {
            SystemTime::UNIX_EPOCH + Duration::new(s.max(0) as u64, ns.clamp(0, 999_999_999) as u32)
        };
        t(self.mtime) >= at || t(self.ctime) >= at
    }
}

/// A path the layout looked at, and what it was.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Witness {
    pub path: String,
    pub id: Option<Identity>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CachedMount {
    pub path: String,
    pub rw: bool,
}

/// One remembered layout.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Entry {
    pub key: String,
    pub witnesses: Vec<Witness>,
    pub mounts: Vec<CachedMount>,
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct CacheFile {
    version: u32,
    entries: Vec<Entry>,
}

const VERSION: u32 = 1;

/// How a layout was found (for tests and measurements).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// A remembered entry, checked.
    Cached,
    /// Listed again (no entry, a changed directory, or an entry that failed the check).
    Listed,
}

/// The digest an entry is found by: the roots in order and the claimed paths, sorted.
pub fn key(roots: &[&Path], claimed: &[&Path]) -> String {
    use std::hash::Hasher;
    // Bytes, not `Path`s: comparing and hashing paths parses their components, which at
    // thousands of claims costs more than the listing saved. Two SipHash keys give 128
    // bits; an entry found by a collision is still checked against the claims.
    let mut sorted: Vec<&[u8]> = claimed.iter().map(|p| p.as_os_str().as_bytes()).collect();
    sorted.sort_unstable();
    sorted.dedup();
    let digest = |seed: u8| {
        let mut h = std::hash::DefaultHasher::new();
        h.write_u32(VERSION);
        h.write_u8(seed);
        for (tag, paths) in [
            (
                b'r',
                roots.iter().map(|r| r.as_os_str().as_bytes()).collect(),
            ),
            (b'c', sorted.clone()),
        ] {
            let paths: Vec<&[u8]> = paths;
            for bytes in paths {
                h.write_u8(tag);
                h.write_usize(bytes.len());
                h.write(bytes);
            }
        }
        h.finish()
    };
    format!("{:016x}{:016x}", digest(1), digest(2))
}

/// The layout of `claimed` (relative paths) in each of `roots` (outer worktrees first), as
/// [`layout::plan`] lays it out for each root in turn, from the entry in `cache_file` when
/// one is still good, else listed again (and remembered).
pub fn plan(
    cache_file: &Path,
    roots: &[&Path],
    claimed: &[&Path],
) -> Result<(Vec<Mount>, Source), Unlisted> {
    let key = key(roots, claimed);
    let mut file = read(cache_file);
    if let Some(entry) = file.entries.iter().find(|e| e.key == key)
        && let Some(mounts) = usable(entry, roots, claimed)
    {
        return Ok((mounts, Source::Cached));
    }
    let started = SystemTime::now();
    let mut witnesses = Vec::new();
    let mut racy = false;
    let mut list = |dir: &Path| -> std::io::Result<Option<Vec<(OsString, Kind)>>> {
        // Before the listing: a change during it shows as a change after it.
        let id = Identity::now(dir)?;
        racy |= id.is_some_and(|id| id.changed_since(started - RACY));
        witnesses.push((dir.to_path_buf(), id));
        layout::list_dir(dir)
    };
    let mut mounts = Vec::new();
    for root in roots {
        mounts.extend(layout::plan(root, claimed.iter().copied(), &mut list)?);
    }
    if !racy && let Some(entry) = entry_of(key, &witnesses, &mounts) {
        // Best effort: an entry not written is listed again next time.
        file.version = VERSION;
        file.entries.retain(|e| e.key != entry.key);
        file.entries.insert(0, entry);
        file.entries.truncate(ENTRIES);
        if let Ok(bytes) = serde_json::to_vec(&file) {
            let _ = crate::atomic_write::AtomicWrite::new().write(cache_file, &bytes);
        }
    }
    Ok((mounts, Source::Listed))
}

fn entry_of(
    key: String,
    witnesses: &[(PathBuf, Option<Identity>)],
    mounts: &[Mount],
) -> Option<Entry> {
    Some(Entry {
        key,
        witnesses: witnesses
            .iter()
            .map(|(p, id)| {
                Some(Witness {
                    path: p.to_str()?.to_owned(),
                    id: *id,
                })
            })
            .collect::<Option<_>>()?,
        mounts: mounts
            .iter()
            .map(|m| {
                Some(CachedMount {
                    path: m.path.to_str()?.to_owned(),
                    rw: m.writable,
                })
            })
            .collect::<Option<_>>()?,
    })
}

/// The cache file's entries; none when it is missing, too large or not acc's.
fn read(cache_file: &Path) -> CacheFile {
    use std::io::Read;
    use std::os::unix::fs::OpenOptionsExt;
    let read = || -> Option<CacheFile> {
        let file = std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
            .open(cache_file)
            .ok()?;
        let meta = file.metadata().ok()?;
        if !meta.is_file() || meta.len() > MAX_CACHE_BYTES {
            return None;
        }
        let mut bytes = Vec::with_capacity(meta.len() as usize);
        file.take(MAX_CACHE_BYTES).read_to_end(&mut bytes).ok()?;
        let parsed: CacheFile = serde_json::from_slice(&bytes).ok()?;
        (parsed.version == VERSION).then_some(parsed)
    };
    read().unwrap_or_default()
}

/// The entry's mounts when every directory it listed is unchanged and they keep every claim
/// read-only ([`no_wider`]).
fn usable(entry: &Entry, roots: &[&Path], claimed: &[&Path]) -> Option<Vec<Mount>> {
    for w in &entry.witnesses {
        if Identity::now(Path::new(&w.path)).ok()? != w.id {
            return None;
        }
    }
    let mounts: Vec<Mount> = entry
        .mounts
        .iter()
        .map(|m| Mount {
            path: PathBuf::from(&m.path),
            writable: m.rw,
        })
        .collect();
    // A file, or a worktree that is not there: nothing to mount under it (as the layout
    // decides). A directory inside a root proved absent is not such a proof: creating it
    // would create the claim.
    let absent: HashSet<&Path> = entry
        .witnesses
        .iter()
        .filter(|w| match w.id {
            Some(id) => !id.dir,
            None => roots.contains(&Path::new(&w.path)),
        })
        .map(|w| Path::new(&w.path))
        .collect();
    no_wider(roots, claimed, &mounts, &absent).then_some(mounts)
}

/// Whether `mounts`, made in order, keep every claimed path read-only in every root, from
/// the paths alone (no file is looked at): a mount holds what is under it down to the next
/// mount, and of two on one path the later holds.
///
/// - Every path is absolute and plain (no `.` or `..`).
/// - Every claimed path is held by a read-only mount, or lies under a path in
///   `not_dirs` (proved absent, or not a directory, where nothing can be created).
/// - No writable mount is on or under a claimed path.
/// - A writable mount re-opens an entry of a directory mounted read-only before it.
pub fn no_wider(
    roots: &[&Path],
    claimed: &[&Path],
    mounts: &[Mount],
    not_dirs: &HashSet<&Path>,
) -> bool {
    let plain = |p: &Path| {
        let mut c = p.components();
        c.next() == Some(Component::RootDir) && c.all(|c| matches!(c, Component::Normal(_)))
    };
    if !mounts.iter().all(|m| plain(&m.path)) || !roots.iter().all(|r| plain(r)) {
        return false;
    }
    // Compared as bytes: every path is plain, so a `/` splits it into its components.
    fn bytes(p: &Path) -> &[u8] {
        p.as_os_str().as_bytes()
    }
    let mut last: HashMap<&[u8], bool> = HashMap::with_capacity(mounts.len());
    for m in mounts {
        last.insert(bytes(&m.path), m.writable);
    }
    let not_dirs: HashSet<&[u8]> = not_dirs.iter().map(|p| bytes(p)).collect();
    // Only a writable mount can fall under a claim.
    let reopens = mounts.iter().any(|m| m.writable);
    let mut held: HashSet<Vec<u8>> = HashSet::new();
    let mut full = Vec::new();
    for root in roots {
        let root = bytes(root).strip_suffix(b"/").unwrap_or(bytes(root));
        for path in claimed {
            full.clear();
            full.extend_from_slice(root);
            let rel = bytes(path);
            // Most claims are plain already (`src/module_001`): no component parsing.
            if rel
                .split(|&b| b == b'/')
                .all(|c| !matches!(c, b"" | b"." | b".."))
            {
                full.push(b'/');
                full.extend_from_slice(rel);
            } else {
                for c in path.components() {
                    if let Component::Normal(name) = c {
                        full.push(b'/');
                        full.extend_from_slice(name.as_bytes());
                    }
                }
            }
            // Its own path and each directory above it, up to the root (`/` itself for
            // the root `/`): the nearest mount holds it.
            let mut holder = None;
            let mut proved_not_dir = false;
            for end in ancestors(&full, root.len()) {
                let a = &full[..end.max(1)];
                holder = last.get(a).copied();
                if holder.is_some() {
                    break;
                }
            }
            if holder != Some(false) && !not_dirs.is_empty() {
                proved_not_dir =
                    ancestors(&full, root.len()).any(|end| not_dirs.contains(&full[..end.max(1)]));
            }
            if holder != Some(false) && !proved_not_dir {
                return false;
            }
            if reopens {
                held.insert(full.clone());
            }
        }
    }
    for (i, m) in mounts.iter().enumerate() {
        if !m.writable {
            continue;
        }
        let path = bytes(&m.path);
        if ancestors(path, 0).any(|end| held.contains(&path[..end.max(1)])) {
            return false;
        }
        let reopened = m
            .path
            .parent()
            .and_then(|dir| mounts[..i].iter().rposition(|d| d.path == dir))
            .is_some_and(|j| !mounts[j].writable);
        if !reopened {
            return false;
        }
    }
    true
}

/// The lengths of `path` and of each prefix of it ending before a `/`, longest first, down
/// to `floor` bytes (the root's own length): `/a/b/c` with floor 2 gives 6, 4, 2.
fn ancestors(path: &[u8], floor: usize) -> impl Iterator<Item = usize> + '_ {
    std::iter::once(path.len())
        .chain(memchr::memrchr_iter(b'/', path).filter(move |&i| i >= floor))
        .filter(move |&end| end >= floor)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(path: &str, writable: bool) -> Mount {
        Mount {
            path: path.into(),
            writable,
        }
    }

    fn check(claimed: &[&str], mounts: &[Mount], not_dirs: &[&str]) -> bool {
        let claimed: Vec<&Path> = claimed.iter().map(Path::new).collect();
        let not_dirs: HashSet<&Path> = not_dirs.iter().map(Path::new).collect();
        no_wider(&[Path::new("/ws")], &claimed, mounts, &not_dirs)
    }

    #[test]
    fn a_layout_that_holds_every_claim_passes() {
        assert!(check(&["src/a", "src/b"], &[m("/ws/src", false)], &[]));
        assert!(check(
            &["src/a"],
            &[m("/ws/src", false), m("/ws/src/c", true)],
            &[]
        ));
        assert!(check(
            &["src/a", "docs"],
            &[m("/ws/docs", false), m("/ws/src/a", false)],
            &[]
        ));
        // A claim under a file, or in a worktree that is not there: nothing to mount.
        assert!(check(&["README.md/x"], &[], &["/ws/README.md"]));
    }

    #[test]
    fn a_layout_that_drops_or_reopens_a_claim_fails() {
        // Dropped.
        assert!(!check(&["src/a", "src/b"], &[m("/ws/src/a", false)], &[]));
        // Re-opened.
        assert!(!check(
            &["src/a"],
            &[m("/ws/src", false), m("/ws/src/a", true)],
            &[]
        ));
        // Something under a claimed tree re-opened.
        assert!(!check(
            &["src"],
            &[m("/ws/src", false), m("/ws/src/x", true)],
            &[]
        ));
        // A writable mount over the read-only one, on the same path.
        assert!(!check(
            &["src"],
            &[m("/ws/src", false), m("/ws/src", true)],
            &[]
        ));
        // A writable mount of something not re-opened under a read-only directory.
        assert!(!check(
            &["src/a"],
            &[m("/ws/src/a", false), m("/ws/docs", true)],
            &[]
        ));
        // `..` could name a claim another way.
        assert!(!check(
            &["src/a"],
            &[m("/ws/src", false), m("/ws/src/b/../a", true)],
            &[]
        ));
        // A "not a directory" proof outside the root proves nothing.
        assert!(!check(&["src/a"], &[], &["/"]));
    }

    #[test]
    fn a_layout_is_listed_again_when_a_listed_directory_changes() {
        let dir = tempfile::tempdir().unwrap();
        let ws = dir.path().join("ws");
        for i in 0..5 {
            std::fs::create_dir_all(ws.join(format!("src/m{i}"))).unwrap();
        }
        std::fs::write(ws.join("src/free.rs"), "").unwrap();
        let cache = dir.path().join(CACHE_FILE);
        let claimed: Vec<PathBuf> = (0..5).map(|i| PathBuf::from(format!("src/m{i}"))).collect();
        let claimed: Vec<&Path> = claimed.iter().map(PathBuf::as_path).collect();
        let roots = [ws.as_path()];
        let fresh = || plan(&cache, &roots, &claimed).unwrap();
        // Listed within a clock tick of the directories' creation: not remembered.
        assert_eq!(fresh().1, Source::Listed);
        assert!(!cache.exists());
        std::thread::sleep(RACY + Duration::from_millis(50));
        let (mounts, source) = fresh();
        assert_eq!(source, Source::Listed);
        assert_eq!(fresh(), (mounts.clone(), Source::Cached));
        // Another set of claims is another entry.
        assert_eq!(
            plan(&cache, &roots, &claimed[..4]).unwrap().1,
            Source::Listed
        );
        assert_eq!(fresh(), (mounts.clone(), Source::Cached));
        // An entry created in a listed directory.
        std::fs::write(ws.join("src/new.rs"), "").unwrap();
        let (again, source) = fresh();
        assert_eq!(source, Source::Listed);
        // Two unclaimed entries beside five claimed: each claimed one mounted alone now.
        assert_ne!(again, mounts);
        assert!(again.iter().all(|m| !m.writable));
        // A file that is not a cache, or not acc's: listed again.
        std::thread::sleep(RACY + Duration::from_millis(50));
        assert_eq!(fresh().1, Source::Listed);
        assert_eq!(fresh().1, Source::Cached);
        std::fs::write(&cache, b"{not json").unwrap();
        assert_eq!(fresh().1, Source::Listed);
    }
}
