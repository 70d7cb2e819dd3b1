//! From the paths a tool call names to the root-relative paths claims are judged against.
//!
//! A target is resolved against the payload's cwd (where the client runs the tool, which
//! may differ from any root): its directory is resolved once per call and remembered (a
//! command naming 60,000 files in one directory costs one resolution and 60,000 `lstat`s),
//! through its deepest existing ancestor (symlinks, `/tmp` vs `/private/tmp`, case on
//! case-insensitive disks), with the components that do not exist yet appended and `..`
//! among those folded lexically (a missing directory cannot be a symlink, so that is exact).
//! The final component is followed when it is a symlink, even a dangling one.
//!
//! The result is made relative to the worktree it lies in. Every worktree of the repository
//! counts (the session's own, the main one and each linked one), because claims are per
//! workspace and root-relative, so all worktrees share one namespace: `../wt2/src/a.rs`
//! written from worktree A is `src/a.rs`, as a claim made in any worktree names it. Anything
//! outside every worktree is not this workspace's business and is dropped.
//!
//! Paths are kept as paths ([`RelPath`]), never forced into a resource spelling first: a
//! name with spaces, newlines or `*` is judged like any other.

use crate::core::resources::Resource;
use crate::paths::lexical_normalise;
use std::collections::{HashMap, HashSet};
use std::path::{Component, Path, PathBuf};
use std::time::Instant;

/// Symlinks followed while resolving one dangling link chain.
const MAX_LINK_HOPS: usize = 40;

/// Targets resolved between two looks at the clock.
const CLOCK_EVERY: usize = 128;

/// A path relative to a worktree root: normal components only, never empty.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct RelPath(PathBuf);

impl RelPath {
    /// `None` for an empty path or one with other than normal components.
    pub fn new(path: PathBuf) -> Option<RelPath> {
        let normal = path.components().all(|c| matches!(c, Component::Normal(_)));
        (normal && path.components().next().is_some()).then_some(RelPath(path))
    }

    pub fn as_path(&self) -> &Path {
        &self.0
    }

    /// The `file:` resource spelling this path, for messages; `None` when it is too long.
    pub fn resource(&self) -> Option<Resource> {
        Resource::from_relative_path(&self.0, false)
    }
}

/// What one target can change in the workspace. A command that removes, moves away or
/// restores a path whole (`rm -rf src`, `mv src old`, `git restore src`; the adapter passes
/// such a target as `src/**`) changes every file under it, so a claim on any of them must
/// stop it, not only a claim on the directory's own name. Any other target writes the path
/// itself: `cp f src/` is passed as `src/` and `src/f` (the entry it adds), so a peer's claim
/// on `src/a.txt` does not stop it and one on `src/f` does.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Reach {
    /// The path itself (a file, or a directory gaining an entry).
    File(RelPath),
    /// A path written whole: it and everything under it.
    Tree(RelPath),
    /// A worktree root itself, or a directory that holds one: everything.
    Workspace,
}

/// The identity of an existing regular file that has other names: a write into it is a
/// write into every one of them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Inode {
    pub dev: u64,
    pub ino: u64,
}

/// One target, resolved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resolved {
    pub reach: Reach,
    /// Set for a [`Reach::File`] that is an existing regular file with more than one link.
    pub linked: Option<Inode>,
}

/// The clock ran out before every target was resolved.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OutOfTime;

/// The roots targets are made relative to: the session's own worktree and every other
/// worktree of the same repository.
#[derive(Debug, Clone)]
pub struct Roots {
    /// Real paths, deepest first (a worktree may lie inside another).
    roots: Vec<PathBuf>,
}

impl Roots {
    /// `own` and `others` (any spelling; each is resolved). Missing roots are skipped.
    pub fn new(own: &Path, others: &[PathBuf]) -> Roots {
        let mut roots: Vec<PathBuf> = Vec::new();
        for r in std::iter::once(own).chain(others.iter().map(PathBuf::as_path)) {
            let real = crate::paths::canonicalize(r).unwrap_or_else(|_| r.to_path_buf());
            if !roots.contains(&real) {
                roots.push(real);
            }
        }
        roots.sort_by_key(|r| std::cmp::Reverse(r.components().count()));
        Roots { roots }
    }

    /// Every real root.
    pub fn all(&self) -> &[PathBuf] {
        &self.roots
    }

    /// The reach of a real path, or `None` outside every worktree (and for a root itself
    /// when it is not written whole).
    fn locate(&self, target: &Path, whole: bool) -> Option<Reach> {
        if whole && self.roots.iter().any(|r| r.starts_with(target)) {
            return Some(Reach::Workspace);
        }
        let root = self.roots.iter().find(|r| target.starts_with(r))?;
        let rel = RelPath::new(target.strip_prefix(root).ok()?.to_path_buf())?;
        Some(if whole {
            Reach::Tree(rel)
        } else {
            Reach::File(rel)
        })
    }
}

