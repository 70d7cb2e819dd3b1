//! `acc.workspace.json`: a closed schema, read without following symlinks. Runtime state is
//! never stored in it, and keys that look like runtime state are refused by name.

use crate::error::{AccError, ErrorCode, Result};
use crate::ids::{WorkspaceId, portable_id_problem};
use crate::text;
use serde::Serialize;
use serde_json::{Map, Value};
use std::io::Read;
use std::path::{Component, Path, PathBuf};

/// The config file's name.
pub const CONFIG_FILE: &str = "acc.workspace.json";

/// Default and bounds of `policy.contextBudgetBytes`.
pub const DEFAULT_CONTEXT_BUDGET: u32 = 6000;
pub const MAX_CONTEXT_BUDGET: u32 = 64_000;

const ALLOWED_KEYS: [&str; 8] = [
    "schemaVersion",
    "workspaceId",
    "displayName",
    "roots",
    "policy",
    "requiredAdapters",
    "extensions",
    "store",
];

/// Keys that hold runtime state elsewhere; a config carrying them is refused by name.
pub const RUNTIME_STATE_KEYS: [&str; 10] = [
    "sessions",
    "participants",
    "messages",
    "claims",
    "receipts",
    "intents",
    "events",
    "deliveryBindings",
    "tokens",
    "credentials",
];

/// `policy.claimMode`: validated and reported; it does not change claim behaviour.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ClaimModePolicy {
    Advisory,
    Guarded,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Policy {
    pub claim_mode: Option<ClaimModePolicy>,
    pub context_budget_bytes: u32,
}

impl Default for Policy {
    fn default() -> Self {
        Policy {
            claim_mode: None,
            context_budget_bytes: DEFAULT_CONTEXT_BUDGET,
        }
    }
}

/// A validated `acc.workspace.json`.
#[derive(Debug, Clone, PartialEq)]
pub struct WorkspaceConfig {
    pub workspace_id: WorkspaceId,
    pub display_name: Option<String>,
    /// As written: relative to the config's directory and contained in it.
    pub roots: Vec<String>,
    pub policy: Policy,
    pub required_adapters: Vec<String>,
    pub extensions: Map<String, Value>,
    /// A shared store's URL (`postgres://…`); absent for the embedded store.
    pub store: Option<String>,
}

fn invalid(path: &Path, what: impl std::fmt::Display) -> AccError {
    AccError::new(
        ErrorCode::WorkspaceConfigInvalid,
        format!("{}: {what}", path.display()),
    )
    .with("file", path.display().to_string())
}

