//! The Claude Code inbox: the Unix socket every interactive session listens on, and how acc
//! binds a session to it and offers a wake through it (protocol `claude-code-inbox-socket-v1`).
//!
//! Observed on Claude Code 2.1.332 (see COMPATIBILITY.md, "Live delivery"):
//! - a session listens at `$XDG_RUNTIME_DIR/cc-socks/<pid>.sock` (else under
//!   `$CLAUDE_CODE_TMPDIR`, `$TMPDIR`, `/tmp`), and hands the path to its hooks as
//!   `CLAUDE_CODE_MESSAGING_SOCKET` with its pid as `CLAUDE_PID`;
//! - `<config dir>/sessions/<pid>.json` names the same socket (`messagingSocketPath`), the
//!   hook's `session_id` (`sessionId`) and `peerProtocol: 1`;
//! - a sender writes one line `{"type":"user","message":{"role":"user","content":…}}` (content
//!   a non-empty string; a `session_id` other than the receiver's is dropped); an idle session
//!   runs a turn for it, whose `UserPromptSubmit` runs acc's next-turn hook; a busy one
//!   holds it until its tool ends;
//! - in `bypassPermissions` the session holds the frame for its user's approval unless
//!   `crossSessionInbound` is `accept` in its settings.
//!
//! Everything vendor-shaped stays here: core sees closed handshake facts and an opaque
//! endpoint reference it hands back unread.

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::os::unix::fs::FileTypeExt;
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::time::Duration;

use acc_sdk::adapter::{LiveOffer, LivePush, NativeSession, NativeSessionFacts, OfferAcceptance};
use acc_sdk::install::InstallContext;

use crate::session_record::{config_dir, read_small_json as read_json, record_path};
use serde_json::{Value, json};

/// The delivery protocol this adapter speaks.
pub const PROTOCOL: &str = "claude-code-inbox-socket-v1";
/// The modes a bound session supports, as the captures show them.
const MODES: [&str; 3] = ["livePush", "idleWake", "busyQueue"];
/// The peer protocol a session record must announce.
const PEER_PROTOCOL: u64 = 1;
/// Text in the executable that only a build with the inbox carries.
const INBOX_MARKER: &[u8] = b"uds_inbox_listening";
/// The probe reads at most this much of the executable.
const PROBE_MAX_BYTES: u64 = 1024 * 1024 * 1024;
/// The whole offer (connect, one line, close) is bounded by this.
const OFFER_TIMEOUT: Duration = Duration::from_millis(1500);
/// What a frame's content may hold at most (the client drops longer lines).
const MAX_FRAME_TEXT: usize = 64 * 1024;

/// The inbox transport.
#[derive(Debug, Clone, Copy, Default)]
pub struct Inbox;

/// What the opaque endpoint reference carries.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Endpoint {
    socket: PathBuf,
    session: String,
    /// The client's own record of the session (`<config dir>/sessions/<pid>.json`), which
    /// must still name this session and socket when a frame is written.
    record: PathBuf,
    /// The session will hold a frame for its user's approval.
    hold: bool,
}

impl Endpoint {
    fn encode(&self) -> String {
        json!({
            "v": 2,
            "socket": self.socket.to_string_lossy(),
            "session": self.session,
            "record": self.record.to_string_lossy(),
            "hold": self.hold,
        })
        .to_string()
    }

    fn decode(text: &str) -> Option<Endpoint> {
        let v: Value = serde_json::from_str(text).ok()?;
        if v.get("v")?.as_u64()? != 2 {
            return None;
        }
        let socket = PathBuf::from(v.get("socket")?.as_str()?);
        let record = PathBuf::from(v.get("record")?.as_str()?);
        let session = v.get("session")?.as_str()?.to_owned();
        if !socket.is_absolute() || !record.is_absolute() || session.is_empty() {
            return None;
        }
        Some(Endpoint {
            socket,
            session,
            record,
            hold: v.get("hold").and_then(Value::as_bool).unwrap_or(false),
        })
    }

    /// Whether the client's record still names this session at this socket: a frame is
    /// never written to a socket the client did not publish for the session (a stale or
    /// forged binding, a pid reused by another session).
    fn still_published(&self) -> Result<(), &'static str> {
        let Some(record) = read_json(&self.record) else {
            // /exit and SIGTERM remove the record with the socket.
            return Err("native_endpoint_unavailable");
        };
        let names = |k: &str, want: &str| record.get(k).and_then(Value::as_str) == Some(want);
        if names("sessionId", &self.session)
            && names("messagingSocketPath", &self.socket.to_string_lossy())
        {
            Ok(())
        } else {
            Err("session_generation_stale")
        }
    }
}

