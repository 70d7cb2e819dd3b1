//! The request log every double keeps: one JSON object per request, in arrival order.

use std::fs;
use std::io::{self, BufRead};
use std::path::Path;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// One logged request: `{t, n, method, path, query, headers, body, answered}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LoggedRequest {
    /// Arrival time, seconds since the Unix epoch.
    pub t: f64,
    /// Arrival order within this double, from 1.
    pub n: u64,
    pub method: String,
    pub path: String,
    pub query: Option<String>,
    /// Header names as sent; a repeated header's values are joined with `, `.
    pub headers: Map<String, Value>,
    /// The body parsed as JSON when possible, else its text; `null` when empty.
    pub body: Value,
    /// What the double answered (see `Reply::answered`).
    pub answered: String,
}

impl LoggedRequest {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(key, _)| key.eq_ignore_ascii_case(name))
            .and_then(|(_, value)| value.as_str())
    }
}

/// Folds repeated headers into one entry, keeping the first spelling of the name.
pub fn header_map(headers: &[(String, String)]) -> Map<String, Value> {
    let mut map = Map::new();
    for (name, value) in headers {
        let existing = map
            .iter_mut()
            .find(|(key, _)| key.eq_ignore_ascii_case(name))
            .map(|(_, slot)| slot);
        match existing {
            Some(Value::String(joined)) => {
                joined.push_str(", ");
                joined.push_str(value);
            }
            _ => {
                map.insert(name.clone(), Value::String(value.clone()));
            }
        }
    }
    map
}

/// Writes the log as JSON lines.
pub fn write_jsonl(path: &Path, entries: &[LoggedRequest]) -> io::Result<()> {
    let mut text = String::new();
    for entry in entries {
        text.push_str(&serde_json::to_string(entry).map_err(io::Error::other)?);
        text.push('\n');
    }
    fs::write(path, text)
}

/// Reads a log written by [`write_jsonl`]; a line that does not parse is an error naming it.
pub fn read_jsonl(path: &Path) -> io::Result<Vec<LoggedRequest>> {
    let file = fs::File::open(path)?;
    let mut entries = Vec::new();
    for (index, line) in io::BufReader::new(file).lines().enumerate() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        let entry = serde_json::from_str(&line).map_err(|err| {
            io::Error::new(
                io::ErrorKind::InvalidData,
                format!("{}:{}: {err}", path.display(), index + 1),
            )
        })?;
        entries.push(entry);
    }
    Ok(entries)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn repeated_headers_are_joined_under_the_first_spelling() {
        let map = header_map(&[
            ("Accept".into(), "a".into()),
            ("host".into(), "h".into()),
            ("accept".into(), "b".into()),
        ]);
        assert_eq!(Value::Object(map), json!({"Accept": "a, b", "host": "h"}));
    }

    #[test]
    fn the_log_round_trips_through_a_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("requests.jsonl");
        let entry = LoggedRequest {
            t: 1.5,
            n: 1,
            method: "POST".into(),
            path: "/v1/responses".into(),
            query: None,
            headers: header_map(&[("session-id".into(), "s".into())]),
            body: json!({"input": []}),
            answered: "final_text".into(),
        };
        write_jsonl(&path, std::slice::from_ref(&entry)).unwrap();
        let text = fs::read_to_string(&path).unwrap();
        assert_eq!(text.lines().count(), 1);
        let line: Value = serde_json::from_str(text.trim()).unwrap();
        let keys: Vec<&str> = line
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(
            keys,
            [
                "t", "n", "method", "path", "query", "headers", "body", "answered"
            ]
        );
        assert_eq!(read_jsonl(&path).unwrap(), vec![entry.clone()]);
        assert_eq!(entry.header("Session-Id"), Some("s"));
    }

    #[test]
    fn a_bad_line_is_reported_with_its_number() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("bad.jsonl");
        fs::write(&path, "\n{oops\n").unwrap();
        let err = read_jsonl(&path).unwrap_err();
        assert!(err.to_string().contains("bad.jsonl:2"), "{err}");
    }
}
