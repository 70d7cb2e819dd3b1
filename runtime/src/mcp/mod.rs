//! `acc-mcp`: acc as an MCP server (integration tier 1).
//!
//! Newline-delimited JSON-RPC 2.0 over stdio. A client registers the server and gets eleven
//! tools and three resources; the server's session attaches on the first call that needs
//! it, heartbeats while the server runs, and closes at end of input. What tier 1 cannot
//! give, it does not pretend to: the session is advisory (no write is guarded) and manual
//! (the client's own end is invisible to it). The server's own end is not: end of input and
//! SIGINT, SIGTERM or SIGHUP ([`signals`]) close the session before the process exits.
//!
//! Layout: [`transport`] frames lines, [`jsonrpc`] classifies them, [`server`] dispatches
//! methods, [`lifecycle`] negotiates the protocol version, [`tools`] and [`resources`] hold
//! the surface, [`schema`] the checked input schemas, [`settings`] what the environment
//! says, [`session`] and [`heartbeat`] the server's presence.

pub mod heartbeat;
pub mod jsonrpc;
pub mod lifecycle;
pub mod resources;
pub mod schema;
pub mod server;
pub mod session;
pub mod settings;
pub mod signals;
pub mod tools;
pub mod transport;

use crate::env::Env;
use server::{Server, log};
use signals::EndSignals;
use std::io::{BufRead, Write};
use std::path::Path;
use transport::{Frame, MAX_MESSAGE_BYTES, read_frame};

/// How a run of the server ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ending {
    /// End of input, or the client stopped reading our output: a normal end.
    ClientGone,
    /// Reading the input failed.
    InputFailed,
}

impl Ending {
    pub fn exit_code(self) -> i32 {
        match self {
            Ending::ClientGone => 0,
            Ending::InputFailed => 1,
        }
    }
}

/// Serves `input` until it ends, writing one JSON-RPC message per line to `output`, then
/// closes the session. `env` and `cwd` are the server's environment and directory.
pub fn serve(input: &mut dyn BufRead, output: &mut dyn Write, env: &Env, cwd: &Path) -> Ending {
    serve_until(input, output, env, cwd, None)
}

/// [`serve`], and on an end signal close the session and exit (see [`signals`]). `signals`
/// must have been blocked before any thread started.
pub fn serve_until(
    input: &mut dyn BufRead,
    output: &mut dyn Write,
    env: &Env,
    cwd: &Path,
    signals: Option<EndSignals>,
) -> Ending {
    let mut server = Server::new(env, cwd);
    if let Some(signals) = signals {
        let last_word = server.last_word();
        let watched = signals.watch(move |signal| {
            if let Some(Err(e)) = last_word.close() {
                log(&format!(
                    "{}: could not close the session: {}",
                    signal.name(),
                    e.message
                ));
            }
        });
        if let Err(e) = watched {
            log(&format!(
                "could not watch for SIGINT/SIGTERM/SIGHUP ({e}); a signal will leave the session to the next reader"
            ));
        }
    }
    if let Some(e) = server.settings_problem() {
        log(&format!("{}; every tool call will report it", e.message));
    }
    let ending = loop {
        let reply = match read_frame(input, MAX_MESSAGE_BYTES) {
            Ok(Frame::End) => break Ending::ClientGone,
            Err(e) => {
                log(&format!("reading input failed: {e}"));
                break Ending::InputFailed;
            }
            Ok(Frame::NotUtf8) => Some(Server::unreadable("parse error: the line is not UTF-8")),
            Ok(Frame::TooLong) => Some(Server::unreadable(&format!(
                "parse error: the message is longer than {MAX_MESSAGE_BYTES} bytes"
            ))),
            Ok(Frame::Line(line)) if line.trim().is_empty() => None,
            Ok(Frame::Line(line)) => server.handle_line(&line),
        };
        if let Some(reply) = reply {
            // Same value, safe bytes: a client may show a reply's text as it stands.
            let reply = reply.to_string();
            let reply = acc_sdk::peer_text::json_escape_hidden(&reply);
            let written = writeln!(output, "{reply}").and_then(|()| output.flush());
            if written.is_err() {
                break Ending::ClientGone;
            }
        }
    };
    if let Some(Err(e)) = server.shutdown() {
        log(&format!("could not close the session: {}", e.message));
    }
    ending
}
