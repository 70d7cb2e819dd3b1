//! Matchers for the fixed ASCII text forms the SDK checks: version triples, ids, digests
//! (dates and timestamps live in `certification::lexical`, built on the same cursor).
//!
//! They are written by hand instead of as regular expressions because every hook process
//! builds its adapter, and compiling the patterns cost each process about 1 ms of CPU, more
//! than half of a guard event's instructions. Each matcher names the pattern it implements,
//! anchored at both ends unless it says otherwise. Digits are ASCII digits.

/// A cursor over a text, one byte at a time. Every class it is given is ASCII, so every
/// position it stops at is a char boundary of the text.
#[derive(Debug, Clone)]
pub(crate) struct Scan<'a> {
    text: &'a str,
    pos: usize,
}

impl<'a> Scan<'a> {
    pub(crate) fn new(text: &'a str) -> Self {
        Scan { text, pos: 0 }
    }

    /// A cursor that starts at byte `pos`, which may be inside a char: no ASCII class
    /// matches a continuation byte, so nothing is taken from there.
    pub(crate) fn at(text: &'a str, pos: usize) -> Self {
        Scan { text, pos }
    }

    pub(crate) fn pos(&self) -> usize {
        self.pos
    }

    pub(crate) fn at_end(&self) -> bool {
        self.pos >= self.text.len()
    }

    fn peek(&self) -> Option<u8> {
        self.text.as_bytes().get(self.pos).copied()
    }

    /// Takes `byte` if it is next.
    pub(crate) fn eat(&mut self, byte: u8) -> bool {
        self.eat_if(|b| b == byte)
    }

    /// Takes `byte`, or gives `None` when something else is next (for `?` chains).
    pub(crate) fn require(&mut self, byte: u8) -> Option<()> {
        self.eat(byte).then_some(())
    }

    /// Takes the next byte if it is in `class`.
    pub(crate) fn eat_if(&mut self, class: impl Fn(u8) -> bool) -> bool {
        match self.peek() {
            Some(b) if class(b) => {
                self.pos += 1;
                true
            }
            _ => false,
        }
    }

    /// The longest run (possibly empty) of bytes in `class`.
    pub(crate) fn run(&mut self, class: impl Fn(u8) -> bool) -> &'a str {
        let start = self.pos;
        while self.eat_if(&class) {}
        self.taken_since(start)
    }

    /// What was taken since `start`. A cursor that took nothing may sit inside a char,
    /// where the text cannot be sliced.
    fn taken_since(&self, start: usize) -> &'a str {
        if start == self.pos {
            ""
        } else {
            &self.text[start..self.pos]
        }
    }

    /// Exactly `n` bytes in `class` (`class{n}`), or `None` (the cursor is then unusable).
    pub(crate) fn exactly(&mut self, n: usize, class: impl Fn(u8) -> bool) -> Option<&'a str> {
        let start = self.pos;
        for _ in 0..n {
            if !self.eat_if(&class) {
                return None;
            }
        }
        Some(self.taken_since(start))
    }
}

pub(crate) fn is_digit(b: u8) -> bool {
    b.is_ascii_digit()
}

/// `[a-z0-9]`
pub(crate) fn is_lower_alnum(b: u8) -> bool {
    b.is_ascii_lowercase() || b.is_ascii_digit()
}

/// `[0-9A-Za-z.-]`: the bytes of a version's prerelease or build suffix.
fn is_suffix_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'.' || b == b'-'
}

/// `[0-9]+`, or with `canonical` `0|[1-9][0-9]*` (no leading zero).
fn number<'a>(s: &mut Scan<'a>, canonical: bool) -> Option<&'a str> {
    let digits = s.run(is_digit);
    if digits.is_empty() || (canonical && digits.len() > 1 && digits.starts_with('0')) {
        return None;
    }
    Some(digits)
}

/// Takes `N.N.N`, each `N` a [`number`]; not anchored at either end.
pub(crate) fn triple<'a>(s: &mut Scan<'a>, canonical: bool) -> Option<[&'a str; 3]> {
    let major = number(s, canonical)?;
    s.require(b'.')?;
    let minor = number(s, canonical)?;
    s.require(b'.')?;
    let patch = number(s, canonical)?;
    Some([major, minor, patch])
}

/// `(?:[<leads>][0-9A-Za-z.-]+)?`, greedy: takes a lead byte and the longest suffix run
/// after it when there is at least one suffix byte, else takes nothing.
pub(crate) fn suffix(s: &mut Scan<'_>, leads: &[u8]) -> bool {
    let before = s.clone();
    if s.eat_if(|b| leads.contains(&b)) && !s.run(is_suffix_byte).is_empty() {
        return true;
    }
    *s = before;
    false
}

/// `first(?:[a-z0-9]|[<seps>][a-z0-9])*` where `first` is one byte: lowercase words joined
/// by single separators, never ending in one. With `first` = `[a-z]` and `seps` = `-` this
/// is `^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$`; with `[a-z0-9]` and `.-` it is
/// `^[a-z0-9]+(?:[.-][a-z0-9]+)*$`.
pub(crate) fn is_joined_words(text: &str, first: impl Fn(u8) -> bool, seps: &[u8]) -> bool {
    let bytes = text.as_bytes();
    let Some((&head, _)) = bytes.split_first() else {
        return false;
    };
    let mut after_sep = false;
    for &b in bytes {
        if seps.contains(&b) {
            if after_sep {
                return false;
            }
            after_sep = true;
        } else if is_lower_alnum(b) {
            after_sep = false;
        } else {
            return false;
        }
    }
    first(head) && !after_sep
}