/// Resolves target paths, remembering every directory it resolved.
#[derive(Debug, Default)]
pub struct Resolver {
    dirs: HashMap<PathBuf, PathBuf>,
}

/// A resolved path, with the link identity of an existing multiply-linked regular file.
struct Real {
    path: PathBuf,
    linked: Option<Inode>,
}

impl Resolver {
    /// The real path `raw` names, relative to `cwd` when it is not absolute.
    pub fn real(&mut self, cwd: &Path, raw: &str) -> PathBuf {
        self.resolve(&cwd.join(raw)).path
    }

    fn resolve(&mut self, full: &Path) -> Real {
        let (Some(Component::Normal(name)), Some(parent)) =
            (full.components().next_back(), full.parent())
        else {
            return Real {
                path: canonical(full, 0),
                linked: None,
            };
        };
        let dir = match self.dirs.get(parent) {
            Some(d) => d.clone(),
            None => {
                let d = canonical(parent, 0);
                self.dirs.insert(parent.to_path_buf(), d.clone());
                d
            }
        };
        let candidate = dir.join(name);
        let Ok(meta) = std::fs::symlink_metadata(&candidate) else {
            return Real {
                path: candidate,
                linked: None,
            };
        };
        if meta.file_type().is_symlink() {
            let path = canonical(&candidate, 0);
            let linked = std::fs::metadata(&path).ok().and_then(|m| linked(&m));
            return Real { path, linked };
        }
        let path = if cfg!(target_os = "linux") {
            candidate
        } else {
            // Where names are case-insensitive, only the file system knows the spelling.
            candidate.canonicalize().unwrap_or(candidate)
        };
        Real {
            path,
            linked: linked(&meta),
        }
    }
}

#[cfg(unix)]
fn linked(meta: &std::fs::Metadata) -> Option<Inode> {
    use std::os::unix::fs::MetadataExt;
    (meta.is_file() && meta.nlink() > 1).then(|| Inode {
        dev: meta.dev(),
        ino: meta.ino(),
    })
}

#[cfg(not(unix))]
fn linked(_: &std::fs::Metadata) -> Option<Inode> {
    None
}

/// The identity of an existing regular file with more than one link, by its real path.
pub fn linked_inode(path: &Path) -> Option<Inode> {
    std::fs::symlink_metadata(path)
        .ok()
        .and_then(|m| linked(&m))
}

/// The real path `raw` names, relative to `cwd` when it is not absolute.
pub fn canonical_target(cwd: &Path, raw: &str) -> PathBuf {
    canonical(&cwd.join(raw), 0)
}

fn canonical(path: &Path, hops: usize) -> PathBuf {
    let parts: Vec<Component> = path.components().collect();
    for keep in (1..=parts.len()).rev() {
        let prefix: PathBuf = parts[..keep].iter().collect();
        let real = match crate::paths::canonicalize(&prefix) {
            Ok(real) => real,
            // A dangling symlink: writing through it creates its target, so the target is
            // what a claim must cover.
            Err(_) if hops < MAX_LINK_HOPS && is_symlink(&prefix) => {
                let Ok(link) = std::fs::read_link(&prefix) else {
                    continue;
                };
                let base = prefix.parent().unwrap_or(Path::new("/"));
                canonical(&base.join(link), hops + 1)
            }
            Err(_) => continue,
        };
        let mut out = real;
        out.extend(&parts[keep..]);
        return lexical_normalise(&out);
    }
    lexical_normalise(path)
}

fn is_symlink(p: &Path) -> bool {
    crate::paths::file_kind(p).is_ok_and(|k| k == crate::paths::FileKind::Symlink)
}

/// Every target inside (or holding) one of `roots`, in order, without duplicates; linear in
/// the number of targets. `OutOfTime` once `until` passes.
pub fn resolve_all(
    cwd: &Path,
    roots: &Roots,
    raw_targets: &[String],
    until: Instant,
) -> Result<Vec<Resolved>, OutOfTime> {
    let mut resolver = Resolver::default();
    let mut seen: HashSet<Reach> = HashSet::new();
    let mut out: Vec<Resolved> = Vec::new();
    for (i, raw) in raw_targets.iter().filter(|t| !t.is_empty()).enumerate() {
        if i % CLOCK_EVERY == 0 && Instant::now() >= until {
            return Err(OutOfTime);
        }
        let (path, whole) = match raw.strip_suffix("/**") {
            Some("") => ("/", true),
            Some(path) => (path, true),
            None => (raw.as_str(), false),
        };
        let real = resolver.resolve(&lexical_tail(cwd, path));
        let Some(reach) = roots.locate(&real.path, whole) else {
            continue;
        };
        if seen.insert(reach.clone()) {
            let linked = real.linked.filter(|_| matches!(reach, Reach::File(_)));
            out.push(Resolved { reach, linked });
        }
    }
    Ok(out)
}

