//! Where acc keeps its state: the data home, the per-workspace store directory, and the rule
//! that runtime state never lives inside a workspace.

use crate::env::Env;
use crate::error::{AccError, ErrorCode, Result};
use crate::ids::WorkspaceId;
use std::path::{Component, Path, PathBuf};

/// The store's file name inside its workspace directory.
pub const STORE_FILE: &str = "acc.db";

/// Resolves the data home: `ACC_DATA_HOME`, else (macOS) `~/Library/Application Support`,
/// else `$XDG_DATA_HOME`, else `~/.local/share`. Empty variables count as unset.
pub fn data_home(env: &Env) -> Result<PathBuf> {
    if let Some(explicit) = env.get("ACC_DATA_HOME") {
        let p = PathBuf::from(explicit);
        if !p.is_absolute() {
            return Err(AccError::usage(format!(
                "ACC_DATA_HOME must be an absolute path, got {explicit:?}"
            )));
        }
        return Ok(p);
    }
    let home = env.get("HOME").map(PathBuf::from);
    if cfg!(target_os = "macos") {
        if let Some(home) = home {
            return Ok(home.join("Library").join("Application Support"));
        }
    } else {
        // The XDG spec says a relative value is invalid and must be ignored.
        if let Some(xdg) = env.get("XDG_DATA_HOME").map(PathBuf::from)
            && xdg.is_absolute()
        {
            return Ok(xdg);
        }
        if let Some(home) = home {
            return Ok(home.join(".local").join("share"));
        }
    }
    Err(AccError::usage(
        "cannot locate a data home: set ACC_DATA_HOME to an absolute directory",
    ))
}

/// `<data home>/acc/workspaces/<workspaceId>`.
pub fn store_dir(data_home: &Path, workspace: &WorkspaceId) -> PathBuf {
    data_home
        .join("acc")
        .join("workspaces")
        .join(workspace.as_str())
}

/// `<data home>/acc/workspaces/<workspaceId>/acc.db`.
pub fn store_file(data_home: &Path, workspace: &WorkspaceId) -> PathBuf {
    store_dir(data_home, workspace).join(STORE_FILE)
}

/// The real path of `p` even when its tail does not exist yet: the deepest existing ancestor
/// is canonicalised and the missing components are appended unchanged.
pub fn realpath_lenient(p: &Path) -> PathBuf {
    let mut existing = p.to_path_buf();
    let mut tail: Vec<std::ffi::OsString> = Vec::new();
    loop {
        if let Ok(real) = canonicalize(&existing) {
            let mut out = real;
            for part in tail.iter().rev() {
                out.push(part);
            }
            return out;
        }
        match (existing.file_name(), existing.parent()) {
            (Some(name), Some(parent)) => {
                tail.push(name.to_os_string());
                existing = parent.to_path_buf();
            }
            _ => return lexical_normalise(p),
        }
    }
}

/// `realpath(3)`: the real path of `p`, every symlink followed. Inside a
/// [`remember_real_paths`] scope each path component is looked at once (one `lstat`, and a
/// `readlink` for a link) however many paths of the scope pass through it: one hook call
/// resolves the data home, the cwd, the worktree's `.git` files and every target, most of
/// them under the same few directories, and glibc's `realpath` looked at each component
/// again every time (48 `readlink`s in an allow). The walk is glibc's, so the answers are
/// its answers (`..` after a link is taken in the link's target; a component followed by
/// `/` must be a directory; 40 links at most).
pub fn canonicalize(p: &Path) -> std::io::Result<PathBuf> {
    REMEMBERED.with(|cell| match cell.borrow_mut().as_mut() {
        Some(seen) => real_path::resolve(p, seen),
        None => p.canonicalize(),
    })
}

/// What `lstat` says a path is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileKind {
    Dir,
    Symlink,
    Other,
}

/// `lstat(p)`'s file kind, as the current [`remember_real_paths`] scope first saw it (the
/// same look [`canonicalize`] takes of each component).
pub fn file_kind(p: &Path) -> std::io::Result<FileKind> {
    REMEMBERED.with(|cell| match cell.borrow_mut().as_mut() {
        Some(seen) => seen.kind(p),
        None => std::fs::symlink_metadata(p).map(|m| real_path::kind_of(&m)),
    })
}

