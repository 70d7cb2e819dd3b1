//! Which mounts keep a set of claimed paths read-only, in as few mounts as the directories
//! allow: the runner's set-up costs per mount, not per claim.
//!
//! The claimed paths are arranged as a tree under the workspace root, and each directory
//! holding claimed entries is listed once (no `stat` per claim). For such a directory one
//! of two layouts is chosen:
//!
//! - **each entry**: every claimed entry is bind-mounted read-only on itself. The
//!   directory stays writable: files beside a claimed one can be created, renamed and
//!   removed.
//! - **the directory whole**: the directory is bind-mounted read-only, and every entry that
//!   is not claimed (file or directory) is bind-mounted writable again on top. Their contents
//!   stay writable, but nothing in that directory can be created, renamed or removed.
//!
//! The whole directory is read-only where the claims require it: a claimed path that does
//! not exist yet (its creation must fail, and only a read-only directory refuses it), or a
//! claimed symbolic link (whose name could otherwise be pointed elsewhere). Otherwise it is
//! chosen when it takes fewer than half the mounts of the other layout (200 claimed
//! modules in one `src/`: one mount instead of 200).

use std::collections::BTreeMap;
use std::ffi::{OsStr, OsString};
use std::path::{Component, Path, PathBuf};

/// One bind mount of the runner, in the order it is made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mount {
    pub path: PathBuf,
    /// Re-opened for writing under a read-only directory, rather than made read-only.
    pub writable: bool,
}

impl Mount {
    fn read_only(path: PathBuf) -> Mount {
        Mount {
            path,
            writable: false,
        }
    }
}

/// What a directory listing says an entry is (its `d_type`, no `stat`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Dir,
    File,
    Symlink,
    /// A fifo, socket or device: writable through a read-only mount anyway, and not worth
    /// a mount of its own when unclaimed.
    Other,
}

/// A directory could not be listed, so the claims under it cannot be laid out.
#[derive(Debug)]
pub struct Unlisted {
    pub dir: PathBuf,
    pub error: std::io::Error,
}

#[derive(Default)]
struct Node {
    claimed: bool,
    children: BTreeMap<OsString, Node>,
}

/// The mounts that keep every path of `claimed` (relative to `root`, each standing for
/// itself and everything under it) read-only, parents before what is mounted inside them.
/// `list` names a directory's entries; a path that is not a directory (or does not exist)
/// answers `Ok(None)`.
pub fn plan<'a>(
    root: &Path,
    claimed: impl IntoIterator<Item = &'a Path>,
    mut list: impl FnMut(&Path) -> std::io::Result<Option<Vec<(OsString, Kind)>>>,
) -> Result<Vec<Mount>, Unlisted> {
    let mut tree = Node::default();
    for path in claimed {
        let mut node = &mut tree;
        for part in path.components() {
            let Component::Normal(name) = part else {
                continue;
            };
            if node.claimed {
                break;
            }
            node = node.children.entry(name.to_owned()).or_default();
        }
        node.claimed = true;
        // Everything under a claimed path is read-only with it.
        node.children.clear();
    }
    let mut out = Vec::new();
    if tree.claimed {
        out.push(Mount::read_only(root.to_path_buf()));
    } else if !tree.children.is_empty() {
        visit(root, &tree, &mut list, &mut out)?;
    }
    Ok(out)
}

type Lister<'l> = dyn FnMut(&Path) -> std::io::Result<Option<Vec<(OsString, Kind)>>> + 'l;

