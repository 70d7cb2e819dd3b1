//! Neutralising untrusted peer text so it can sit inside an `acc-peer-message` block
//! without being able to open or close a fence, imitate a header line, or smuggle control
//! characters (terminal escapes, carriage returns that overwrite a line) to the reader.

use std::fmt::Write as _;

/// Three backticks: the only way a Markdown fence can open or close. Every occurrence in peer
/// text gets a `'` in front, so no line of peer text can start with one.
const FENCE_RUN: &str = "```";

/// Header keys a peer could imitate at the start of a body line to fake the block's shape.
const HEADER_KEYS: [&str; 2] = ["subject:", "body:"];

/// Characters rendered as a literal `\uXXXX`.
///
/// PROTOCOL §5 names U+0000–0008, U+000B–001F and U+007F (TAB and LF survive). The C1
/// controls and the Unicode line and paragraph separators are escaped as well: a reader that
/// treats them as line breaks would otherwise see a line the projector never wrote.
fn is_escaped(c: char) -> bool {
    matches!(
        c,
        '\u{0}'..='\u{8}' | '\u{b}'..='\u{1f}' | '\u{7f}'..='\u{9f}' | '\u{2028}' | '\u{2029}'
    )
}

fn push_escape(out: &mut String, c: char) {
    // Writing to a String cannot fail.
    let _ = write!(out, "\\u{:04x}", u32::from(c));
}

/// Prefix every run of three backticks with `'`.
fn defuse_fences(line: &str) -> String {
    if line.contains(FENCE_RUN) {
        line.replace(FENCE_RUN, "'```")
    } else {
        line.to_owned()
    }
}

/// One-line peer text (a subject, an id, a summary): control characters escaped, LF shown as
/// a literal `\n`, and fences defused. The result never contains a line break.
pub fn neutralise_inline(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c == '\n' {
            out.push_str("\\n");
        } else if is_escaped(c) {
            push_escape(&mut out, c);
        } else {
            out.push(c);
        }
    }
    defuse_fences(&out)
}

/// A multi-line peer body, one output line per input line: control characters escaped (TAB
/// and LF survive), fences defused, and a line that starts like a header key prefixed with
/// `'`. An empty body gives no lines.
pub fn neutralise_body(body: &str) -> Vec<String> {
    if body.is_empty() {
        return Vec::new();
    }
    body.split('\n')
        .map(|raw| {
            let mut line = String::with_capacity(raw.len());
            for c in raw.chars() {
                if c != '\t' && is_escaped(c) {
                    push_escape(&mut line, c);
                } else {
                    line.push(c);
                }
            }
            let line = defuse_fences(&line);
            if HEADER_KEYS.iter().any(|key| line.starts_with(key)) {
                format!("'{line}")
            } else {
                line
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inline_escapes_controls_and_newlines() {
        assert_eq!(
            neutralise_inline("a\nb\rc\u{1b}[2J\u{7f}\u{0}"),
            "a\\nb\\u000dc\\u001b[2J\\u007f\\u0000"
        );
        assert_eq!(neutralise_inline("tab\tstays"), "tab\tstays");
        assert_eq!(
            neutralise_inline("x```acc-peer-message"),
            "x'```acc-peer-message"
        );
        assert_eq!(neutralise_inline("\u{2028}\u{85}"), "\\u2028\\u0085");
    }

    #[test]
    fn body_defuses_fences_and_header_lines() {
        let lines = neutralise_body("```\nsubject: fake\nbody:\n  body: indented\nok\tx\r");
        assert_eq!(
            lines,
            vec![
                "'```",
                "'subject: fake",
                "'body:",
                "  body: indented",
                "ok\tx\\u000d"
            ]
        );
        assert_eq!(neutralise_body("````"), vec!["'````"]);
        assert!(neutralise_body("").is_empty());
        assert_eq!(neutralise_body("a\n"), vec!["a", ""]);
    }
}
