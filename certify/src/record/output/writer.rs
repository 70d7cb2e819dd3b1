//! Writing a recording into an adapter directory: fixtures, then provenance records, then
//! evidence rows, each file rendered canonically, then the whole directory validated the way
//! the release gate validates it.
//!
//! Re-recording a tuple (client, version, platform, capability) replaces its row and its
//! scenario's provenance record; rows of other versions and platforms stay, because evidence
//! applies forward from the version that recorded it.

use std::cmp::Ordering;
use std::fmt;
use std::path::{Path, PathBuf};

use acc_sdk::certification::validate_adapter_dir;
use acc_sdk::error::{CERTIFICATION_FILE, Problem};
use serde_json::{Value, json};

use crate::record::kit::tuple::PROVENANCE_PATH;
use crate::record::output::canonical::{render, write_atomic};

/// One scenario's contribution to an adapter's evidence.
#[derive(Debug, Clone, PartialEq)]
pub struct ScenarioEvidence {
    /// Relative to the adapter directory.
    pub fixture_path: String,
    pub fixture_bytes: Vec<u8>,
    pub record: Value,
    pub rows: Vec<Value>,
}

#[derive(Debug)]
pub enum WriteError {
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    /// An existing file is not JSON of the expected shape; nothing was written.
    Malformed { path: PathBuf, reason: String },
    /// The written directory does not validate (a recorder bug or a broken existing file).
    Invalid {
        dir: PathBuf,
        problems: Vec<Problem>,
    },
}

impl WriteError {
    pub fn code(&self) -> &'static str {
        match self {
            WriteError::Io { .. } => "evidence.io",
            WriteError::Malformed { .. } => "evidence.malformed",
            WriteError::Invalid { .. } => "evidence.invalid",
        }
    }
}

impl fmt::Display for WriteError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WriteError::Io { path, source } => write!(f, "{}: {source}", path.display()),
            WriteError::Malformed { path, reason } => write!(f, "{}: {reason}", path.display()),
            WriteError::Invalid { dir, problems } => {
                write!(f, "{} does not validate after recording:", dir.display())?;
                for p in problems {
                    write!(f, "\n  {}: {} {} [{}]", p.file, p.field, p.message, p.code)?;
                }
                Ok(())
            }
        }
    }
}

impl std::error::Error for WriteError {}

fn read_json(path: &Path, empty: Value) -> Result<Value, WriteError> {
    match std::fs::read(path) {
        Ok(bytes) => serde_json::from_slice(&bytes).map_err(|e| WriteError::Malformed {
            path: path.to_path_buf(),
            reason: format!("not valid JSON: {e}"),
        }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(empty),
        Err(source) => Err(WriteError::Io {
            path: path.to_path_buf(),
            source,
        }),
    }
}

fn array_at<'a>(path: &Path, value: &'a Value, key: &str) -> Result<&'a Vec<Value>, WriteError> {
    value
        .get(key)
        .and_then(Value::as_array)
        .ok_or_else(|| WriteError::Malformed {
            path: path.to_path_buf(),
            reason: format!("has no `{key}` array"),
        })
}

fn text<'a>(value: &'a Value, key: &str) -> &'a str {
    value.get(key).and_then(Value::as_str).unwrap_or_default()
}

fn tuple_of(row: &Value) -> [&str; 4] {
    ["client", "version", "platform", "capability"].map(|k| text(row, k))
}

/// Versions compare as semantic versions when both parse, so `0.10.0` sorts after `0.9.0`.
fn version_order(a: &str, b: &str) -> Ordering {
    match (semver::Version::parse(a), semver::Version::parse(b)) {
        (Ok(a), Ok(b)) => a.cmp(&b),
        _ => a.cmp(b),
    }
}

/// `existing` with every row of the same tuple as a `new` row replaced, sorted by client,
/// version, platform, then capability.
pub fn merge_rows(existing: &[Value], new: &[Value]) -> Vec<Value> {
    let replaced: Vec<[&str; 4]> = new.iter().map(tuple_of).collect();
    let mut rows: Vec<Value> = existing
        .iter()
        .filter(|row| !replaced.contains(&tuple_of(row)))
        .chain(new)
        .cloned()
        .collect();
    rows.sort_by(|a, b| {
        let (ta, tb) = (tuple_of(a), tuple_of(b));
        ta[0]
            .cmp(tb[0])
            .then_with(|| version_order(ta[1], tb[1]))
            .then_with(|| ta[2].cmp(tb[2]))
            .then_with(|| ta[3].cmp(tb[3]))
    });
    rows
}

/// `existing` with every record whose id a `new` record takes replaced, sorted by id.
pub fn merge_records(existing: &[Value], new: &[Value]) -> Vec<Value> {
    let ids: Vec<&str> = new.iter().map(|r| text(r, "id")).collect();
    let mut records: Vec<Value> = existing
        .iter()
        .filter(|r| !ids.contains(&text(r, "id")))
        .chain(new)
        .cloned()
        .collect();
    records.sort_by(|a, b| text(a, "id").cmp(text(b, "id")));
    records
}

/// Writes `items` into the adapter directory `dir` and validates the result.
pub fn write_evidence(dir: &Path, items: &[ScenarioEvidence]) -> Result<(), WriteError> {
    let cert_path = dir.join(CERTIFICATION_FILE);
    let prov_path = dir.join(PROVENANCE_PATH);
    // Read (and refuse) everything before the first write.
    let certification = read_json(&cert_path, json!({"evidence": []}))?;
    let provenance = read_json(&prov_path, json!({"schemaVersion": 1, "captures": []}))?;
    let existing_rows = array_at(&cert_path, &certification, "evidence")?;
    let existing_records = array_at(&prov_path, &provenance, "captures")?;
    let new_rows: Vec<Value> = items.iter().flat_map(|i| i.rows.iter().cloned()).collect();
    let new_records: Vec<Value> = items.iter().map(|i| i.record.clone()).collect();
    let rows = merge_rows(existing_rows, &new_rows);
    let records = merge_records(existing_records, &new_records);

    let write = |path: &Path, bytes: &[u8]| {
        write_atomic(path, bytes).map_err(|source| WriteError::Io {
            path: path.to_path_buf(),
            source,
        })
    };
    for item in items {
        write(&dir.join(&item.fixture_path), &item.fixture_bytes)?;
    }
    write(
        &prov_path,
        &render(&json!({"schemaVersion": 1, "captures": records})),
    )?;
    write(&cert_path, &render(&json!({"evidence": rows})))?;
    let problems = validate_adapter_dir(dir);
    if problems.is_empty() {
        Ok(())
    } else {
        Err(WriteError::Invalid {
            dir: dir.to_path_buf(),
            problems,
        })
    }
}
