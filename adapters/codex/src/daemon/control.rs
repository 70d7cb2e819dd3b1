//! A client of the daemon's control socket: JSON-RPC, one message per WebSocket text
//! frame, over a Unix stream (the socket answers only after an HTTP upgrade; a plain JSON
//! line is dropped unanswered). Only what acc sends: one connection, `initialize`, then
//! requests answered in order, every read and write bounded by one deadline.

use acc_sdk::identity::peer_pid;
use std::io::{Read, Write};
use std::os::unix::net::UnixStream;
use std::path::Path;
use std::time::{Duration, Instant};

use base64::Engine;
use serde_json::{Value, json};

/// A message larger than this is not Codex's answer to acc's small requests.
const MAX_MESSAGE: usize = 4 * 1024 * 1024;
/// How many unrelated messages (notifications) acc reads past before giving up on an answer.
const MAX_SKIPPED: usize = 256;

/// Why a conversation with the daemon failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ControlError {
    /// No socket file (the daemon never ran for this home, or removed it).
    Missing,
    /// A socket file nobody listens on (the daemon died).
    Refused,
    /// The deadline passed.
    Timeout,
    /// The other end broke the protocol or hung up.
    Protocol(String),
    /// The daemon answered the request with a JSON-RPC error.
    Rejected(String),
}

impl ControlError {
    fn io(e: std::io::Error) -> ControlError {
        match e.kind() {
            std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut => ControlError::Timeout,
            _ => ControlError::Protocol(e.to_string()),
        }
    }
}

/// One open, initialized connection.
pub struct Control {
    stream: UnixStream,
    deadline: Instant,
    buffered: Vec<u8>,
    next_id: u64,
    /// The pid that listens on the socket (`SO_PEERCRED`).
    pub peer_pid: Option<u32>,
    /// `initialize`'s answer.
    pub hello: Value,
}

