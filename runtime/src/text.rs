//! The text rules every stored field obeys. "Line" fields are one visible line, "prose"
//! may span lines, and summaries shown in lists are cut on a character boundary.

use crate::error::{AccError, ErrorCode, Result};

/// Longest "line" field, in characters.
pub const LINE_MAX: usize = 500;
/// Longest "prose" field, in characters.
pub const PROSE_MAX: usize = 4000;
/// Longest intent summary, in characters.
pub const SUMMARY_MAX: usize = 280;
/// Subjects in summary listings are cut to this many UTF-8 bytes.
pub const LISTED_SUBJECT_BYTES: usize = 160;

fn text_error(field: &str, why: String) -> AccError {
    AccError::new(ErrorCode::InvalidText, format!("{field} {why}")).with("field", field)
}

fn is_forbidden_control(c: char, allow_newlines: bool) -> bool {
    let n = c as u32;
    if allow_newlines && (c == '\n' || c == '\r') {
        return false;
    }
    n < 32 || n == 127
}

fn check_chars(field: &str, s: &str, allow_newlines: bool) -> Result<()> {
    if let Some(c) = s.chars().find(|&c| is_forbidden_control(c, allow_newlines)) {
        return Err(text_error(
            field,
            format!("contains the control character U+{:04X}", c as u32),
        ));
    }
    Ok(())
}

fn check_len(field: &str, s: &str, max: usize) -> Result<()> {
    let n = s.chars().count();
    if n > max {
        return Err(text_error(
            field,
            format!("is {n} characters long; the limit is {max}"),
        ));
    }
    Ok(())
}

/// A "line": non-empty, at most 500 characters, no control characters.
pub fn check_line(field: &str, s: &str) -> Result<()> {
    if s.trim().is_empty() {
        return Err(text_error(field, "must not be empty".to_string()));
    }
    check_len(field, s, LINE_MAX)?;
    check_chars(field, s, false)
}

/// "Prose": at most 4000 characters; LF and CR allowed, other control characters not.
pub fn check_prose(field: &str, s: &str) -> Result<()> {
    check_len(field, s, PROSE_MAX)?;
    check_chars(field, s, true)
}

/// A line written for others to read (a subject, an intent summary, a reason, a harness
/// or display name: every free-text option): a "line" that also holds no character a
/// reader cannot see or that reorders the text around it (C1 controls, bidi controls,
/// zero-width and other invisible format characters). Renderers escape them anyway (the
/// store is a file anyone local can write); refusing them where they are written tells the
/// writer at once.
pub fn check_peer_line(field: &str, s: &str) -> Result<()> {
    check_line(field, s)?;
    check_visible(field, s)
}

/// "Prose" written for others to read (a message body): prose that, besides its line
/// breaks, holds nothing a subject may not.
pub fn check_peer_prose(field: &str, s: &str) -> Result<()> {
    check_prose(field, s)?;
    check_visible(field, s)
}

/// Refuses the characters [`acc_sdk::peer_text::is_hidden`] names, line breaks aside
/// (the line rules decide about those).
fn check_visible(field: &str, s: &str) -> Result<()> {
    let hidden = |c: char| c != '\r' && acc_sdk::peer_text::is_hidden(c);
    match s.chars().find(|&c| hidden(c)) {
        Some(c) => Err(text_error(
            field,
            format!(
                "contains the invisible, control or bidi character U+{:04X}; others would not see it as written",
                c as u32
            ),
        )),
        None => Ok(()),
    }
}

/// An intent summary: a peer line of at most 280 characters.
pub fn check_summary(field: &str, s: &str) -> Result<()> {
    check_peer_line(field, s)?;
    check_len(field, s, SUMMARY_MAX)
}

/// The longest prefix of `s` that fits in `max` bytes without splitting a character.
pub fn cut_bytes(s: &str, max: usize) -> &str {
    if s.len() <= max {
        return s;
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines() {
        assert!(check_line("subject", "hello").is_ok());
        assert!(check_line("subject", "").is_err());
        assert!(check_line("subject", "   ").is_err());
        assert!(check_line("subject", &"x".repeat(500)).is_ok());
        let e = check_line("subject", &"x".repeat(501)).unwrap_err();
        assert_eq!(
            e.message,
            "subject is 501 characters long; the limit is 500"
        );
        assert_eq!(e.exit_code(), 2);
        assert!(check_line("subject", "a\nb").is_err());
        assert!(check_line("subject", "a\u{7f}").is_err());
        assert!(check_line("subject", "tab\there").is_err());
        // Characters, not bytes.
        assert!(check_line("subject", &"é".repeat(500)).is_ok());
    }

    #[test]
    fn prose_allows_newlines_only() {
        assert!(check_prose("body", "").is_ok());
        assert!(check_prose("body", "a\r\nb").is_ok());
        assert!(check_prose("body", "a\u{1b}[31m").is_err());
        assert!(check_prose("body", &"x".repeat(4001)).is_err());
    }

    #[test]
    fn peer_lines_refuse_invisible_and_bidi_characters() {
        assert!(check_peer_line("subject", "h\u{e9}llo \u{1f980} e\u{301}").is_ok());
        for hidden in [
            '\u{202e}',
            '\u{2066}',
            '\u{200b}',
            '\u{feff}',
            '\u{e0041}',
            '\u{ad}',
        ] {
            let e = check_peer_line("subject", &format!("a{hidden}b")).unwrap_err();
            assert_eq!(e.exit_code(), 2);
            assert!(
                e.message.starts_with("subject contains the invisible"),
                "{}",
                e.message
            );
        }
        assert!(check_summary("summary", "fix\u{202e}gnp").is_err());
        let e = check_peer_line("reason", "a\u{9b}2J").unwrap_err();
        assert!(e.message.contains("U+009B"), "{}", e.message);
    }

    #[test]
    fn peer_prose_keeps_line_breaks_and_refuses_the_rest() {
        assert!(check_peer_prose("body", "a\r\nb\n\u{e9} \u{1f980}").is_ok());
        for hidden in ['\u{202e}', '\u{200b}', '\u{9b}', '\u{2028}', '\u{1b}', '\t'] {
            let e = check_peer_prose("body", &format!("a{hidden}b")).unwrap_err();
            assert_eq!(e.exit_code(), 2, "{hidden:?}");
        }
    }

    #[test]
    fn summaries_cap_at_280() {
        assert!(check_summary("summary", &"x".repeat(280)).is_ok());
        assert!(check_summary("summary", &"x".repeat(281)).is_err());
    }

    #[test]
    fn cuts_on_char_boundaries() {
        assert_eq!(cut_bytes("abc", 160), "abc");
        assert_eq!(cut_bytes("ééé", 3), "é");
        assert_eq!(cut_bytes(&"a".repeat(200), 160).len(), 160);
    }
}