thread_local! {
    static REMEMBERED: std::cell::RefCell<Option<real_path::Seen>> =
        const { std::cell::RefCell::new(None) };
}

/// While the returned guard lives, [`canonicalize`] on this thread remembers what each
/// path component is. For one short unit of work (one hook call): a link changed meanwhile
/// is seen as it was at its first look, so every path of the scope is judged against one
/// view of the file system; the next scope looks again. A scope opened inside another
/// leaves the outer one's memory in place.
#[must_use = "the memory lasts as long as the guard"]
pub fn remember_real_paths() -> RealPathScope {
    let opened = REMEMBERED.with(|cell| {
        let mut slot = cell.borrow_mut();
        if slot.is_some() {
            return false;
        }
        *slot = Some(real_path::Seen::default());
        true
    });
    RealPathScope { opened }
}

/// Forgets whatever this thread remembers, whoever opened the scope. A served request
/// calls it first: its worker thread ran other requests before, and a request judges the
/// file system as it is now, never as an earlier request looked at it (each request opens
/// its own scope, [`remember_real_paths`], as a local command does).
pub fn forget_real_paths() {
    REMEMBERED.with(|cell| *cell.borrow_mut() = None);
}

/// Forgets what [`remember_real_paths`] remembered when dropped.
pub struct RealPathScope {
    opened: bool,
}

impl Drop for RealPathScope {
    fn drop(&mut self) {
        if self.opened {
            REMEMBERED.with(|cell| *cell.borrow_mut() = None);
        }
    }
}

mod real_path {
    use std::collections::HashMap;
    use std::ffi::OsString;
    use std::hash::{BuildHasherDefault, Hasher};
    use std::io::Error;
    use std::os::unix::ffi::{OsStrExt, OsStringExt};
    use std::path::{Path, PathBuf};

    /// glibc's `MAXSYMLINKS`: links followed in one resolution before `ELOOP`.
    const MAX_LINKS: usize = 40;

    /// What one path (a resolved directory and a name in it) was at its first look.
    enum Looked {
        Dir,
        Other,
        Link(Box<[u8]>),
        Failed(i32),
    }

    /// FNV-1a: the keys are a few dozen short paths of one call, not attacker-chosen
    /// buckets worth SipHash (which cost more than the walk it saved).
    #[derive(Default)]
    struct Fnv(u64);

    impl Hasher for Fnv {
        fn finish(&self) -> u64 {
            self.0
        }

        fn write(&mut self, bytes: &[u8]) {
            let mut h = if self.0 == 0 {
                0xcbf2_9ce4_8422_2325
            } else {
                self.0
            };
            for b in bytes {
                h ^= u64::from(*b);
                h = h.wrapping_mul(0x0100_0000_01b3);
            }
            self.0 = h;
        }
    }

    type Map<V> = HashMap<Box<[u8]>, V, BuildHasherDefault<Fnv>>;

    #[derive(Default)]
    pub struct Seen {
        looked: Map<Looked>,
        /// Whole answers, by the path as asked: the same directories are asked for again
        /// by the steps of one call.
        answers: Map<Result<PathBuf, i32>>,
    }

    pub fn kind_of(m: &std::fs::Metadata) -> super::FileKind {
        if m.file_type().is_symlink() {
            super::FileKind::Symlink
        } else if m.is_dir() {
            super::FileKind::Dir
        } else {
            super::FileKind::Other
        }
    }

    impl Seen {
        pub fn kind(&mut self, path: &Path) -> std::io::Result<super::FileKind> {
            match self.look(path.as_os_str().as_bytes()) {
                Looked::Dir => Ok(super::FileKind::Dir),
                Looked::Other => Ok(super::FileKind::Other),
                Looked::Link(_) => Ok(super::FileKind::Symlink),
                Looked::Failed(errno) => Err(Error::from_raw_os_error(*errno)),
            }
        }

