//! Git facts read straight from `.git` files: no `git` process is spawned, which keeps
//! every `acc` invocation cheap. All worktrees of a repository share its common directory.

use serde::Serialize;
use std::path::{Path, PathBuf};

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GitInfo {
    /// The real path of the repository's common directory (shared by all worktrees).
    pub common_dir: PathBuf,
    /// The real path of the worktree that contains the start directory.
    pub worktree_root: PathBuf,
    /// The checked-out branch, `None` when HEAD is detached.
    pub branch: Option<String>,
    /// The detached HEAD commit, when HEAD names no branch.
    pub head: Option<String>,
}

/// Finds the repository containing `start` (a real path). `None` when there is none or its
/// files cannot be read: discovery then degrades to the directory itself.
pub fn probe(start: &Path) -> Option<GitInfo> {
    let mut dir = Some(start);
    while let Some(d) = dir {
        let dot_git = d.join(".git");
        if let Ok(kind) = crate::paths::file_kind(&dot_git) {
            return from_dot_git(d, &dot_git, kind == crate::paths::FileKind::Dir);
        }
        dir = d.parent();
    }
    None
}

/// The real root of every worktree of the repository whose common directory is
/// `common_dir`: the main worktree (unless the repository is bare) and each linked one,
/// whose `worktrees/<name>/gitdir` names its `.git` file. Entries that cannot be read or
/// whose worktree is gone are skipped: a stale entry names no files.
pub fn worktree_roots(common_dir: &Path) -> Vec<PathBuf> {
    let mut roots = Vec::new();
    if let Some(main) = common_dir.parent()
        && crate::paths::canonicalize(&main.join(".git"))
            .ok()
            .as_deref()
            == Some(common_dir)
    {
        roots.push(main.to_path_buf());
    }
    let Ok(entries) = std::fs::read_dir(common_dir.join("worktrees")) else {
        return roots;
    };
    for entry in entries.flatten() {
        let Ok(text) = std::fs::read_to_string(entry.path().join("gitdir")) else {
            continue;
        };
        let dot_git = entry.path().join(text.trim());
        if let Some(root) = dot_git
            .parent()
            .and_then(|r| crate::paths::canonicalize(r).ok())
            && !roots.contains(&root)
        {
            roots.push(root);
        }
    }
    roots
}

fn from_dot_git(worktree: &Path, dot_git: &Path, is_dir: bool) -> Option<GitInfo> {
    let git_dir = if is_dir {
        dot_git.to_path_buf()
    } else {
        // A linked worktree or submodule: `.git` is a file `gitdir: <path>`.
        let text = std::fs::read_to_string(dot_git).ok()?;
        let target = text.lines().next()?.strip_prefix("gitdir:")?.trim();
        worktree.join(target)
    };
    let git_dir = crate::paths::canonicalize(&git_dir).ok()?;
    let head = read_regular(&git_dir.join("HEAD"))?;
    let common_dir = match std::fs::read_to_string(git_dir.join("commondir")) {
        Ok(rel) => crate::paths::canonicalize(&git_dir.join(rel.trim())).ok()?,
        Err(_) => git_dir.clone(),
    };
    let head = head.trim();
    let (branch, head) = match head.strip_prefix("ref:") {
        Some(r) => {
            let r = r.trim();
            (
                Some(r.strip_prefix("refs/heads/").unwrap_or(r).to_string()),
                None,
            )
        }
        None => (None, Some(head.to_string())),
    };
    Some(GitInfo {
        common_dir,
        worktree_root: worktree.to_path_buf(),
        branch,
        head,
    })
}