fn set<'a>(env: &'a BTreeMap<String, String>, key: &str) -> Option<&'a str> {
    env.get(key)
        .map(String::as_str)
        .filter(|v| !v.trim().is_empty())
}

fn is_socket(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| m.file_type().is_socket())
}

/// A refused handshake with its reason code.
fn refused(reason: &str) -> Value {
    acc_sdk::native::refused_binding(PROTOCOL, reason)
}

/// Whether the session will hold an inbound frame for its user: in `bypassPermissions`
/// unless its user settings say `crossSessionInbound: accept`, or always when they say
/// `hold`.
fn holds(permission_mode: Option<&str>, config: Option<&Path>) -> bool {
    let setting = config
        .and_then(|c| read_json(&c.join("settings.json")))
        .and_then(|s| {
            s.get("crossSessionInbound")
                .and_then(Value::as_str)
                .map(str::to_owned)
        });
    match setting.as_deref() {
        Some("accept") => false,
        Some("hold") => true,
        _ => permission_mode == Some("bypassPermissions"),
    }
}

/// The per-session handshake: the socket the client handed its hooks, confirmed by the
/// client's own record for its pid naming the same session and socket.
pub fn bind(facts: &NativeSessionFacts) -> Value {
    let env = &facts.env;
    let pid = set(env, "CLAUDE_PID")
        .and_then(|p| p.parse::<u32>().ok())
        .or(facts.client_pid);
    let Some(pid) = pid else {
        return refused("client_process_unknown");
    };
    let (Some(config), Some(path)) = (config_dir(env), record_path(env, pid)) else {
        return refused("native_session_unavailable");
    };
    let Some(record) = read_json(&path) else {
        return refused("native_session_unavailable");
    };
    if record.get("pid").and_then(Value::as_u64) != Some(u64::from(pid))
        || record.get("sessionId").and_then(Value::as_str) != Some(&facts.client_session_id)
    {
        return refused("session_generation_stale");
    }
    if record.get("peerProtocol").and_then(Value::as_u64) != Some(PEER_PROTOCOL) {
        return refused("handshake_failed");
    }
    let recorded = record
        .get("messagingSocketPath")
        .and_then(Value::as_str)
        .map(PathBuf::from);
    let socket = match (
        set(env, "CLAUDE_CODE_MESSAGING_SOCKET").map(PathBuf::from),
        recorded,
    ) {
        (Some(from_env), Some(recorded)) if from_env != recorded => {
            return refused("handshake_failed");
        }
        (_, Some(socket)) => socket,
        // The record must name the socket: offers are checked against it.
        (Some(_), None) => return refused("handshake_failed"),
        (None, None) => return refused("native_endpoint_unavailable"),
    };
    if !socket.is_absolute() || !is_socket(&socket) {
        return refused("native_endpoint_unavailable");
    }
    let endpoint = Endpoint {
        socket,
        session: facts.client_session_id.clone(),
        record: path,
        hold: holds(facts.permission_mode.as_deref(), Some(&config)),
    };
    json!({
        "supported": true,
        "clientVersion": record.get("version").and_then(Value::as_str).or(facts.client_version.as_deref()),
        "protocolContract": PROTOCOL,
        "modes": MODES,
        "opaqueEndpointRef": endpoint.encode(),
        "leaseUntil": facts.lease_until,
    })
}

/// The frame a sender writes: one JSON line naming the receiving session.
fn frame(text: &str, message_id: &str, session: &str) -> Vec<u8> {
    let mut line = json!({
        "type": "user",
        "message": {"role": "user", "content": text},
        "msg_id": message_id,
        "session_id": session,
    })
    .to_string()
    .into_bytes();
    line.push(b'\n');
    line
}

fn refuse(reason: &str) -> OfferAcceptance {
    OfferAcceptance {
        accepted: false,
        pending_approval: false,
        reason_code: Some(reason.to_owned()),
    }
}

