//! `--adapter VALUE`, read the same way by every subcommand: a shipped adapter's id
//! (`codex`) or an adapter directory (one holding `certification.json`, such as
//! `adapters/codex` or `fixtures/sdk/valid-basic`).
//!
//! A bare word that is a shipped id means that adapter even when the current directory
//! holds a directory of the same name (write `./codex` for the directory): the same command
//! line then means the same thing wherever it is typed. Anything else is a path.

use std::path::{Path, PathBuf};

use acc_sdk::define::{Adapter, AdapterDir};
use acc_sdk::error::{CERTIFICATION_FILE, MANIFEST_FILE};

pub use crate::setup::shipped_ids;
use crate::setup::{SetupError, resolve_root};

/// The help text every `--adapter` carries.
pub const ADAPTER_HELP: &str = "A shipped adapter's id (claude-code, codex, ...) or an adapter directory (one holding certification.json, such as adapters/codex); write ./NAME for a directory named like an id";

/// What `--adapter` named.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AdapterArg {
    /// A shipped adapter, by id.
    Shipped(String),
    /// A directory holding `certification.json`, as given.
    Directory(PathBuf),
}

fn is_bare_word(value: &str) -> bool {
    !value.is_empty() && !value.contains(std::path::MAIN_SEPARATOR) && !value.starts_with('.')
}

/// Reads `value`: a shipped id, else an existing directory holding `certification.json`
/// (or `adapter.json`).
pub fn parse(value: &str) -> Result<AdapterArg, SetupError> {
    if is_bare_word(value) && acc_runtime::registry::find(value).is_some() {
        return Ok(AdapterArg::Shipped(value.to_owned()));
    }
    let dir = PathBuf::from(value);
    if !dir.is_dir() {
        return Err(SetupError::UnknownAdapter {
            id: value.to_owned(),
        });
    }
    // One of the two files is enough to be an adapter directory: `validate` then names the
    // other as missing, which says more than a refusal would.
    if !dir.join(CERTIFICATION_FILE).is_file() && !dir.join(MANIFEST_FILE).is_file() {
        return Err(SetupError::NotAnAdapterDir { dir });
    }
    Ok(AdapterArg::Directory(dir))
}

/// `value` as an adapter directory: a directory as given, or a shipped id's `adapters/<id>`
/// under the repository root (`root`, else the repository at or above the current
/// directory), shown relative to the current directory when inside it.
pub fn adapter_dir(value: &str, root: Option<&Path>) -> Result<PathBuf, SetupError> {
    match parse(value)? {
        AdapterArg::Directory(dir) => Ok(dir),
        AdapterArg::Shipped(id) => {
            let root = resolve_root(root)?;
            let dir = root.join("adapters").join(&id);
            if !dir.join(CERTIFICATION_FILE).is_file() {
                return Err(SetupError::NotAnAdapterDir { dir });
            }
            let cwd = std::env::current_dir().unwrap_or_default();
            Ok(match dir.strip_prefix(&cwd) {
                Ok(rel) if !rel.as_os_str().is_empty() => rel.to_path_buf(),
                _ => dir,
            })
        }
    }
}

/// `value` as a shipped adapter's code, for the commands that install and run it
/// (`diff-install`, `wire`). A directory stands for the shipped adapter its `adapter.json`
/// names, and only when that manifest is the one this build embeds: install runs the built
/// code, so a different manifest on disk would be judged by code that does not read it.
pub fn shipped_adapter(value: &str) -> Result<Adapter, SetupError> {
    let dir = match parse(value)? {
        AdapterArg::Shipped(id) => {
            return acc_runtime::registry::find(&id).ok_or(SetupError::UnknownAdapter { id });
        }
        AdapterArg::Directory(dir) => dir,
    };
    let on_disk = AdapterDir::load(&dir).map_err(|problems| {
        let lines: Vec<String> = problems
            .iter()
            .map(|p| format!("{}: {}", p.file, p.message))
            .collect();
        SetupError::InvalidAdapter {
            message: format!(
                "{} does not load as an adapter ({}): run acc-certify validate --adapter {}",
                dir.display(),
                lines.join("; "),
                dir.display()
            ),
        }
    })?;
    let id = on_disk.declaration.manifest().id.to_string();
    let Some(adapter) = acc_runtime::registry::find(&id) else {
        return Err(SetupError::NotShipped { dir, id });
    };
    if on_disk.declaration.manifest() != adapter.manifest() {
        return Err(SetupError::InvalidAdapter {
            message: format!(
                "{}/{MANIFEST_FILE} differs from the {id} manifest this build embeds, and install runs the built code: rebuild (cargo build -p acc-certify) or pass --adapter {id}",
                dir.display()
            ),
        });
    }
    Ok(adapter)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bare_shipped_id_is_the_id_and_a_path_is_a_directory() {
        assert_eq!(
            parse("codex").unwrap(),
            AdapterArg::Shipped("codex".to_owned())
        );
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(CERTIFICATION_FILE), "{}").unwrap();
        let value = dir.path().to_str().unwrap();
        assert_eq!(
            parse(value).unwrap(),
            AdapterArg::Directory(dir.path().to_owned())
        );
    }

    #[test]
    fn a_directory_without_certification_json_is_refused_naming_it() {
        let dir = tempfile::tempdir().unwrap();
        let err = parse(dir.path().to_str().unwrap()).unwrap_err();
        assert_eq!(err.code(), "certify.not-an-adapter-dir");
        assert!(err.to_string().contains(&dir.path().display().to_string()));
        assert!(err.to_string().contains("certification.json"), "{err}");
    }

    #[test]
    fn an_unknown_value_names_every_shipped_id_and_the_directory_form() {
        let err = parse("banana").unwrap_err();
        assert_eq!(err.code(), "certify.unknown-adapter");
        let text = err.to_string();
        for id in shipped_ids() {
            assert!(text.contains(&id), "{text}");
        }
        assert!(text.contains("certification.json"), "{text}");
    }
}