/// `cwd` joined with `raw`, with a trailing `.` dropped (`src/.` is `src`), so the last
/// component is the name written whenever there is one.
fn lexical_tail(cwd: &Path, raw: &str) -> PathBuf {
    let mut p = cwd.join(raw);
    while p.components().next_back() == Some(Component::CurDir) {
        p.pop();
    }
    p
}

/// The reach of every target inside (or holding) `root`, in order, without duplicates.
pub fn reaches(cwd: &Path, root: &Path, raw_targets: &[String]) -> Vec<Reach> {
    let far = Instant::now() + std::time::Duration::from_secs(3600);
    resolve_all(cwd, &Roots::new(root, &[]), raw_targets, far)
        .unwrap_or_default()
        .into_iter()
        .map(|r| r.reach)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Tree {
        _dir: tempfile::TempDir,
        base: PathBuf,
    }

    fn tree() -> Tree {
        let dir = tempfile::tempdir().unwrap();
        let base = dir.path().canonicalize().unwrap();
        std::fs::create_dir_all(base.join("ws/src/deep")).unwrap();
        std::fs::write(base.join("ws/src/lib.rs"), "").unwrap();
        Tree { _dir: dir, base }
    }

    fn names(v: Vec<Reach>) -> Vec<String> {
        v.into_iter()
            .map(|r| match r {
                Reach::File(p) => p.as_path().display().to_string(),
                Reach::Tree(p) => format!("{}/**", p.as_path().display()),
                Reach::Workspace => "*".into(),
            })
            .collect()
    }

    fn file(p: &str) -> Reach {
        Reach::File(RelPath::new(p.into()).unwrap())
    }

    fn whole(p: &str) -> Reach {
        Reach::Tree(RelPath::new(p.into()).unwrap())
    }

    #[test]
    fn relative_absolute_dotdot_and_missing_files() {
        let t = tree();
        let ws = t.base.join("ws");
        let cwd = ws.join("src/deep");
        let got = reaches(
            &cwd,
            &ws,
            &[
                "../lib.rs".into(),
                "new/dir/../file.rs".into(),
                ws.join("README.md").display().to_string(),
                "./x/./y".into(),
                "../../src/lib.rs".into(),
            ],
        );
        assert_eq!(
            names(got),
            [
                "src/lib.rs",
                "src/deep/new/file.rs",
                "README.md",
                "src/deep/x/y"
            ]
        );
    }

    #[test]
    fn outside_the_root_and_the_root_itself_are_dropped() {
        let t = tree();
        let ws = t.base.join("ws");
        let got = reaches(
            &ws,
            &ws,
            &[
                "../elsewhere.txt".into(),
                "/etc/passwd".into(),
                ".".into(),
                "".into(),
                "src/..".into(),
            ],
        );
        assert!(got.is_empty(), "{got:?}");
    }

    #[test]
    fn every_file_name_is_a_target() {
        let t = tree();
        let ws = t.base.join("ws");
        let long = format!("src/{}", "n".repeat(255));
        let deep = format!("src/{}/f", vec!["d".repeat(200); 8].join("/"));
        let got = reaches(
            &ws,
            &ws,
            &[
                "src/Read Me.md".into(),
                "src/a*b.rs".into(),
                "src/tab\there".into(),
                "src/new\nline".into(),
                "src/nb\u{a0}sp".into(),
                "src/trailing ".into(),
                long.clone(),
                deep.clone(),
            ],
        );
        assert_eq!(
            names(got),
            [
                "src/Read Me.md",
                "src/a*b.rs",
                "src/tab\there",
                "src/new\nline",
                "src/nb\u{a0}sp",
                "src/trailing ",
                long.as_str(),
                deep.as_str(),
            ]
        );
        assert!(deep.len() > 1024);
    }

    #[cfg(unix)]
    #[test]
    fn symlinked_workspace_cwd_and_ancestors() {
        let t = tree();
        let ws = t.base.join("ws");
        let link_ws = t.base.join("link-to-ws");
        std::os::unix::fs::symlink(&ws, &link_ws).unwrap();
        std::os::unix::fs::symlink(ws.join("src"), t.base.join("src-link")).unwrap();
        std::os::unix::fs::symlink(ws.join("src/lib.rs"), ws.join("lib-link.rs")).unwrap();
        // The cwd is the symlink and the root its real path (discovery canonicalises roots).
        let got = reaches(
            &link_ws,
            &ws,
            &[
                "src/lib.rs".into(),
                t.base.join("src-link/deep/new.rs").display().to_string(),
                link_ws.join("src/../notes.md").display().to_string(),
                "lib-link.rs".into(),
            ],
        );
        assert_eq!(
            names(got),
            ["src/lib.rs", "src/deep/new.rs", "notes.md"],
            "a symlink to a file is the file"
        );
        // A root given through a symlink resolves too.
        let got = reaches(&ws, &link_ws, &["src/lib.rs".into()]);
        assert_eq!(names(got), ["src/lib.rs"]);
    }

    #[cfg(unix)]
    #[test]
    fn a_dangling_link_resolves_to_the_file_it_would_create() {
        let t = tree();
        let ws = t.base.join("ws");
        std::os::unix::fs::symlink(ws.join("src/target.rs"), ws.join("alias.rs")).unwrap();
        std::os::unix::fs::symlink("loop", ws.join("loop")).unwrap();
        let got = reaches(&ws, &ws, &["alias.rs".into(), "loop".into()]);
        assert_eq!(names(got), ["src/target.rs", "loop"]);
    }

    #[test]
    fn only_targets_written_whole_reach_trees_and_the_workspace() {
        let t = tree();
        let ws = t.base.join("ws");
        let cwd = ws.join("src");
        let got = reaches(
            &cwd,
            &ws,
            &[
                "lib.rs".into(),
                "./**".into(),
                "deep/".into(),
                "deep/**".into(),
                "gone/**".into(),
                "gone".into(),
                ".".into(),
                "..".into(),
                "../**".into(),
                "../../**".into(),
                "/**".into(),
            ],
        );
        assert_eq!(
            got,
            [
                file("src/lib.rs"),
                whole("src"),
                // A destination directory only gains an entry.
                file("src/deep"),
                whole("src/deep"),
                whole("src/gone"),
                file("src/gone"),
                file("src"),
                // `..` unmarked is the root itself: nothing to judge.
                Reach::Workspace,
            ]
        );
        // Outside the root, and not holding it: still dropped.
        assert!(reaches(&ws, &ws, &["../elsewhere".into(), "/etc".into()]).is_empty());
    }

    #[test]
    fn every_worktree_maps_to_its_own_root_and_the_deepest_wins() {
        let t = tree();
        let ws = t.base.join("ws");
        let other = t.base.join("wt2");
        let nested = ws.join(".worktrees/wt3");
        std::fs::create_dir_all(other.join("src")).unwrap();
        std::fs::create_dir_all(nested.join("src")).unwrap();
        let roots = Roots::new(&ws, &[other.clone(), nested.clone()]);
        let far = Instant::now() + std::time::Duration::from_secs(60);
        let got = resolve_all(
            &ws,
            &roots,
            &[
                "../wt2/src/a.rs".into(),
                ".worktrees/wt3/src/b.rs".into(),
                "src/a.rs".into(),
                "../wt2/**".into(),
            ],
            far,
        )
        .unwrap();
        let reaches: Vec<Reach> = got.into_iter().map(|r| r.reach).collect();
        assert_eq!(
            reaches,
            [file("src/a.rs"), file("src/b.rs"), Reach::Workspace],
            "a path in any worktree is its root-relative path"
        );
    }

    #[cfg(unix)]
    #[test]
    fn a_multiply_linked_file_carries_its_inode() {
        let t = tree();
        let ws = t.base.join("ws");
        std::fs::hard_link(ws.join("src/lib.rs"), ws.join("twin.rs")).unwrap();
        std::fs::write(ws.join("single.rs"), "").unwrap();
        let far = Instant::now() + std::time::Duration::from_secs(60);
        let got = resolve_all(
            &ws,
            &Roots::new(&ws, &[]),
            &["twin.rs".into(), "single.rs".into(), "twin.rs/**".into()],
            far,
        )
        .unwrap();
        assert_eq!(got[0].linked, linked_inode(&ws.join("src/lib.rs")));
        assert!(got[0].linked.is_some());
        assert_eq!(got[1].linked, None);
        assert_eq!(got[2].linked, None, "removing a link leaves the file alone");
    }

    #[test]
    fn a_spent_clock_stops_resolving() {
        let t = tree();
        let ws = t.base.join("ws");
        let got = resolve_all(&ws, &Roots::new(&ws, &[]), &["a".into()], Instant::now());
        assert_eq!(got, Err(OutOfTime));
    }

    #[test]
    fn dotdot_after_an_existing_directory_is_physical() {
        let t = tree();
        let ws = t.base.join("ws");
        let p = canonical_target(&ws, "src/deep/../../src/lib.rs");
        assert_eq!(p, ws.join("src/lib.rs"));
    }
}
