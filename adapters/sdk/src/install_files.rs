//! Reading and writing the files an install touches, with the rules every adapter shares:
//! a file whose bytes would not change is not rewritten (its mtime and inode stay), writes
//! replace a file atomically and keep its permissions, a symlinked config is written through
//! to its target, and a user's JSON is refused, never guessed at, when it cannot be read.

use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use crate::adapter::{AdapterError, AdapterErrorKind};
use crate::install::{ChangeAction, FileChange};
use crate::json_style::{JsonStyle, parse_json_document, render_json_document};

/// An I/O failure on `path`, as an adapter error.
pub fn io_error(path: &Path, action: &str, error: &io::Error) -> AdapterError {
    AdapterError::new(
        AdapterErrorKind::Io,
        format!("cannot {action} {}: {error}", path.display()),
    )
    .at(path)
}

/// The file's bytes, or `None` when it does not exist.
pub fn read_optional(path: &Path) -> Result<Option<Vec<u8>>, AdapterError> {
    match fs::read(path) {
        Ok(bytes) => Ok(Some(bytes)),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(io_error(path, "read", &e)),
    }
}

/// Writes `bytes` to `path` unless it already holds exactly them. Creates missing parent
/// directories. Returns `Created`, `Edited` or `Unchanged`.
pub fn write_if_changed(path: &Path, bytes: &[u8]) -> Result<ChangeAction, AdapterError> {
    let current = read_optional(path)?;
    if current.as_deref() == Some(bytes) {
        return Ok(ChangeAction::Unchanged);
    }
    write_atomic(path, bytes)?;
    Ok(if current.is_some() {
        ChangeAction::Edited
    } else {
        ChangeAction::Created
    })
}

/// Replaces `path` with `bytes` through a temporary file in the same directory. An existing
/// file keeps its permissions; a symlink keeps pointing where it did and its target is
/// written instead.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), AdapterError> {
    let target = match fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_symlink() => {
            fs::canonicalize(path).map_err(|e| io_error(path, "resolve the symlink", &e))?
        }
        _ => path.to_path_buf(),
    };
    let dir = target
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    fs::create_dir_all(dir).map_err(|e| io_error(dir, "create the directory", &e))?;
    let permissions = fs::metadata(&target).ok().map(|m| m.permissions());
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let temp = dir.join(format!(".{name}.acc-{}.tmp", std::process::id()));
    let written = (|| -> io::Result<()> {
        let mut file = fs::File::create(&temp)?;
        file.write_all(bytes)?;
        file.sync_all()?;
        if let Some(permissions) = permissions {
            fs::set_permissions(&temp, permissions)?;
        }
        fs::rename(&temp, &target)
    })();
    if let Err(e) = written {
        let _ = fs::remove_file(&temp);
        return Err(io_error(&target, "write", &e));
    }
    Ok(())
}

/// Removes a file; `false` when it was not there.
pub fn remove_file(path: &Path) -> Result<bool, AdapterError> {
    match fs::remove_file(path) {
        Ok(()) => Ok(true),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(false),
        Err(e) => Err(io_error(path, "remove", &e)),
    }
}

/// Removes `dir` when it is an empty directory (not a symlink); says whether it did.
pub fn remove_dir_if_empty(dir: &Path) -> bool {
    match fs::symlink_metadata(dir) {
        Ok(meta) if meta.is_dir() => fs::remove_dir(dir).is_ok(),
        _ => false,
    }
}

/// A user's JSON config as read: its value, its measured style, and whether it existed.
#[derive(Debug, Clone, PartialEq)]
pub struct JsonDocument {
    pub path: PathBuf,
    pub existed: bool,
    /// Always an object.
    pub value: Value,
    pub style: JsonStyle,
}

/// Reads a JSON config a client owns. A missing, empty or blank file reads as `{}` in the
/// style acc gives new files. Malformed JSON, JSON with comments and a top level that is
/// not an object are refused with the file, line and column (`MalformedUserFile`).
pub fn read_json(path: &Path) -> Result<JsonDocument, AdapterError> {
    let Some(bytes) = read_optional(path)? else {
        return Ok(JsonDocument {
            path: path.to_path_buf(),
            existed: false,
            value: Value::Object(Map::new()),
            style: JsonStyle::default(),
        });
    };
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Ok(JsonDocument {
            path: path.to_path_buf(),
            existed: true,
            value: Value::Object(Map::new()),
            style: JsonStyle::default(),
        });
    }
    let (value, style) = parse_json_document(&bytes, path).map_err(|e| {
        AdapterError::new(AdapterErrorKind::MalformedUserFile, e.to_string()).at(path)
    })?;
    if !value.is_object() {
        return Err(AdapterError::new(
            AdapterErrorKind::MalformedUserFile,
            format!(
                "{}:1:1: not valid here: the top level must be a JSON object",
                path.display()
            ),
        )
        .at(path));
    }
    Ok(JsonDocument {
        path: path.to_path_buf(),
        existed: true,
        value,
        style,
    })
}