impl Control {
    /// Connects, upgrades and initializes within `budget`.
    pub fn open(socket: &Path, budget: Duration) -> Result<Control, ControlError> {
        let deadline = Instant::now() + budget;
        let stream = UnixStream::connect(socket).map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => ControlError::Missing,
            std::io::ErrorKind::ConnectionRefused => ControlError::Refused,
            _ => ControlError::Protocol(e.to_string()),
        })?;
        let peer_pid = peer_pid(&stream);
        let mut control = Control {
            stream,
            deadline,
            buffered: Vec::new(),
            next_id: 0,
            peer_pid,
            hello: Value::Null,
        };
        control.upgrade()?;
        control.hello = control.request(
            "initialize",
            json!({
                "clientInfo": {"name": "acc", "version": env!("CARGO_PKG_VERSION")},
                // The queue methods are experimental in 0.171.0.
                "capabilities": {"experimentalApi": true},
            }),
        )?;
        control.notify("initialized")?;
        Ok(control)
    }

    fn arm(&self) -> Result<(), ControlError> {
        let left = self.deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(ControlError::Timeout);
        }
        self.stream
            .set_read_timeout(Some(left))
            .and_then(|()| self.stream.set_write_timeout(Some(left)))
            .map_err(ControlError::io)
    }

    fn upgrade(&mut self) -> Result<(), ControlError> {
        let mut nonce = [0u8; 16];
        getrandom::fill(&mut nonce).map_err(|e| ControlError::Protocol(e.to_string()))?;
        let key = base64::engine::general_purpose::STANDARD.encode(nonce);
        let request = format!(
            "GET / HTTP/1.1\r\nHost: localhost\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\
             Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n"
        );
        self.arm()?;
        self.stream
            .write_all(request.as_bytes())
            .map_err(ControlError::io)?;
        let end = loop {
            if let Some(at) = find(&self.buffered, b"\r\n\r\n") {
                break at;
            }
            if self.buffered.len() > 16 * 1024 {
                return Err(ControlError::Protocol("oversized upgrade answer".into()));
            }
            self.fill()?;
        };
        let head = String::from_utf8_lossy(&self.buffered[..end]).into_owned();
        self.buffered.drain(..end + 4);
        let status = head.lines().next().unwrap_or_default();
        if status.split_whitespace().nth(1) != Some("101") {
            return Err(ControlError::Protocol(format!(
                "the socket refused the upgrade: {status}"
            )));
        }
        Ok(())
    }

    fn fill(&mut self) -> Result<(), ControlError> {
        self.arm()?;
        let mut chunk = [0u8; 16 * 1024];
        let n = self.stream.read(&mut chunk).map_err(ControlError::io)?;
        if n == 0 {
            return Err(ControlError::Protocol("the daemon hung up".into()));
        }
        self.buffered.extend_from_slice(&chunk[..n]);
        Ok(())
    }

    fn need(&mut self, len: usize) -> Result<(), ControlError> {
        while self.buffered.len() < len {
            self.fill()?;
        }
        Ok(())
    }

    /// Writes one masked text frame (a client must mask every frame).
    fn send(&mut self, message: &Value) -> Result<(), ControlError> {
        let payload = message.to_string().into_bytes();
        let mut mask = [0u8; 4];
        getrandom::fill(&mut mask).map_err(|e| ControlError::Protocol(e.to_string()))?;
        let mut frame = vec![0x81];
        match payload.len() {
            n if n < 126 => frame.push(0x80 | n as u8),
            n if n <= usize::from(u16::MAX) => {
                frame.push(0x80 | 126);
                frame.extend_from_slice(&(n as u16).to_be_bytes());
            }
            n => {
                frame.push(0x80 | 127);
                frame.extend_from_slice(&(n as u64).to_be_bytes());
            }
        }
        frame.extend_from_slice(&mask);
        frame.extend(payload.iter().enumerate().map(|(i, b)| b ^ mask[i % 4]));
        self.arm()?;
        self.stream.write_all(&frame).map_err(ControlError::io)
    }

    /// Reads one whole message; control frames are answered or skipped.
    fn receive(&mut self) -> Result<Value, ControlError> {
        let mut message = Vec::new();
        loop {
            self.need(2)?;
            let (fin, opcode) = (self.buffered[0] & 0x80 != 0, self.buffered[0] & 0x0f);
            let masked = self.buffered[1] & 0x80 != 0;
            let (len, mut at) = match self.buffered[1] & 0x7f {
                126 => {
                    self.need(4)?;
                    (
                        usize::from(u16::from_be_bytes([self.buffered[2], self.buffered[3]])),
                        4,
                    )
                }
                127 => {
                    self.need(10)?;
                    let mut b = [0u8; 8];
                    b.copy_from_slice(&self.buffered[2..10]);
                    (
                        usize::try_from(u64::from_be_bytes(b)).unwrap_or(usize::MAX),
                        10,
                    )
                }
                n => (usize::from(n), 2),
            };
            if len > MAX_MESSAGE || message.len() + len > MAX_MESSAGE {
                return Err(ControlError::Protocol("oversized message".into()));
            }
            let mask = if masked {
                self.need(at + 4)?;
                let m = [
                    self.buffered[at],
                    self.buffered[at + 1],
                    self.buffered[at + 2],
                    self.buffered[at + 3],
                ];
                at += 4;
                Some(m)
            } else {
                None
            };
            self.need(at + len)?;
            let mut payload: Vec<u8> = self.buffered.drain(..at + len).skip(at).collect();
            if let Some(m) = mask {
                payload
                    .iter_mut()
                    .enumerate()
                    .for_each(|(i, b)| *b ^= m[i % 4]);
            }
            match opcode {
                0x8 => {
                    return Err(ControlError::Protocol(
                        "the daemon closed the socket".into(),
                    ));
                }
                // A ping is not answered: acc's conversation ends long before a keep-alive
                // would matter.
                0x9 | 0xA => continue,
                _ => message.extend_from_slice(&payload),
            }
            if fin {
                return serde_json::from_slice(&message)
                    .map_err(|e| ControlError::Protocol(format!("a message is not JSON: {e}")));
            }
        }
    }

    fn notify(&mut self, method: &str) -> Result<(), ControlError> {
        self.send(&json!({"method": method}))
    }

    /// Sends one request and returns its `result`, reading past notifications.
    pub fn request(&mut self, method: &str, params: Value) -> Result<Value, ControlError> {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&json!({"id": id, "method": method, "params": params}))?;
        for _ in 0..MAX_SKIPPED {
            let message = self.receive()?;
            if message.get("id").and_then(Value::as_u64) != Some(id)
                || message.get("method").is_some()
            {
                continue;
            }
            if let Some(error) = message.get("error") {
                let text = error
                    .get("message")
                    .and_then(Value::as_str)
                    .unwrap_or("an error without a message");
                return Err(ControlError::Rejected(text.to_owned()));
            }
            return message
                .get("result")
                .cloned()
                .ok_or_else(|| ControlError::Protocol(format!("{method}: no result")));
        }
        Err(ControlError::Protocol(format!("{method}: no answer")))
    }
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}
