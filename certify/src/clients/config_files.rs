//! Merging keys into a client's JSON or TOML config file without dropping what is already
//! there (hooks an installer wrote, say). Comments and formatting are not preserved, which is
//! why the sandbox writes its base config before any installer runs.

use std::fs;
use std::path::Path;

use serde_json::Value;

use super::error::ClientError;

/// Deep-merges `patch` into `base`: objects merge key by key, anything else is replaced.
pub fn merge_json(base: &mut Value, patch: &Value) {
    match (base, patch) {
        (Value::Object(base), Value::Object(patch)) => {
            for (key, value) in patch {
                match base.get_mut(key) {
                    Some(existing) => merge_json(existing, value),
                    None => {
                        base.insert(key.clone(), value.clone());
                    }
                }
            }
        }
        (base, patch) => *base = patch.clone(),
    }
}

/// Deep-merges `patch` into `base` (tables merge, values are replaced).
pub fn merge_toml(base: &mut toml::Table, patch: &toml::Table) {
    for (key, value) in patch {
        match (base.get_mut(key), value) {
            (Some(toml::Value::Table(existing)), toml::Value::Table(patch)) => {
                merge_toml(existing, patch)
            }
            _ => {
                base.insert(key.clone(), value.clone());
            }
        }
    }
}

/// Merges `patch` into the JSON file at `path` (created with its parents when missing) and
/// writes it back pretty-printed.
pub fn merge_json_file(path: &Path, patch: &Value) -> Result<(), ClientError> {
    let mut document = match fs::read_to_string(path) {
        Ok(text) if text.trim().is_empty() => Value::Object(Default::default()),
        Ok(text) => serde_json::from_str(&text).map_err(|err| ClientError::ConfigUnreadable {
            path: path.to_path_buf(),
            reason: err.to_string(),
        })?,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => Value::Object(Default::default()),
        Err(err) => return Err(ClientError::io(format!("reading {}", path.display()))(err)),
    };
    if !document.is_object() {
        return Err(ClientError::ConfigUnreadable {
            path: path.to_path_buf(),
            reason: "the top level is not an object".into(),
        });
    }
    merge_json(&mut document, patch);
    let mut text = serde_json::to_string_pretty(&document).expect("JSON always serializes");
    text.push('\n');
    write_creating_parents(path, &text)
}

/// Merges `patch` into the TOML file at `path` (created with its parents when missing).
pub fn merge_toml_file(path: &Path, patch: &toml::Table) -> Result<(), ClientError> {
    let mut document = match fs::read_to_string(path) {
        Ok(text) => text
            .parse::<toml::Table>()
            .map_err(|err| ClientError::ConfigUnreadable {
                path: path.to_path_buf(),
                reason: err.to_string(),
            })?,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => toml::Table::new(),
        Err(err) => return Err(ClientError::io(format!("reading {}", path.display()))(err)),
    };
    merge_toml(&mut document, patch);
    let text = toml::to_string(&document).map_err(|err| ClientError::ConfigUnreadable {
        path: path.to_path_buf(),
        reason: err.to_string(),
    })?;
    write_creating_parents(path, &text)
}

fn write_creating_parents(path: &Path, text: &str) -> Result<(), ClientError> {
    if let Some(parent) = path.parent() {
        fs::create_dir_all(parent)
            .map_err(ClientError::io(format!("creating {}", parent.display())))?;
    }
    fs::write(path, text).map_err(ClientError::io(format!("writing {}", path.display())))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn json_merge_keeps_unrelated_keys_and_replaces_leaves() {
        let mut base =
            json!({"hooks": {"BeforeTool": [1]}, "model": {"name": "old", "keep": true}});
        merge_json(
            &mut base,
            &json!({"model": {"name": "gemini-2.5-flash"}, "telemetry": {"enabled": false}}),
        );
        assert_eq!(
            base,
            json!({"hooks": {"BeforeTool": [1]}, "model": {"name": "gemini-2.5-flash", "keep": true}, "telemetry": {"enabled": false}})
        );
    }

    #[test]
    fn json_files_are_created_or_merged_but_never_clobbered() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a/b/settings.json");
        merge_json_file(&path, &json!({"x": 1})).unwrap();
        merge_json_file(&path, &json!({"y": {"z": 2}})).unwrap();
        let text = fs::read_to_string(&path).unwrap();
        assert_eq!(
            serde_json::from_str::<Value>(&text).unwrap(),
            json!({"x": 1, "y": {"z": 2}})
        );
        assert!(text.ends_with("}\n"));
        fs::write(&path, "{not json").unwrap();
        let err = merge_json_file(&path, &json!({"x": 2})).unwrap_err();
        assert_eq!(err.code(), "client.config-unreadable");
        assert_eq!(fs::read_to_string(&path).unwrap(), "{not json");
    }

    #[test]
    fn toml_files_merge_tables() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("config.toml");
        fs::write(
            &path,
            "model = \"old\"\n[hooks.state.\"x\"]\ntrusted_hash = \"sha256:1\"\n",
        )
        .unwrap();
        let patch: toml::Table =
            "model = \"gpt-5.5\"\n[model_providers.acc]\nbase_url = \"http://127.0.0.1:1/v1\"\n"
                .parse()
                .unwrap();
        merge_toml_file(&path, &patch).unwrap();
        let merged: toml::Table = fs::read_to_string(&path).unwrap().parse().unwrap();
        assert_eq!(merged["model"].as_str(), Some("gpt-5.5"));
        assert_eq!(
            merged["hooks"]["state"]["x"]["trusted_hash"].as_str(),
            Some("sha256:1")
        );
        assert_eq!(
            merged["model_providers"]["acc"]["base_url"].as_str(),
            Some("http://127.0.0.1:1/v1")
        );
    }
}
