//! The running Gemini CLI's version, read from the package it runs.
//!
//! Gemini CLI is a Node script: the hook's client process is `node …/.bin/gemini …` (a link
//! to `@google/gemini-cli/bundle/gemini.js`). The `package.json` of that package names the
//! exact build the session runs, which a `gemini --version` on `PATH` may not (another
//! install, or an update since the session started).

use acc_sdk::node_package::NodePackage;

/// `bundle/gemini.js` sits one level below the package root; a little slack for layouts.
pub const PACKAGE: NodePackage = NodePackage {
    name: "@google/gemini-cli",
    scripts: &["gemini"],
    levels: 3,
};

/// The version in the `package.json` of the Gemini CLI script among `args` (a node
/// process's argument vector, `args[0]` being the interpreter).
pub fn version_from_args(args: &[String]) -> Option<String> {
    PACKAGE.version_from_args(args)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;
    use std::path::{Path, PathBuf};

    fn package(root: &Path, name: &str, version: &str) -> PathBuf {
        let pkg = root.join("node_modules/@google/gemini-cli");
        fs::create_dir_all(pkg.join("bundle")).unwrap();
        fs::write(
            pkg.join("package.json"),
            format!(r#"{{"name":"{name}","version":"{version}"}}"#),
        )
        .unwrap();
        fs::write(pkg.join("bundle/gemini.js"), "").unwrap();
        let bin = root.join("node_modules/.bin");
        fs::create_dir_all(&bin).unwrap();
        std::os::unix::fs::symlink("../@google/gemini-cli/bundle/gemini.js", bin.join("gemini"))
            .unwrap();
        bin.join("gemini")
    }

    fn args(words: &[&str]) -> Vec<String> {
        words.iter().map(|w| w.to_string()).collect()
    }

    #[test]
    fn follows_the_bin_link_to_the_package_manifest() {
        let dir = tempfile::tempdir().unwrap();
        let link = package(dir.path(), PACKAGE.name, "0.61.0");
        let link = link.to_str().unwrap();
        assert_eq!(
            version_from_args(&args(&[
                "node",
                "--max-old-space-size=12052",
                link,
                "-p",
                "x"
            ])),
            Some("0.61.0".into())
        );
        assert_eq!(
            version_from_args(&args(&["/usr/bin/node", link])),
            Some("0.61.0".into())
        );
    }

    #[test]
    fn another_package_or_no_script_gives_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let link = package(dir.path(), "gemini-lookalike", "9.9.9");
        assert_eq!(
            version_from_args(&args(&["node", link.to_str().unwrap()])),
            None
        );
        assert_eq!(
            version_from_args(&args(&["node", "/no/such/gemini.js"])),
            None
        );
        assert_eq!(version_from_args(&args(&["node", "/x/other.js"])), None);
        assert_eq!(version_from_args(&args(&["node"])), None);
    }

    #[test]
    fn a_version_that_is_not_exact_is_ignored() {
        let dir = tempfile::tempdir().unwrap();
        let link = package(dir.path(), PACKAGE.name, "latest");
        assert_eq!(
            version_from_args(&args(&["node", link.to_str().unwrap()])),
            None
        );
    }
}
