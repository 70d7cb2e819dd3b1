//! Where installed clients live: `${ACC_CERTIFY_CACHE:-$HOME/.cache/acc-certify}`, never
//! inside a repository (a client is 100-450 MB and must not end up in a commit).

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use super::Client;
use super::error::ClientError;

pub const CACHE_VAR: &str = "ACC_CERTIFY_CACHE";

/// The client cache root.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cache {
    root: PathBuf,
}

impl Cache {
    /// Uses `root` after checking that it is absolute and outside every git repository.
    pub fn at(root: impl Into<PathBuf>) -> Result<Cache, ClientError> {
        let root = root.into();
        if !root.is_absolute() {
            return Err(ClientError::CacheLocation {
                path: root,
                reason: "the path is relative".into(),
            });
        }
        if let Some(repository) = enclosing_repository(&root) {
            return Err(ClientError::CacheLocation {
                reason: format!("it is inside the git repository {}", repository.display()),
                path: root,
            });
        }
        Ok(Cache { root })
    }

    /// Resolves the root from an environment lookup (the process environment in
    /// [`Cache::from_process_env`]; a map in tests).
    pub fn from_env(lookup: impl Fn(&str) -> Option<OsString>) -> Result<Cache, ClientError> {
        let non_empty = |name: &str| lookup(name).filter(|value| !value.is_empty());
        if let Some(root) = non_empty(CACHE_VAR) {
            return Cache::at(PathBuf::from(root));
        }
        let home = non_empty("HOME").ok_or_else(|| ClientError::CacheLocation {
            path: PathBuf::from("$HOME/.cache/acc-certify"),
            reason: "neither ACC_CERTIFY_CACHE nor HOME is set".into(),
        })?;
        Cache::at(PathBuf::from(home).join(".cache").join("acc-certify"))
    }

    pub fn from_process_env() -> Result<Cache, ClientError> {
        Cache::from_env(|name| std::env::var_os(name))
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// `<root>/<client>-<version>`: one directory per client and version.
    pub fn client_dir(&self, client: Client, version: &str) -> PathBuf {
        self.root.join(format!("{}-{version}", client.id()))
    }
}

/// The nearest ancestor of `path` (or `path` itself) holding a `.git` entry.
pub fn enclosing_repository(path: &Path) -> Option<PathBuf> {
    path.ancestors()
        .find(|dir| dir.join(".git").exists())
        .map(Path::to_path_buf)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    fn lookup(vars: &[(&str, &Path)]) -> impl Fn(&str) -> Option<OsString> {
        let map: BTreeMap<String, OsString> = vars
            .iter()
            .map(|(key, value)| (key.to_string(), value.as_os_str().to_owned()))
            .collect();
        move |name| map.get(name).cloned()
    }

    #[test]
    fn the_variable_wins_over_home() {
        let dir = tempfile::tempdir().unwrap();
        let chosen = dir.path().join("chosen");
        let cache = Cache::from_env(lookup(&[(CACHE_VAR, &chosen), ("HOME", dir.path())])).unwrap();
        assert_eq!(cache.root(), chosen);
        let cache = Cache::from_env(lookup(&[("HOME", dir.path())])).unwrap();
        assert_eq!(cache.root(), dir.path().join(".cache/acc-certify"));
        assert_eq!(
            cache.client_dir(Client::Codex, "0.171.0"),
            dir.path().join(".cache/acc-certify/codex-0.171.0")
        );
    }

    #[test]
    fn a_cache_inside_a_repository_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join(".git")).unwrap();
        let err = Cache::at(dir.path().join("not-yet/created")).unwrap_err();
        assert_eq!(err.code(), "client.cache-location");
        assert!(
            err.to_string().contains("inside the git repository"),
            "{err}"
        );
    }

    #[test]
    fn relative_or_missing_locations_are_refused() {
        assert_eq!(
            Cache::at("relative/cache").unwrap_err().code(),
            "client.cache-location"
        );
        assert_eq!(
            Cache::from_env(|_| None).unwrap_err().code(),
            "client.cache-location"
        );
    }
}
