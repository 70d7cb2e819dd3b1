//! The original bytes of every user file acc edits, kept under
//! `<data home>/acc/install-backups/<adapter>/` before the first edit, so uninstall can give
//! the file back byte for byte (or delete it, when it did not exist before acc).

use std::fs;
use std::path::{Path, PathBuf};

use acc_sdk::install_files::{remove_file, write_atomic};

use super::digest::sha256_hex;
use super::error::{InstallError, InstallErrorKind};
use super::record::{Original, create_private_dir};

pub const BACKUPS_DIR: &str = "install-backups";

/// `<acc data dir>/install-backups/<adapter>`.
pub fn adapter_dir(acc_data_dir: &Path, adapter_id: &str) -> PathBuf {
    acc_data_dir.join(BACKUPS_DIR).join(adapter_id)
}

/// Keeps `path`'s current bytes (or its absence) as its original.
pub fn capture(
    acc_data_dir: &Path,
    adapter_id: &str,
    path: &Path,
) -> Result<Original, InstallError> {
    let bytes = match fs::read(path) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Ok(Original {
                path: path.to_path_buf(),
                existed: false,
                backup: None,
                exact: true,
            });
        }
        Err(e) => return Err(InstallError::io(path, "read", &e)),
    };
    let name = format!(
        "{}.orig",
        &sha256_hex(path.to_string_lossy().as_bytes())[..16]
    );
    let relative = format!("{BACKUPS_DIR}/{adapter_id}/{name}");
    let dir = adapter_dir(acc_data_dir, adapter_id);
    create_private_dir(&dir)?;
    let target = dir.join(&name);
    write_private(&target, &bytes)?;
    Ok(Original {
        path: path.to_path_buf(),
        existed: true,
        backup: Some(relative),
        exact: true,
    })
}

fn write_private(path: &Path, bytes: &[u8]) -> Result<(), InstallError> {
    crate::atomic_write::AtomicWrite::new()
        .mode(0o600)
        .synced()
        .write(path, bytes)
        .map_err(|e| InstallError::io(path, "keep the original of a config file in", &e))
}

/// What restoring did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Restored {
    /// The original bytes are back.
    Bytes,
    /// The file did not exist before acc and is gone again.
    Deleted,
}

/// Puts the original back: its bytes, or its absence.
pub fn restore(acc_data_dir: &Path, original: &Original) -> Result<Restored, InstallError> {
    match (&original.backup, original.existed) {
        (Some(backup), true) => {
            let source = acc_data_dir.join(backup);
            let bytes = fs::read(&source).map_err(|e| {
                InstallError::new(
                    InstallErrorKind::RecordCorrupt,
                    format!(
                        "the original of {} should be kept in {} but cannot be read ({e}); acc leaves the file as it is",
                        original.path.display(),
                        source.display()
                    ),
                )
                .at(&source)
            })?;
            write_atomic(&original.path, &bytes).map_err(|e| {
                InstallError::new(InstallErrorKind::Io, e.to_string()).at(&original.path)
            })?;
            Ok(Restored::Bytes)
        }
        _ => {
            remove_file(&original.path).map_err(|e| {
                InstallError::new(InstallErrorKind::Io, e.to_string()).at(&original.path)
            })?;
            Ok(Restored::Deleted)
        }
    }
}

/// Drops an adapter's kept originals (after a complete uninstall).
pub fn discard(acc_data_dir: &Path, adapter_id: &str) {
    let dir = adapter_dir(acc_data_dir, adapter_id);
    let _ = fs::remove_dir_all(&dir);
    let _ = fs::remove_dir(acc_data_dir.join(BACKUPS_DIR));
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn captures_and_restores_bytes_and_absence() {
        let dir = tempfile::tempdir().unwrap();
        let data = dir.path().join("data/acc");
        let file = dir.path().join("home/settings.json");
        fs::create_dir_all(file.parent().unwrap()).unwrap();
        fs::write(&file, b"{\r\n\t\"a\": 1\r\n}").unwrap();
        let original = capture(&data, "claude-code", &file).unwrap();
        assert!(original.existed && original.exact);
        let kept = data.join(original.backup.as_ref().unwrap());
        assert_eq!(
            fs::metadata(&kept).unwrap().permissions().mode() & 0o777,
            0o600
        );
        fs::write(&file, b"changed").unwrap();
        assert_eq!(restore(&data, &original).unwrap(), Restored::Bytes);
        assert_eq!(fs::read(&file).unwrap(), b"{\r\n\t\"a\": 1\r\n}");

        let absent = dir.path().join("home/new.json");
        let original = capture(&data, "claude-code", &absent).unwrap();
        assert!(!original.existed && original.backup.is_none());
        fs::write(&absent, b"{}").unwrap();
        assert_eq!(restore(&data, &original).unwrap(), Restored::Deleted);
        assert!(!absent.exists());

        discard(&data, "claude-code");
        assert!(!data.join(BACKUPS_DIR).exists());
    }
}
