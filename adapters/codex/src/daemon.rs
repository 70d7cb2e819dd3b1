//! Live delivery through Codex's shared app-server daemon (protocol
//! `codex-app-server-queue-v1`): how a session binds itself to the daemon that runs its
//! hooks, and how a sender queues a wake on its thread.
//!
//! Observed on Codex 0.171.0 (see COMPATIBILITY.md, "Live delivery"):
//! - a terminal hosts its conversation in one daemon per `CODEX_HOME`, listening at
//!   `$CODEX_HOME/app-server-control/app-server-control.sock` (JSON-RPC over WebSocket);
//!   every hook of the conversation is the daemon's child, so the hook's host pid is the
//!   pid that listens on that socket (`SO_PEERCRED`);
//! - a hook's `session_id` is the daemon's thread id: `thread/read` names it, with its
//!   status (`notLoaded` once the daemon unloaded it, about 60 s after the last terminal
//!   left);
//! - `thread/queue/add` on an idle thread runs the input as a new turn at once (the terminal
//!   shows it, `UserPromptSubmit` runs with it as `prompt`); on a busy one it runs as its own
//!   turn after the running turn's `Stop`.
//! - with `--dangerously-bypass-hook-trust` (or the daemon switched off) the terminal runs
//!   its own app-server in process: no socket is the session's, and nothing binds.
//!
//! Everything vendor-shaped stays here: core sees closed handshake facts and an opaque
//! endpoint reference it hands back unread.

mod control;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use acc_sdk::adapter::{LiveOffer, LivePush, NativeSession, NativeSessionFacts, OfferAcceptance};
use acc_sdk::install::InstallContext;
use serde_json::{Value, json};

use control::{Control, ControlError};

/// The delivery protocol this adapter speaks.
pub const PROTOCOL: &str = "codex-app-server-queue-v1";
/// The modes a bound session supports: a queued input runs at once when idle and after the
/// running turn when busy.
const MODES: [&str; 3] = ["livePush", "idleWake", "busyQueue"];
/// A hook's handshake must leave the hook most of its 5 s budget. 800 ms is little on a loaded
/// host where a tracer slows the client's every syscall (the recorder's); a handshake that still runs out
/// keeps the binding the session had (`live::bind`), so this only bounds a hung daemon.
const BIND_BUDGET: Duration = Duration::from_millis(1500);
/// The whole offer (connect, upgrade, three requests) is bounded by this.
const OFFER_BUDGET: Duration = Duration::from_millis(2000);
/// What a queued input may hold at most.
const MAX_TEXT: usize = 64 * 1024;
/// The daemon's socket under `CODEX_HOME`.
const SOCKET: &str = "app-server-control/app-server-control.sock";

/// The daemon transport.
#[derive(Debug, Clone, Copy, Default)]
pub struct Daemon;

/// What the opaque endpoint reference carries.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Endpoint {
    socket: PathBuf,
    thread: String,
    /// The daemon that ran the session's hooks: a socket answered by any other process
    /// (a restarted daemon, another home's) does not hold this thread.
    daemon_pid: u32,
}

impl Endpoint {
    fn encode(&self) -> String {
        json!({
            "v": 1,
            "socket": self.socket.to_string_lossy(),
            "thread": self.thread,
            "daemonPid": self.daemon_pid,
        })
        .to_string()
    }

    fn decode(text: &str) -> Option<Endpoint> {
        let v: Value = serde_json::from_str(text).ok()?;
        if v.get("v")?.as_u64()? != 1 {
            return None;
        }
        let socket = PathBuf::from(v.get("socket")?.as_str()?);
        let thread = v.get("thread")?.as_str()?.to_owned();
        let daemon_pid = u32::try_from(v.get("daemonPid")?.as_u64()?).ok()?;
        if !socket.is_absolute() || thread.is_empty() || daemon_pid == 0 {
            return None;
        }
        Some(Endpoint {
            socket,
            thread,
            daemon_pid,
        })
    }
}

fn set<'a>(env: &'a BTreeMap<String, String>, key: &str) -> Option<&'a str> {
    env.get(key)
        .map(String::as_str)
        .filter(|v| !v.trim().is_empty())
}

/// `CODEX_HOME`, else `~/.codex`, as the daemon's hooks see it.
fn codex_home(env: &BTreeMap<String, String>) -> Option<PathBuf> {
    let home = match set(env, "CODEX_HOME") {
        Some(dir) => PathBuf::from(dir),
        None => PathBuf::from(set(env, "HOME")?).join(".codex"),
    };
    home.is_absolute().then_some(home)
}

fn same_dir(a: &Path, b: &Path) -> bool {
    let canon = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    canon(a) == canon(b)
}

/// A refused handshake with its reason code.
fn refused(reason: &str) -> Value {
    acc_sdk::native::refused_binding(PROTOCOL, reason)
}

/// The reason an unreachable or misbehaving daemon gives a handshake or an offer.
fn reason_of(e: &ControlError) -> &'static str {
    match e {
        ControlError::Missing => "native_endpoint_unavailable",
        ControlError::Refused => "native_session_unavailable",
        ControlError::Timeout => "handshake_timeout",
        ControlError::Protocol(_) | ControlError::Rejected(_) => "handshake_failed",
    }
}

/// The version in `initialize`'s user agent (`codex-tui/0.171.0 (…)`).
fn agent_version(hello: &Value) -> Option<String> {
    let agent = hello.get("userAgent")?.as_str()?;
    let version = agent.split_whitespace().next()?.split_once('/')?.1;
    (!version.is_empty()).then(|| version.to_owned())
}

