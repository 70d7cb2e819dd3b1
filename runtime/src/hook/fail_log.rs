//! Where a hook that failed open leaves a trace a person can see: one JSON line per failure
//! in `<data home>/acc/hook-failures.jsonl` (when, which adapter, the stable reason code;
//! never payload text), read by `acc watch` for its event tail. The store cannot hold it:
//! an unreadable or busy store is one of the reasons.
//!
//! Best effort and bounded: one append, no lock; past [`MAX_BYTES`] the file is replaced by
//! its newer half's successor (renamed to `.1`, one generation kept).

use serde::{Deserialize, Serialize};
use std::io::{BufRead, Read, Write};
use std::path::{Path, PathBuf};

/// The log is rotated once it grows past this.
pub const MAX_BYTES: u64 = 256 * 1024;

/// `<data home>/acc/hook-failures.jsonl`.
pub fn path(data_home: &Path) -> PathBuf {
    data_home.join("acc").join("hook-failures.jsonl")
}

/// One failure, as logged.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HookFailure {
    pub at_ms: i64,
    pub adapter: String,
    pub code: String,
}

/// Appends `failure`; gives up silently (the hook has already answered). Only into a data
/// home acc already set up (`<data home>/acc` exists): a failure never creates one, so a
/// refused data home (inside a repository, say) stays untouched.
pub fn append(data_home: &Path, failure: &HookFailure) {
    let file = path(data_home);
    let Some(dir) = file.parent() else { return };
    if !dir.is_dir() {
        return;
    }
    if std::fs::metadata(&file).is_ok_and(|m| m.len() > MAX_BYTES) {
        let _ = std::fs::rename(&file, file.with_extension("jsonl.1"));
    }
    let Some(line) = line(failure) else {
        return;
    };
    if let Ok(mut f) = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&file)
    {
        let _ = f.write_all(line.as_bytes());
    }
}

/// `failure` as one line of the log, its newline included.
pub fn line(failure: &HookFailure) -> Option<String> {
    let mut line = serde_json::to_string(failure).ok()?;
    line.push('\n');
    Some(line)
}

/// The newest `limit` failures logged at or after `since_ms`, oldest first. Lines that are
/// not acc's are skipped.
pub fn recent(data_home: &Path, since_ms: i64, limit: usize) -> Vec<HookFailure> {
    let Ok(file) = std::fs::File::open(path(data_home)) else {
        return Vec::new();
    };
    let mut out: Vec<HookFailure> = std::io::BufReader::new(file)
        .take(MAX_BYTES * 2)
        .lines()
        .map_while(Result::ok)
        .filter_map(|l| serde_json::from_str::<HookFailure>(&l).ok())
        .filter(|f| f.at_ms >= since_ms)
        .collect();
    let skip = out.len().saturating_sub(limit);
    out.drain(..skip);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn failure(at_ms: i64, code: &str) -> HookFailure {
        HookFailure {
            at_ms,
            adapter: "codex".into(),
            code: code.into(),
        }
    }

    #[test]
    fn failures_are_appended_and_read_back_newest_last_within_the_window() {
        let tmp = tempfile::tempdir().unwrap();
        // No data home set up yet: nothing is created.
        append(tmp.path(), &failure(1, "usage"));
        assert!(!tmp.path().join("acc").exists());
        std::fs::create_dir(tmp.path().join("acc")).unwrap();
        for (i, code) in ["store_busy", "timeout", "payload_not_json"]
            .iter()
            .enumerate()
        {
            append(tmp.path(), &failure(1_000 * (i as i64 + 1), code));
        }
        std::fs::OpenOptions::new()
            .append(true)
            .open(path(tmp.path()))
            .unwrap()
            .write_all(b"not acc's\n")
            .unwrap();
        let codes = |v: Vec<HookFailure>| v.into_iter().map(|f| f.code).collect::<Vec<_>>();
        assert_eq!(
            codes(recent(tmp.path(), 0, 10)),
            ["store_busy", "timeout", "payload_not_json"]
        );
        assert_eq!(
            codes(recent(tmp.path(), 2_000, 10)),
            ["timeout", "payload_not_json"]
        );
        assert_eq!(codes(recent(tmp.path(), 0, 1)), ["payload_not_json"]);
    }

    #[test]
    fn the_log_stays_bounded() {
        let tmp = tempfile::tempdir().unwrap();
        let big = "x".repeat(MAX_BYTES as usize + 1);
        std::fs::create_dir_all(tmp.path().join("acc")).unwrap();
        std::fs::write(path(tmp.path()), big).unwrap();
        append(tmp.path(), &failure(5, "timeout"));
        assert!(std::fs::metadata(path(tmp.path())).unwrap().len() < 200);
        assert!(tmp.path().join("acc/hook-failures.jsonl.1").exists());
    }
}
