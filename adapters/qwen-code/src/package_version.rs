//! The running Qwen Code's version, read from the package it runs.
//!
//! Qwen Code is a Node script: `node …/.bin/qwen` (a link to
//! `@qwen-code/qwen-code/cli-entry.js`) relaunches itself as `node --expose-gc …/cli.js`,
//! and the hooks run under that second process. The `package.json` beside either script
//! names the exact build the session runs, which a `qwen --version` on `PATH` may not
//! (another install, or an update since the session started).

use acc_sdk::node_package::NodePackage;

/// The bin link, the entry wrapper and the bundle it relaunches, all at the package root.
pub const PACKAGE: NodePackage = NodePackage {
    name: "@qwen-code/qwen-code",
    scripts: &["qwen", "cli-entry", "cli"],
    levels: 3,
};

/// The version in the `package.json` of the Qwen Code script among `args` (a node
/// process's argument vector, `args[0]` being the interpreter). The manifest must name
/// this package, so another `cli.js` gives nothing.
pub fn version_from_args(args: &[String]) -> Option<String> {
    PACKAGE.version_from_args(args)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;
    use std::path::{Path, PathBuf};

    /// A package laid out as npm installs 0.24.4; returns (bin link, relaunched bundle).
    fn package(root: &Path, name: &str, version: &str) -> (PathBuf, PathBuf) {
        let pkg = root.join("node_modules/@qwen-code/qwen-code");
        fs::create_dir_all(&pkg).unwrap();
        fs::write(
            pkg.join("package.json"),
            format!(r#"{{"name":"{name}","version":"{version}"}}"#),
        )
        .unwrap();
        fs::write(pkg.join("cli-entry.js"), "").unwrap();
        fs::write(pkg.join("cli.js"), "").unwrap();
        let bin = root.join("node_modules/.bin");
        fs::create_dir_all(&bin).unwrap();
        std::os::unix::fs::symlink("../@qwen-code/qwen-code/cli-entry.js", bin.join("qwen"))
            .unwrap();
        (bin.join("qwen"), pkg.join("cli.js"))
    }

    fn args(words: &[&str]) -> Vec<String> {
        words.iter().map(|w| w.to_string()).collect()
    }

    #[test]
    fn the_bin_link_and_the_relaunched_bundle_both_name_the_package() {
        let dir = tempfile::tempdir().unwrap();
        let (link, bundle) = package(dir.path(), PACKAGE.name, "0.24.4");
        assert_eq!(
            version_from_args(&args(&["node", link.to_str().unwrap(), "-p", "x"])),
            Some("0.24.4".into())
        );
        assert_eq!(
            version_from_args(&args(&[
                "/usr/bin/node",
                "--expose-gc",
                bundle.to_str().unwrap(),
                "-p",
                "x"
            ])),
            Some("0.24.4".into())
        );
    }

    #[test]
    fn another_package_or_no_script_gives_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let (link, bundle) = package(dir.path(), "qwen-lookalike", "9.9.9");
        assert_eq!(
            version_from_args(&args(&["node", link.to_str().unwrap()])),
            None
        );
        assert_eq!(
            version_from_args(&args(&["node", bundle.to_str().unwrap()])),
            None
        );
        assert_eq!(version_from_args(&args(&["node", "/no/such/cli.js"])), None);
        assert_eq!(version_from_args(&args(&["node", "/x/other.js"])), None);
        assert_eq!(version_from_args(&args(&["node"])), None);
    }

    #[test]
    fn a_version_that_is_not_exact_is_ignored() {
        let dir = tempfile::tempdir().unwrap();
        let (link, _) = package(dir.path(), PACKAGE.name, "latest");
        assert_eq!(
            version_from_args(&args(&["node", link.to_str().unwrap()])),
            None
        );
    }
}
