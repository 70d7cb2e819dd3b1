//! The recorder's own tmux server, which holds a client's terminal interface: start it,
//! read its pane, type into it, wait on it.

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use crate::record::kit::error::RecordError;

/// A tmux server of the recorder's own, killed when dropped.
pub struct Tmux {
    pub socket: String,
}

impl Tmux {
    pub fn start(cwd: &Path, launcher: &Path) -> Result<Tmux, RecordError> {
        // Clients are recorded in parallel: each server needs a name no other thread takes
        // (a shared name let one client's clean-up kill another's session).
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let socket = format!(
            "acc-certify-live-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
        );
        let tmux = Tmux { socket };
        let status = Command::new("tmux")
            .args([
                "-L",
                &tmux.socket,
                "new-session",
                "-d",
                "-s",
                "live",
                "-x",
                "200",
            ])
            .args(["-y", "50", "-c"])
            .arg(cwd)
            .arg(format!(
                "sh {}; touch {}; sleep 600",
                launcher.display(),
                launcher.with_extension("exited").display()
            ))
            .status()
            .map_err(|e| RecordError::Write {
                message: format!("starting tmux (is it installed?): {e}"),
            })?;
        if !status.success() {
            return Err(RecordError::Write {
                message: format!("tmux new-session failed: {status}"),
            });
        }
        Ok(tmux)
    }

    pub fn pane(&self) -> String {
        Command::new("tmux")
            .args(["-L", &self.socket, "capture-pane", "-p", "-t", "live"])
            .output()
            .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
            .unwrap_or_default()
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = Command::new("tmux")
            .args(["-L", &self.socket, "kill-server"])
            .status();
    }
}

/// How much of typed text must show before Enter (a wrapped line shows its start whole).
const TYPED_PREFIX: usize = 12;
/// The longest a typed text may take to show; a client that never draws it is not blocked.
const TYPED_LIMIT: Duration = Duration::from_secs(30);

/// Calls `f` every 200 ms until it answers or `limit` has passed.
pub fn poll<T>(limit: Duration, mut f: impl FnMut() -> Option<T>) -> Option<T> {
    let end = Instant::now() + limit;
    loop {
        if let Some(v) = f() {
            return Some(v);
        }
        if Instant::now() >= end {
            return None;
        }
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// Types `text`, then Enter once the pane shows what was typed (a loaded client may draw
/// it late, and an Enter before the text lands submits nothing).
pub fn send_keys(tmux: &Tmux, text: &str) {
    let _ = Command::new("tmux")
        .args(["-L", &tmux.socket, "send-keys", "-t", "live", "-l", text])
        .status();
    let shown: String = text.chars().take(TYPED_PREFIX).collect();
    poll(TYPED_LIMIT, || {
        tmux.pane().contains(shown.trim()).then_some(())
    });
    // The text may already have been on screen (a help line naming the quit command).
    std::thread::sleep(Duration::from_millis(300));
    let _ = Command::new("tmux")
        .args(["-L", &tmux.socket, "send-keys", "-t", "live", "Enter"])
        .status();
}

pub fn pane_pid(tmux: &Tmux) -> Option<u32> {
    let out = Command::new("tmux")
        .args(["-L", &tmux.socket, "display-message", "-p", "-t", "live"])
        .arg("#{pane_pid}")
        .output()
        .ok()?;
    String::from_utf8_lossy(&out.stdout).trim().parse().ok()
}
