//! Writes that got through anyway: a shell call the guard allowed (no parser knows what
//! `make` or a script writes), made while peers hold guarded claims, is bracketed by cheap
//! fingerprints of the claimed files (size, modification time, inode; never contents).
//! `beforeTool` takes them and keeps them beside the conversation's pin; the client's
//! post-tool hook takes them again and names every claimed file that changed, appeared or
//! went away while the call ran. Only claimed paths are looked at, within a budget of
//! entries and time; a walk cut short says so.

use crate::core::bindings::binding_key;
use crate::core::claims::ClaimKey;
use crate::core::resources::relative_pattern_of;
use crate::store::guard_snapshot::{ClaimLine, SnapshotText};
use acc_sdk::event::NormalizedEvent;
use serde::{Deserialize, Serialize};
use std::borrow::Cow;
use std::collections::BTreeMap;
use std::io::Read;
use std::os::fd::AsRawFd;
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

/// The record of a call in progress, named by its [`record_key`].
pub fn record_path(data_home: &Path, record_key: &str) -> PathBuf {
    dir(data_home).join(format!("{record_key}.json"))
}

/// Whose record a tool event's fingerprints are: its conversation's (`binding_key`), and
/// its call's where the client names calls, so that a client running calls side by side
/// (pre-tool hooks of two calls before the first one's post-tool hook) pairs each post-tool
/// hook with its own call's fingerprints instead of the latest call's.
pub fn record_key(event: &NormalizedEvent) -> String {
    let conversation = binding_key(&event.session_id);
    match event.tool.as_ref().and_then(|t| t.call_id.as_deref()) {
        Some(call) => format!("{conversation}.{}", binding_key(call)),
        None => conversation,
    }
}

/// The record keys of the conversation with `binding_key` whose post-tool hook has not
/// come yet.
pub fn pending_records(data_home: &Path, binding_key: &str) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(dir(data_home)) else {
        return Vec::new();
    };
    let calls = format!("{binding_key}.");
    entries
        .flatten()
        .filter_map(|entry| {
            let name = entry.file_name().to_string_lossy().into_owned();
            let key = name.strip_suffix(".json")?;
            (key == binding_key || key.starts_with(&calls)).then(|| key.to_string())
        })
        .collect()
}

/// Drops every record of the conversation with `binding_key` (its calls that never reached
/// their post-tool hook). Best effort.
pub fn forget_conversation(data_home: &Path, binding_key: &str) {
    for key in pending_records(data_home, binding_key) {
        let _ = std::fs::remove_file(record_path(data_home, &key));
    }
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

/// How `watched` was read from the guarded-claims snapshot, so that the record can carry
/// the snapshot's text (one copy) instead of serialising every watched claim, and the
/// post-tool hook can read the same list back from it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SnapshotWatch {
    pub participant: String,
    pub now_ms: i64,
}

/// The record's first line; the snapshot's text, when the claims came from it, follows.
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Header<'a> {
    schema: u32,
    #[serde(default)]
    session_id: Option<Cow<'a, str>>,
    roots: Cow<'a, [PathBuf]>,
    #[serde(default)]
    watched: Cow<'a, [Watched]>,
    files: Cow<'a, BTreeMap<PathBuf, Stamp>>,
    complete: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    from_snapshot: Option<SnapshotWatch>,
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

/// The claims to watch, read from the guarded-claims snapshot's text instead of the store:
/// the live claims of sessions other than `me`. `None` when the snapshot cannot say alone:
/// a line acc did not write, or a claim of another session acting as `my_participant`
/// (inherited when that session ended, a peer's while it lives: only the store knows).
pub fn watched_from_snapshot(
    snapshot: &SnapshotText<'_>,
    me: &str,
    my_participant: &str,
    now_ms: i64,
) -> Option<Vec<Watched>> {
    let mut out = Vec::new();
    for line in snapshot.claims() {
        let line = line?;
        if line.expires_at_ms <= now_ms || line.owner_session_id == me {
            continue;
        }
        if line.owner_participant_id == my_participant {
            return None;
        }
        out.extend(Watched::of_line(line));
    }
    Some(out)
}