/// Writes one frame to the session's socket. The receiver never answers: a frame that was
/// written and flushed is accepted.
pub fn offer(offer: &LiveOffer) -> OfferAcceptance {
    let Some(endpoint) = offer.endpoint_ref.as_deref().and_then(Endpoint::decode) else {
        return refuse("native_endpoint_unavailable");
    };
    let text = offer.text.trim();
    if text.is_empty() || text.len() > MAX_FRAME_TEXT {
        return refuse("handshake_failed");
    }
    if let Err(reason) = endpoint.still_published() {
        return refuse(reason);
    }
    let mut stream = match UnixStream::connect(&endpoint.socket) {
        Ok(s) => s,
        Err(e) => {
            // A socket file without a listener is a session that died (SIGKILL leaves the
            // file); a missing file is one that ended.
            let reason = match e.kind() {
                std::io::ErrorKind::ConnectionRefused => "native_session_unavailable",
                _ => "native_endpoint_unavailable",
            };
            return refuse(reason);
        }
    };
    let _ = stream.set_write_timeout(Some(OFFER_TIMEOUT));
    let bytes = frame(text, &offer.message_id, &endpoint.session);
    if stream
        .write_all(&bytes)
        .and_then(|()| stream.flush())
        .is_err()
    {
        return refuse("native_session_unavailable");
    }
    let _ = stream.shutdown(std::net::Shutdown::Both);
    OfferAcceptance {
        accepted: true,
        pending_approval: endpoint.hold,
        reason_code: None,
    }
}

/// Whether the executable carries the inbox, scanning at most [`PROBE_MAX_BYTES`].
fn carries_marker(path: &Path) -> std::io::Result<bool> {
    let file = std::fs::File::open(path)?;
    let mut reader = std::io::BufReader::with_capacity(1 << 20, file.take(PROBE_MAX_BYTES));
    let mut carry: Vec<u8> = Vec::new();
    let mut buf = vec![0u8; 1 << 20];
    loop {
        let n = reader.read(&mut buf)?;
        if n == 0 {
            return Ok(false);
        }
        carry.extend_from_slice(&buf[..n]);
        if carry.windows(INBOX_MARKER.len()).any(|w| w == INBOX_MARKER) {
            return Ok(true);
        }
        let keep = INBOX_MARKER.len() - 1;
        let cut = carry.len().saturating_sub(keep);
        carry.drain(..cut);
    }
}

/// The read-only feature probe: the installed client's version, and whether its executable
/// (the real file behind `claude` on `PATH`) carries the inbox.
pub fn probe(ctx: &InstallContext, detection: &acc_sdk::install::Detection) -> Value {
    let Some(exe) = detection.executable.as_ref() else {
        return json!({"supported": false, "reasonCode": "native_delivery_unsupported"});
    };
    let real = std::fs::canonicalize(exe).unwrap_or_else(|_| exe.clone());
    let _ = ctx;
    match carries_marker(&real) {
        Ok(true) => json!({
            "supported": true,
            "clientVersion": detection.version,
            "protocolContract": PROTOCOL,
            "modes": MODES,
        }),
        Ok(false) => json!({
            "supported": false,
            "clientVersion": detection.version,
            "reasonCode": "native_delivery_unsupported",
        }),
        Err(_) => json!({
            "supported": false,
            "clientVersion": detection.version,
            "reasonCode": "feature_probe_failed",
        }),
    }
}

/// Where sessions' sockets live, from the environment the installer saw.
pub fn sockets(ctx: &InstallContext) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for var in ["XDG_RUNTIME_DIR", "CLAUDE_CODE_TMPDIR", "TMPDIR"] {
        if let Some(dir) = ctx.var(var).filter(|d| Path::new(d).is_absolute()) {
            out.push(PathBuf::from(dir).join("cc-socks"));
        }
    }
    out.push(PathBuf::from("/tmp/cc-socks"));
    if let Ok(meta) = std::fs::metadata("/proc/self") {
        use std::os::unix::fs::MetadataExt;
        out.push(PathBuf::from(format!("/tmp/cc-socks-{}", meta.uid())));
    }
    out.dedup();
    out
}

impl LivePush for Inbox {
    fn offer_message(&self, o: &LiveOffer) -> OfferAcceptance {
        offer(o)
    }
}

impl NativeSession for Inbox {
    fn probe_native_delivery(&self, ctx: &InstallContext) -> Option<Value> {
        let detection =
            acc_sdk::probe::detect_command(ctx, "claude", &["--version"], Duration::from_secs(5));
        Some(probe(ctx, &detection))
    }

    fn bind_native_session(&self, session: &NativeSessionFacts) -> Option<Value> {
        Some(bind(session))
    }

    /// The frame only makes the session run a turn; its `UserPromptSubmit` runs acc's
    /// next-turn hook, which shows the body.
    fn offer_kind(&self) -> acc_sdk::native::OfferKind {
        acc_sdk::native::OfferKind::Wake
    }

    /// A lease is renewed only for the same socket and the same client session.
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