fn visit(dir: &Path, node: &Node, list: &mut Lister, out: &mut Vec<Mount>) -> Result<(), Unlisted> {
    let entries = match list(dir) {
        Ok(Some(entries)) => entries,
        // Nothing can be created under a file, or under what does not exist: the
        // directory above is read-only whole (see [`whole`]) when that matters.
        Ok(None) => return Ok(()),
        Err(error) => {
            return Err(Unlisted {
                dir: dir.to_path_buf(),
                error,
            });
        }
    };
    let present: BTreeMap<&OsStr, Kind> =
        entries.iter().map(|(n, k)| (n.as_os_str(), *k)).collect();
    let mut claimed = Vec::new();
    let mut links = Vec::new();
    let mut inner = Vec::new();
    let mut missing = false;
    for (name, child) in &node.children {
        match (present.get(name.as_os_str()), child.claimed) {
            (None, _) => missing = true,
            (Some(Kind::Symlink), true) => links.push(name),
            (Some(_), true) => claimed.push(name),
            (Some(Kind::File | Kind::Other), false) => {}
            (Some(Kind::Dir | Kind::Symlink), false) => inner.push((name, child)),
        }
    }
    // Under a read-only directory: what must be writable again (not claimed, and a file
    // or a directory; a link cannot be written, only what it names).
    let reopen: Vec<&OsString> = entries
        .iter()
        .filter(|(name, kind)| {
            matches!(kind, Kind::Dir | Kind::File)
                && node.children.get(name).is_none_or(|c| !c.claimed)
        })
        .map(|(name, _)| name)
        .collect();
    let whole = missing || !links.is_empty() || 2 * (1 + reopen.len()) < claimed.len();
    if whole {
        out.push(Mount::read_only(dir.to_path_buf()));
        out.extend(reopen.into_iter().map(|name| Mount {
            path: dir.join(name),
            writable: true,
        }));
    } else {
        out.extend(
            claimed
                .into_iter()
                .map(|name| Mount::read_only(dir.join(name))),
        );
    }
    // What a claimed link names, when it names something (one `stat` per claimed link,
    // which is rare): a mount follows the link.
    for name in links {
        let path = dir.join(name);
        if std::fs::metadata(&path).is_ok() {
            out.push(Mount::read_only(path));
        }
    }
    for (name, child) in inner {
        visit(&dir.join(name), child, list, out)?;
    }
    Ok(())
}

