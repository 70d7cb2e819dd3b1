//! How a hook file takes acc's handlers. The two Claude-shaped JSON forms live here; a
//! client with a shape of its own (a named hook set, a TOML block) implements
//! [`HookWiring`] in its adapter.

use std::path::{Path, PathBuf};

use crate::adapter::AdapterError;
use crate::hook_config::{self, HookHandler};
use crate::install::{ArtifactKind, ChangeAction, Diagnostic, FileChange};
use crate::install_files::{uninstall_file_tree, write_if_changed};
use crate::json_style::{JsonStyle, render_json_document};

/// One way a hook file holds acc's handlers.
pub trait HookWiring: Sync {
    /// `Merge` for a user's file acc adds entries to, `Tree` for a file acc owns whole.
    fn kind(&self) -> ArtifactKind;
    /// Refuses, writing nothing, when the file at `path` cannot take `handlers`.
    fn check(&self, path: &Path, handlers: &[HookHandler]) -> Result<(), AdapterError>;
    /// Writes `handlers` into the file, keeping everything that is not acc's.
    fn install(&self, path: &Path, handlers: &[HookHandler]) -> Result<FileChange, AdapterError>;
    /// Takes acc's handlers out; `None` when there was nothing of acc's to take.
    fn uninstall(&self, path: &Path, keep: &[PathBuf]) -> Result<Option<FileChange>, AdapterError>;
    /// Doctor's view of the handlers found compared with `expected`.
    fn diagnose(&self, path: &Path, expected: &[HookHandler]) -> Vec<Diagnostic>;
}

/// acc's handlers merged into a Claude-shaped JSON file the user owns (`settings.json`,
/// `hooks.json`). Uninstall takes exactly acc's entries out and leaves the file.
#[derive(Debug, Clone, Copy, Default)]
pub struct MergedJsonHooks;

impl HookWiring for MergedJsonHooks {
    fn kind(&self) -> ArtifactKind {
        ArtifactKind::Merge
    }

    fn check(&self, path: &Path, handlers: &[HookHandler]) -> Result<(), AdapterError> {
        hook_config::check_file(path, handlers)
    }

    fn install(&self, path: &Path, handlers: &[HookHandler]) -> Result<FileChange, AdapterError> {
        hook_config::install_file(path, handlers)
    }

    /// The file is the user's: `keep` does not apply, it always loses exactly acc's entries.
    fn uninstall(
        &self,
        path: &Path,
        _keep: &[PathBuf],
    ) -> Result<Option<FileChange>, AdapterError> {
        hook_config::uninstall_file(path)
    }

    fn diagnose(&self, path: &Path, expected: &[HookHandler]) -> Vec<Diagnostic> {
        hook_config::diagnose_file(path, expected)
    }
}

/// A Claude-shaped JSON hook file acc owns whole, written in the style acc gives new files.
/// A file there that is not acc's is refused on install and left (reported `Kept`) on
/// uninstall.
#[derive(Debug, Clone, Copy, Default)]
pub struct OwnedJsonHooks;

impl HookWiring for OwnedJsonHooks {
    fn kind(&self) -> ArtifactKind {
        ArtifactKind::Tree
    }

    fn check(&self, path: &Path, _handlers: &[HookHandler]) -> Result<(), AdapterError> {
        hook_config::check_owned_file(path)
    }

    fn install(&self, path: &Path, handlers: &[HookHandler]) -> Result<FileChange, AdapterError> {
        let document = hook_config::document(handlers);
        Ok(FileChange {
            action: write_if_changed(
                path,
                &render_json_document(&document, &JsonStyle::default()),
            )?,
            path: path.to_path_buf(),
        })
    }

    fn uninstall(&self, path: &Path, keep: &[PathBuf]) -> Result<Option<FileChange>, AdapterError> {
        if hook_config::check_owned_file(path).is_ok() {
            return uninstall_file_tree(path, keep);
        }
        // Not acc's file (any more): leave it, and say so.
        Ok(path.exists().then(|| FileChange {
            path: path.to_path_buf(),
            action: ChangeAction::Kept,
        }))
    }

    fn diagnose(&self, path: &Path, expected: &[HookHandler]) -> Vec<Diagnostic> {
        hook_config::diagnose_file(path, expected)
    }
}
