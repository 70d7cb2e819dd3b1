//! When the conversation's session last had a heartbeat
//! (`<data home>/acc/heartbeats/<binding key>`, the file's modification time), kept by the
//! guard that read or refreshed it, so the guard's fast path, which does not open the
//! store, knows whether a heartbeat is due and leaves that call to the store path.
//!
//! Only ever a reason to skip a write for a while: a missing, unreadable or old marker
//! sends the call to the store, which refreshes presence as before.

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// A guard or tool event refreshes presence only when the last heartbeat is older than
/// this, so a burst of tool calls costs reads, not writes. It lives with the marker because
/// the fast path's freshness and the store path's refresh must agree on it.
pub const REFRESH_AFTER_MS: i64 = 30_000;

/// `<data home>/acc/heartbeats`.
fn dir(data_home: &Path) -> PathBuf {
    data_home.join("acc").join("heartbeats")
}

/// The marker of the conversation with `binding_key`.
pub fn path(data_home: &Path, binding_key: &str) -> PathBuf {
    dir(data_home).join(binding_key)
}

/// Records that the session had a heartbeat at `heartbeat_ms`. Best effort.
pub fn mark(data_home: &Path, binding_key: &str, heartbeat_ms: i64) {
    let Ok(ms) = u64::try_from(heartbeat_ms) else {
        return;
    };
    let file = path(data_home, binding_key);
    let opened = std::fs::File::create(&file).or_else(|_| {
        std::fs::create_dir_all(dir(data_home))?;
        std::fs::File::create(&file)
    });
    if let Ok(f) = opened {
        let _ = f.set_modified(UNIX_EPOCH + Duration::from_millis(ms));
    }
}

/// Whether the marker says the last heartbeat is recent enough at `now_ms` that none is
/// due.
pub fn fresh(data_home: &Path, binding_key: &str, now_ms: i64) -> bool {
    let Ok(modified) = path(data_home, binding_key)
        .symlink_metadata()
        .and_then(|m| m.modified())
    else {
        return false;
    };
    let Ok(at) = modified.duration_since(SystemTime::UNIX_EPOCH) else {
        return false;
    };
    let at = at.as_millis() as i64;
    at <= now_ms && now_ms - at <= REFRESH_AFTER_MS
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_heartbeat_is_fresh_for_the_refresh_interval_only() {
        let dir = tempfile::tempdir().unwrap();
        let now = 1_800_000_000_000;
        assert!(!fresh(dir.path(), "k", now), "no marker");
        mark(dir.path(), "k", now - 1_000);
        assert!(fresh(dir.path(), "k", now));
        assert!(fresh(dir.path(), "k", now - 1_000 + REFRESH_AFTER_MS));
        assert!(!fresh(dir.path(), "k", now - 1_000 + REFRESH_AFTER_MS + 1));
        // A marker from the future (a clock set back) is no reason to skip.
        assert!(!fresh(dir.path(), "k", now - 2_000));
        assert!(!fresh(dir.path(), "other", now));
    }
}
