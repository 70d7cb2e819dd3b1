//! A Node client's version, read from the `package.json` of the package it runs.
//!
//! Gemini CLI, Qwen Code and Kimi Code are npm packages run by `node`. The manifest beside
//! the script a session's process runs names the exact build that session runs, which a
//! `<client> --version` on `PATH` may not (another install, or an update since the session
//! started), and reading it runs nothing. Each adapter says which package and scripts are
//! its own; this module finds and reads the manifest.

use std::path::Path;

use serde_json::Value;

/// A package.json is small; anything larger is not the one we want.
const MAX_MANIFEST_BYTES: u64 = 256 * 1024;

/// One client's npm package.
#[derive(Debug, Clone, Copy)]
pub struct NodePackage {
    /// The `name` its manifest must carry, so another package's script gives nothing.
    pub name: &'static str,
    /// The script stems (`gemini` for `bundle/gemini.js` or the `.bin/gemini` link) that
    /// are this client's in a `node` process's arguments.
    pub scripts: &'static [&'static str],
    /// How many directories above a script the manifest may be.
    pub levels: usize,
}

impl NodePackage {
    /// The version of this package's script among `args` (a node process's argument
    /// vector, `args[0]` being the interpreter): the first non-option word whose stem is one
    /// of [`NodePackage::scripts`].
    pub fn version_from_args(&self, args: &[String]) -> Option<String> {
        args.iter()
            .skip(1)
            .filter(|word| !word.starts_with('-'))
            .find(|word| script_stem(word).is_some_and(|stem| self.scripts.contains(&stem)))
            .and_then(|script| self.version_above(Path::new(script)))
    }

    /// The version in the nearest manifest of this package at most
    /// [`NodePackage::levels`] above `file`, after following `file`'s links.
    pub fn version_above(&self, file: &Path) -> Option<String> {
        let real = std::fs::canonicalize(file).ok()?;
        real.ancestors()
            .skip(1)
            .take(self.levels)
            .find_map(|dir| self.manifest_version(&dir.join("package.json")))
    }

    /// The exact version the manifest at `path` gives, when it names this package.
    pub fn manifest_version(&self, path: &Path) -> Option<String> {
        if std::fs::metadata(path).ok()?.len() > MAX_MANIFEST_BYTES {
            return None;
        }
        let manifest: Value = serde_json::from_slice(&std::fs::read(path).ok()?).ok()?;
        if manifest.get("name")?.as_str()? != self.name {
            return None;
        }
        let version = manifest.get("version")?.as_str()?;
        crate::version::extract_version(version).filter(|v| v == version)
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;
    use std::path::PathBuf;

    const PKG: NodePackage = NodePackage {
        name: "@acme/cli",
        scripts: &["acme", "cli"],
        levels: 3,
    };

    /// `<root>/node_modules/@acme/cli/{package.json,bin/cli.js}` and the `.bin/acme` link.
    fn package(root: &Path, name: &str, version: &str) -> (PathBuf, PathBuf) {
        let pkg = root.join("node_modules/@acme/cli");
        fs::create_dir_all(pkg.join("bin")).unwrap();
        fs::write(
            pkg.join("package.json"),
            format!(r#"{{"name":"{name}","version":"{version}"}}"#),
        )
        .unwrap();
        fs::write(pkg.join("bin/cli.js"), "").unwrap();
        let bin = root.join("node_modules/.bin");
        fs::create_dir_all(&bin).unwrap();
        std::os::unix::fs::symlink("../@acme/cli/bin/cli.js", bin.join("acme")).unwrap();
        (bin.join("acme"), pkg.join("bin/cli.js"))
    }

    fn args(words: &[&str]) -> Vec<String> {
        words.iter().map(|w| w.to_string()).collect()
    }

    #[test]
    fn the_link_and_the_script_both_lead_to_the_manifest() {
        let dir = tempfile::tempdir().unwrap();
        let (link, script) = package(dir.path(), PKG.name, "1.2.3");
        let link = link.to_str().unwrap();
        for argv in [
            args(&["node", link, "-p", "x"]),
            args(&["/usr/bin/node", "--max-old-space-size=1", link]),
            args(&["node", "--expose-gc", script.to_str().unwrap()]),
        ] {
            assert_eq!(
                PKG.version_from_args(&argv),
                Some("1.2.3".into()),
                "{argv:?}"
            );
        }
        assert_eq!(PKG.version_above(Path::new(link)), Some("1.2.3".into()));
    }

    #[test]
    fn another_package_a_missing_script_or_none_gives_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let (link, script) = package(dir.path(), "acme-lookalike", "9.9.9");
        assert_eq!(
            PKG.version_from_args(&args(&["node", link.to_str().unwrap()])),
            None
        );
        assert_eq!(
            PKG.version_from_args(&args(&["node", script.to_str().unwrap()])),
            None
        );
        assert_eq!(
            PKG.version_from_args(&args(&["node", "/no/such/cli.js"])),
            None
        );
        assert_eq!(PKG.version_from_args(&args(&["node", "/x/other.js"])), None);
        assert_eq!(PKG.version_from_args(&args(&["node"])), None);
    }

    #[test]
    fn a_version_that_is_not_exact_or_a_huge_manifest_is_ignored() {
        let dir = tempfile::tempdir().unwrap();
        let (link, _) = package(dir.path(), PKG.name, "latest");
        assert_eq!(
            PKG.version_from_args(&args(&["node", link.to_str().unwrap()])),
            None
        );
        let manifest = dir.path().join("node_modules/@acme/cli/package.json");
        let padded = format!(
            r#"{{"name":"@acme/cli","version":"1.2.3","pad":"{}"}}"#,
            "x".repeat(MAX_MANIFEST_BYTES as usize)
        );
        fs::write(&manifest, padded).unwrap();
        assert_eq!(PKG.manifest_version(&manifest), None);
    }
}
