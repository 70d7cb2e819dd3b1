//! Codex's shared app-server, which runs the hooks of conversations its terminals show.
//!
//! Since 0.157 a `codex` terminal hosts its conversation in one background app-server per
//! `CODEX_HOME` (`features.daemon_auto_start`, on by default): the first terminal starts
//! `codex app-server --listen unix:// --managed-daemon` as its own child (newer releases may
//! add `--enable remote_control` before `app-server`), later terminals attach to it over its
//! socket, and every conversation's hooks and shells descend from that server, not from the
//! terminal. The server outlives each terminal (it is reparented when the one that started it
//! exits), so its pid says nothing of a session: a `/quit` ends the terminal, and Codex itself
//! runs `SessionEnd` only when it unloads the idle conversation (about 60 s later). No hook
//! variable names the terminal. An app-server on stdio (`codex app-server`, how an editor
//! extension runs one) belongs to its one client and dies with it, so it is not shared.

use acc_sdk::adapter::ProcessEntry;

/// Whether `entry` runs `app-server` listening on anything but stdio, or as the managed daemon.
pub fn is_shared_app_server(entry: &ProcessEntry) -> bool {
    let words: Vec<&str> = entry.args.iter().skip(1).map(String::as_str).collect();
    let Some(at) = words.iter().position(|w| *w == "app-server") else {
        return false;
    };
    let rest = &words[at + 1..];
    if rest.contains(&"--managed-daemon") {
        return true;
    }
    let listen = rest.iter().enumerate().find_map(|(i, w)| match *w {
        "--listen" => rest.get(i + 1).copied(),
        _ => w.strip_prefix("--listen="),
    });
    // Without --listen the server speaks stdio.
    listen.is_some_and(|url| !url.starts_with("stdio"))
}