/// Whether the daemon holds `thread` loaded now. `Err` carries a refusal reason.
fn thread_loaded(control: &mut Control, thread: &str) -> Result<(), &'static str> {
    let answer = match control.request("thread/read", json!({"threadId": thread})) {
        Ok(a) => a,
        // An unknown thread is answered with an error: it is no session of this daemon.
        Err(ControlError::Rejected(_)) => return Err("native_session_unavailable"),
        Err(e) => return Err(reason_of(&e)),
    };
    let record = &answer["thread"];
    if record.get("id").and_then(Value::as_str) != Some(thread) {
        return Err("session_generation_stale");
    }
    match record["status"].get("type").and_then(Value::as_str) {
        Some("notLoaded") | None => Err("native_session_unavailable"),
        Some(_) => Ok(()),
    }
}

/// The per-session handshake: the daemon listening on this home's socket must be the
/// process that ran the hook, its home must be this one, and it must hold the hook's
/// session loaded as a thread.
pub fn bind(facts: &NativeSessionFacts) -> Value {
    let Some(pid) = facts.client_pid else {
        return refused("client_process_unknown");
    };
    let Some(home) = codex_home(&facts.env) else {
        return refused("native_endpoint_unavailable");
    };
    let socket = home.join(SOCKET);
    let mut control = match Control::open(&socket, BIND_BUDGET) {
        Ok(c) => c,
        Err(e) => return refused(reason_of(&e)),
    };
    if control.peer_pid != Some(pid) {
        // The hooks ran in a terminal's own app-server; the socket is another session's.
        return refused("client_session_embedded");
    }
    let reported_home = control.hello.get("codexHome").and_then(Value::as_str);
    if !reported_home.is_some_and(|h| same_dir(Path::new(h), &home)) {
        return refused("handshake_failed");
    }
    if let Err(reason) = thread_loaded(&mut control, &facts.client_session_id) {
        return refused(reason);
    }
    let endpoint = Endpoint {
        socket,
        thread: facts.client_session_id.clone(),
        daemon_pid: pid,
    };
    json!({
        "supported": true,
        "clientVersion": agent_version(&control.hello).or(facts.client_version.clone()),
        "protocolContract": PROTOCOL,
        "modes": MODES,
        "opaqueEndpointRef": endpoint.encode(),
        "leaseUntil": facts.lease_until,
    })
}

fn refuse(reason: &str) -> OfferAcceptance {
    OfferAcceptance {
        accepted: false,
        pending_approval: false,
        reason_code: Some(reason.to_owned()),
    }
}

/// Queues the text on the session's thread, once the daemon that ran its hooks confirms
/// it still holds the thread loaded. The message id rides along as the client's id of the
/// input.
pub fn offer(offer: &LiveOffer) -> OfferAcceptance {
    let Some(endpoint) = offer.endpoint_ref.as_deref().and_then(Endpoint::decode) else {
        return refuse("native_endpoint_unavailable");
    };
    let text = offer.text.trim();
    if text.is_empty() || text.len() > MAX_TEXT {
        return refuse("handshake_failed");
    }
    let mut control = match Control::open(&endpoint.socket, OFFER_BUDGET) {
        Ok(c) => c,
        Err(e) => return refuse(reason_of(&e)),
    };
    if control.peer_pid != Some(endpoint.daemon_pid) {
        return refuse("session_generation_stale");
    }
    if let Err(reason) = thread_loaded(&mut control, &endpoint.thread) {
        return refuse(reason);
    }
    let queued = control.request(
        "thread/queue/add",
        json!({
            "threadId": endpoint.thread,
            "clientUserMessageId": offer.message_id,
            "input": [{"type": "text", "text": text, "text_elements": []}],
        }),
    );
    match queued {
        Ok(answer) if answer.get("queuedSubmission").is_some_and(Value::is_object) => {
            OfferAcceptance {
                accepted: true,
                pending_approval: false,
                reason_code: None,
            }
        }
        Ok(_) => refuse("handshake_failed"),
        Err(e) => refuse(reason_of(&e)),
    }
}

/// The read-only feature probe: the installed client's version. Whether a session can be
/// woken is known only per session (its daemon), which the handshake checks.
pub fn probe(detection: &acc_sdk::install::Detection) -> Value {
    if detection.executable.is_none() {
        return json!({"supported": false, "reasonCode": "native_delivery_unsupported"});
    }
    json!({
        "supported": true,
        "clientVersion": detection.version,
        "protocolContract": PROTOCOL,
        "modes": MODES,
    })
}

impl LivePush for Daemon {
    fn offer_message(&self, o: &LiveOffer) -> OfferAcceptance {
        offer(o)
    }
}

impl NativeSession for Daemon {
    fn probe_native_delivery(&self, ctx: &InstallContext) -> Option<Value> {
        let detection =
            acc_sdk::probe::detect_command(ctx, "codex", &["--version"], Duration::from_secs(5));
        Some(probe(&detection))
    }

    fn bind_native_session(&self, session: &NativeSessionFacts) -> Option<Value> {
        Some(bind(session))
    }

    /// The queued input only makes the session run a turn; its `UserPromptSubmit` runs
    /// acc's next-turn hook, which shows the body.
    fn offer_kind(&self) -> acc_sdk::native::OfferKind {
        acc_sdk::native::OfferKind::Wake
    }

    /// A lease is renewed only for the same daemon, socket and thread.
    fn refresh_native_session(
        &self,
        session: &NativeSessionFacts,
        binding: &Value,
    ) -> Option<Value> {
        Some(acc_sdk::native::renew_lease(
            PROTOCOL,
            bind(session),
            binding,
        ))
    }
}

#[cfg(test)]
mod tests;