/// `^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$`: a native protocol contract id.
pub(crate) fn is_contract_id(text: &str) -> bool {
    is_joined_words(text, |b| b.is_ascii_lowercase(), b"-")
}

/// `^[0-9a-f]{64}$`: lowercase hex SHA-256.
pub(crate) fn is_sha256_hex(text: &str) -> bool {
    text.len() == 64
        && text
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn whole_triple<'a>(text: &'a str, canonical: bool, leads: &[u8]) -> Option<[&'a str; 3]> {
        let mut s = Scan::new(text);
        let t = triple(&mut s, canonical)?;
        suffix(&mut s, leads);
        s.at_end().then_some(t)
    }

    #[test]
    fn triples_with_and_without_suffixes() {
        type Case<'a> = (&'a str, bool, &'a [u8], Option<[&'a str; 3]>);
        let cases: &[Case] = &[
            ("1.2.3", false, b"-+", Some(["1", "2", "3"])),
            ("01.002.3", false, b"-+", Some(["01", "002", "3"])),
            ("01.2.3", true, b"-+", None),
            ("1.0.3", true, b"-+", Some(["1", "0", "3"])),
            ("1.00.3", true, b"-+", None),
            ("10.20.30", true, b"", Some(["10", "20", "30"])),
            ("1.2.3-rc.1", false, b"-+", Some(["1", "2", "3"])),
            ("1.2.3+b-7.x", false, b"+", Some(["1", "2", "3"])),
            ("1.2.3-rc.1", false, b"+", None),
            ("1.2.3+b", true, b"", None),
            ("1.2.3-", false, b"-+", None),
            ("1.2.3--", false, b"-+", Some(["1", "2", "3"])),
            ("1.2.3-rc_1", false, b"-+", None),
            ("1.2.3 ", false, b"-+", None),
            ("1.2.3.4", false, b"-+", None),
            ("1.2", false, b"-+", None),
            ("1..3", false, b"-+", None),
            (".1.2.3", false, b"-+", None),
            ("v1.2.3", false, b"-+", None),
            ("1.2.3\n", false, b"-+", None),
            ("1.2.\u{663}", false, b"-+", None),
            ("", false, b"-+", None),
        ];
        for (text, canonical, leads, want) in cases {
            assert_eq!(
                whole_triple(text, *canonical, leads),
                *want,
                "{text:?} canonical={canonical} leads={:?}",
                std::str::from_utf8(leads).unwrap()
            );
        }
    }

    #[test]
    fn a_suffix_is_taken_greedily_or_not_at_all() {
        let mut s = Scan::new("-rc.1 tail");
        assert!(suffix(&mut s, b"-"));
        assert_eq!(s.pos(), 5);
        let mut s = Scan::new("- tail");
        assert!(!suffix(&mut s, b"-"));
        assert_eq!(s.pos(), 0, "a failed suffix takes nothing");
    }

    #[test]
    fn the_cursor_never_takes_part_of_a_char() {
        let text = "é1";
        let mut s = Scan::at(text, 1);
        assert_eq!(s.run(is_digit), "");
        let mut s = Scan::at(text, 2);
        assert_eq!(s.run(is_digit), "1");
        assert!(s.at_end());
        let mut s = Scan::new("12ab");
        assert_eq!(s.exactly(2, is_digit), Some("12"));
        assert_eq!(s.exactly(3, |b| b.is_ascii_lowercase()), None);
    }

    #[test]
    fn contract_ids() {
        for (text, ok) in [
            ("acc", true),
            ("acc-native-v1", true),
            ("a1-2b", true),
            ("a", true),
            ("", false),
            ("1acc", false),
            ("-acc", false),
            ("acc-", false),
            ("acc--v1", false),
            ("Acc", false),
            ("acc_v1", false),
            ("acc.v1", false),
            ("acc v1", false),
            ("accé", false),
        ] {
            assert_eq!(is_contract_id(text), ok, "{text:?}");
        }
    }

    #[test]
    fn joined_words_with_dots() {
        let name = |t: &str| is_joined_words(t, is_lower_alnum, b".-");
        for (text, ok) in [
            ("claude-code-2.1.282", true),
            ("1run", true),
            ("a.b-c", true),
            ("a", true),
            ("", false),
            (".a", false),
            ("a.", false),
            ("a..b", false),
            ("a.-b", false),
            ("a_b", false),
            ("A", false),
        ] {
            assert_eq!(name(text), ok, "{text:?}");
        }
    }

    #[test]
    fn sha256_hex_is_64_lowercase_hex_digits() {
        assert!(is_sha256_hex(&"0123456789abcdef".repeat(4)));
        assert!(!is_sha256_hex(&"0123456789ABCDEF".repeat(4)));
        assert!(!is_sha256_hex(&"a".repeat(63)));
        assert!(!is_sha256_hex(&"a".repeat(65)));
        assert!(!is_sha256_hex(&format!("{}g", "a".repeat(63))));
        assert!(!is_sha256_hex(""));
    }
}
