//! How `live-wake` drives Codex's terminal interface, where it differs from Claude Code's.
//!
//! - acc's hooks run only once trusted: the sandbox's `config.toml` trusts them with the
//!   hashes Codex's own `hooks/list` reports (as `interactive-quit` does).
//! - An interactive Codex opens no session before its first prompt (the thread id reaches
//!   hooks with it), so the person types one prompt and the turn ends before any send;
//!   nothing is typed after it.
//! - The session runs in a daemon the terminal detaches, which outlives the tmux server: it
//!   is ended by the sandbox's own `HOME`.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use crate::record::kit::error::RecordError;
use crate::record::kit::terminal::driver::driver;
use crate::record::kit::terminal::processes::{alive, sandbox_processes};
use crate::record::kit::terminal::tmux::{Tmux, poll, send_keys};
use crate::record::scenario::{FINAL_TEXT, PROMPT};
use crate::record::scenarios::interactive_quit::prepare_codex;
use crate::clients::network::NetworkWatch;
use crate::clients::{Client, InstalledClient, Sandbox};
use crate::doubles::ModelDouble;

/// How the run describes what the person typed.
pub(super) fn typed(client: Client) -> &'static str {
    match client {
        Client::Codex => {
            "tmux new-session (200x50); typed: <prompt> (Codex opens its session with the first prompt), then no key"
        }
        _ => "tmux new-session (200x50), no key typed",
    }
}

/// How an evidence row says the capture was taken.
pub(crate) fn captured_how(client: Client) -> &'static str {
    match client {
        Client::Codex => {
            "Captured interactive (the client's own terminal interface under tmux: one prompt typed to open the session, then no key) against a local model double."
        }
        _ => {
            "Captured interactive (the client's own terminal interface under tmux, no key typed) against a local model double."
        }
    }
}

/// Sets the client up before its terminal starts.
pub(super) fn prepare(
    installed: &InstalledClient,
    sandbox: &Sandbox,
    env: &BTreeMap<String, String>,
    watch: &NetworkWatch,
) -> Result<(), RecordError> {
    match installed.client {
        Client::Codex => prepare_codex(installed, sandbox, env, watch),
        _ => super::write_interactive_config(sandbox),
    }
}

/// Opens the session where the client needs a first prompt for it: types it once the
/// interface takes input and waits for its answer.
pub(super) fn open_session(
    client: Client,
    tmux: &Tmux,
    double: &ModelDouble,
    exited: &Path,
    limit: Duration,
) {
    if client != Client::Codex {
        return;
    }
    let Some(drive) = driver(client) else {
        return;
    };
    poll(limit, || {
        (exited.exists() || tmux.pane().contains(drive.ready)).then_some(())
    });
    send_keys(tmux, PROMPT);
    poll(limit, || {
        (exited.exists() || (!double.requests().is_empty() && tmux.pane().contains(FINAL_TEXT)))
            .then_some(())
    });
}

/// Ends what the client left running in the sandbox (Codex's daemon).
pub(super) fn clean_up(client: Client, sandbox: &Sandbox) {
    if client != Client::Codex {
        return;
    }
    for pid in sandbox_processes(&sandbox.home()) {
        // One may have ended since it was listed.
        let _ = std::process::Command::new("kill")
            .args(["-9", &pid.to_string()])
            .stderr(std::process::Stdio::null())
            .status();
    }
    poll(Duration::from_secs(5), || {
        sandbox_processes(&sandbox.home())
            .into_iter()
            .all(|p| !alive(p))
            .then_some(())
    });
}
