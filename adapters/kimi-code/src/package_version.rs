//! The running Kimi Code's version, read from its package's `package.json` instead of by
//! running `kimi --version`.
//!
//! `kimi --version` starts Node and loads the whole bundle: about 1 s on an idle machine
//! here and 3 to 5 s on a loaded one, and a session-start hook waits for the probe (it was
//! most of the second a `kimi -p` run spent in acc; COMPATIBILITY.md, "What acc costs a
//! run"). The package says the same thing without running anything.
//!
//! Which package: the launcher the process was started through (`_` in its environment,
//! which a shell sets to the program it runs; Kimi renames its own process, so its command
//! line no longer names its script), else `kimi` on the hook's `PATH`, the same last resort
//! as the version command. A launcher is followed through symlinks (npm's global bin links
//! `dist/main.mjs`) and, when it is a script, through the absolute paths it names (a wrapper
//! that `exec`s Node with the package's entry).

use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};

use acc_sdk::node_package::NodePackage;

/// The package whose version is read.
pub const PACKAGE: &str = "@moonshot-ai/kimi-code";

/// How far above a launcher's target a `package.json` is looked for (`dist/main.mjs` is two).
const LEVELS: usize = 4;

/// How much of a launcher script is read for the paths it names.
const SCRIPT_BYTES: u64 = 4096;

/// The version of the Kimi Code package process `pid` was started from, else the one `kimi`
/// on `PATH` belongs to.
pub fn version(pid: u32, env: &BTreeMap<String, String>) -> Option<String> {
    launched_from(pid)
        .into_iter()
        .chain(on_path(env))
        .find_map(|launcher| of_launcher(&launcher))
}

/// `_` in the process's environment, when it names an absolute path.
fn launched_from(pid: u32) -> Option<PathBuf> {
    let environ = std::fs::read(format!("/proc/{pid}/environ")).ok()?;
    environ
        .split(|b| *b == 0)
        .find_map(|kv| kv.strip_prefix(b"_="))
        .and_then(|v| std::str::from_utf8(v).ok())
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
}

fn on_path(env: &BTreeMap<String, String>) -> Option<PathBuf> {
    std::env::split_paths(env.get("PATH")?)
        .map(|dir| dir.join("kimi"))
        .find(|candidate| candidate.is_file())
}

/// The version of the package `launcher` leads to: itself (through symlinks), or one of the
/// absolute paths its script names.
pub fn of_launcher(launcher: &Path) -> Option<String> {
    let target = launcher.canonicalize().ok()?;
    if let Some(v) = above(&target) {
        return Some(v);
    }
    let mut head = String::new();
    std::fs::File::open(&target)
        .ok()?
        .take(SCRIPT_BYTES)
        .read_to_string(&mut head)
        .ok()?;
    head.split(|c: char| c.is_whitespace() || matches!(c, '\'' | '"' | ';' | '`'))
        .filter(|w| w.starts_with('/'))
        .filter_map(|w| Path::new(w).canonicalize().ok())
        .filter(|p| p.is_file() && p != &target)
        .find_map(|p| above(&p))
}

/// The version in the nearest `package.json` of [`PACKAGE`] at most [`LEVELS`] above `file`.
fn above(file: &Path) -> Option<String> {
    NodePackage {
        name: PACKAGE,
        scripts: &[],
        levels: LEVELS,
    }
    .version_above(file)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An installed package: `<root>/node_modules/@moonshot-ai/kimi-code/{package.json,dist/main.mjs}`.
    fn package(root: &Path, name: &str, version: &str) -> PathBuf {
        let dir = root.join("node_modules").join(name);
        std::fs::create_dir_all(dir.join("dist")).unwrap();
        std::fs::write(
            dir.join("package.json"),
            format!(r#"{{"name":"{name}","version":"{version}"}}"#),
        )
        .unwrap();
        let main = dir.join("dist/main.mjs");
        std::fs::write(&main, "#!/usr/bin/env node\nimport './x.js';\n").unwrap();
        main
    }

    #[test]
    fn a_global_bin_link_leads_to_its_package() {
        let tmp = tempfile::tempdir().unwrap();
        let main = package(tmp.path(), PACKAGE, "2.1.0");
        let bin = tmp.path().join("kimi");
        std::os::unix::fs::symlink(&main, &bin).unwrap();
        assert_eq!(of_launcher(&bin).as_deref(), Some("2.1.0"));
    }

    #[test]
    fn a_wrapper_script_leads_through_the_paths_it_names() {
        let tmp = tempfile::tempdir().unwrap();
        let main = package(tmp.path(), PACKAGE, "2.1.0");
        let link = tmp.path().join("node_modules/.bin");
        std::fs::create_dir_all(&link).unwrap();
        std::os::unix::fs::symlink(&main, link.join("kimi")).unwrap();
        let wrapper = tmp.path().join("kimi");
        std::fs::write(
            &wrapper,
            format!(
                "#!/bin/sh\nexec '/usr/bin/env' '{}' \"$@\"\n",
                link.join("kimi").display()
            ),
        )
        .unwrap();
        assert_eq!(of_launcher(&wrapper).as_deref(), Some("2.1.0"));
    }

    #[test]
    fn another_package_or_no_package_gives_no_version() {
        let tmp = tempfile::tempdir().unwrap();
        let other = package(tmp.path(), "kimi-impostor", "9.9.9");
        assert_eq!(of_launcher(&other), None);
        let lone = tmp.path().join("lone");
        std::fs::write(&lone, "#!/bin/sh\nexec /nonexistent/kimi\n").unwrap();
        assert_eq!(of_launcher(&lone), None);
        assert_eq!(of_launcher(&tmp.path().join("missing")), None);
    }

    #[test]
    fn the_path_is_the_last_resort() {
        let tmp = tempfile::tempdir().unwrap();
        let main = package(tmp.path(), PACKAGE, "2.1.0");
        let bin = tmp.path().join("bin");
        std::fs::create_dir_all(&bin).unwrap();
        std::os::unix::fs::symlink(&main, bin.join("kimi")).unwrap();
        let env = BTreeMap::from([("PATH".to_string(), bin.display().to_string())]);
        // A pid with no such process: only the PATH can answer.
        assert_eq!(version(u32::MAX - 1, &env).as_deref(), Some("2.1.0"));
        assert_eq!(version(u32::MAX - 1, &BTreeMap::new()), None);
    }
}