/// `list` for the real filesystem: one `getdents` pass, kinds from `d_type`.
pub fn list_dir(dir: &Path) -> std::io::Result<Option<Vec<(OsString, Kind)>>> {
    let read = match std::fs::read_dir(dir) {
        Ok(read) => read,
        Err(e)
            if e.kind() == std::io::ErrorKind::NotFound
                || e.raw_os_error() == Some(libc::ENOTDIR) =>
        {
            return Ok(None);
        }
        Err(e) => return Err(e),
    };
    let mut out = Vec::new();
    for entry in read {
        let entry = entry?;
        let kind = match entry.file_type()? {
            t if t.is_dir() => Kind::Dir,
            t if t.is_file() => Kind::File,
            t if t.is_symlink() => Kind::Symlink,
            _ => Kind::Other,
        };
        out.push((entry.file_name(), kind));
    }
    Ok(Some(out))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A listing from a fixed table of `dir: entries` (a trailing `/` marks a directory, `@`
    /// a link).
    fn fs(
        table: &[(&str, &[&str])],
    ) -> impl FnMut(&Path) -> std::io::Result<Option<Vec<(OsString, Kind)>>> {
        let table: BTreeMap<PathBuf, Vec<(OsString, Kind)>> = table
            .iter()
            .map(|(dir, entries)| {
                let entries = entries
                    .iter()
                    .map(|e| match (e.strip_suffix('/'), e.strip_suffix('@')) {
                        (Some(d), _) => (OsString::from(d), Kind::Dir),
                        (_, Some(l)) => (OsString::from(l), Kind::Symlink),
                        _ => (OsString::from(e), Kind::File),
                    })
                    .collect();
                (PathBuf::from(dir), entries)
            })
            .collect();
        move |dir| Ok(table.get(dir).cloned())
    }

    fn mounts(plan: &[Mount]) -> Vec<String> {
        plan.iter()
            .map(|m| {
                format!(
                    "{} {}",
                    if m.writable { "rw" } else { "ro" },
                    m.path.display()
                )
            })
            .collect()
    }

    fn paths(v: &[&'static str]) -> Vec<&'static Path> {
        v.iter().map(|p| Path::new(*p)).collect()
    }

    #[test]
    fn a_directory_of_claimed_modules_is_one_mount() {
        let names: Vec<String> = (0..200).map(|i| format!("m{i:03}/")).collect();
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        let claims: Vec<PathBuf> = (0..200)
            .map(|i| PathBuf::from(format!("src/m{i:03}")))
            .collect();
        let plan = plan(
            Path::new("/ws"),
            claims.iter().map(PathBuf::as_path),
            fs(&[
                ("/ws", &["src/", "docs/", "README.md"]),
                ("/ws/src", &names),
            ]),
        )
        .unwrap();
        assert_eq!(mounts(&plan), ["ro /ws/src"]);
    }

    #[test]
    fn a_claimed_file_among_unclaimed_siblings_is_mounted_alone() {
        let plan = plan(
            Path::new("/ws"),
            paths(&["src/lib.rs", "docs"]),
            fs(&[
                ("/ws", &["src/", "docs/", "a.txt"]),
                ("/ws/src", &["lib.rs", "main.rs", "util/"]),
            ]),
        )
        .unwrap();
        assert_eq!(mounts(&plan), ["ro /ws/docs", "ro /ws/src/lib.rs"]);
    }

    #[test]
    fn a_claim_on_a_path_not_yet_there_makes_its_nearest_directory_read_only() {
        let plan = plan(
            Path::new("/ws"),
            paths(&["src/new.rs", "src/lib.rs", "gen/out/x"]),
            fs(&[
                ("/ws", &["src/", "gen/"]),
                ("/ws/src", &["lib.rs", "main.rs", "util/", "link@"]),
                ("/ws/gen", &["keep.txt"]),
            ]),
        )
        .unwrap();
        assert_eq!(
            mounts(&plan),
            [
                "ro /ws/gen",
                "rw /ws/gen/keep.txt",
                "ro /ws/src",
                "rw /ws/src/main.rs",
                "rw /ws/src/util",
            ]
        );
    }

    #[test]
    fn claims_under_a_claimed_tree_add_nothing_and_a_claimed_root_is_one_mount() {
        let under = plan(
            Path::new("/ws"),
            paths(&["src/a/b.rs", "src", "src/c/d"]),
            fs(&[("/ws", &["src/", "x"])]),
        )
        .unwrap();
        assert_eq!(mounts(&under), ["ro /ws/src"]);
        let root = plan(Path::new("/ws"), paths(&["", "src"]), fs(&[])).unwrap();
        assert_eq!(mounts(&root), ["ro /ws"]);
    }

    #[test]
    fn nested_directories_are_laid_out_each_on_their_own() {
        // Most of `a/` claimed (whole); in `a/keep/` one file among others (each entry).
        let plan = plan(
            Path::new("/ws"),
            paths(&["a/1", "a/2", "a/3", "a/4", "a/5", "a/keep/x"]),
            fs(&[
                ("/ws", &["a/"]),
                ("/ws/a", &["1", "2", "3", "4", "5", "keep/"]),
                ("/ws/a/keep", &["x", "y"]),
            ]),
        )
        .unwrap();
        assert_eq!(
            mounts(&plan),
            ["ro /ws/a", "rw /ws/a/keep", "ro /ws/a/keep/x"]
        );
    }

    #[test]
    fn a_directory_that_cannot_be_listed_stops_the_plan() {
        let err = plan(Path::new("/ws"), paths(&["src/x"]), |_| {
            Err(std::io::Error::from_raw_os_error(libc::EACCES))
        })
        .unwrap_err();
        assert_eq!(err.dir, Path::new("/ws"));
    }
}