/// Parses and validates config text; `path` only names the file in errors.
pub fn parse_config(text_in: &str, path: &Path) -> Result<WorkspaceConfig> {
    let value: Value = serde_json::from_str(text_in)
        .map_err(|e| invalid(path, format!("is not valid JSON ({e})")))?;
    let Value::Object(obj) = value else {
        return Err(invalid(path, "must hold one JSON object"));
    };
    for key in obj.keys() {
        if RUNTIME_STATE_KEYS.contains(&key.as_str()) {
            return Err(invalid(
                path,
                format!("key \"{key}\" is runtime state, which acc never stores in {CONFIG_FILE}; remove it"),
            )
            .with("key", key.as_str()));
        }
        if !ALLOWED_KEYS.contains(&key.as_str()) {
            return Err(invalid(
                path,
                format!(
                    "unknown key \"{key}\"; allowed keys are {}",
                    ALLOWED_KEYS.join(", ")
                ),
            )
            .with("key", key.as_str()));
        }
    }
    match obj.get("schemaVersion") {
        Some(Value::Number(n)) if n.as_u64() == Some(1) => {}
        Some(other) => {
            return Err(invalid(
                path,
                format!("schemaVersion must be 1, found {other}"),
            ));
        }
        None => return Err(invalid(path, "schemaVersion is required (use 1)")),
    }
    let workspace_id = match obj.get("workspaceId") {
        Some(Value::String(s)) => match portable_id_problem(s) {
            None => WorkspaceId::parse(s)?,
            Some(why) => return Err(invalid(path, format!("workspaceId {s:?} {why}"))),
        },
        Some(_) => return Err(invalid(path, "workspaceId must be a string")),
        None => return Err(invalid(path, "workspaceId is required")),
    };
    let display_name = match obj.get("displayName") {
        None => None,
        Some(Value::String(s)) => {
            text::check_line("displayName", s).map_err(|e| invalid(path, e.message))?;
            Some(s.clone())
        }
        Some(_) => return Err(invalid(path, "displayName must be a string")),
    };
    let roots = match obj.get("roots") {
        None => vec![".".to_string()],
        Some(Value::Array(items)) if !items.is_empty() => {
            let mut roots = Vec::new();
            for item in items {
                let Value::String(s) = item else {
                    return Err(invalid(path, "every entry of roots must be a string"));
                };
                check_root(s).map_err(|why| invalid(path, format!("root {s:?} {why}")))?;
                roots.push(s.clone());
            }
            roots
        }
        Some(_) => return Err(invalid(path, "roots must be a non-empty array of strings")),
    };
    let policy = match obj.get("policy") {
        None => Policy::default(),
        Some(Value::Object(p)) => parse_policy(p).map_err(|why| invalid(path, why))?,
        Some(_) => return Err(invalid(path, "policy must be an object")),
    };
    let required_adapters = match obj.get("requiredAdapters") {
        None => Vec::new(),
        Some(Value::Array(items)) => {
            let mut out = Vec::new();
            for item in items {
                match item {
                    Value::String(s) if portable_id_problem(s).is_none() => out.push(s.clone()),
                    _ => {
                        return Err(invalid(
                            path,
                            "requiredAdapters must list adapter ids (portable ids)",
                        ));
                    }
                }
            }
            out
        }
        Some(_) => return Err(invalid(path, "requiredAdapters must be an array")),
    };
    let extensions = match obj.get("extensions") {
        None => Map::new(),
        Some(Value::Object(m)) => m.clone(),
        Some(_) => return Err(invalid(path, "extensions must be an object")),
    };
    let store = match obj.get("store") {
        None => None,
        Some(Value::String(u)) => Some(
            crate::store::engine::config::check_store_url(u, &path.display().to_string())
                .map_err(|e| invalid(path, e.message))?,
        ),
        Some(_) => return Err(invalid(path, "store must be a string (a postgres:// url)")),
    };
    Ok(WorkspaceConfig {
        workspace_id,
        store,
        display_name,
        roots,
        policy,
        required_adapters,
        extensions,
    })
}

fn parse_policy(p: &Map<String, Value>) -> std::result::Result<Policy, String> {
    let mut policy = Policy::default();
    for (key, value) in p {
        match key.as_str() {
            "claimMode" => {
                policy.claim_mode = Some(match value.as_str() {
                    Some("advisory") => ClaimModePolicy::Advisory,
                    Some("guarded") => ClaimModePolicy::Guarded,
                    _ => {
                        return Err(format!(
                            "policy.claimMode must be \"advisory\" or \"guarded\", found {value}"
                        ));
                    }
                })
            }
            "contextBudgetBytes" => {
                policy.context_budget_bytes = match value.as_u64() {
                    Some(n) if (1..=MAX_CONTEXT_BUDGET as u64).contains(&n) => n as u32,
                    _ => {
                        return Err(format!(
                            "policy.contextBudgetBytes must be an integer from 1 to {MAX_CONTEXT_BUDGET}, found {value}"
                        ));
                    }
                }
            }
            other => {
                return Err(format!(
                    "unknown key \"policy.{other}\"; allowed keys are claimMode, contextBudgetBytes"
                ));
            }
        }
    }
    Ok(policy)
}

/// A root is relative, has no drive letter and never climbs above the config's directory.
fn check_root(root: &str) -> std::result::Result<(), &'static str> {
    if root.is_empty() {
        return Err("is empty");
    }
    let b = root.as_bytes();
    if b.len() >= 2 && b[1] == b':' && b[0].is_ascii_alphabetic() {
        return Err("has a drive letter; roots are relative to the config's directory");
    }
    if root.starts_with('/') || root.starts_with('\\') || Path::new(root).is_absolute() {
        return Err("is absolute; roots are relative to the config's directory");
    }
    let mut depth: i32 = 0;
    for c in Path::new(root).components() {
        match c {
            Component::ParentDir => depth -= 1,
            Component::Normal(_) => depth += 1,
            _ => {}
        }
        if depth < 0 {
            return Err("climbs above the config's directory");
        }
    }
    Ok(())
}

