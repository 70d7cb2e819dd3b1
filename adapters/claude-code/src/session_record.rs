//! The running Claude Code's version, from the record it keeps for its own pid.
//!
//! Claude Code 2.1.332 writes `<config dir>/sessions/<pid>.json` while a session runs
//! (`{"pid":…,"sessionId":…,"version":"2.1.332",…}`; seen from inside every hook from
//! `SessionStart` to `Stop`, and removed before `SessionEnd`). The config dir is
//! `CLAUDE_CONFIG_DIR`, else `~/.claude`. Reading it names the build that is actually
//! running, where `claude --version` on `PATH` names whatever was installed last.

use std::collections::BTreeMap;
use std::io::Read;
use std::path::PathBuf;

use serde_json::Value;

/// A session record is a few hundred bytes; anything far larger is not one.
const MAX_RECORD_BYTES: u64 = 64 * 1024;

/// `CLAUDE_CONFIG_DIR`, else `~/.claude`.
pub(crate) fn config_dir(env: &BTreeMap<String, String>) -> Option<PathBuf> {
    let set = |k: &str| env.get(k).filter(|v| !v.trim().is_empty());
    set("CLAUDE_CONFIG_DIR")
        .map(PathBuf::from)
        .or_else(|| set("HOME").map(|home| PathBuf::from(home).join(".claude")))
}

/// The `version` of the record for `pid`, when the record exists, is small, parses, and
/// names that same pid.
pub fn version_of(pid: u32, env: &BTreeMap<String, String>) -> Option<String> {
    let record = read_small_json(&record_path(env, pid)?)?;
    if record.get("pid").and_then(Value::as_u64) != Some(u64::from(pid)) {
        return None;
    }
    record
        .get("version")
        .and_then(Value::as_str)
        .filter(|v| !v.trim().is_empty())
        .map(str::to_owned)
}

/// `<config dir>/sessions/<pid>.json`.
pub(crate) fn record_path(env: &BTreeMap<String, String>, pid: u32) -> Option<PathBuf> {
    Some(
        config_dir(env)?
            .join("sessions")
            .join(format!("{pid}.json")),
    )
}

/// A JSON file of at most 64 KiB (a session record, a settings file); `None` when it is
/// missing, larger, or not JSON.
pub(crate) fn read_small_json(path: &std::path::Path) -> Option<Value> {
    let mut bytes = Vec::new();
    std::fs::File::open(path)
        .ok()?
        .take(MAX_RECORD_BYTES + 1)
        .read_to_end(&mut bytes)
        .ok()?;
    if bytes.len() as u64 > MAX_RECORD_BYTES {
        return None;
    }
    serde_json::from_slice(&bytes).ok()
}
