//! The one way `record` renders JSON: keys sorted at every level, two-space indentation, a
//! trailing newline. The same input always gives the same bytes, so a digest over them is
//! stable and a re-record that observed the same thing changes nothing but its date.

use std::fs;
use std::io;
use std::path::Path;

use serde_json::{Map, Value};

/// `value` with every object's keys sorted (the workspace's serde_json keeps insertion order).
pub fn sorted(value: &Value) -> Value {
    match value {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            let mut out = Map::new();
            for key in keys {
                out.insert(key.clone(), sorted(&map[key]));
            }
            Value::Object(out)
        }
        Value::Array(items) => Value::Array(items.iter().map(sorted).collect()),
        other => other.clone(),
    }
}

/// Sorted, pretty, newline-terminated.
pub fn render(value: &Value) -> Vec<u8> {
    let mut text = serde_json::to_string_pretty(&sorted(value)).expect("JSON values serialize");
    text.push('\n');
    text.into_bytes()
}

/// Writes `bytes` to `path` through a temporary sibling and a rename, so a reader never sees
/// half a file; creates the parent directories.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let parent = path.parent().unwrap_or(Path::new("."));
    fs::create_dir_all(parent)?;
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let temp = parent.join(format!(".{name}.acc-certify.tmp"));
    fs::write(&temp, bytes)?;
    fs::rename(&temp, path)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn keys_are_sorted_at_every_level_and_arrays_keep_their_order() {
        let value = json!({"b": 1, "a": {"z": [{"y": 1, "x": 2}], "c": null}});
        let text = String::from_utf8(render(&value)).unwrap();
        assert_eq!(
            text,
            "{\n  \"a\": {\n    \"c\": null,\n    \"z\": [\n      {\n        \"x\": 2,\n        \"y\": 1\n      }\n    ]\n  },\n  \"b\": 1\n}\n"
        );
        assert_eq!(render(&value), render(&sorted(&value)));
    }

    #[test]
    fn atomic_writes_create_parents_and_leave_no_temporary() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a/b/c.json");
        write_atomic(&path, b"{}\n").unwrap();
        write_atomic(&path, b"[]\n").unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"[]\n");
        assert_eq!(fs::read_dir(path.parent().unwrap()).unwrap().count(), 1);
    }
}