/// The largest config read. Real configs are a few hundred bytes; a bigger one is refused
/// rather than read, so a planted multi-gigabyte file cannot stall every hook.
pub const MAX_CONFIG_BYTES: u64 = 1024 * 1024;

/// Reads `path` as a regular file without following a symlink at its last component.
/// `Ok(None)` when there is no such file. The file is opened non-blocking and its type is
/// checked on the open descriptor, so a FIFO (or a file swapped for one after a first look)
/// never blocks the reader, and at most [`MAX_CONFIG_BYTES`] are read.
pub fn read_no_follow(path: &Path) -> Result<Option<String>> {
    use std::os::unix::fs::OpenOptionsExt;
    match std::fs::symlink_metadata(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(invalid(path, format!("cannot be read ({e})"))),
        Ok(meta) if meta.file_type().is_symlink() => {
            return Err(invalid(
                path,
                "is a symbolic link; acc reads it only as a regular file",
            ));
        }
        Ok(meta) if !meta.is_file() => return Err(invalid(path, "is not a regular file")),
        Ok(_) => {}
    }
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(path)
        .map_err(|e| invalid(path, format!("cannot be read ({e})")))?;
    let meta = file
        .metadata()
        .map_err(|e| invalid(path, format!("cannot be read ({e})")))?;
    if !meta.is_file() {
        return Err(invalid(path, "is not a regular file"));
    }
    if meta.len() > MAX_CONFIG_BYTES {
        return Err(invalid(
            path,
            format!("is larger than {MAX_CONFIG_BYTES} bytes; a workspace config is a few hundred"),
        ));
    }
    let mut bytes = Vec::new();
    file.take(MAX_CONFIG_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| invalid(path, format!("cannot be read ({e})")))?;
    if bytes.len() as u64 > MAX_CONFIG_BYTES {
        return Err(invalid(
            path,
            format!("is larger than {MAX_CONFIG_BYTES} bytes; a workspace config is a few hundred"),
        ));
    }
    String::from_utf8(bytes)
        .map(Some)
        .map_err(|_| invalid(path, "cannot be read as UTF-8 text"))
}

/// Resolves a config's roots against its directory; each must stay inside it after
/// symlinks are resolved too.
pub fn resolve_roots(config: &WorkspaceConfig, base: &Path, path: &Path) -> Result<Vec<PathBuf>> {
    let base_real = crate::paths::realpath_lenient(base);
    let mut out = Vec::new();
    for root in &config.roots {
        let real = crate::paths::realpath_lenient(&base_real.join(root));
        if !real.starts_with(&base_real) {
            return Err(invalid(
                path,
                format!("root {root:?} resolves outside the config's directory"),
            ));
        }
        if !out.contains(&real) {
            out.push(real);
        }
    }
    Ok(out)
}

