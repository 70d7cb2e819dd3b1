//! The exact text forms certification files use: platforms, ISO dates and timestamps,
//! package-local fixture paths, digests.

use serde_json::Value;

use crate::text_forms::{Scan, is_digit};

/// `(darwin|linux|win32)-(arm64|x64)`: where an evidence row's capture was taken.
pub fn is_evidence_platform(text: &str) -> bool {
    text.split_once('-').is_some_and(|(os, arch)| {
        matches!(os, "darwin" | "linux" | "win32") && matches!(arch, "arm64" | "x64")
    })
}

/// Lowercase hex SHA-256.
pub fn is_sha256_hex(text: &str) -> bool {
    crate::text_forms::is_sha256_hex(text)
}

fn is_leap(year: u32) -> bool {
    (year.is_multiple_of(4) && !year.is_multiple_of(100)) || year.is_multiple_of(400)
}

fn is_real_date([year, month, day]: [&str; 3]) -> bool {
    let (Ok(y), Ok(m), Ok(d)) = (
        year.parse::<u32>(),
        month.parse::<u32>(),
        day.parse::<u32>(),
    ) else {
        return false;
    };
    let days = match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if is_leap(y) => 29,
        2 => 28,
        _ => return false,
    };
    (1..=days).contains(&d)
}

/// `\d{4}-\d{2}-\d{2}`, not anchored at the end.
fn date_fields<'a>(s: &mut Scan<'a>) -> Option<[&'a str; 3]> {
    let year = s.exactly(4, is_digit)?;
    s.require(b'-')?;
    let month = s.exactly(2, is_digit)?;
    s.require(b'-')?;
    let day = s.exactly(2, is_digit)?;
    Some([year, month, day])
}

/// `^\d{4}-\d{2}-\d{2}$`
fn iso_date(text: &str) -> Option<[&str; 3]> {
    let mut s = Scan::new(text);
    let date = date_fields(&mut s)?;
    s.at_end().then_some(date)
}

/// The fields of `^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d+)?Z$`.
struct Timestamp<'a> {
    date: [&'a str; 3],
    time: [&'a str; 3],
    /// The fraction's digits, without the dot.
    fraction: Option<&'a str>,
}

impl Timestamp<'_> {
    fn parse(text: &str) -> Option<Timestamp<'_>> {
        let mut s = Scan::new(text);
        let date = date_fields(&mut s)?;
        s.require(b'T')?;
        let hour = s.exactly(2, is_digit)?;
        s.require(b':')?;
        let minute = s.exactly(2, is_digit)?;
        s.require(b':')?;
        let second = s.exactly(2, is_digit)?;
        let fraction = if s.eat(b'.') {
            let digits = s.run(is_digit);
            if digits.is_empty() {
                return None;
            }
            Some(digits)
        } else {
            None
        };
        (s.eat(b'Z') && s.at_end()).then_some(Timestamp {
            date,
            time: [hour, minute, second],
            fraction,
        })
    }

    fn is_real(&self) -> bool {
        let field = |t: &str| t.parse::<u32>().unwrap_or(99);
        let [hour, minute, second] = self.time;
        is_real_date(self.date) && field(hour) < 24 && field(minute) < 60 && field(second) < 60
    }

    fn fraction_digits(&self) -> usize {
        self.fraction.map_or(0, str::len)
    }
}

/// An `observedAt`: a real `YYYY-MM-DD` UTC date, or a `YYYY-MM-DDTHH:MM:SS(.fff)?Z`
/// timestamp exactly as an ISO serialiser prints it, where `.000Z` may be written `Z`. So a
/// fraction has 3 digits or none.
pub fn is_observed_at(text: &str) -> bool {
    if let Some(date) = iso_date(text) {
        return is_real_date(date);
    }
    Timestamp::parse(text)
        .is_some_and(|t| t.is_real() && (t.fraction.is_none() || t.fraction_digits() == 3))
}

/// A parseable UTC timestamp ending in `Z`, any fraction (a native lease's `leaseUntil`).
pub fn is_utc_timestamp(text: &str) -> bool {
    Timestamp::parse(text).is_some_and(|t| t.is_real() && t.fraction_digits() <= 9)
}

/// A package-local JSON path: relative, `/`-separated, normalised (no empty, `.` or `..`
/// segment), under `fixtures/`, ending in `.json`.
pub fn is_package_local_json(path: &str) -> bool {
    if path.contains('\\')
        || path.starts_with('/')
        || !path.starts_with("fixtures/")
        || !path.ends_with(".json")
    {
        return false;
    }
    let segments: Vec<&str> = path.split('/').collect();
    let file = segments.last().copied().unwrap_or_default();
    segments
        .iter()
        .all(|s| !s.is_empty() && *s != "." && *s != "..")
        && file.len() > ".json".len()
}