/// The text of `path` when it is a regular file (through links, as `is_file` judged it),
/// looked at and read through one descriptor (every guarded call reads `HEAD`). Opened
/// without blocking: a FIFO put in its place is refused, never waited on.
fn read_regular(path: &Path) -> Option<String> {
    use std::io::Read;
    use std::os::unix::fs::OpenOptionsExt;
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
        .ok()?;
    let meta = file.metadata().ok()?;
    if !meta.is_file() {
        return None;
    }
    // Sized from the descriptor already asked (`File`'s own `read_to_string` asks again
    // and seeks); one byte over, so the read that finds the end needs no growth.
    let mut text = String::with_capacity(meta.len() as usize + 1);
    (&file).take(u64::MAX).read_to_string(&mut text).ok()?;
    Some(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fake_repo(root: &Path, branch: &str) {
        let g = root.join(".git");
        std::fs::create_dir_all(g.join("worktrees/wt")).unwrap();
        std::fs::write(g.join("HEAD"), format!("ref: refs/heads/{branch}\n")).unwrap();
    }

    #[test]
    fn finds_the_repository_from_a_subdirectory() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        fake_repo(&root, "main");
        std::fs::create_dir_all(root.join("src/deep")).unwrap();
        let info = probe(&root.join("src/deep")).unwrap();
        assert_eq!(info.worktree_root, root);
        assert_eq!(info.common_dir, root.join(".git"));
        assert_eq!(info.branch.as_deref(), Some("main"));
    }

    #[test]
    fn linked_worktrees_share_the_common_dir() {
        let dir = tempfile::tempdir().unwrap();
        let base = dir.path().canonicalize().unwrap();
        let main = base.join("main");
        std::fs::create_dir_all(&main).unwrap();
        fake_repo(&main, "main");
        let wt_git = main.join(".git/worktrees/wt");
        std::fs::write(wt_git.join("HEAD"), "0123abcd\n").unwrap();
        std::fs::write(wt_git.join("commondir"), "../..\n").unwrap();
        let wt = base.join("wt");
        std::fs::create_dir_all(&wt).unwrap();
        std::fs::write(wt.join(".git"), format!("gitdir: {}\n", wt_git.display())).unwrap();
        let a = probe(&main).unwrap();
        let b = probe(&wt).unwrap();
        assert_eq!(a.common_dir, b.common_dir);
        assert_eq!(b.worktree_root, wt);
        assert_eq!(b.branch, None);
        assert_eq!(b.head.as_deref(), Some("0123abcd"));
    }

    #[test]
    fn every_worktree_of_a_repository_is_listed() {
        let dir = tempfile::tempdir().unwrap();
        let base = dir.path().canonicalize().unwrap();
        let main = base.join("main");
        std::fs::create_dir_all(&main).unwrap();
        fake_repo(&main, "main");
        let wt = base.join("wt");
        std::fs::create_dir_all(&wt).unwrap();
        std::fs::write(
            main.join(".git/worktrees/wt/gitdir"),
            format!("{}\n", wt.join(".git").display()),
        )
        .unwrap();
        std::fs::create_dir_all(main.join(".git/worktrees/gone")).unwrap();
        std::fs::write(
            main.join(".git/worktrees/gone/gitdir"),
            "/nowhere/at/all/.git\n",
        )
        .unwrap();
        assert_eq!(worktree_roots(&main.join(".git")), [main.clone(), wt]);
        // A bare repository has no main worktree.
        let bare = base.join("bare.git");
        std::fs::create_dir_all(&bare).unwrap();
        assert!(worktree_roots(&bare).is_empty());
    }

    #[test]
    fn a_head_that_is_no_regular_file_is_no_repository() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::create_dir_all(root.join(".git/HEAD")).unwrap();
        assert!(probe(&root).is_none());
        std::fs::remove_dir(root.join(".git/HEAD")).unwrap();
        // A FIFO is refused at once, not waited on for a writer.
        let fifo =
            std::ffi::CString::new(root.join(".git/HEAD").into_os_string().into_encoded_bytes())
                .unwrap();
        // SAFETY: mkfifo reads the NUL-terminated path only.
        assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o600) }, 0);
        assert!(probe(&root).is_none());
        std::fs::remove_file(root.join(".git/HEAD")).unwrap();
        // Through a link to a regular file, as before.
        std::fs::write(root.join("elsewhere"), "ref: refs/heads/linked\n").unwrap();
        std::os::unix::fs::symlink(root.join("elsewhere"), root.join(".git/HEAD")).unwrap();
        assert_eq!(probe(&root).unwrap().branch.as_deref(), Some("linked"));
    }

    #[test]
    fn no_repository_is_none() {
        let dir = tempfile::tempdir().unwrap();
        // A broken .git file degrades to None instead of an error.
        std::fs::write(dir.path().join(".git"), "garbage").unwrap();
        assert!(probe(&dir.path().canonicalize().unwrap()).is_none());
    }
}
