//! Reading the one payload a client hands a hook on stdin.

use super::failure::Failure;
use serde_json::Value;
use std::io::Read;

/// The largest payload read. Real payloads are a few kilobytes (tool inputs can carry a
/// file's contents); anything bigger is refused rather than buffered without bound.
pub const MAX_PAYLOAD_BYTES: u64 = 16 * 1024 * 1024;

/// Reads at most [`MAX_PAYLOAD_BYTES`] and parses them as one JSON value.
pub fn read(input: &mut dyn Read) -> Result<Value, Failure> {
    let mut bytes = Vec::new();
    input
        .take(MAX_PAYLOAD_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|_| Failure::PayloadUnreadable)?;
    parse(&bytes)
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
}
