//! When the conversation's session last had a heartbeat
//! (`<data home>/acc/heartbeats/<binding key>`, the file's modification time), kept by the
//! guard that read or refreshed it, so the guard's fast path, which does not open the
//! store, knows whether a heartbeat is due and leaves that call to the store path.
//!
//! Only ever a reason to skip a write for a while: a missing, unreadable or old marker
//! sends the call to the store, which refreshes presence as before.

use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::OpenOptionsExt;
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
///
/// The marker's own time is set, never that of what a link at its name leads to: an agent
/// that put a link there (to a file it may not write, a peer's claimed file) would have
/// had the hook truncate and touch that file. A marker that exists (every call after the
/// conversation's first) takes one `utimensat`; a missing one is created empty, refusing a
/// link at its name.
pub fn mark(data_home: &Path, binding_key: &str, heartbeat_ms: i64) {
    let Ok(ms) = u64::try_from(heartbeat_ms) else {
        return;
    };
    let file = path(data_home, binding_key);
    let at = UNIX_EPOCH + Duration::from_millis(ms);
    if set_modified_here(&file, at) {
        return;
    }
    let create = || {
        std::fs::OpenOptions::new()
            .write(true)
            .create(true)
            .custom_flags(libc::O_NOFOLLOW)
            .open(&file)
    };
    let opened = create().or_else(|_| {
        std::fs::create_dir_all(dir(data_home))?;
        create()
    });
    if let Ok(f) = opened {
        let _ = f.set_modified(at);
    }
}

/// Sets the modification time of `file` itself (a link's own, not its target's), leaving
/// its access time; `false` when it could not (no such file).
fn set_modified_here(file: &Path, at: SystemTime) -> bool {
    let Ok(since) = at.duration_since(UNIX_EPOCH) else {
        return false;
    };
    let Ok(c_path) = CString::new(file.as_os_str().as_bytes()) else {
        return false;
    };
    let times = [
        libc::timespec {
            tv_sec: 0,
            tv_nsec: libc::UTIME_OMIT,
        },
        libc::timespec {
            tv_sec: since.as_secs() as libc::time_t,
            tv_nsec: since.subsec_nanos() as libc::c_long,
        },
    ];
    // SAFETY: utimensat reads a NUL-terminated path and two timespecs, all owned here.
    unsafe {
        libc::utimensat(
            libc::AT_FDCWD,
            c_path.as_ptr(),
            times.as_ptr(),
            libc::AT_SYMLINK_NOFOLLOW,
        ) == 0
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

    #[test]
    fn an_existing_marker_is_set_back_and_forth_in_place() {
        let dir = tempfile::tempdir().unwrap();
        let now = 1_800_000_000_000;
        mark(dir.path(), "k", now - 60_000);
        assert!(!fresh(dir.path(), "k", now), "a minute old: due");
        mark(dir.path(), "k", now);
        assert!(fresh(dir.path(), "k", now));
        let modified = path(dir.path(), "k")
            .metadata()
            .unwrap()
            .modified()
            .unwrap();
        assert_eq!(modified, UNIX_EPOCH + Duration::from_millis(now as u64));
    }

    #[test]
    fn a_link_at_the_markers_name_leaves_what_it_leads_to_untouched() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("claimed.rs");
        std::fs::write(&target, "fn kept() {}\n").unwrap();
        let before = target.metadata().unwrap().modified().unwrap();
        std::fs::create_dir_all(super::dir(dir.path())).unwrap();
        std::os::unix::fs::symlink(&target, path(dir.path(), "k")).unwrap();
        let now = 1_800_000_000_000;
        mark(dir.path(), "k", now);
        assert_eq!(std::fs::read(&target).unwrap(), b"fn kept() {}\n");
        assert_eq!(target.metadata().unwrap().modified().unwrap(), before);
        // The link's own time is the marker, as `fresh` reads it.
        assert!(fresh(dir.path(), "k", now));
        // A dangling link is not followed into a new file either.
        std::fs::remove_file(&target).unwrap();
        mark(dir.path(), "k", now + 1_000);
        assert!(!target.exists(), "no file created through the link");
    }
}
