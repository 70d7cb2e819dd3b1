//! Text from the store shown on a person's terminal. Participants, resources and intents are
//! chosen by peers, so a control sequence in one could move the cursor, retitle the window or
//! hide text; invisible and direction-changing characters could make one name look like
//! another. Each such character is shown as a visible `\u{…}` escape instead.

/// `s` with every control, bidi or invisible format character escaped as `\u{XXXX}`.
pub fn terminal_safe(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if needs_escape(c) {
            out.push_str(&format!("\\u{{{:04X}}}", c as u32));
        } else {
            out.push(c);
        }
    }
    out
}

fn needs_escape(c: char) -> bool {
    c.is_control()
        || matches!(c,
            '\u{00AD}'
            | '\u{061C}'
            | '\u{180E}'
            | '\u{200B}'..='\u{200F}'
            | '\u{2028}'..='\u{202E}'
            | '\u{2060}'..='\u{206F}'
            | '\u{FEFF}'
            | '\u{FFF9}'..='\u{FFFB}'
        )
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
            "a\\u{001B}]0;pwned\\u{0007}b"
        );
        assert_eq!(terminal_safe("x\u{202E}gpj.exe"), "x\\u{202E}gpj.exe");
        assert_eq!(terminal_safe("a\u{200B}b\u{FEFF}"), "a\\u{200B}b\\u{FEFF}");
        assert_eq!(
            terminal_safe("line\nbreak\t"),
            "line\\u{000A}break\\u{0009}"
        );
        assert_eq!(terminal_safe("\u{9b}31m"), "\\u{009B}31m");
    }
}
