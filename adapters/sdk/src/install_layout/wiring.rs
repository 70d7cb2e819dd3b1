//! How a hook file takes acc's handlers. The two Claude-shaped JSON forms live here; a
//! client with a shape of its own (a named hook set, a TOML block) implements
//! [`HookWiring`] in its adapter.

use std::path::{Path, PathBuf};

use crate::adapter::AdapterError;
use crate::hook_config::{self, HookHandler};
use crate::hook_owner::HookOwner;
use crate::install::{ArtifactKind, ChangeAction, Diagnostic, FileChange};
use crate::install_files::{uninstall_file_tree, write_if_changed};
use crate::json_style::{JsonStyle, render_json_document};

/// One way a hook file holds acc's handlers.
pub trait HookWiring: Sync {
    /// `Merge` for a user's file acc adds entries to, `Tree` for a file acc owns whole.
    fn kind(&self) -> ArtifactKind;
    /// Refuses, writing nothing, when the file at `path` cannot take `handlers`.
    fn check(
        &self,
        path: &Path,
        handlers: &[HookHandler],
        owner: &HookOwner,
    ) -> Result<(), AdapterError>;
    /// Writes `handlers` into the file in place of what `owner` owns there, keeping every
    /// other entry (another install's, the user's) as it is.
    fn install(
        &self,
        path: &Path,
        handlers: &[HookHandler],
        owner: &HookOwner,
    ) -> Result<FileChange, AdapterError>;
    /// Takes the handlers `owner` owns out, and nothing else; `None` when there was nothing
    /// of them to take.
    fn uninstall(
        &self,
        path: &Path,
        keep: &[PathBuf],
        owner: &HookOwner,
    ) -> Result<Option<FileChange>, AdapterError>;
    /// Doctor's view of the handlers found compared with `expected`, naming those that look
    /// like acc's and are not `owner`'s.
    fn diagnose(&self, path: &Path, expected: &[HookHandler], owner: &HookOwner)
    -> Vec<Diagnostic>;
}

/// acc's handlers merged into a Claude-shaped JSON file the user owns (`settings.json`,
/// `hooks.json`). Uninstall takes exactly acc's entries out and leaves the file.
#[derive(Debug, Clone, Copy, Default)]
pub struct MergedJsonHooks;

impl HookWiring for MergedJsonHooks {
    fn kind(&self) -> ArtifactKind {
        ArtifactKind::Merge
    }

    fn check(
        &self,
        path: &Path,
        handlers: &[HookHandler],
        owner: &HookOwner,
    ) -> Result<(), AdapterError> {
        hook_config::check_file(path, handlers, owner)
    }

    fn install(
        &self,
        path: &Path,
        handlers: &[HookHandler],
        owner: &HookOwner,
    ) -> Result<FileChange, AdapterError> {
        hook_config::install_file(path, handlers, owner)
    }

    /// The file is the user's: `keep` does not apply, it always loses exactly acc's entries.
    fn uninstall(
        &self,
        path: &Path,
        _keep: &[PathBuf],
        owner: &HookOwner,
    ) -> Result<Option<FileChange>, AdapterError> {
        hook_config::uninstall_file(path, owner)
    }

    fn diagnose(
        &self,
        path: &Path,
        expected: &[HookHandler],
        owner: &HookOwner,
    ) -> Vec<Diagnostic> {
        hook_config::diagnose_file(path, expected, owner)
    }
}

/// A Claude-shaped JSON hook file acc owns whole, written in the style acc gives new files.
/// A file there that is not acc's is refused on install and left (reported `Kept`) on
/// uninstall. Another acc install (another data home) may share the file: its handlers stay
/// through this install's install and uninstall, and the file goes only with the last one.
#[derive(Debug, Clone, Copy, Default)]
pub struct OwnedJsonHooks;

impl HookWiring for OwnedJsonHooks {
    fn kind(&self) -> ArtifactKind {
        ArtifactKind::Tree
    }

    fn check(
        &self,
        path: &Path,
        _handlers: &[HookHandler],
        _owner: &HookOwner,
    ) -> Result<(), AdapterError> {
        hook_config::check_owned_file(path)
    }

    fn install(
        &self,
        path: &Path,
        handlers: &[HookHandler],
        owner: &HookOwner,
    ) -> Result<FileChange, AdapterError> {
        let document = match others_in_owned(path, owner) {
            Some(doc) => hook_config::merge(&doc, handlers, &hook_config::owned_in(owner, path))
                .map_err(|e| e.in_file(path))?,
            None => hook_config::document(handlers),
        };
        Ok(FileChange {
            action: write_if_changed(
                path,
                &render_json_document(&document, &JsonStyle::default()),
            )?,
            path: path.to_path_buf(),
        })
    }

    fn uninstall(
        &self,
        path: &Path,
        keep: &[PathBuf],
        owner: &HookOwner,
    ) -> Result<Option<FileChange>, AdapterError> {
        if hook_config::check_owned_file(path).is_ok() {
            if keep.iter().any(|k| k == path) {
                return uninstall_file_tree(path, keep);
            }
            // Another install's handlers stay, in a file without this install's.
            if let Some(doc) = others_in_owned(path, owner) {
                let stripped = hook_config::remove(&doc, &hook_config::owned_in(owner, path))
                    .map_err(|e| e.in_file(path))?
                    .unwrap_or(doc);
                return Ok(Some(FileChange {
                    action: write_if_changed(
                        path,
                        &render_json_document(&stripped, &JsonStyle::default()),
                    )?,
                    path: path.to_path_buf(),
                }));
            }
            return uninstall_file_tree(path, keep);
        }
        // Not acc's file (any more): leave it, and say so.
        Ok(path.exists().then(|| FileChange {
            path: path.to_path_buf(),
            action: ChangeAction::Kept,
        }))
    }

    fn diagnose(
        &self,
        path: &Path,
        expected: &[HookHandler],
        owner: &HookOwner,
    ) -> Vec<Diagnostic> {
        hook_config::diagnose_file(path, expected, owner)
    }
}

/// The owned file's document when it holds handlers that are not `owner`'s (another acc
/// install's); `None` when it is absent, unreadable or holds only `owner`'s.
fn others_in_owned(path: &Path, owner: &HookOwner) -> Option<serde_json::Value> {
    let doc = crate::install_files::read_json(path).ok()?;
    let ours = hook_config::owned_in(owner, path);
    let others = hook_config::find_all(&doc.value)
        .iter()
        .any(|f| !ours(&f.event, f.matcher.as_deref(), &f.command));
    (doc.existed && others).then_some(doc.value)
}