impl JsonDocument {
    /// Writes `value` in this document's style, unless the bytes would not change.
    pub fn save(&self, value: &Value) -> Result<ChangeAction, AdapterError> {
        write_if_changed(&self.path, &render_json_document(value, &self.style))
    }
}

/// Reads a TOML config as a JSON value (tables become objects), or `None` when the file
/// does not exist. Malformed TOML is refused with the file, line and column.
pub fn read_toml(path: &Path) -> Result<Option<Value>, AdapterError> {
    let Some(bytes) = read_optional(path)? else {
        return Ok(None);
    };
    let text = String::from_utf8(bytes).map_err(|_| {
        AdapterError::new(
            AdapterErrorKind::MalformedUserFile,
            format!(
                "{}:1:1: not valid TOML: the file is not UTF-8 text",
                path.display()
            ),
        )
        .at(path)
    })?;
    parse_toml(&text, path).map(Some)
}

/// TOML text as a JSON value; `path` only names the file in the error.
pub fn parse_toml(text: &str, path: &Path) -> Result<Value, AdapterError> {
    let malformed =
        |message: String| AdapterError::new(AdapterErrorKind::MalformedUserFile, message).at(path);
    crate::toml_tables::validate_toml(text, path).map_err(|e| malformed(e.to_string()))?;
    let table: toml::Table = toml::from_str(text).map_err(|e| malformed(e.to_string()))?;
    serde_json::to_value(table).map_err(|e| malformed(e.to_string()))
}

/// `text` as a TOML string literal.
pub fn toml_string(text: &str) -> String {
    toml::Value::String(text.to_owned()).to_string()
}

/// Writes one file inside an acc-owned tree. The change is reported on the tree's path.
pub fn install_tree_file(
    tree: &Path,
    relative: &str,
    bytes: &[u8],
) -> Result<FileChange, AdapterError> {
    let action = write_if_changed(&tree.join(relative), bytes)?;
    Ok(FileChange {
        path: tree.to_path_buf(),
        action,
    })
}

/// Removes the files acc writes in an acc-owned directory tree, then the directory when
/// nothing else is left in it. A tree in `keep` (changed since install) is left whole.
/// Files acc did not write are never removed, so a direct caller without a `keep` list
/// still cannot lose the user's work.
pub fn uninstall_tree(
    tree: &Path,
    files: &[&str],
    keep: &[PathBuf],
) -> Result<Option<FileChange>, AdapterError> {
    if !tree.exists() {
        return Ok(None);
    }
    if keep.iter().any(|k| k == tree) {
        return Ok(Some(FileChange {
            path: tree.to_path_buf(),
            action: ChangeAction::Kept,
        }));
    }
    let mut removed_any = false;
    for file in files {
        removed_any |= remove_file(&tree.join(file))?;
    }
    let gone = remove_dir_if_empty(tree);
    let action = match (gone, removed_any) {
        (true, _) => ChangeAction::Removed,
        (false, true) => ChangeAction::Edited,
        (false, false) => ChangeAction::Kept,
    };
    Ok(Some(FileChange {
        path: tree.to_path_buf(),
        action,
    }))
}

