//! Writing a file whole or not at all: the bytes go to a temporary file beside it, which is
//! renamed over it, so a reader (another hook, a crashed run's successor) never sees half a
//! file.
//!
//! The temporary name carries the process id and the clock's nanoseconds, and is created
//! fresh: two writers of one file at once (two hooks of one conversation) never share it.

use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

/// How to write: the file's mode and whether its bytes reach the disk before the rename.
#[derive(Debug, Clone, Copy, Default)]
pub struct AtomicWrite {
    mode: Option<u32>,
    sync: bool,
}

impl AtomicWrite {
    /// The process umask's mode, no fsync (as `std::fs::write`).
    pub fn new() -> AtomicWrite {
        AtomicWrite::default()
    }

    /// Creates the file with `mode` (before the umask), e.g. `0o600` for a private file.
    pub fn mode(self, mode: u32) -> AtomicWrite {
        AtomicWrite {
            mode: Some(mode),
            ..self
        }
    }

    /// The bytes are synced to disk before the rename: after a crash the file holds either
    /// the old bytes or the new ones, never an empty file.
    pub fn synced(self) -> AtomicWrite {
        AtomicWrite { sync: true, ..self }
    }

    /// Replaces `path` with `bytes`. On an error the temporary file is removed and `path` is
    /// left as it was.
    pub fn write(self, path: &Path, bytes: &[u8]) -> std::io::Result<()> {
        self.write_parts(path, &[bytes])
    }

    /// Replaces `path` with `parts` one after the other, as [`AtomicWrite::write`] does
    /// (without joining them first).
    pub fn write_parts(self, path: &Path, parts: &[&[u8]]) -> std::io::Result<()> {
        let temp = temp_path(path);
        let mut options = std::fs::OpenOptions::new();
        options.write(true).create_new(true);
        if let Some(mode) = self.mode {
            options.mode(mode);
        }
        let written = options
            .open(&temp)
            .and_then(|mut file| {
                for bytes in parts {
                    file.write_all(bytes)?;
                }
                if self.sync {
                    file.sync_all()?;
                }
                Ok(())
            })
            .and_then(|()| std::fs::rename(&temp, path));
        if written.is_err() {
            let _ = std::fs::remove_file(&temp);
        }
        written
    }
}

/// `.<name>.<pid>.<nanos>.tmp` beside `path`: hidden, and no reader's name for a real file.
fn temp_path(path: &Path) -> std::path::PathBuf {
    let dir = path.parent().unwrap_or(Path::new("."));
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    dir.join(format!(".{name}.{}.{nanos}.tmp", std::process::id()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn replaces_the_file_whole_and_leaves_no_temporary_behind() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("record.json");
        std::fs::write(&path, b"old").unwrap();
        AtomicWrite::new().synced().write(&path, b"new\n").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"new\n");
        let names: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["record.json"]);
    }

    #[test]
    fn a_private_file_gets_its_mode() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("backup");
        AtomicWrite::new().mode(0o600).write(&path, b"x").unwrap();
        let mode = std::fs::metadata(&path).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
    }

    #[test]
    fn a_failed_rename_keeps_the_old_file_and_removes_the_temporary() {
        let dir = tempfile::tempdir().unwrap();
        // A directory cannot be replaced by a file: the rename fails.
        let path = dir.path().join("occupied");
        std::fs::create_dir(&path).unwrap();
        std::fs::write(path.join("inside"), b"kept").unwrap();
        assert!(AtomicWrite::new().write(&path, b"x").is_err());
        assert_eq!(std::fs::read(path.join("inside")).unwrap(), b"kept");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }
}
