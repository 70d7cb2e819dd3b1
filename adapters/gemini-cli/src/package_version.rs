//! The running Gemini CLI's version, read from the package it runs.
//!
//! Gemini CLI is a Node script: the hook's client process is `node …/.bin/gemini …` (a link
//! to `@google/gemini-cli/bundle/gemini.js`). The `package.json` of that package names the
//! exact build the session runs, which a `gemini --version` on `PATH` may not (another
//! install, or an update since the session started).

use std::path::{Path, PathBuf};

use serde_json::Value;

const PACKAGE: &str = "@google/gemini-cli";
const SCRIPT: &str = "gemini";
/// `bundle/gemini.js` sits one level below the package root; a little slack for layouts.
const MAX_LEVELS: usize = 3;
/// A package.json is small; anything larger is not the one we want.
const MAX_MANIFEST_BYTES: u64 = 256 * 1024;

/// The version in the `package.json` of the Gemini CLI script among `args` (a node
/// process's argument vector, `args[0]` being the interpreter).
pub fn version_from_args(args: &[String]) -> Option<String> {
    args.iter()
        .skip(1)
        .filter(|word| !word.starts_with('-'))
        .find(|word| script_stem(word) == Some(SCRIPT))
        .and_then(|script| version_near(Path::new(script)))
}

fn script_stem(word: &str) -> Option<&str> {
    let name = Path::new(word).file_name()?.to_str()?;
    Some(
        [".js", ".mjs", ".cjs"]
            .iter()
            .find_map(|ext| name.strip_suffix(ext))
            .unwrap_or(name),
    )
}

fn version_near(script: &Path) -> Option<String> {
    let real: PathBuf = std::fs::canonicalize(script).ok()?;
    real.ancestors()
        .skip(1)
        .take(MAX_LEVELS)
        .find_map(|dir| manifest_version(&dir.join("package.json")))
}

fn manifest_version(path: &Path) -> Option<String> {
    if std::fs::metadata(path).ok()?.len() > MAX_MANIFEST_BYTES {
        return None;
    }
    let manifest: Value = serde_json::from_slice(&std::fs::read(path).ok()?).ok()?;
    if manifest.get("name")?.as_str()? != PACKAGE {
        return None;
    }
    let version = manifest.get("version")?.as_str()?;
    acc_sdk::version::extract_version(version).filter(|v| v == version)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

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
        let link = package(dir.path(), PACKAGE, "0.61.0");
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
        let link = package(dir.path(), PACKAGE, "latest");
        assert_eq!(
            version_from_args(&args(&["node", link.to_str().unwrap()])),
            None
        );
    }
}
