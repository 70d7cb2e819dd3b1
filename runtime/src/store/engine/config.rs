//! Which engine holds a workspace's store: the embedded SQLite file unless the workspace
//! names a PostgreSQL server (`ACC_STORE_URL`, or `store` in `acc.workspace.json`), and the
//! identity that makes one room of the checkouts of one repository on several hosts.

use crate::error::{AccError, ErrorCode, Result};
use crate::ids::WorkspaceId;
use sha2::{Digest, Sha256};
use std::path::Path;

/// The environment variable naming a shared store; it wins over `acc.workspace.json`.
pub const STORE_URL_VAR: &str = "ACC_STORE_URL";

/// The store a workspace's URL names, checked: only PostgreSQL URLs are shared stores.
pub fn check_store_url(url: &str, from: &str) -> Result<String> {
    let url = url.trim();
    let scheme_ok = url.starts_with("postgres://") || url.starts_with("postgresql://");
    let parsed = super::tls::parse(url);
    if !scheme_ok || parsed.is_err() {
        let why = parsed.err().map(|e| format!(" ({e})")).unwrap_or_default();
        return Err(AccError::new(
            ErrorCode::WorkspaceConfigInvalid,
            format!(
                "the store url in {from} is not a PostgreSQL url (postgres://user@host:port/database, optionally ?sslmode=verify-full&sslrootcert=/path/ca.pem){why}; fix it, or remove it to use the embedded store"
            ),
        )
        .with("source", from));
    }
    Ok(url.to_string())
}

/// A repository's remote URL in one spelling for every host: no scheme, user, port or
/// `.git` suffix, host lower-cased (`git@github.com:Org/Repo.git` and
/// `https://github.com/Org/Repo` are both `github.com/Org/Repo`).
pub fn normalise_remote(url: &str) -> Option<String> {
    let url = url.trim();
    if url.is_empty() {
        return None;
    }
    let (host, path) = if let Some((_, rest)) = url.split_once("://") {
        let rest = rest.rsplit_once('@').map(|(_, r)| r).unwrap_or(rest);
        let (host, path) = rest.split_once('/').unwrap_or((rest, ""));
        (host.split(':').next().unwrap_or(host), path)
    } else if let Some((left, path)) = url.split_once(':')
        && !left.contains('/')
    {
        // scp-like: [user@]host:path
        (left.rsplit_once('@').map(|(_, h)| h).unwrap_or(left), path)
    } else {
        // A local path: its own spelling is all there is.
        ("", url)
    };
    let path = path.trim_matches('/');
    let path = path
        .strip_suffix(".git")
        .unwrap_or(path)
        .trim_end_matches('/');
    if path.is_empty() {
        return None;
    }
    Some(if host.is_empty() {
        path.to_string()
    } else {
        format!("{}/{path}", host.to_ascii_lowercase())
    })
}

/// The normalised URL of the repository's `origin` remote (else its only remote), read
/// from the common directory's `config`.
pub fn repository_identity(common_dir: &Path) -> Option<String> {
    let text = std::fs::read_to_string(common_dir.join("config")).ok()?;
    let mut remote: Option<String> = None;
    let mut urls: Vec<(String, String)> = Vec::new();
    for line in text.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            remote = line
                .strip_prefix("[remote \"")
                .and_then(|r| r.strip_suffix("\"]"))
                .map(str::to_string);
        } else if let Some(name) = &remote
            && let Some((key, value)) = line.split_once('=')
            && key.trim() == "url"
        {
            urls.push((name.clone(), value.trim().trim_matches('"').to_string()));
        }
    }
    let url = urls
        .iter()
        .find(|(n, _)| n == "origin")
        .or(urls.first().filter(|_| urls.len() == 1))?;
    normalise_remote(&url.1)
}

/// The workspace id of a repository's shared room: the same on every host that has a
/// checkout of it, different for every other repository.
pub fn shared_workspace_id(repository: &str) -> WorkspaceId {
    let digest = Sha256::digest(repository.as_bytes());
    let hex: String = digest.iter().take(16).map(|b| format!("{b:02x}")).collect();
    WorkspaceId::parse(&format!("repo_{hex}")).expect("hex ids are portable")
}

/// This host's name, recorded with each session so liveness is judged where it runs.
pub fn host_id() -> String {
    let mut buf = [0u8; 256];
    // SAFETY: the buffer is valid for its length; gethostname NUL-terminates within it
    // or truncates, and the last byte stays 0.
    let rc = unsafe { libc::gethostname(buf.as_mut_ptr().cast(), buf.len() - 1) };
    if rc != 0 {
        return "localhost".into();
    }
    let end = buf.iter().position(|b| *b == 0).unwrap_or(buf.len());
    String::from_utf8_lossy(&buf[..end]).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_spelling_of_one_remote_is_one_repository() {
        let one = [
            "git@github.com:Org/Repo.git",
            "https://github.com/Org/Repo",
            "https://user:token@GitHub.com/Org/Repo.git/",
            "ssh://git@github.com:22/Org/Repo.git",
        ];
        for u in one {
            assert_eq!(
                normalise_remote(u).as_deref(),
                Some("github.com/Org/Repo"),
                "{u}"
            );
        }
        assert_ne!(
            normalise_remote("git@github.com:Org/Other.git"),
            normalise_remote(one[0])
        );
        assert_ne!(
            shared_workspace_id("github.com/Org/Repo"),
            shared_workspace_id("github.com/Org/Other")
        );
        assert_eq!(normalise_remote("  "), None);
    }

    #[test]
    fn the_origin_remote_names_the_repository() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("config"),
            "[core]\n\tbare = false\n[remote \"upstream\"]\n\turl = git@example.com:a/up.git\n[remote \"origin\"]\n\turl = https://example.com/a/b.git\n",
        )
        .unwrap();
        assert_eq!(
            repository_identity(dir.path()).as_deref(),
            Some("example.com/a/b")
        );
        std::fs::write(dir.path().join("config"), "[core]\n").unwrap();
        assert_eq!(repository_identity(dir.path()), None);
    }

    #[test]
    fn only_postgresql_urls_name_a_shared_store() {
        assert!(check_store_url("postgres://acc@127.0.0.1:5432/acc", "x").is_ok());
        let err = check_store_url("mysql://h/db", "ACC_STORE_URL").unwrap_err();
        assert_eq!(err.code, ErrorCode::WorkspaceConfigInvalid);
        assert!(err.message.contains("ACC_STORE_URL"), "{}", err.message);
    }
}