/// An array of non-blank strings (possibly empty).
pub fn text_list(value: Option<&Value>) -> Option<Vec<String>> {
    value?
        .as_array()?
        .iter()
        .map(|v| {
            v.as_str()
                .filter(|s| !s.trim().is_empty())
                .map(str::to_owned)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn platforms() {
        for (text, ok) in [
            ("darwin-arm64", true),
            ("linux-x64", true),
            ("win32-arm64", true),
            ("linux-arm", false),
            ("macos-arm64", false),
            ("Linux-x64", false),
            ("linux-x64 ", false),
            ("linux-x64-", false),
            ("linux-", false),
            ("-x64", false),
            ("linux", false),
            ("", false),
            ("win32-arm64\n", false),
        ] {
            assert_eq!(is_evidence_platform(text), ok, "{text}");
        }
    }

    #[test]
    fn observed_at_is_an_exact_iso_date_or_timestamp() {
        for (text, ok) in [
            ("2026-12-02", true),
            ("2024-02-29", true),
            ("2026-02-29", false),
            ("1900-02-29", false),
            ("2000-02-29", true),
            ("2026-13-01", false),
            ("2026-04-31", false),
            ("2026-1-01", false),
            ("2026-09-25T21:35:56.792Z", true),
            ("2026-09-25T21:35:56Z", true),
            ("2026-09-25T21:35:56.000Z", true),
            ("2026-09-25T21:35:56.79Z", false),
            ("2026-09-25T21:35:56.7921Z", false),
            ("2026-09-25T24:00:00Z", false),
            ("2026-09-25T23:60:00Z", false),
            ("2026-09-25T23:59:60Z", false),
            ("2026-09-25T21:35:56+00:00", false),
            ("2026-09-25 21:35:56Z", false),
            ("yesterday", false),
            ("", false),
            ("2026-12-02\n", false),
            ("2026-12-02T", false),
            ("2026-09-25T21:35:56.Z", false),
            ("2026-09-25T21:35:56.792", false),
            ("2026-09-25T21:35:56.792z", false),
            ("2026-09-25T21:35:56.792Zx", false),
            ("2026-09-25T21:35Z", false),
            ("20260-09-25", false),
            ("2026-9-25T21:35:56Z", false),
            ("2026-09-25T1:35:56Z", false),
            ("0000-01-01", true),
            ("2026-00-10", false),
            ("2026-01-00", false),
        ] {
            assert_eq!(is_observed_at(text), ok, "{text}");
        }
        assert!(is_utc_timestamp("2026-12-02T10:00:00.123456Z"));
        assert!(is_utc_timestamp("2026-12-02T10:00:00Z"));
        assert!(is_utc_timestamp("2026-12-02T10:00:00.123456789Z"));
        assert!(!is_utc_timestamp("2026-12-02T10:00:00.1234567890Z"));
        assert!(!is_utc_timestamp("2026-12-02T10:00:00.Z"));
        assert!(!is_utc_timestamp("2026-02-30T10:00:00Z"));
        assert!(!is_utc_timestamp("2026-12-02T24:00:00Z"));
        assert!(!is_utc_timestamp("2026-12-02"));
        assert!(!is_utc_timestamp("2026-12-02T10:00:00"));
    }

    #[test]
    fn package_local_paths() {
        for (text, ok) in [
            ("fixtures/a.json", true),
            ("fixtures/delivery/claude-code-2.1.282.json", true),
            ("/fixtures/a.json", false),
            ("fixtures\\a.json", false),
            ("fixtures/../a.json", false),
            ("fixtures/./a.json", false),
            ("fixtures//a.json", false),
            ("fixtures/.json", false),
            ("fixtures/a.jsonl", false),
            ("captures/a.json", false),
            ("a.json", false),
            ("fixtures/a.txt", false),
        ] {
            assert_eq!(is_package_local_json(text), ok, "{text}");
        }
    }

    #[test]
    fn digests_and_text_lists() {
        assert!(is_sha256_hex(&"a".repeat(64)));
        assert!(!is_sha256_hex(&"A".repeat(64)));
        assert!(!is_sha256_hex(&"a".repeat(63)));
        assert_eq!(text_list(Some(&json!([]))), Some(vec![]));
        assert_eq!(text_list(Some(&json!(["x"]))), Some(vec!["x".to_owned()]));
        assert_eq!(text_list(Some(&json!(["  "]))), None);
        assert_eq!(text_list(Some(&json!([1]))), None);
        assert_eq!(text_list(Some(&json!("x"))), None);
        assert_eq!(text_list(None), None);
    }
}
