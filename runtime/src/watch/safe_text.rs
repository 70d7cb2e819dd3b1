//! Text from the store shown on a person's terminal. Participants, resources and intents are
//! chosen by peers (and the store is a file any local process can write), so a control
//! sequence in one could move the cursor, retitle the window or hide text; invisible and
//! direction-changing characters could make one name look like another. Each such character
//! is shown as the one renderer of peer text shows it ([`acc_sdk::peer_text`]): a visible
//! `\uXXXX` escape.

use acc_sdk::peer_text::{is_hidden, push_escape};

/// `s` on one row: every hidden character escaped as `\uXXXX`, line breaks and tabs as
/// `\n` and `\t` (a row has no room for either).
pub fn terminal_safe(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            c if is_hidden(c) => push_escape(&mut out, c),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_controls_bidi_and_invisibles_and_keeps_the_rest() {
        assert_eq!(terminal_safe("file:src/**"), "file:src/**");
        assert_eq!(terminal_safe("naïve 名前"), "naïve 名前");
        assert_eq!(
            terminal_safe("a\x1b]0;pwned\x07b"),
            "a\\u001b]0;pwned\\u0007b"
        );
        assert_eq!(terminal_safe("x\u{202E}gpj.exe"), "x\\u202egpj.exe");
        assert_eq!(terminal_safe("a\u{200B}b\u{FEFF}"), "a\\u200bb\\ufeff");
        assert_eq!(terminal_safe("line\nbreak\t\r"), "line\\nbreak\\t\\u000d");
        assert_eq!(terminal_safe("\u{9b}31m"), "\\u009b31m");
        let every: String = (0..=0x10ffff).filter_map(char::from_u32).collect();
        assert!(
            !terminal_safe(&every)
                .chars()
                .any(|c| c.is_control() || is_hidden(c))
        );
    }
}