        fn look(&mut self, path: &[u8]) -> &Looked {
            if !self.looked.contains_key(path) {
                let p = Path::new(std::ffi::OsStr::from_bytes(path));
                let looked = match std::fs::symlink_metadata(p) {
                    Ok(m) if m.file_type().is_symlink() => match std::fs::read_link(p) {
                        Ok(target) => Looked::Link(target.into_os_string().into_vec().into()),
                        Err(e) => Looked::Failed(e.raw_os_error().unwrap_or(libc::EIO)),
                    },
                    Ok(m) if m.is_dir() => Looked::Dir,
                    Ok(_) => Looked::Other,
                    Err(e) => Looked::Failed(e.raw_os_error().unwrap_or(libc::EIO)),
                };
                self.looked.insert(path.into(), looked);
            }
            &self.looked[path]
        }
    }

    pub fn resolve(p: &Path, seen: &mut Seen) -> std::io::Result<PathBuf> {
        let raw = p.as_os_str().as_bytes();
        if let Some(answer) = seen.answers.get(raw) {
            return answer.clone().map_err(Error::from_raw_os_error);
        }
        let answer = walk(raw, seen);
        let kept = match &answer {
            Ok(path) => Ok(path.clone()),
            Err(e) => Err(e.raw_os_error().unwrap_or(libc::EIO)),
        };
        seen.answers.insert(raw.into(), kept);
        answer
    }

    /// glibc's walk: component by component, a link's target put in front of what is left.
    fn walk(raw: &[u8], seen: &mut Seen) -> std::io::Result<PathBuf> {
        if raw.is_empty() {
            return Err(Error::from_raw_os_error(libc::ENOENT));
        }
        let mut out: Vec<u8> = if raw[0] == b'/' {
            b"/".to_vec()
        } else {
            std::env::current_dir()?.into_os_string().into_vec()
        };
        // What is left to walk from `at`; a link's target is put in front of it.
        let mut rest: Vec<u8> = raw.to_vec();
        let mut at = 0;
        let mut links = 0;
        loop {
            let Some(start) = rest[at..].iter().position(|&b| b != b'/').map(|i| at + i) else {
                return Ok(PathBuf::from(OsString::from_vec(out)));
            };
            let end = rest[start..]
                .iter()
                .position(|&b| b == b'/')
                .map_or(rest.len(), |i| start + i);
            at = end;
            // A component followed by `/` (even a trailing one) must be a directory.
            let needs_dir = end < rest.len();
            match &rest[start..end] {
                b"." => continue,
                b".." => {
                    let keep = out.iter().rposition(|&b| b == b'/').unwrap_or(0).max(1);
                    out.truncate(keep);
                    continue;
                }
                _ => {}
            }
            let parent_len = out.len();
            if out.len() > 1 {
                out.push(b'/');
            }
            out.extend_from_slice(&rest[start..end]);
            match seen.look(&out) {
                Looked::Dir => {}
                Looked::Other if needs_dir => {
                    return Err(Error::from_raw_os_error(libc::ENOTDIR));
                }
                Looked::Other => {}
                Looked::Failed(errno) => return Err(Error::from_raw_os_error(*errno)),
                Looked::Link(target) => {
                    links += 1;
                    if links > MAX_LINKS {
                        return Err(Error::from_raw_os_error(libc::ELOOP));
                    }
                    if target.is_empty() {
                        return Err(Error::from_raw_os_error(libc::ENOENT));
                    }
                    let mut joined = target.to_vec();
                    joined.extend_from_slice(&rest[at..]);
                    rest = joined;
                    at = 0;
                    if rest[0] == b'/' {
                        out.truncate(1);
                    } else {
                        out.truncate(parent_len);
                    }
                }
            }
        }
    }
}

