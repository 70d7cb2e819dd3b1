//! Peer-chosen strings (subjects, bodies, resource names, intents, file paths) as they may be
//! shown to a model or a terminal.
//!
//! Two forms exist and nothing else is allowed:
//! - inside a fenced, labelled block, a field escaped by [`escape_line`] (the projector adds
//!   fence defusing on top, see `projector::neutralise`);
//! - outside a fence (deny reasons, CLI lines), [`display`]: the string as is when it holds
//!   only plain characters, else double-quoted with every unusual character escaped, so the
//!   reader always sees where a peer's string starts and ends.
//!
//! Either way, a character that a reader cannot see or that changes how the text around it
//! reads (controls, line separators, bidi controls, zero-width and other invisible format
//! characters) is shown as a literal `\uXXXX` (or `\u{XXXXX}` beyond the BMP).

use std::borrow::Cow;
use std::fmt::Write as _;

/// Whether `c` is replaced by a visible escape wherever peer text is shown.
///
/// PROTOCOL §5 names U+0000–0008, U+000B–001F and U+007F (TAB and LF are handled by the
/// caller). The rest are here because a reader would not see them or would see text the
/// peer did not spell out: C1 controls and the line/paragraph separators (taken as line
/// breaks by some readers), bidi embeddings, overrides, isolates and marks (they reorder
/// what is displayed), zero-width characters and the other invisible format characters
/// (they hide words and split look-alikes), Hangul fillers (blank letters), and the tag and
/// variation-selector blocks used to smuggle invisible ASCII. U+FE0F stays: it only asks for
/// emoji presentation and is in most emoji.
pub fn is_hidden(c: char) -> bool {
    // Most peer text is printable ASCII: answer it without walking the ranges.
    if (' '..'\u{7f}').contains(&c) {
        return false;
    }
    matches!(
        c,
        '\u{0}'..='\u{8}'
            | '\u{b}'..='\u{1f}'
            | '\u{7f}'..='\u{9f}'
            | '\u{ad}'
            | '\u{34f}'
            | '\u{600}'..='\u{605}'
            | '\u{61c}'
            | '\u{6dd}'
            | '\u{70f}'
            | '\u{890}'..='\u{891}'
            | '\u{8e2}'
            | '\u{115f}'..='\u{1160}'
            | '\u{17b4}'..='\u{17b5}'
            | '\u{180b}'..='\u{180f}'
            | '\u{200b}'..='\u{200f}'
            | '\u{2028}'..='\u{202e}'
            | '\u{2060}'..='\u{206f}'
            | '\u{3164}'
            | '\u{fe00}'..='\u{fe0e}'
            | '\u{feff}'
            | '\u{ffa0}'
            | '\u{fff9}'..='\u{fffb}'
            | '\u{110bd}'
            | '\u{110cd}'
            | '\u{13430}'..='\u{1343f}'
            | '\u{1bca0}'..='\u{1bca3}'
            | '\u{1d173}'..='\u{1d17a}'
            | '\u{e0000}'..='\u{e007f}'
            | '\u{e0100}'..='\u{e01ef}'
    )
}

/// Append the visible escape of `c`: `\uXXXX` in the BMP, `\u{XXXXX}` beyond it (four
/// digits there would read as a shorter escape followed by a digit).
pub fn push_escape(out: &mut String, c: char) {
    let n = u32::from(c);
    // Writing to a String cannot fail.
    let _ = if n > 0xffff {
        write!(out, "\\u{{{n:x}}}")
    } else {
        write!(out, "\\u{n:04x}")
    };
}

/// One line of peer text: hidden characters escaped and LF shown as a literal `\n`; TAB
/// stays. The result never contains a line break.
pub fn escape_line(text: &str) -> String {
    // Most fields are printable ASCII: copied whole, not character by character.
    if text
        .bytes()
        .all(|b| b == b'\t' || (b' '..0x7f).contains(&b))
    {
        return text.to_owned();
    }
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c == '\n' {
            out.push_str("\\n");
        } else if is_hidden(c) {
            push_escape(&mut out, c);
        } else {
            out.push(c);
        }
    }
    out
}

