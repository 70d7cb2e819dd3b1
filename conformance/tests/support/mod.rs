//! The context tests run checks in: this repository, the `acc-hook` built into the same
//! target directory as the test, and a scratch directory removed afterwards.
#![allow(dead_code)]

pub mod faulty;

use std::path::{Path, PathBuf};

use acc_conformance::CheckContext;
use acc_conformance::hook_binary::{for_test_executable, require};

pub fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .canonicalize()
        .unwrap()
}

pub fn hook_executable() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    require(&for_test_executable(&exe)).unwrap_or_else(|message| panic!("{message}"))
}

/// A context over `root`; the scratch directory lives as long as the returned guard.
pub fn context_at(root: &Path) -> (tempfile::TempDir, CheckContext) {
    let scratch = tempfile::tempdir().unwrap();
    let ctx = CheckContext::new(root, &hook_executable(), scratch.path());
    (scratch, ctx)
}

pub fn context() -> (tempfile::TempDir, CheckContext) {
    context_at(&repo())
}
