//! `acc-hook serve`: a process that outlives the turn. Opt-in with `ACC_SERVE=1`.
//!
//! Why: every `acc-hook` and `acc` process parses SQLite's schema, compiles every statement
//! it runs and opens and closes the store before and after reading a row; for a delivering
//! turn or a claim that is most of its work (docs/PERFORMANCE.md, issue 30). A resident
//! server per data home keeps its connections warm ([`crate::store::warm`]) and the short
//! process hands it the whole invocation: argv, stdin, environment, working directory and
//! its own pid. The server runs the same code the process would ([`crate::hook::capture::run`]
//! for a hook, [`crate::cli::run`] for `acc`) with the request's values, never its own
//! environment, and hands back stdout, stderr and the exit code, which the client writes
//! byte for byte.
//!
//! What is served: every `acc-hook` hook event that needs the store (not `guard-exec`,
//! `shared-listen`, `serve`, `--beat`, `--help`, `--version`): the client reads the payload
//! and answers a guard call the published snapshot settles itself, as the local run does
//! ([`crate::hook::runner::run_with_handoff`]), since that answer costs less than the
//! connection; of `acc`, only [`SERVED_ACC_COMMANDS`]: `claim` (the
//! claim race), `heartbeat` and `status`, which never look at a terminal or read stdin.
//! Never `watch`, an interactive prompt, or a command that asks whether a person is at the
//! terminal (`release --authority`, `takeover confirm`, `install`…): the server has no
//! terminal, and judging it would judge the wrong process.
//!
//! Where: `<data home>/acc/serve/` (0700) holds `sock` and `lock` (flocked by the server
//! for its life, its pid then a newline inside). One server per data home; the first client
//! that finds none runs locally and starts one, detached, for the next call.
//!
//! Falling back: the client runs the invocation itself only when the server never took it
//! (no socket, connect refused, the peer not trusted, another protocol version, no
//! acknowledgement); the server runs a call only after the client's go-ahead, which the
//! client sends once it trusts the server, so a distrusted server never runs what the
//! client then runs itself. A request the client let run may have written (a claim granted,
//! offers marked): running it again is not the same as running it once, so a server that
//! dies after the go-ahead is answered as the local hook answers a failure (fail
//! open), and `acc` reports that the outcome is unknown.
//!
//! Trust, both ways. The server serves only peers of its own uid (`SO_PEERCRED`) and takes
//! everything from the request, so a server started by someone else with another
//! environment or data home answers exactly as a local run with the request's environment.
//! What a served request can do is what running `acc`/`acc-hook` with those arguments can
//! do: the CLI's rule that an agent acts only as itself judges the client's pid
//! ([`crate::cli::caller`]), the hook walks the client's ancestry
//! ([`crate::hook::settings::ProcessSource::SystemFrom`]). The client trusts only a genuine
//! server ([`peer`]): every byte of the answer must come from a process (the kernel's
//! `SCM_CREDENTIALS`, not a pid the socket's creator left behind) of its own uid whose
//! executable is the very `acc-hook` file it expects, with no `LD_PRELOAD`,
//! `LD_LIBRARY_PATH` or `LD_AUDIT` in its environment and no tracer. Anything else: it
//! runs locally and, for a hook, says so in the hook failure log.
//!
//! Not defended: without Yama's ptrace scope (this machine has none) any process of the
//! user may trace the client itself, or the server after the check, and change what either
//! does; that is outside what acc can defend against, served or not.

pub mod client;
pub mod lifecycle;
pub mod peer;
pub mod protocol;
pub mod server;
pub mod workers;

use std::path::{Path, PathBuf};
use std::time::Duration;

/// The variable that turns serving on, for the invocation whose environment holds `1`.
pub const SERVE_VAR: &str = "ACC_SERVE";

/// `acc-hook serve`.
pub const SUBCOMMAND: &str = "serve";

/// A server with no request for this long exits.
pub const IDLE_EXIT: Duration = Duration::from_secs(60);

/// How long past the hook's deadline a client waits for the server's answer before it
/// fails open as the local hook would.
pub const ANSWER_MARGIN: Duration = Duration::from_millis(500);

/// The `acc` subcommands a server runs: none looks at a terminal or reads stdin.
pub const SERVED_ACC_COMMANDS: &[&str] = &["claim", "heartbeat", "status"];

/// The longest socket path `sockaddr_un` holds (108 bytes with its terminating NUL).
const MAX_SOCKET_PATH: usize = 107;

/// Whether the invocation's environment asks for serving.
pub fn enabled(value: Option<&str>) -> bool {
    value == Some("1")
}

/// `<data home>/acc/serve`.
pub fn dir(data_home: &Path) -> PathBuf {
    data_home.join("acc").join("serve")
}

/// The socket, or `None` when its path is too long for a Unix socket (then nobody serves).
pub fn socket_path(data_home: &Path) -> Option<PathBuf> {
    let p = dir(data_home).join("sock");
    (p.as_os_str().len() <= MAX_SOCKET_PATH).then_some(p)
}

/// The lock the server holds for its life, its pid inside.
pub fn lock_path(data_home: &Path) -> PathBuf {
    dir(data_home).join("lock")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_one_turns_it_on() {
        assert!(enabled(Some("1")));
        for v in [None, Some(""), Some("0"), Some("true"), Some("1 ")] {
            assert!(!enabled(v), "{v:?}");
        }
    }

    #[test]
    fn a_socket_path_too_long_is_no_server() {
        assert!(socket_path(Path::new("/tmp/h")).is_some());
        let long = PathBuf::from(format!("/{}", "d".repeat(100)));
        assert_eq!(socket_path(&long), None);
    }
}