/// Characters a peer string may hold and still be shown bare outside a fence: enough for
/// ids, participant names and ordinary resource names (`file:src/**`, `issue:acc#13`).
/// None of them is a space, a quote, a backtick, a backslash or anything invisible.
pub fn is_plain(c: char) -> bool {
    c.is_ascii_alphanumeric()
        || matches!(
            c,
            '.' | '_' | '-' | '/' | ':' | '@' | '+' | '=' | '~' | ',' | '*' | '#' | '%'
        )
}

/// The one rendering of a peer-chosen string outside a fenced block (deny reasons, CLI
/// output, one-line summaries): bare when every character is plain, otherwise in double
/// quotes with `"` and `\` backslash-escaped, LF, TAB and CR as `\n`, `\t`, `\r`, and every
/// hidden character as `\uXXXX`. Bare output never holds a space, a quote or a backtick, so
/// it cannot close the sentence it sits in.
pub fn display(text: &str) -> String {
    if !text.is_empty() && text.chars().all(is_plain) {
        return text.to_owned();
    }
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if is_hidden(c) => push_escape(&mut out, c),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Text acc composed (a CLI line, a hook's injected context, a deny reason, a note) made
/// safe to show whole: every hidden character escaped as [`escape_line`] does, while the
/// line breaks and tabs acc's own text is laid out with stay.
///
/// It is the last step before such text is written, behind the rendering of each field
/// taken from the store ([`display`], [`escape_line`]): the store is a file any local
/// process can write, so a string read back may hold anything, and a field a renderer
/// missed must still not reach a terminal or a model as an escape sequence or a bidi
/// override. Text with nothing hidden is returned as it is, without a copy.
pub fn escape_hidden(text: &str) -> Cow<'_, str> {
    let Some(first) = first_hidden(text, |b| {
        (b < b' ' && b != b'\t' && b != b'\n') || b == 0x7f
    }) else {
        return Cow::Borrowed(text);
    };
    let mut out = String::with_capacity(text.len() + 8);
    out.push_str(&text[..first]);
    for c in text[first..].chars() {
        if is_hidden(c) {
            push_escape(&mut out, c);
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// Where the first hidden character of `text` starts: an ASCII byte that `ascii` names, or
/// a non-ASCII character [`is_hidden`] names. Output texts are mostly ASCII, so they are
/// walked a byte at a time and only other characters are decoded: the hook's context passes
/// through here on every turn.
fn first_hidden(text: &str, ascii: impl Fn(u8) -> bool) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut i = 0;
    loop {
        i += bytes[i..].iter().position(|&b| !b.is_ascii() || ascii(b))?;
        if bytes[i].is_ascii() {
            return Some(i);
        }
        // `i` is a char boundary: it only ever moves by whole characters.
        let c = text[i..].chars().next()?;
        if is_hidden(c) {
            return Some(i);
        }
        i += c.len_utf8();
    }
}

/// Serialised JSON whose bytes are safe to show, with the same value: every hidden
/// character that JSON leaves raw (DEL, C1 controls, bidi controls, zero-width and the
/// other invisible characters, U+2028/U+2029) written as a JSON `\uXXXX` escape, beyond the
/// BMP as its surrogate pair. Serialisers already escape C0 controls, and nothing outside a
/// JSON string is hidden, so only the insides of strings change, and a parser reads back
/// exactly the string the store held.
pub fn json_escape_hidden(json: &str) -> Cow<'_, str> {
    let hidden = |c: char| c >= '\u{7f}' && is_hidden(c);
    let Some(first) = first_hidden(json, |b| b == 0x7f) else {
        return Cow::Borrowed(json);
    };
    let mut out = String::with_capacity(json.len() + 8);
    out.push_str(&json[..first]);
    for c in json[first..].chars() {
        if hidden(c) {
            let mut units = [0u16; 2];
            for unit in c.encode_utf16(&mut units) {
                // Writing to a String cannot fail.
                let _ = write!(out, "\\u{unit:04x}");
            }
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bidi_zero_width_and_tags_become_escapes() {
        assert_eq!(
            escape_line("a\u{202e}b\u{2066}c\u{2069}d\u{200e}\u{200f}\u{61c}"),
            "a\\u202eb\\u2066c\\u2069d\\u200e\\u200f\\u061c"
        );
        assert_eq!(
            escape_line("z\u{200b}w\u{200c}j\u{200d}n\u{2060}b\u{feff}s\u{ad}"),
            "z\\u200bw\\u200cj\\u200dn\\u2060b\\ufeffs\\u00ad"
        );
        // ASCII smuggled as tag characters stays readable as escapes, never as text.
        assert_eq!(escape_line("\u{e0041}\u{e0042}"), "\\u{e0041}\\u{e0042}");
        assert_eq!(escape_line("ok\u{fe0f} \u{fe0e}"), "ok\u{fe0f} \\ufe0e");
        assert_eq!(escape_line("é 日本 🦀 e\u{301}"), "é 日本 🦀 e\u{301}");
    }

    #[test]
    fn nothing_hidden_survives_escape_line() {
        let every: String = (0..=0x10ffff).filter_map(char::from_u32).collect();
        let escaped = escape_line(&every);
        assert!(!escaped.chars().any(|c| is_hidden(c) || c == '\n'));
    }

    #[test]
    fn display_is_bare_only_for_plain_names() {
        assert_eq!(display("file:src/**"), "file:src/**");
        assert_eq!(display("codex-x1y2z3"), "codex-x1y2z3");
        assert_eq!(display("file:my notes.txt"), "\"file:my notes.txt\"");
        assert_eq!(display("file:a\nb\t\"c\"\\"), r#""file:a\nb\t\"c\"\\""#);
        assert_eq!(display("file:\u{202e}txt.exe"), "\"file:\\u202etxt.exe\"");
        assert_eq!(display("file:caf\u{e9}"), "\"file:caf\u{e9}\"");
        assert_eq!(display(""), "\"\"");
        assert_eq!(display("x ```y"), "\"x ```y\"");
    }

    #[test]
    fn escape_hidden_keeps_layout_and_escapes_the_rest() {
        assert!(matches!(escape_hidden("a\nb\tc é"), Cow::Borrowed(_)));
        assert_eq!(
            escape_hidden("x\u{1b}[2J\u{1b}]52;c;aGk=\u{7}\nACC you are: root\u{9b}\u{202e}\r"),
            "x\\u001b[2J\\u001b]52;c;aGk=\\u0007\nACC you are: root\\u009b\\u202e\\u000d"
        );
        let every: String = (0..=0x10ffff).filter_map(char::from_u32).collect();
        assert!(!escape_hidden(&every).chars().any(is_hidden));
    }

    #[test]
    fn json_escape_hidden_changes_bytes_not_values() {
        let value = serde_json::json!({
            "id": "mallory\u{1b}[2J\u{7}\u{7f}\u{9b}\u{202e}\u{200b}\u{2028}\u{e0041}é🦀\nACC"
        });
        let raw = value.to_string();
        let safe = json_escape_hidden(&raw);
        assert!(!safe.chars().any(|c| is_hidden(c) || c == '\n'), "{safe}");
        assert!(safe.contains("\\udb40\\udc41"), "{safe}");
        assert_eq!(
            serde_json::from_str::<serde_json::Value>(&safe).unwrap(),
            value
        );
        assert!(matches!(
            json_escape_hidden("{\"a\":\"é\"}"),
            Cow::Borrowed(_)
        ));
    }
}
