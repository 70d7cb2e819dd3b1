//! The frames on the socket. Every frame is a 4-byte big-endian length and that many bytes;
//! headers are JSON, stdin, stdout and stderr are raw bytes (binary-safe, never lossy).
//!
//! Client: request header, stdin. Server: acknowledgement (after it read the whole
//! request, before it runs anything). Client: [`GO`], one byte, once it trusts the
//! acknowledgement's sender. Server: only then runs the call, and sends the answer header,
//! stdout, stderr. A server whose client closes instead of sending [`GO`] runs nothing: a
//! client that distrusts its server runs the call itself, and the call must not also run
//! there (a turn's offers marked by a server whose answer is thrown away are messages never
//! shown).

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::io::{Read, Write};

/// Bumped with every change of these frames; a build's own package version rides along,
/// so a server of another acc build refuses (and exits) instead of answering.
pub const PROTOCOL_VERSION: u32 = 2;

/// The client's go-ahead after it verified the server ([`super::peer::verify`]).
pub const GO: u8 = b'!';

/// This build, as the handshake names it.
pub fn build() -> String {
    format!("{}+{PROTOCOL_VERSION}", env!("CARGO_PKG_VERSION"))
}

/// The largest header (a command line and an environment).
pub const MAX_HEADER_BYTES: usize = 4 << 20;

/// The largest stdin sent: one byte more than a hook reads, so an oversized payload is
/// refused by the server exactly as the local hook refuses it.
pub const MAX_STDIN_BYTES: usize = crate::hook::payload::MAX_PAYLOAD_BYTES as usize + 1;

/// The largest stdout or stderr handed back.
pub const MAX_OUTPUT_BYTES: usize = 64 << 20;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Kind {
    /// `acc-hook <adapter> <event>…`
    Hook,
    /// `acc <command>…`
    Acc,
    /// How many calls this server answered (stdout: the number and a newline): how a
    /// test or a person sees that calls are served.
    Status,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Request {
    pub build: String,
    pub kind: Kind,
    /// The whole command line, the program's name first, each argument's raw bytes.
    pub argv: Vec<Vec<u8>>,
    pub env: BTreeMap<String, String>,
    pub cwd: Vec<u8>,
    /// The client's umask: files are created as the client would create them.
    pub umask: u32,
    /// The client's pid: whose ancestry is judged.
    pub pid: u32,
    /// How long the client had run when it sent the request: a hook's budget runs from
    /// the client's start.
    pub elapsed_ms: u64,
}

/// A [`Request`] as the client sends it, borrowing its command line and environment
/// instead of copying them: the same JSON, byte for byte.
#[derive(Debug, Clone, Copy, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RequestRef<'a> {
    pub build: &'a str,
    pub kind: Kind,
    #[serde(serialize_with = "raw_args")]
    pub argv: &'a [std::ffi::OsString],
    pub env: &'a BTreeMap<String, String>,
    pub cwd: &'a [u8],
    pub umask: u32,
    pub pid: u32,
    pub elapsed_ms: u64,
}

fn raw_args<S: serde::Serializer>(argv: &&[std::ffi::OsString], s: S) -> Result<S::Ok, S::Error> {
    use std::os::unix::ffi::OsStrExt;
    s.collect_seq(argv.iter().map(|a| a.as_bytes()))
}

/// The request header's frame followed by the stdin frame, in one buffer (one write).
pub fn request_frames(request: &RequestRef<'_>, stdin: &[u8]) -> std::io::Result<Vec<u8>> {
    let mut buf = Vec::with_capacity(1024 + stdin.len());
    buf.extend_from_slice(&[0; 4]);
    serde_json::to_writer(&mut buf, request).map_err(std::io::Error::other)?;
    let len = u32::try_from(buf.len() - 4)
        .map_err(|_| std::io::Error::new(std::io::ErrorKind::InvalidInput, "frame too large"))?;
    buf[..4].copy_from_slice(&len.to_be_bytes());
    let stdin_len = u32::try_from(stdin.len())
        .map_err(|_| std::io::Error::new(std::io::ErrorKind::InvalidInput, "frame too large"))?;
    buf.extend_from_slice(&stdin_len.to_be_bytes());
    buf.extend_from_slice(stdin);
    Ok(buf)
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Ack {
    pub build: String,
    pub accepted: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AnswerHeader {
    pub code: i32,
}

/// What the client writes and exits with.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Answer {
    pub code: i32,
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
}

pub fn write_frame(w: &mut dyn Write, bytes: &[u8]) -> std::io::Result<()> {
    let len = u32::try_from(bytes.len())
        .map_err(|_| std::io::Error::new(std::io::ErrorKind::InvalidInput, "frame too large"))?;
    let mut buf = Vec::with_capacity(4 + bytes.len());
    buf.extend_from_slice(&len.to_be_bytes());
    buf.extend_from_slice(bytes);
    w.write_all(&buf)
}

pub fn read_frame(r: &mut dyn Read, max: usize) -> std::io::Result<Vec<u8>> {
    let mut len = [0u8; 4];
    r.read_exact(&mut len)?;
    let len = u32::from_be_bytes(len) as usize;
    if len > max {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("frame of {len} bytes, over {max}"),
        ));
    }
    let mut buf = vec![0u8; len];
    r.read_exact(&mut buf)?;
    Ok(buf)
}