/// Drops `.` components and folds `x/..` without touching the filesystem.
pub fn lexical_normalise(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    out.push("..");
                }
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// Refuses a data home inside any workspace root (usage error): acc never writes runtime
/// state into a workspace.
pub fn refuse_inside_roots(data_home: &Path, roots: &[PathBuf]) -> Result<()> {
    let home = realpath_lenient(data_home);
    for root in roots {
        let root_real = realpath_lenient(root);
        if home.starts_with(&root_real) {
            return Err(AccError::new(
                ErrorCode::DataHomeInsideWorkspace,
                format!(
                    "the data home {} is inside the workspace root {}; set ACC_DATA_HOME to a directory outside it",
                    home.display(),
                    root_real.display()
                ),
            )
            .with("dataHome", home.display().to_string())
            .with("root", root_real.display().to_string()));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn acc_data_home_wins_and_must_be_absolute() {
        let env = Env::new()
            .with("ACC_DATA_HOME", "/data")
            .with("XDG_DATA_HOME", "/xdg")
            .with("HOME", "/home/u");
        assert_eq!(data_home(&env).unwrap(), PathBuf::from("/data"));
        let rel = Env::new().with("ACC_DATA_HOME", "rel");
        assert_eq!(data_home(&rel).unwrap_err().exit_code(), 2);
    }

    #[cfg(not(target_os = "macos"))]
    #[test]
    fn xdg_then_home_and_empty_counts_as_unset() {
        let env = Env::new()
            .with("ACC_DATA_HOME", "")
            .with("XDG_DATA_HOME", "/xdg")
            .with("HOME", "/home/u");
        assert_eq!(data_home(&env).unwrap(), PathBuf::from("/xdg"));
        let env = Env::new().with("XDG_DATA_HOME", "").with("HOME", "/home/u");
        assert_eq!(
            data_home(&env).unwrap(),
            PathBuf::from("/home/u/.local/share")
        );
        let env = Env::new()
            .with("XDG_DATA_HOME", "relative")
            .with("HOME", "/h");
        assert_eq!(data_home(&env).unwrap(), PathBuf::from("/h/.local/share"));
        assert_eq!(data_home(&Env::new()).unwrap_err().exit_code(), 2);
    }

    #[test]
    fn store_paths() {
        let ws = WorkspaceId::parse("workspace_abc").unwrap();
        assert_eq!(
            store_file(Path::new("/d"), &ws),
            PathBuf::from("/d/acc/workspaces/workspace_abc/acc.db")
        );
    }

    #[test]
    fn refuses_a_data_home_inside_a_root() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("repo");
        std::fs::create_dir(&root).unwrap();
        let inside = root.join("not-yet").join("data");
        let err = refuse_inside_roots(&inside, std::slice::from_ref(&root)).unwrap_err();
        assert_eq!(err.code, ErrorCode::DataHomeInsideWorkspace);
        assert_eq!(err.exit_code(), 2);
        let outside = dir.path().join("data");
        assert!(refuse_inside_roots(&outside, &[root]).is_ok());
    }

    #[test]
    fn lenient_realpath_keeps_missing_tail() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().canonicalize().unwrap();
        assert_eq!(
            realpath_lenient(&dir.path().join("a/b")),
            real.join("a").join("b")
        );
        assert_eq!(
            lexical_normalise(Path::new("a/./b/../c")),
            PathBuf::from("a/c")
        );
    }

    /// A tree with every kind of link `realpath` follows: relative and absolute, chained,
    /// to a file, dangling, looping, and `..` through a link.
    fn linked_tree() -> (tempfile::TempDir, PathBuf) {
        use std::os::unix::fs::symlink;
        let dir = tempfile::tempdir().unwrap();
        let b = dir.path().canonicalize().unwrap();
        std::fs::create_dir_all(b.join("ws/src/deep")).unwrap();
        std::fs::create_dir_all(b.join("other/x")).unwrap();
        std::fs::write(b.join("ws/src/lib.rs"), "").unwrap();
        std::fs::write(b.join("other/x/f"), "").unwrap();
        symlink("../other/x", b.join("ws/rel")).unwrap();
        symlink(b.join("other"), b.join("ws/abs")).unwrap();
        symlink("rel", b.join("ws/chain")).unwrap();
        symlink("src/lib.rs", b.join("ws/file")).unwrap();
        symlink("missing/y", b.join("ws/dangling")).unwrap();
        symlink("loop2", b.join("ws/loop1")).unwrap();
        symlink("loop1", b.join("ws/loop2")).unwrap();
        symlink("", b.join("ws/empty")).unwrap_or(());
        symlink(".", b.join("ws/self")).unwrap();
        (dir, b)
    }

    const SPELLINGS: &[&str] = &[
        "ws",
        "ws/",
        "ws/.",
        "ws/./src//lib.rs",
        "ws/src/lib.rs/",
        "ws/src/lib.rs/.",
        "ws/src/lib.rs/..",
        "ws/src/deep/../lib.rs",
        "ws/rel",
        "ws/rel/",
        "ws/rel/f",
        "ws/rel/..",
        "ws/rel/../..",
        "ws/rel/../x/f",
        "ws/abs/x/f",
        "ws/abs/..",
        "ws/chain/f",
        "ws/chain/../../ws/src",
        "ws/file",
        "ws/file/",
        "ws/file/..",
        "ws/dangling",
        "ws/dangling/..",
        "ws/loop1",
        "ws/loop1/x",
        "ws/empty",
        "ws/self/self/src",
        "ws/missing",
        "ws/missing/..",
        "ws/missing/x",
        "ws/src/lib.rs/x",
        "../../../..",
        "ws/../../../../../..",
    ];

    #[test]
    fn remembered_resolution_gives_realpaths_answers() {
        let (_dir, b) = linked_tree();
        let _scope = remember_real_paths();
        // Twice: the second pass answers from what the first looked at.
        for _ in 0..2 {
            for s in SPELLINGS {
                let p = b.join(s);
                let want = p.canonicalize().map_err(|e| e.raw_os_error());
                let got = canonicalize(&p).map_err(|e| e.raw_os_error());
                assert_eq!(got, want, "{s}");
            }
        }
        assert_eq!(
            canonicalize(Path::new("")).unwrap_err().raw_os_error(),
            Some(libc::ENOENT)
        );
    }

    /// A tree for the differential test: directories two deep, files, and links of every
    /// shape among them (relative, absolute, through `..`, to files, dangling, looping), and
    /// a chain of 45 links that crosses the 40-link limit.
    fn generated_tree() -> (tempfile::TempDir, PathBuf, Vec<String>) {
        use std::os::unix::fs::symlink;
        let dir = tempfile::tempdir().unwrap();
        let b = dir.path().canonicalize().unwrap();
        for d in ["a", "a/b", "a/b/c", "d", "d/e"] {
            std::fs::create_dir_all(b.join(d)).unwrap();
        }
        for f in ["a/f", "a/b/g", "d/e/h"] {
            std::fs::write(b.join(f), "").unwrap();
        }
        let links: &[(&str, &str)] = &[
            ("a/up", ".."),
            ("a/b/up2", "../.."),
            ("a/tod", "../d"),
            ("a/b/toe", "../../d/e"),
            ("d/toa", "ABS/a"),
            ("d/tob", "ABS/a/b/"),
            ("d/e/tof", "../../a/f"),
            ("a/b/dang", "nowhere/x"),
            ("d/dotdot", "e/../../a/b/.."),
            ("a/l1", "l2"),
            ("a/l2", "l1"),
            ("a/self", "."),
            ("d/e/chain", "../toa/b"),
        ];
        for (at, to) in links {
            let to = to.replace("ABS", b.to_str().unwrap());
            symlink(to, b.join(at)).unwrap();
        }
        for i in 0..45 {
            let next = if i == 44 {
                "a".to_string()
            } else {
                format!("c{}", i + 1)
            };
            symlink(next, b.join(format!("c{i}"))).unwrap();
        }
        let mut names: Vec<String> = [
            "a", "b", "c", "d", "e", "f", "g", "h", "up", "up2", "tod", "toe", "toa", "tob", "tof",
            "dang", "dotdot", "l1", "self", "chain", "missing", ".", "..", "",
        ]
        .iter()
        .map(|n| n.to_string())
        .collect();
        names.extend(["c0", "c4", "c5", "c6", "c40", "c44"].map(String::from));
        (dir, b, names)
    }

    /// Thousands of spellings drawn from the generated tree, each answered by the
    /// remembered walk (in one scope for all, and in a scope of its own) exactly as by
    /// glibc's `realpath` (std's `canonicalize`): the real path, or the same errno. A
    /// lenient resolution in a scope gives what it gives outside one.
    #[test]
    fn the_remembered_walk_answers_as_realpath_over_a_generated_tree() {
        let (_dir, b, names) = generated_tree();
        let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = |n: usize| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % n as u64) as usize
        };
        let spellings: Vec<String> = (0..4000)
            .map(|_| {
                let depth = 1 + next(6);
                let mut s = String::new();
                for i in 0..depth {
                    let name = &names[next(names.len())];
                    if i > 0 {
                        s.push('/');
                    } else if name.is_empty() {
                        // A leading `/` would leave the tree for the host's root.
                        s.push('.');
                    }
                    s.push_str(name);
                }
                if next(5) == 0 {
                    s.push('/');
                }
                s
            })
            .collect();
        let shared = remember_real_paths();
        for s in &spellings {
            let p = b.join(s);
            let want = p.canonicalize().map_err(|e| e.raw_os_error());
            assert_eq!(canonicalize(&p).map_err(|e| e.raw_os_error()), want, "{s}");
        }
        drop(shared);
        for s in &spellings {
            let p = b.join(s);
            let want = p.canonicalize().map_err(|e| e.raw_os_error());
            let lenient = realpath_lenient(&p);
            let _own = remember_real_paths();
            assert_eq!(canonicalize(&p).map_err(|e| e.raw_os_error()), want, "{s}");
            assert_eq!(realpath_lenient(&p), lenient, "{s}");
        }
    }

    #[test]
    fn a_link_swapped_within_one_scope_is_seen_as_first_looked_at_and_again_after() {
        use std::os::unix::fs::symlink;
        let (_dir, b) = linked_tree();
        let link = b.join("ws/swap");
        symlink(b.join("ws/src"), &link).unwrap();
        let first_view = {
            let _scope = remember_real_paths();
            let a = canonicalize(&link.join("lib.rs")).unwrap();
            // The link now leads outside the workspace, between two targets of one call.
            std::fs::remove_file(&link).unwrap();
            symlink(b.join("other/x"), &link).unwrap();
            let c = realpath_lenient(&link.join("new.rs"));
            (a, c)
        };
        // One view for the whole call: both under the directory the link named first.
        assert_eq!(first_view.0, b.join("ws/src/lib.rs"));
        assert_eq!(first_view.1, b.join("ws/src/new.rs"));
        // The next call looks again, as does any resolution outside a scope.
        let _scope = remember_real_paths();
        assert_eq!(canonicalize(&link.join("f")).unwrap(), b.join("other/x/f"));
        assert_eq!(realpath_lenient(&link.join("new")), b.join("other/x/new"));
    }

    #[test]
    fn forgetting_drops_a_scope_left_open() {
        use std::os::unix::fs::symlink;
        let (_dir, b) = linked_tree();
        let link = b.join("ws/swap");
        symlink(b.join("ws/src"), &link).unwrap();
        let left_open = remember_real_paths();
        assert_eq!(canonicalize(&link).unwrap(), b.join("ws/src"));
        std::mem::forget(left_open);
        std::fs::remove_file(&link).unwrap();
        symlink(b.join("other/x"), &link).unwrap();
        assert_eq!(canonicalize(&link).unwrap(), b.join("ws/src"), "still open");
        forget_real_paths();
        assert_eq!(canonicalize(&link).unwrap(), b.join("other/x"));
        // A scope opened after it remembers again, and forgets when it ends.
        let scope = remember_real_paths();
        assert_eq!(canonicalize(&link).unwrap(), b.join("other/x"));
        drop(scope);
        REMEMBERED.with(|cell| assert!(cell.borrow().is_none()));
    }

    #[test]
    fn a_relative_path_is_resolved_from_the_working_directory() {
        let _scope = remember_real_paths();
        let here = std::env::current_dir().unwrap().canonicalize().unwrap();
        assert_eq!(canonicalize(Path::new(".")).unwrap(), here);
        assert_eq!(
            canonicalize(Path::new("src/../src")).ok(),
            Path::new("src/../src").canonicalize().ok()
        );
    }
}
