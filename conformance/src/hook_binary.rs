//! Finding the `acc-hook` executable a sandbox install wires: `ACC_HOOK_EXECUTABLE` when
//! set, else the sibling of the running binary; under `cargo test`, the one in the target
//! directory the test executable was built into.

use std::ffi::OsStr;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use acc_sdk::hook_command::HOOK_BINARY;

/// The environment variable that names the `acc-hook` to wire, overriding the sibling.
pub const HOOK_EXECUTABLE_VAR: &str = "ACC_HOOK_EXECUTABLE";

/// `acc-hook` as named by `override_path` (the variable's value), else beside `exe`.
pub fn hook_executable(override_path: Option<&OsStr>, exe: &Path) -> PathBuf {
    match override_path.filter(|v| !v.is_empty()) {
        Some(path) => PathBuf::from(path),
        None => exe.parent().unwrap_or(Path::new("/")).join(HOOK_BINARY),
    }
}

/// For a test executable at `target/<profile>/deps/<test>`: `target/<profile>/acc-hook`.
pub fn for_test_executable(test_exe: &Path) -> PathBuf {
    let deps = test_exe.parent().unwrap_or(Path::new("/"));
    let profile = if deps.file_name() == Some(OsStr::new("deps")) {
        deps.parent().unwrap_or(deps)
    } else {
        deps
    };
    profile.join(HOOK_BINARY)
}

/// The path when it is an absolute, existing, executable file; otherwise what to do.
pub fn require(path: &Path) -> Result<PathBuf, String> {
    if !path.is_absolute() {
        return Err(format!(
            "the hook runtime {} is not an absolute path; set {HOOK_EXECUTABLE_VAR} to an absolute path",
            path.display()
        ));
    }
    let runnable =
        std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0);
    if runnable {
        Ok(path.to_path_buf())
    } else {
        Err(format!(
            "the hook runtime {} does not exist or is not executable; build it: cargo build -p acc-runtime (or set {HOOK_EXECUTABLE_VAR})",
            path.display()
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_variable_wins_and_the_sibling_is_the_default() {
        let exe = Path::new("/opt/acc/bin/acc-certify");
        assert_eq!(
            hook_executable(None, exe),
            PathBuf::from("/opt/acc/bin/acc-hook")
        );
        assert_eq!(
            hook_executable(Some(OsStr::new("")), exe),
            PathBuf::from("/opt/acc/bin/acc-hook")
        );
        assert_eq!(
            hook_executable(Some(OsStr::new("/x/acc-hook")), exe),
            PathBuf::from("/x/acc-hook")
        );
    }

    #[test]
    fn a_test_executable_finds_the_profile_directory() {
        assert_eq!(
            for_test_executable(Path::new("/repo/target/debug/deps/shipped-0123abcd")),
            PathBuf::from("/repo/target/debug/acc-hook")
        );
        assert_eq!(
            for_test_executable(Path::new("/repo/target/release/acc-certify")),
            PathBuf::from("/repo/target/release/acc-hook")
        );
    }

    #[test]
    fn a_missing_runtime_says_how_to_build_it() {
        let err = require(Path::new("/nonexistent/acc-hook")).unwrap_err();
        assert!(err.contains("cargo build -p acc-runtime"), "{err}");
        let err = require(Path::new("acc-hook")).unwrap_err();
        assert!(err.contains("not an absolute path"), "{err}");
    }
}