impl Watched {
    /// What to watch of a peer's claim line: its path, when it names one in the root.
    pub fn of_line(line: ClaimLine<'_>) -> Option<Watched> {
        let pattern = relative_pattern_of(&line.resource)?;
        Some(Watched {
            claim_id: line.claim_id.into_owned(),
            rel: pattern.path,
            tree: pattern.tree,
        })
    }
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
/// With `snapshot` (the text `prints.watched` was read from, as `watch` says), the record
/// carries that text instead of the watched list.
pub fn save(
    data_home: &Path,
    binding_key: &str,
    prints: &Prints,
    snapshot: Option<(&str, SnapshotWatch)>,
) -> std::io::Result<()> {
    let dir = dir(data_home);
    std::fs::create_dir_all(&dir)?;
    let (text, from_snapshot) = match snapshot {
        Some((text, watch)) => (Some(text), Some(watch)),
        None => (None, None),
    };
    let header = Header {
        schema: prints.schema,
        session_id: prints.session_id.as_deref().map(Cow::Borrowed),
        roots: Cow::Borrowed(&prints.roots),
        watched: Cow::Borrowed(if text.is_some() { &[] } else { &prints.watched }),
        files: Cow::Borrowed(&prints.files),
        complete: prints.complete,
        from_snapshot,
    };
    let mut bytes = serde_json::to_vec(&header).map_err(std::io::Error::other)?;
    bytes.push(b'\n');
    if let Some(text) = text {
        bytes.extend_from_slice(text.as_bytes());
    }
    crate::atomic_write::AtomicWrite::new().write(&record_path(data_home, binding_key), &bytes)
}

/// A record in hand for its compare. It is held under an exclusive lock and stays on disk
/// until [`Taken::settle`], after the compare was recorded: a second taker (the turn's end
/// settling the calls whose post-tool hook has not finished) waits for the first and then
/// finds it settled, and a taker that dies before its compare is recorded (a client that
/// kills its fire-and-forget post-tool hook when the turn ends) releases the lock with it
/// and leaves the record to the next taker instead of losing the write.
#[derive(Debug)]
pub struct Taken {
    pub prints: Prints,
    /// Taken without the lock: another process held it past the wait (a compare slower
    /// than the wait, or a process holding the lock to hide a write). Compared anyway: a
    /// change may be told twice, never not at all.
    pub forced: bool,
    path: PathBuf,
    file: std::fs::File,
}

impl Taken {
    /// The compare is recorded: the record goes (only this one: a later call's record
    /// written over it under the same key stays), and the lock with it.
    pub fn settle(self) {
        if is_same_file(&self.path, &self.file) {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

fn is_same_file(path: &Path, file: &std::fs::File) -> bool {
    match (std::fs::symlink_metadata(path), file.metadata()) {
        (Ok(at_path), Ok(held)) => at_path.dev() == held.dev() && at_path.ino() == held.ino(),
        _ => false,
    }
}

/// How often a taker tries the lock again while another holds it.
const LOCK_RETRY: std::time::Duration = std::time::Duration::from_millis(5);

/// Locks `file`, waiting for another holder until `until`: false when the wait ran out or
/// the file system cannot lock.
fn lock_until(file: &std::fs::File, until: Instant) -> bool {
    loop {
        // SAFETY: flock on a descriptor this function borrows; it only changes the lock.
        let rc = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) };
        if rc == 0 {
            return true;
        }
        let busy = std::io::Error::last_os_error().kind() == std::io::ErrorKind::WouldBlock;
        let now = Instant::now();
        if !busy || now >= until {
            return false;
        }
        std::thread::sleep(LOCK_RETRY.min(until - now));
    }
}

/// Takes the record of the call in progress for its compare, waiting until `until` for a
/// taker that holds it: `None` when there is none (no guarded peer claim was at stake, or
/// another taker compared and settled it), or it is not acc's (then it is dropped).
pub fn take_saved(data_home: &Path, binding_key: &str, until: Instant) -> Option<Taken> {
    let path = record_path(data_home, binding_key);
    let file = std::fs::File::open(&path).ok()?;
    let forced = !lock_until(&file, until);
    // Settled by the taker waited for, or replaced by a later call's record.
    if file.metadata().ok()?.nlink() == 0 {
        return None;
    }
    match read_record(&file) {
        Some(prints) => Some(Taken {
            prints,
            forced,
            path,
            file,
        }),
        None => {
            if is_same_file(&path, &file) {
                let _ = std::fs::remove_file(&path);
            }
            None
        }
    }
}

fn read_record(file: &std::fs::File) -> Option<Prints> {
    let mut bytes = Vec::new();
    file.take(MAX_RECORD_BYTES).read_to_end(&mut bytes).ok()?;
    let split = bytes.iter().position(|&b| b == b'\n')?;
    let header: Header<'_> = serde_json::from_slice(&bytes[..split]).ok()?;
    if header.schema != SCHEMA {
        return None;
    }
    let session_id = header.session_id.map(Cow::into_owned);
    let watched = match header.from_snapshot {
        None => header.watched.into_owned(),
        Some(watch) => {
            let text = std::str::from_utf8(&bytes[split + 1..]).ok()?;
            let snapshot = SnapshotText::parse(text)?;
            watched_from_snapshot(
                &snapshot,
                session_id.as_deref()?,
                &watch.participant,
                watch.now_ms,
            )?
        }
    };
    Some(Prints {
        schema: header.schema,
        session_id,
        roots: header.roots.into_owned(),
        watched,
        files: header.files.into_owned(),
        complete: header.complete,
    })
}

/// Whether a call of this conversation left a record to compare against.
pub fn pending(data_home: &Path, record_key: &str) -> bool {
    record_path(data_home, record_key).is_file()
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

    /// The record's prints once taken and settled (as a post-tool hook does).
    fn take_and_settle(home: &Path, key: &str) -> Option<Prints> {
        let taken = take_saved(home, key, later())?;
        let prints = taken.prints.clone();
        taken.settle();
        Some(prints)
    }

    #[test]
    fn a_record_is_taken_once_and_a_foreign_one_is_ignored() {
        let tmp = tempfile::tempdir().unwrap();
        let home = tmp.path();
        let prints = take(Vec::new(), Vec::new(), later());
        save(home, "k1", &prints, None).unwrap();
        assert!(pending(home, "k1"));
        assert_eq!(take_and_settle(home, "k1"), Some(prints));
        assert!(!pending(home, "k1"));
        assert_eq!(take_and_settle(home, "k1"), None);
        std::fs::write(record_path(home, "k2"), "{\"schema\":99}").unwrap();
        assert_eq!(take_and_settle(home, "k2"), None);
        assert!(
            !pending(home, "k2"),
            "a record that is not acc's is dropped"
        );
    }

    #[test]
    fn a_taker_that_dies_before_settling_leaves_the_record_to_the_next() {
        let tmp = tempfile::tempdir().unwrap();
        let home = tmp.path();
        let prints = take(Vec::new(), Vec::new(), later());
        save(home, "k", &prints, None).unwrap();
        // Taken, then dropped unsettled: a post-tool hook killed in its compare.
        let first = take_saved(home, "k", later()).unwrap();
        drop(first);
        assert!(
            pending(home, "k"),
            "the record outlives a taker that did not settle"
        );
        assert_eq!(take_and_settle(home, "k"), Some(prints));
        assert!(!pending(home, "k"));
    }

    #[test]
    fn a_second_taker_waits_for_the_first_and_finds_it_settled() {
        let tmp = tempfile::tempdir().unwrap();
        let home = tmp.path().to_path_buf();
        let prints = take(Vec::new(), Vec::new(), later());
        save(&home, "k", &prints, None).unwrap();
        let first = take_saved(&home, "k", later()).unwrap();
        let waiter = {
            let home = home.clone();
            std::thread::spawn(move || take_saved(&home, "k", later()).map(|t| t.prints))
        };
        // Whenever the waiter opened the record, it cannot lock it before the settle.
        std::thread::sleep(Duration::from_millis(50));
        first.settle();
        assert_eq!(waiter.join().unwrap(), None, "compared once");
        // A holder past the wait does not hide the record: it is taken anyway, and says so.
        save(&home, "k", &prints, None).unwrap();
        let holder = take_saved(&home, "k", later()).unwrap();
        let forced = take_saved(&home, "k", Instant::now() + Duration::from_millis(20)).unwrap();
        assert!(forced.forced && !holder.forced);
        assert_eq!(forced.prints, prints);
    }

    #[test]
    fn settling_leaves_a_later_record_of_the_same_key_alone() {
        let tmp = tempfile::tempdir().unwrap();
        let home = tmp.path();
        let prints = take(Vec::new(), Vec::new(), later());
        save(home, "k", &prints, None).unwrap();
        let taken = take_saved(home, "k", later()).unwrap();
        // The next call of a conversation without call ids, written over it meanwhile.
        let mut next = prints.clone();
        next.session_id = Some("next".into());
        save(home, "k", &next, None).unwrap();
        taken.settle();
        assert_eq!(take_and_settle(home, "k"), Some(next));
    }

    fn snapshot() -> String {
        let claims = "100\tclaim_mine\tsess_me\tme\tfile:mine/**\n\
            100\tclaim_tree\tsess_peer\tpeer\tfile:src/**\n\
            100\tclaim_file\tsess_peer\tpeer\tfile:docs/a\\\\x20b.md\n\
            100\tclaim_net\tsess_peer\tpeer\tport:8080\n\
            50\tclaim_old\tsess_peer\tpeer\tfile:old/**\n";
        crate::store::guard_snapshot::seal_text(format!(
            "acc-guarded-claims\t4\t9\t1\tws\t1.2.9.3.4\t{}\n{claims}\n\
             k_me\tsess_me\tgen_1\topen\tgen_1\tme\t\t0\n",
            claims.len()
        ))
    }

    #[test]
    fn the_snapshot_names_the_live_claims_of_other_sessions_as_paths() {
        let snapshot = snapshot();
        let text = SnapshotText::parse(&snapshot).unwrap();
        let watched = watched_from_snapshot(&text, "sess_me", "me", 60).unwrap();
        let got: Vec<(&str, String, bool)> = watched
            .iter()
            .map(|w| (w.claim_id.as_str(), w.rel.display().to_string(), w.tree))
            .collect();
        assert_eq!(
            got,
            [
                ("claim_tree", "src".to_string(), true),
                ("claim_file", "docs/a b.md".to_string(), false),
            ]
        );
        // Another live session acting as `peer` may be a peer or an ended predecessor: the
        // snapshot cannot tell, the store must.
        assert_eq!(watched_from_snapshot(&text, "sess_other", "peer", 60), None);
    }

    #[test]
    fn a_record_carrying_the_snapshot_reads_back_the_same_claims() {
        let tmp = tempfile::tempdir().unwrap();
        let home = tmp.path();
        let snapshot = snapshot();
        let text = SnapshotText::parse(&snapshot).unwrap();
        let watched = watched_from_snapshot(&text, "sess_me", "me", 60).unwrap();
        let mut prints = take(Vec::new(), watched, later());
        prints.session_id = Some("sess_me".into());
        let watch = SnapshotWatch {
            participant: "me".into(),
            now_ms: 60,
        };
        save(home, "k", &prints, Some((snapshot.as_str(), watch))).unwrap();
        let saved = std::fs::read_to_string(record_path(home, "k")).unwrap();
        assert!(saved.contains("\"watched\":[]"), "{saved}");
        assert_eq!(take_and_settle(home, "k"), Some(prints));
        // A record whose snapshot text was damaged is not acc's.
        let watch = SnapshotWatch {
            participant: "me".into(),
            now_ms: 60,
        };
        let prints = take(Vec::new(), Vec::new(), later());
        save(home, "k", &prints, Some(("not a snapshot\n", watch))).unwrap();
        assert_eq!(take_and_settle(home, "k"), None);
    }
}
