//! How a file name is spelt inside a `file:` resource.
//!
//! The resource grammar holds no whitespace, no control character, no `*` other than the
//! tree marker `/**`, and only UTF-8, while a file system allows all of them in a name; a
//! path a claim cannot name is a path nobody can guard. So inside a `file:` path a
//! backslash escapes:
//!
//! - `\*`: a literal `*`;
//! - `\\`: a literal backslash;
//! - `\xHH`: the byte `HH` (two hex digits), for whitespace, control characters and bytes
//!   that are not UTF-8 (`src/Read\x20Me.md`).
//!
//! A backslash before anything else is itself, as it was before escapes existed, so a
//! claim spelt earlier keeps its meaning (unless it held `\\` or `\xHH` literally: a `\*`
//! never could, a bare `*` was refused). A `/` or a NUL byte cannot be part of a name and
//! is refused in an escape.
//!
//! Every spelling decodes to bytes and is written back canonically ([`encode_segment`]):
//! one path has one spelling, so the claim index, which compares spellings, stays exact.

/// Why a segment of a `file:` path cannot name a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SegmentError {
    /// A bare `*`: only a final `/**` is a pattern.
    Wildcard,
    /// `\x2f` or `\x00`: no file name holds a `/` or a NUL byte.
    ImpossibleByte,
}

fn hex(b: u8) -> Option<u8> {
    match b {
        b'0'..=b'9' => Some(b - b'0'),
        b'a'..=b'f' => Some(b - b'a' + 10),
        b'A'..=b'F' => Some(b - b'A' + 10),
        _ => None,
    }
}

/// The bytes of one path segment as spelt in a resource.
pub fn decode_segment(seg: &str) -> Result<Vec<u8>, SegmentError> {
    let b = seg.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'*' => return Err(SegmentError::Wildcard),
            b'\\' => match b.get(i + 1) {
                Some(&c @ (b'*' | b'\\')) => {
                    out.push(c);
                    i += 2;
                }
                Some(b'x') => match (
                    b.get(i + 2).and_then(|&h| hex(h)),
                    b.get(i + 3).and_then(|&l| hex(l)),
                ) {
                    (Some(h), Some(l)) => {
                        let byte = h * 16 + l;
                        if byte == b'/' || byte == 0 {
                            return Err(SegmentError::ImpossibleByte);
                        }
                        out.push(byte);
                        i += 4;
                    }
                    _ => {
                        out.push(b'\\');
                        i += 1;
                    }
                },
                _ => {
                    out.push(b'\\');
                    i += 1;
                }
            },
            c => {
                out.push(c);
                i += 1;
            }
        }
    }
    Ok(out)
}

/// Whether a character of a name must be escaped to fit the resource grammar (or to stay
/// unambiguous: `*` and `\`).
fn needs_escape(c: char) -> bool {
    c == '*' || c == '\\' || c.is_whitespace() || c.is_control()
}

fn push_bytes(bytes: &[u8], out: &mut String) {
    for b in bytes {
        out.push_str(&format!("\\x{b:02x}"));
    }
}

/// Appends the canonical spelling of one file name.
pub fn encode_segment(name: &[u8], out: &mut String) {
    for chunk in name.utf8_chunks() {
        for c in chunk.valid().chars() {
            match c {
                '*' => out.push_str("\\*"),
                '\\' => out.push_str("\\\\"),
                c if needs_escape(c) => {
                    let mut buf = [0u8; 4];
                    push_bytes(c.encode_utf8(&mut buf).as_bytes(), out);
                }
                c => out.push(c),
            }
        }
        push_bytes(chunk.invalid(), out);
    }
}

/// The canonical spelling of one file name.
pub fn encoded(name: &[u8]) -> String {
    let mut s = String::with_capacity(name.len());
    encode_segment(name, &mut s);
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_byte_sequence_round_trips() {
        let names: [&[u8]; 9] = [
            b"plain.rs",
            b"Read Me.md",
            b"a*b.rs",
            b"tab\there",
            b"new\nline",
            "nbsp\u{a0}and\u{2003}em".as_bytes(),
            b"trailing ",
            b"back\\slash\\x41",
            b"\xff\xfenot utf8",
        ];
        for name in names {
            let spelt = encoded(name);
            assert!(
                !spelt.chars().any(|c| c.is_whitespace() || c.is_control()),
                "{spelt:?}"
            );
            assert!(!spelt.replace("\\*", "").contains('*'), "{spelt:?}");
            assert_eq!(decode_segment(&spelt).unwrap(), name, "{spelt:?}");
        }
        assert_eq!(encoded(b"Read Me.md"), "Read\\x20Me.md");
        assert_eq!(encoded(b"a*b"), "a\\*b");
    }

    #[test]
    fn a_backslash_before_anything_else_is_itself() {
        assert_eq!(decode_segment("a\\b").unwrap(), b"a\\b");
        assert_eq!(decode_segment("a\\xZ1").unwrap(), b"a\\xZ1");
        assert_eq!(decode_segment("end\\").unwrap(), b"end\\");
        assert_eq!(decode_segment("a\\x41\\*").unwrap(), b"aA*");
    }

    #[test]
    fn wildcards_slashes_and_nul_are_refused() {
        assert_eq!(decode_segment("a*"), Err(SegmentError::Wildcard));
        assert_eq!(decode_segment("a\\x2fb"), Err(SegmentError::ImpossibleByte));
        assert_eq!(decode_segment("a\\x00"), Err(SegmentError::ImpossibleByte));
    }
}