/// Removes a single-file acc-owned tree unless it is in `keep`.
pub fn uninstall_file_tree(
    path: &Path,
    keep: &[PathBuf],
) -> Result<Option<FileChange>, AdapterError> {
    if !path.exists() {
        return Ok(None);
    }
    let action = if keep.iter().any(|k| k == path) {
        ChangeAction::Kept
    } else {
        remove_file(path)?;
        ChangeAction::Removed
    };
    Ok(Some(FileChange {
        path: path.to_path_buf(),
        action,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::{MetadataExt, PermissionsExt};

    #[test]
    fn unchanged_bytes_are_not_rewritten() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a/b/c.json");
        assert_eq!(
            write_if_changed(&path, b"one").unwrap(),
            ChangeAction::Created
        );
        let inode = fs::metadata(&path).unwrap().ino();
        assert_eq!(
            write_if_changed(&path, b"one").unwrap(),
            ChangeAction::Unchanged
        );
        assert_eq!(fs::metadata(&path).unwrap().ino(), inode);
        assert_eq!(
            write_if_changed(&path, b"two").unwrap(),
            ChangeAction::Edited
        );
        assert_eq!(fs::read(&path).unwrap(), b"two");
    }

    #[test]
    fn writes_keep_permissions_and_symlinks() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("dotfiles-settings.json");
        fs::write(&real, "{}").unwrap();
        fs::set_permissions(&real, fs::Permissions::from_mode(0o600)).unwrap();
        let link = dir.path().join("settings.json");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        write_atomic(&link, b"{\"a\":1}").unwrap();
        assert!(
            fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert_eq!(fs::read(&real).unwrap(), b"{\"a\":1}");
        assert_eq!(
            fs::metadata(&real).unwrap().permissions().mode() & 0o777,
            0o600
        );
        let leftovers: Vec<_> = fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(leftovers.len(), 2, "{leftovers:?}");
    }

    #[test]
    fn json_reads_refuse_with_file_line_and_column() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("settings.json");
        fs::write(&path, "{\n  \"a\": 1,\n  // note\n}").unwrap();
        let err = read_json(&path).unwrap_err();
        assert_eq!(err.kind, AdapterErrorKind::MalformedUserFile);
        assert!(
            err.message
                .starts_with(&format!("{}:3:3: not valid JSON", path.display())),
            "{}",
            err.message
        );
        fs::write(&path, "[1]").unwrap();
        let err = read_json(&path).unwrap_err();
        assert!(
            err.message.contains("must be a JSON object"),
            "{}",
            err.message
        );
        fs::write(&path, " \n").unwrap();
        let doc = read_json(&path).unwrap();
        assert!(doc.existed && doc.value == Value::Object(Map::new()));
        let missing = read_json(&dir.path().join("none.json")).unwrap();
        assert!(!missing.existed);
    }

    #[test]
    fn toml_reads_as_json_and_strings_round_trip() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("config.toml");
        assert_eq!(read_toml(&path).unwrap(), None);
        fs::write(
            &path,
            "# c\n[hooks.state.\"/h/hooks.json:stop:0:0\"]\ntrusted_hash = \"x\"\n",
        )
        .unwrap();
        let value = read_toml(&path).unwrap().unwrap();
        assert_eq!(
            value["hooks"]["state"]["/h/hooks.json:stop:0:0"]["trusted_hash"],
            "x"
        );
        fs::write(&path, "a = 1\nb = = 2\n").unwrap();
        let err = read_toml(&path).unwrap_err();
        assert_eq!(err.kind, AdapterErrorKind::MalformedUserFile);
        assert!(
            err.message.starts_with(&format!("{}:2:", path.display())),
            "{}",
            err.message
        );
        let hostile = r#"/a "b" \c 'd'"#;
        let parsed: toml::Table = toml::from_str(&format!("k = {}", toml_string(hostile))).unwrap();
        assert_eq!(parsed["k"].as_str(), Some(hostile));
    }

    #[test]
    fn trees_lose_only_acc_files_and_honour_keep() {
        let dir = tempfile::tempdir().unwrap();
        let tree = dir.path().join("skills/acc");
        install_tree_file(&tree, "SKILL.md", b"x").unwrap();
        fs::write(tree.join("notes.md"), "mine").unwrap();
        let kept = uninstall_tree(&tree, &["SKILL.md"], std::slice::from_ref(&tree))
            .unwrap()
            .unwrap();
        assert_eq!(kept.action, ChangeAction::Kept);
        assert!(tree.join("SKILL.md").exists());
        let partial = uninstall_tree(&tree, &["SKILL.md"], &[]).unwrap().unwrap();
        assert_eq!(partial.action, ChangeAction::Edited);
        assert!(tree.join("notes.md").exists() && !tree.join("SKILL.md").exists());
        fs::remove_file(tree.join("notes.md")).unwrap();
        install_tree_file(&tree, "SKILL.md", b"x").unwrap();
        let gone = uninstall_tree(&tree, &["SKILL.md"], &[]).unwrap().unwrap();
        assert_eq!(gone.action, ChangeAction::Removed);
        assert!(!tree.exists());
        assert_eq!(uninstall_tree(&tree, &["SKILL.md"], &[]).unwrap(), None);
    }
}
