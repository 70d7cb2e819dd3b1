//! An install over several adapters is all or nothing: before the first write, the bytes of
//! every path the run may change are kept in memory, and a run that fails part way puts
//! each one back as it was and removes the directories it created.
//!
//! The paths are few and small (a client's config, acc's skill tree, the install record
//! and the kept originals), so a copy in memory is the simplest journal that cannot itself
//! be left behind. A path that already holds what was kept is not touched, so a rollback
//! rewrites only what the run changed.

use std::fs;
use std::path::{Path, PathBuf};

use acc_sdk::install_files::write_atomic;

/// What was at a path.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Snapshot {
    Absent,
    File {
        bytes: Vec<u8>,
        mode: u32,
    },
    Dir(Vec<(PathBuf, Snapshot)>),
    /// A symbolic link stays a link; acc writes through it, so what it points at is kept.
    Link {
        target: PathBuf,
        resolved: Box<Snapshot>,
    },
}

/// Where a link at `path` pointing at `target` leads.
fn resolve(path: &Path, target: &Path) -> PathBuf {
    path.parent().unwrap_or(Path::new("/")).join(target)
}

impl Snapshot {
    fn of(path: &Path) -> std::io::Result<Snapshot> {
        use std::os::unix::fs::PermissionsExt;
        let meta = match fs::symlink_metadata(path) {
            Ok(meta) => meta,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Snapshot::Absent),
            Err(e) => return Err(e),
        };
        if meta.file_type().is_symlink() {
            let target = fs::read_link(path)?;
            let resolved = Box::new(Snapshot::of(&resolve(path, &target))?);
            return Ok(Snapshot::Link { target, resolved });
        }
        if meta.is_dir() {
            let mut entries = Vec::new();
            let mut names: Vec<_> = fs::read_dir(path)?
                .map(|e| e.map(|e| e.file_name()))
                .collect::<Result<_, _>>()?;
            names.sort();
            for name in names {
                entries.push((PathBuf::from(&name), Snapshot::of(&path.join(&name))?));
            }
            return Ok(Snapshot::Dir(entries));
        }
        Ok(Snapshot::File {
            bytes: fs::read(path)?,
            mode: fs::metadata(path)?.permissions().mode(),
        })
    }

    fn restore(&self, path: &Path) -> std::io::Result<()> {
        use std::os::unix::fs::PermissionsExt;
        if Snapshot::of(path).ok().as_ref() == Some(self) {
            return Ok(());
        }
        match self {
            Snapshot::Absent => remove_any(path),
            Snapshot::Link { target, resolved } => {
                if fs::read_link(path).ok().as_ref() != Some(target) {
                    remove_any(path)?;
                    std::os::unix::fs::symlink(target, path)?;
                }
                resolved.restore(&resolve(path, target))
            }
            Snapshot::File { bytes, mode } => {
                remove_any(path)?;
                write_atomic(path, bytes).map_err(|e| std::io::Error::other(e.message))?;
                fs::set_permissions(path, fs::Permissions::from_mode(*mode))
            }
            Snapshot::Dir(entries) => {
                if !fs::symlink_metadata(path).is_ok_and(|m| m.is_dir()) {
                    remove_any(path)?;
                    fs::create_dir_all(path)?;
                }
                for name in fs::read_dir(path)? {
                    let name = PathBuf::from(name?.file_name());
                    if !entries.iter().any(|(n, _)| *n == name) {
                        remove_any(&path.join(&name))?;
                    }
                }
                for (name, snapshot) in entries {
                    snapshot.restore(&path.join(name))?;
                }
                Ok(())
            }
        }
    }
}

fn remove_any(path: &Path) -> std::io::Result<()> {
    match fs::symlink_metadata(path) {
        Ok(meta) if meta.is_dir() => fs::remove_dir_all(path),
        Ok(_) => fs::remove_file(path),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(e),
    }
}

/// The kept state of every path a run may change.
#[derive(Debug, Default)]
pub struct Journal {
    kept: Vec<(PathBuf, Snapshot)>,
    /// Directories that did not exist when the journal was taken, deepest first.
    missing_dirs: Vec<PathBuf>,
}

impl Journal {
    /// Keeps what is at each of `paths` now (a directory with everything in it).
    pub fn capture(paths: &[PathBuf]) -> Result<Journal, super::InstallError> {
        let mut kept = Vec::new();
        for path in paths {
            if kept.iter().any(|(p, _)| p == path) {
                continue;
            }
            let snapshot = Snapshot::of(path)
                .map_err(|e| super::InstallError::io(path, "read before installing", &e))?;
            kept.push((path.clone(), snapshot));
        }
        let mut missing_dirs = super::directories::missing_ancestors(paths);
        missing_dirs.sort_by_key(|d| std::cmp::Reverse(d.components().count()));
        Ok(Journal { kept, missing_dirs })
    }

    /// Puts every path back; the paths that could not be put back, with why.
    pub fn roll_back(&self) -> Vec<String> {
        let mut failed = Vec::new();
        for (path, snapshot) in self.kept.iter().rev() {
            if let Err(e) = snapshot.restore(path) {
                failed.push(format!("{} ({e})", path.display()));
            }
        }
        super::directories::remove_empty(&self.missing_dirs);
        failed
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_trees_and_absences_come_back_and_new_directories_go() {
        let dir = tempfile::tempdir().unwrap();
        let config = dir.path().join("config.json");
        fs::write(&config, b"{\r\n}").unwrap();
        let tree = dir.path().join("skills/acc");
        fs::create_dir_all(&tree).unwrap();
        fs::write(tree.join("SKILL.md"), "old").unwrap();
        let absent = dir.path().join("new/deeper/hooks.json");
        let journal = Journal::capture(&[config.clone(), tree.clone(), absent.clone()]).unwrap();

        fs::write(&config, b"{}\n").unwrap();
        fs::write(tree.join("SKILL.md"), "new").unwrap();
        fs::write(tree.join("extra.md"), "x").unwrap();
        fs::create_dir_all(absent.parent().unwrap()).unwrap();
        fs::write(&absent, b"{}").unwrap();

        assert!(journal.roll_back().is_empty());
        assert_eq!(fs::read(&config).unwrap(), b"{\r\n}");
        assert_eq!(fs::read_to_string(tree.join("SKILL.md")).unwrap(), "old");
        assert!(!tree.join("extra.md").exists());
        assert!(!dir.path().join("new").exists());
    }
}
