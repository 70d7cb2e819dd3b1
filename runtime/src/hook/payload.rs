//! Reading the one payload a client hands a hook on stdin.
//!
//! A payload is one JSON value. Reading stops as soon as a complete value arrived: a client
//! that writes its payload and keeps stdin open must not hold the hook until its deadline
//! (which fails open). Whatever the same read already brought after the value must be
//! whitespace.

use super::failure::Failure;
use serde_json::Value;
use std::io::Read;

/// The largest payload read. Real payloads are a few kilobytes (tool inputs can carry a
/// file's contents); anything bigger is refused rather than buffered without bound.
pub const MAX_PAYLOAD_BYTES: u64 = 16 * 1024 * 1024;

/// Read at a time once the payload is larger than [`FIRST_CHUNK`] (what a pipe hands over
/// at most per read).
const CHUNK: usize = 64 * 1024;

/// The first read, into a buffer on the stack: most payloads are a few KiB, and zeroing a
/// fresh 64 KiB heap buffer for each (its `memset` and page faults) cost more than reading
/// and parsing one.
const FIRST_CHUNK: usize = 8 * 1024;

/// Reads at most [`MAX_PAYLOAD_BYTES`] and parses them as one JSON value, without waiting
/// for end of input once the value is complete.
pub fn read(input: &mut dyn Read) -> Result<Value, Failure> {
    let mut bytes: Vec<u8> = Vec::new();
    let mut first = [0u8; FIRST_CHUNK];
    let mut more: Vec<u8> = Vec::new();
    loop {
        let chunk: &mut [u8] = if bytes.is_empty() {
            &mut first
        } else {
            if more.is_empty() {
                more = vec![0u8; CHUNK];
            }
            &mut more
        };
        let n = match input.read(chunk) {
            Ok(0) => return parse(&bytes),
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(_) => return Err(Failure::PayloadUnreadable),
        };
        bytes.extend_from_slice(&chunk[..n]);
        if bytes.len() as u64 > MAX_PAYLOAD_BYTES {
            return Err(Failure::PayloadTooLarge);
        }
        // A complete object or array ends in `}` or `]`: only then is a parse worth trying
        // (trying after every chunk would parse a large payload over and over). Only the
        // new bytes are looked at: a chunk of whitespace leaves the answer as it was.
        let last = chunk[..n].iter().rev().find(|b| !b.is_ascii_whitespace());
        if matches!(last, Some(b'}' | b']'))
            && let Some(done) = complete(&bytes)
        {
            return done;
        }
    }
}

/// `Some` when `bytes` settle the answer without more input: one complete value followed
/// by whitespace, or input that can never become one. `None` when more input could finish
/// the value.
fn complete(bytes: &[u8]) -> Option<Result<Value, Failure>> {
    let mut stream = serde_json::Deserializer::from_slice(bytes).into_iter::<Value>();
    match stream.next() {
        Some(Ok(value)) => {
            let rest = &bytes[stream.byte_offset()..];
            if rest.iter().all(u8::is_ascii_whitespace) {
                Some(Ok(value))
            } else {
                Some(Err(classify(bytes)))
            }
        }
        Some(Err(e)) if e.is_eof() => None,
        Some(Err(_)) => Some(Err(classify(bytes))),
        None => None,
    }
}

fn classify(bytes: &[u8]) -> Failure {
    if std::str::from_utf8(bytes).is_err() {
        Failure::PayloadNotUtf8
    } else {
        Failure::PayloadNotJson
    }
}

/// Parses a payload already in memory, under the same rules.
pub fn parse(bytes: &[u8]) -> Result<Value, Failure> {
    if bytes.len() as u64 > MAX_PAYLOAD_BYTES {
        return Err(Failure::PayloadTooLarge);
    }
    let text = std::str::from_utf8(bytes).map_err(|_| Failure::PayloadNotUtf8)?;
    serde_json::from_str(text).map_err(|_| Failure::PayloadNotJson)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_json_value_or_a_reason() {
        assert_eq!(
            read(&mut &br#"{"a":1}"#[..]).unwrap(),
            serde_json::json!({"a": 1})
        );
        assert_eq!(read(&mut &b""[..]), Err(Failure::PayloadNotJson));
        assert_eq!(read(&mut &b"{} {}"[..]), Err(Failure::PayloadNotJson));
        assert_eq!(read(&mut &b"\xff\xfe{}"[..]), Err(Failure::PayloadNotUtf8));
        let deep = "[".repeat(10_000);
        assert_eq!(read(&mut deep.as_bytes()), Err(Failure::PayloadNotJson));
    }

    #[test]
    fn oversized_input_is_refused_without_reading_it_all() {
        let mut endless = std::io::repeat(b' ');
        assert_eq!(read(&mut endless), Err(Failure::PayloadTooLarge));
    }

    /// Hands out its bytes in small pieces, then blocks for ever as an open pipe would
    /// (here: panics, so a read past the value fails the test).
    struct OpenPipe {
        data: Vec<u8>,
        at: usize,
    }

    impl Read for OpenPipe {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            assert!(self.at < self.data.len(), "read past the payload");
            let n = buf.len().min(7).min(self.data.len() - self.at);
            buf[..n].copy_from_slice(&self.data[self.at..self.at + n]);
            self.at += n;
            Ok(n)
        }
    }

    #[test]
    fn a_complete_value_is_read_without_waiting_for_end_of_input() {
        let payload = br#"{"tool_input":{"command":"echo }"},"a":[1,{"b":"]"}]}"#;
        let mut pipe = OpenPipe {
            data: [&payload[..], b"\n"].concat(),
            at: 0,
        };
        let v = read(&mut pipe).unwrap();
        assert_eq!(v["a"][1]["b"], "]");
    }

    #[test]
    fn a_payload_larger_than_the_first_read_is_read_whole() {
        // A file's contents in a tool input: well past the first read, in several reads.
        let content = "fn main() {}\n".repeat(3 * CHUNK / 13);
        let payload = serde_json::json!({"tool_input": {"content": content}}).to_string();
        assert!(payload.len() > 2 * CHUNK + FIRST_CHUNK);
        let v = read(&mut payload.as_bytes()).unwrap();
        assert_eq!(v["tool_input"]["content"], content.as_str());
    }
}