/// The text `acc config init` writes.
pub fn render_config(workspace_id: &WorkspaceId, display_name: &str) -> String {
    let value = serde_json::json!({
        "schemaVersion": 1,
        "workspaceId": workspace_id.as_str(),
        "displayName": display_name,
        "roots": ["."],
    });
    let mut s = serde_json::to_string_pretty(&value).expect("json values serialise");
    s.push('\n');
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &str) -> Result<WorkspaceConfig> {
        parse_config(s, Path::new("/w/acc.workspace.json"))
    }

    #[test]
    fn minimal_config_gets_defaults() {
        let c = parse(r#"{"schemaVersion":1,"workspaceId":"proj"}"#).unwrap();
        assert_eq!(c.workspace_id.as_str(), "proj");
        assert_eq!(c.roots, vec!["."]);
        assert_eq!(c.policy.context_budget_bytes, 6000);
        assert!(c.extensions.is_empty());
    }

    #[test]
    fn unknown_and_runtime_keys_are_refused_by_name() {
        let e = parse(r#"{"schemaVersion":1,"workspaceId":"p","colour":1}"#).unwrap_err();
        assert!(
            e.message.contains("unknown key \"colour\""),
            "{}",
            e.message
        );
        assert_eq!(e.exit_code(), 4);
        let e = parse(r#"{"schemaVersion":1,"workspaceId":"p","sessions":[]}"#).unwrap_err();
        assert!(
            e.message.contains("\"sessions\" is runtime state"),
            "{}",
            e.message
        );
        let e = parse(r#"{"schemaVersion":1,"workspaceId":"p","policy":{"x":1}}"#).unwrap_err();
        assert!(e.message.contains("policy.x"), "{}", e.message);
    }

    #[test]
    fn schema_version_and_id_are_required() {
        assert!(
            parse(r#"{"workspaceId":"p"}"#)
                .unwrap_err()
                .message
                .contains("schemaVersion is required")
        );
        assert!(parse(r#"{"schemaVersion":2,"workspaceId":"p"}"#).is_err());
        assert!(
            parse(r#"{"schemaVersion":1}"#)
                .unwrap_err()
                .message
                .contains("workspaceId is required")
        );
        assert!(parse(r#"{"schemaVersion":1,"workspaceId":"a/b"}"#).is_err());
        assert!(parse("[1]").is_err());
        assert!(parse("{").unwrap_err().message.contains("not valid JSON"));
    }

    #[test]
    fn roots_must_be_relative_and_contained() {
        for bad in [
            r#""/abs""#,
            r#""C:\\x""#,
            r#""../up""#,
            r#""a/../../b""#,
            r#""""#,
        ] {
            let text = format!(r#"{{"schemaVersion":1,"workspaceId":"p","roots":[{bad}]}}"#);
            assert!(parse(&text).is_err(), "{bad} should be refused");
        }
        let ok = parse(r#"{"schemaVersion":1,"workspaceId":"p","roots":["a","a/../b"]}"#).unwrap();
        assert_eq!(ok.roots.len(), 2);
    }

    #[test]
    fn policy_bounds() {
        assert!(
            parse(r#"{"schemaVersion":1,"workspaceId":"p","policy":{"contextBudgetBytes":0}}"#)
                .is_err()
        );
        assert!(
            parse(r#"{"schemaVersion":1,"workspaceId":"p","policy":{"contextBudgetBytes":64001}}"#)
                .is_err()
        );
        let c = parse(r#"{"schemaVersion":1,"workspaceId":"p","policy":{"claimMode":"guarded","contextBudgetBytes":64000}}"#).unwrap();
        assert_eq!(c.policy.claim_mode, Some(ClaimModePolicy::Guarded));
        assert!(
            parse(r#"{"schemaVersion":1,"workspaceId":"p","policy":{"claimMode":"strict"}}"#)
                .is_err()
        );
    }

    #[test]
    fn symlinked_config_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("real.json");
        std::fs::write(&real, r#"{"schemaVersion":1,"workspaceId":"p"}"#).unwrap();
        let link = dir.path().join(CONFIG_FILE);
        std::os::unix::fs::symlink(&real, &link).unwrap();
        let e = read_no_follow(&link).unwrap_err();
        assert!(e.message.contains("symbolic link"), "{}", e.message);
        assert_eq!(read_no_follow(&dir.path().join("absent")).unwrap(), None);
    }

    #[test]
    fn fifos_and_huge_files_are_refused_without_blocking_or_reading_them() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join(CONFIG_FILE);
        let c = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).unwrap();
        // SAFETY: mkfifo only reads the NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let e = read_no_follow(&fifo).unwrap_err();
        assert!(e.message.contains("not a regular file"), "{}", e.message);
        let huge = dir.path().join("huge.json");
        let f = std::fs::File::create(&huge).unwrap();
        f.set_len(MAX_CONFIG_BYTES + 1).unwrap();
        let e = read_no_follow(&huge).unwrap_err();
        assert!(e.message.contains("larger than"), "{}", e.message);
    }

    #[test]
    fn rendered_config_parses_back() {
        let id = WorkspaceId::parse("workspace_x").unwrap();
        let c = parse(&render_config(&id, "my project")).unwrap();
        assert_eq!(c.workspace_id, id);
        assert_eq!(c.display_name.as_deref(), Some("my project"));
    }
}
