//! acc files the user changed since acc wrote them, kept through a re-install.
//!
//! A re-install must not overwrite a user's edit to a file or tree acc owns (uninstall keeps
//! those too), yet the adapter's own install writes, or refuses, whatever sits at that path.
//! So the edited artifact is renamed to a sibling for the adapter's plan and install, and
//! renamed back over what the adapter wrote: same bytes, same inode, same mtime. Renames stay
//! in one directory, so they are atomic; a run that stops in between leaves the edit next to
//! its place, under [`aside_path`], and never deletes it.

use std::fs;
use std::path::{Path, PathBuf};

use super::digest::artifact_sha256;
use super::error::{InstallError, InstallErrorKind};
use super::record::{InstallEntry, RecordedKind};

/// The trees of `entry` that exist and differ from what acc recorded writing.
pub fn changed_trees(entry: Option<&InstallEntry>) -> Result<Vec<PathBuf>, InstallError> {
    let mut out = Vec::new();
    for artifact in entry
        .into_iter()
        .flat_map(|e| &e.artifacts)
        .filter(|a| a.kind == RecordedKind::Tree)
    {
        let current = artifact_sha256(&artifact.path)
            .map_err(|e| InstallError::io(&artifact.path, "read", &e))?;
        if current.is_some() && current != artifact.sha256 {
            out.push(artifact.path.clone());
        }
    }
    Ok(out)
}

/// Where an edited artifact waits while the adapter installs: `.<name>.acc-kept` beside it.
pub fn aside_path(path: &Path) -> PathBuf {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    path.with_file_name(format!(".{name}.acc-kept"))
}

/// One edited artifact moved out of the adapter's way; put back when [`SetAside::restore`]
/// runs or, failing that, when dropped.
#[derive(Debug)]
pub struct SetAside {
    path: PathBuf,
    aside: PathBuf,
    restored: bool,
}

impl SetAside {
    pub fn new(path: &Path) -> Result<SetAside, InstallError> {
        let aside = aside_path(path);
        if fs::symlink_metadata(&aside).is_ok() {
            return Err(InstallError::new(
                InstallErrorKind::Conflict,
                format!(
                    "{} is left from an interrupted install and holds your edit of {}; move it back or away and run the command again",
                    aside.display(),
                    path.display()
                ),
            )
            .at(&aside));
        }
        fs::rename(path, &aside).map_err(|e| InstallError::io(path, "move aside", &e))?;
        Ok(SetAside {
            path: path.to_path_buf(),
            aside,
            restored: false,
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Removes what the adapter wrote at the path and puts the user's version back.
    pub fn restore(&mut self) -> Result<(), InstallError> {
        if self.restored {
            return Ok(());
        }
        let removed = match fs::symlink_metadata(&self.path) {
            Ok(meta) if meta.is_dir() => fs::remove_dir_all(&self.path),
            Ok(_) => fs::remove_file(&self.path),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
            Err(e) => Err(e),
        };
        removed.map_err(|e| InstallError::io(&self.path, "remove", &e))?;
        fs::rename(&self.aside, &self.path)
            .map_err(|e| InstallError::io(&self.aside, "move back", &e))?;
        self.restored = true;
        Ok(())
    }
}

impl Drop for SetAside {
    fn drop(&mut self) {
        let _ = self.restore();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::MetadataExt;

    #[test]
    fn a_file_and_a_tree_come_back_as_they_were_over_what_was_written_meanwhile() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("acc.json");
        fs::write(&file, "{} // mine\n").unwrap();
        let inode = fs::metadata(&file).unwrap().ino();
        let tree = dir.path().join("skills/acc");
        fs::create_dir_all(&tree).unwrap();
        fs::write(tree.join("SKILL.md"), "edited\n").unwrap();

        let mut kept_file = SetAside::new(&file).unwrap();
        let kept_tree = SetAside::new(&tree).unwrap();
        assert!(!file.exists() && !tree.exists());
        fs::write(&file, "{}\n").unwrap();
        fs::create_dir_all(&tree).unwrap();
        fs::write(tree.join("SKILL.md"), "acc's\n").unwrap();
        kept_file.restore().unwrap();
        drop(kept_tree);

        assert_eq!(fs::read_to_string(&file).unwrap(), "{} // mine\n");
        assert_eq!(fs::metadata(&file).unwrap().ino(), inode);
        assert_eq!(
            fs::read_to_string(tree.join("SKILL.md")).unwrap(),
            "edited\n"
        );
        let names: Vec<_> = fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names.len(), 2, "no leftovers: {names:?}");
    }

    #[test]
    fn a_leftover_aside_is_never_overwritten() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("acc.json");
        fs::write(&file, "new edit").unwrap();
        fs::write(aside_path(&file), "older edit").unwrap();
        assert!(SetAside::new(&file).is_err());
        assert_eq!(fs::read_to_string(aside_path(&file)).unwrap(), "older edit");
        assert_eq!(fs::read_to_string(&file).unwrap(), "new edit");
    }
}