pub fn write_json<T: Serialize>(w: &mut dyn Write, value: &T) -> std::io::Result<()> {
    let bytes = serde_json::to_vec(value).map_err(std::io::Error::other)?;
    write_frame(w, &bytes)
}

pub fn read_json<T: for<'de> Deserialize<'de>>(r: &mut dyn Read) -> std::io::Result<T> {
    let bytes = read_frame(r, MAX_HEADER_BYTES)?;
    serde_json::from_slice(&bytes)
        .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e))
}

/// The answer after the acknowledgement: header, stdout, stderr.
pub fn write_answer(w: &mut dyn Write, answer: &Answer) -> std::io::Result<()> {
    let mut buf = Vec::new();
    write_json(&mut buf, &AnswerHeader { code: answer.code })?;
    write_frame(&mut buf, truncated(&answer.stdout))?;
    write_frame(&mut buf, truncated(&answer.stderr))?;
    w.write_all(&buf)?;
    w.flush()
}

pub fn read_answer(r: &mut dyn Read) -> std::io::Result<Answer> {
    let header: AnswerHeader = read_json(r)?;
    let stdout = read_frame(r, MAX_OUTPUT_BYTES)?;
    let stderr = read_frame(r, MAX_OUTPUT_BYTES)?;
    Ok(Answer {
        code: header.code,
        stdout,
        stderr,
    })
}

fn truncated(bytes: &[u8]) -> &[u8] {
    &bytes[..bytes.len().min(MAX_OUTPUT_BYTES)]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_answer_is_binary_safe_and_bounded() {
        let answer = Answer {
            code: 2,
            stdout: vec![0, 0xff, b'\n', 0xc3],
            stderr: b"e".to_vec(),
        };
        let mut buf = Vec::new();
        write_answer(&mut buf, &answer).unwrap();
        assert_eq!(read_answer(&mut buf.as_slice()).unwrap(), answer);
        let mut huge = Vec::new();
        huge.extend_from_slice(&(MAX_HEADER_BYTES as u32 + 1).to_be_bytes());
        assert!(read_json::<Ack>(&mut huge.as_slice()).is_err());
    }

    #[test]
    fn a_borrowed_request_is_the_owned_one_on_the_wire() {
        use std::os::unix::ffi::OsStringExt;
        let argv: Vec<std::ffi::OsString> = vec![
            "acc-hook".into(),
            std::ffi::OsString::from_vec(vec![0xff, b'"', b'\\', 0]),
            "PreToolUse".into(),
        ];
        let env: BTreeMap<String, String> = [
            ("HOME".to_string(), "/h\"q\u{1}".to_string()),
            ("ACC_SERVE".to_string(), "1".to_string()),
        ]
        .into();
        let stdin = b"{\"a\":1}\n";
        let borrowed = RequestRef {
            build: "9.9.9+1",
            kind: Kind::Hook,
            argv: &argv,
            env: &env,
            cwd: b"/w/\xc3",
            umask: 0o027,
            pid: 42,
            elapsed_ms: 7,
        };
        let owned = Request {
            build: "9.9.9+1".into(),
            kind: Kind::Hook,
            argv: argv.iter().map(|a| a.clone().into_vec()).collect(),
            env: env.clone(),
            cwd: b"/w/\xc3".to_vec(),
            umask: 0o027,
            pid: 42,
            elapsed_ms: 7,
        };
        let mut expected = Vec::new();
        write_json(&mut expected, &owned).unwrap();
        write_frame(&mut expected, stdin).unwrap();
        let frames = request_frames(&borrowed, stdin).unwrap();
        assert_eq!(frames, expected);
        let mut r = frames.as_slice();
        assert_eq!(read_json::<Request>(&mut r).unwrap(), owned);
        assert_eq!(read_frame(&mut r, MAX_STDIN_BYTES).unwrap(), stdin);
    }
}
