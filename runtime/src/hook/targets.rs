//! From the paths a tool call names to the `file:` resources claims are written in.
//!
//! A target is resolved against the payload's cwd (where the client runs the tool, which
//! may differ from any root): the deepest existing ancestor is canonicalised (symlinks,
//! `/tmp` vs `/private/tmp`, case on case-insensitive disks), the components that do not
//! exist yet are appended, and `..` among those is folded lexically (a missing directory
//! cannot be a symlink, so that is exact). The result is made relative to the workspace's
//! checkout root; anything outside it is not this workspace's business and is dropped.
//!
//! Claims are per workspace and resources are root-relative, so every worktree of one
//! repository shares one store and one namespace: a claim on `file:src/**` made in worktree
//! A covers `src/x` written in worktree B.

use crate::core::resources::Resource;
use crate::paths::lexical_normalise;
use std::path::{Component, Path, PathBuf};

/// Symlinks followed while resolving one dangling link chain.
const MAX_LINK_HOPS: usize = 40;

/// The real path `raw` names, relative to `cwd` when it is not absolute.
pub fn canonical_target(cwd: &Path, raw: &str) -> PathBuf {
    canonical(&cwd.join(raw), 0)
}

fn canonical(path: &Path, hops: usize) -> PathBuf {
    let parts: Vec<Component> = path.components().collect();
    for keep in (1..=parts.len()).rev() {
        let prefix: PathBuf = parts[..keep].iter().collect();
        let real = match prefix.canonicalize() {
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
    std::fs::symlink_metadata(p).is_ok_and(|m| m.file_type().is_symlink())
}

/// The `file:` resource of a real path under `root_real`, or `None` outside it (or for the
/// root itself, or a path no resource can spell).
pub fn resource_under(root_real: &Path, target: &Path) -> Option<Resource> {
    let rel = target.strip_prefix(root_real).ok()?;
    let mut segs = Vec::new();
    for c in rel.components() {
        match c {
            Component::Normal(s) => segs.push(s.to_str()?.to_string()),
            _ => return None,
        }
    }
    if segs.is_empty() {
        return None;
    }
    Resource::parse(&format!("file:{}", segs.join("/"))).ok()
}

/// The resources of every target inside `root`, in order, without duplicates.
pub fn resources(cwd: &Path, root: &Path, raw_targets: &[String]) -> Vec<Resource> {
    reaches(cwd, root, raw_targets)
        .into_iter()
        .filter_map(|reach| match reach {
            Reach::File(r) | Reach::Tree(r) => Some(r),
            Reach::Workspace => None,
        })
        .fold(Vec::new(), |mut out, r| {
            if !out.contains(&r) {
                out.push(r);
            }
            out
        })
}

/// What one target can change in the workspace. A command that removes, moves away or
/// restores a path whole (`rm -rf src`, `mv src old`, `git restore src`; the adapter passes
/// such a target as `src/**`) changes every file under it, so a claim on any of them must
/// stop it, not only a claim on the directory's own name. Any other target writes the path
/// itself: `cp f src/` is passed as `src/` and `src/f` (the entry it adds), so a peer's claim
/// on `src/a.txt` does not stop it and one on `src/f` does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reach {
    /// The path itself (a file, or a directory gaining an entry).
    File(Resource),
    /// A path written whole: it and everything under it. Holds the path's own resource,
    /// without `/**`.
    Tree(Resource),
    /// The workspace root itself, or a directory that holds it: everything.
    Workspace,
}

impl Reach {
    /// The resource a claim is looked up against: `file:<p>` or the tree `file:<p>/**`.
    pub fn lookup(&self) -> Option<Resource> {
        match self {
            Reach::File(r) => Some(r.clone()),
            Reach::Tree(r) => Resource::parse(&format!("{}/**", r.as_str())).ok(),
            Reach::Workspace => None,
        }
    }
}

/// The reach of every target inside (or holding) `root`, in order, without duplicates.
pub fn reaches(cwd: &Path, root: &Path, raw_targets: &[String]) -> Vec<Reach> {
    let root_real = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
    let mut out: Vec<Reach> = Vec::new();
    for raw in raw_targets.iter().filter(|t| !t.is_empty()) {
        let (path, whole) = match raw.strip_suffix("/**") {
            Some("") => ("/", true),
            Some(path) => (path, true),
            None => (raw.as_str(), false),
        };
        let target = canonical_target(cwd, path);
        let reach = if whole && root_real.starts_with(&target) {
            Some(Reach::Workspace)
        } else {
            resource_under(&root_real, &target).map(|r| {
                if whole {
                    Reach::Tree(r)
                } else {
                    Reach::File(r)
                }
            })
        };
        if let Some(reach) = reach
            && !out.contains(&reach)
        {
            out.push(reach);
        }
    }
    out
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

    fn names(v: Vec<Resource>) -> Vec<String> {
        v.into_iter().map(|r| r.to_string()).collect()
    }

    #[test]
    fn relative_absolute_dotdot_and_missing_files() {
        let t = tree();
        let ws = t.base.join("ws");
        let cwd = ws.join("src/deep");
        let got = resources(
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
                "file:src/lib.rs",
                "file:src/deep/new/file.rs",
                "file:README.md",
                "file:src/deep/x/y"
            ]
        );
    }

    #[test]
    fn outside_the_root_and_the_root_itself_are_dropped() {
        let t = tree();
        let ws = t.base.join("ws");
        let got = resources(
            &ws,
            &ws,
            &[
                "../elsewhere.txt".into(),
                "/etc/passwd".into(),
                ".".into(),
                "".into(),
                "has space.txt".into(),
            ],
        );
        assert!(got.is_empty(), "{got:?}");
    }

    #[cfg(unix)]
    #[test]
    fn symlinked_workspace_cwd_and_ancestors() {
        let t = tree();
        let ws = t.base.join("ws");
        let link_ws = t.base.join("link-to-ws");
        std::os::unix::fs::symlink(&ws, &link_ws).unwrap();
        std::os::unix::fs::symlink(ws.join("src"), t.base.join("src-link")).unwrap();
        // The cwd is the symlink and the root its real path (discovery canonicalises roots).
        let got = resources(
            &link_ws,
            &ws,
            &[
                "src/lib.rs".into(),
                t.base.join("src-link/deep/new.rs").display().to_string(),
                link_ws.join("src/../notes.md").display().to_string(),
            ],
        );
        assert_eq!(
            names(got),
            ["file:src/lib.rs", "file:src/deep/new.rs", "file:notes.md"]
        );
        // A root given through a symlink resolves too.
        let got = resources(&ws, &link_ws, &["src/lib.rs".into()]);
        assert_eq!(names(got), ["file:src/lib.rs"]);
    }

    #[cfg(unix)]
    #[test]
    fn a_dangling_link_resolves_to_the_file_it_would_create() {
        let t = tree();
        let ws = t.base.join("ws");
        std::os::unix::fs::symlink(ws.join("src/target.rs"), ws.join("alias.rs")).unwrap();
        std::os::unix::fs::symlink("loop", ws.join("loop")).unwrap();
        let got = resources(&ws, &ws, &["alias.rs".into(), "loop".into()]);
        assert_eq!(names(got), ["file:src/target.rs", "file:loop"]);
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
        let file = |p: &str| Resource::parse(&format!("file:{p}")).unwrap();
        assert_eq!(
            got,
            [
                Reach::File(file("src/lib.rs")),
                Reach::Tree(file("src")),
                // A destination directory only gains an entry.
                Reach::File(file("src/deep")),
                Reach::Tree(file("src/deep")),
                Reach::Tree(file("src/gone")),
                Reach::File(file("src/gone")),
                Reach::File(file("src")),
                // `..` unmarked is the root itself: no file resource, nothing to judge.
                Reach::Workspace,
            ]
        );
        assert_eq!(
            Reach::Tree(file("src")).lookup(),
            Some(file("src/**")),
            "a tree is looked up as one"
        );
        assert_eq!(
            Reach::File(file("src/lib.rs")).lookup(),
            Some(file("src/lib.rs"))
        );
        // Outside the root, and not holding it: still dropped.
        assert!(reaches(&ws, &ws, &["../elsewhere".into(), "/etc".into()]).is_empty());
    }

    #[test]
    fn dotdot_after_an_existing_directory_is_physical() {
        let t = tree();
        let ws = t.base.join("ws");
        let p = canonical_target(&ws, "src/deep/../../src/lib.rs");
        assert_eq!(p, ws.join("src/lib.rs"));
    }
}
