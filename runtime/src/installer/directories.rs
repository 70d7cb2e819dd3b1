//! Directories an install creates on the way to its artifacts, and their removal: deepest
//! first, only when empty, never through a symlink.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// Every missing ancestor directory of `paths`, up to the first one that exists.
pub fn missing_ancestors(paths: &[PathBuf]) -> Vec<PathBuf> {
    let mut missing = BTreeSet::new();
    for path in paths {
        let mut dir = path.parent();
        while let Some(d) = dir {
            if d.as_os_str().is_empty() || std::fs::symlink_metadata(d).is_ok() {
                break;
            }
            missing.insert(d.to_path_buf());
            dir = d.parent();
        }
    }
    missing.into_iter().collect()
}

/// Removes each of `dirs` that is an empty directory, deepest first; returns those removed.
pub fn remove_empty(dirs: &[PathBuf]) -> Vec<PathBuf> {
    let mut ordered: Vec<&PathBuf> = dirs.iter().collect();
    ordered.sort_by_key(|d| std::cmp::Reverse(d.components().count()));
    ordered
        .into_iter()
        .filter(|d| acc_sdk::install_files::remove_dir_if_empty(d))
        .cloned()
        .collect()
}

/// `dirs` that exist as directories now.
pub fn existing(dirs: impl IntoIterator<Item = PathBuf>) -> Vec<PathBuf> {
    let set: BTreeSet<PathBuf> = dirs.into_iter().filter(|d| is_dir(d)).collect();
    set.into_iter().collect()
}

fn is_dir(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok_and(|m| m.is_dir())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_and_removes_only_what_is_missing_and_empty() {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path();
        std::fs::create_dir(home.join(".claude")).unwrap();
        let artifacts = [
            home.join(".claude/skills/acc"),
            home.join(".claude/settings.json"),
            home.join(".codex/hooks.json"),
        ];
        let missing = missing_ancestors(&artifacts);
        assert_eq!(missing, [home.join(".claude/skills"), home.join(".codex")]);
        for d in &missing {
            std::fs::create_dir_all(d).unwrap();
        }
        std::fs::write(home.join(".codex/config.toml"), "").unwrap();
        let removed = remove_empty(&missing);
        assert_eq!(removed, [home.join(".claude/skills")]);
        assert!(home.join(".codex").exists() && home.join(".claude").exists());
    }
}
