//! The exact text forms certification files use: platforms, ISO dates and timestamps,
//! package-local fixture paths, digests.

use std::sync::LazyLock;

use regex::Regex;
use serde_json::Value;

static EVIDENCE_PLATFORM: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^(?:darwin|linux|win32)-(?:arm64|x64)$").expect("valid pattern"));
static DATE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^(\d{4})-(\d{2})-(\d{2})$").expect("valid pattern"));
static TIMESTAMP: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d+)?Z$")
        .expect("valid pattern")
});
static SHA256_HEX: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^[0-9a-f]{64}$").expect("valid pattern"));

/// `(darwin|linux|win32)-(arm64|x64)`: where an evidence row's capture was taken.
pub fn is_evidence_platform(text: &str) -> bool {
    EVIDENCE_PLATFORM.is_match(text)
}

/// Lowercase hex SHA-256.
pub fn is_sha256_hex(text: &str) -> bool {
    SHA256_HEX.is_match(text)
}

fn is_leap(year: u32) -> bool {
    (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
}

fn is_real_date(year: &str, month: &str, day: &str) -> bool {
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

fn is_real_time(caps: &regex::Captures<'_>) -> bool {
    let field = |i: usize| {
        caps.get(i)
            .and_then(|m| m.as_str().parse::<u32>().ok())
            .unwrap_or(99)
    };
    is_real_date(&caps[1], &caps[2], &caps[3]) && field(4) < 24 && field(5) < 60 && field(6) < 60
}

/// An `observedAt`: a real `YYYY-MM-DD` UTC date, or a `YYYY-MM-DDTHH:MM:SS(.fff)?Z`
/// timestamp exactly as an ISO serialiser prints it, where `.000Z` may be written `Z`. So a
/// fraction has 3 digits or none.
pub fn is_observed_at(text: &str) -> bool {
    if let Some(caps) = DATE.captures(text) {
        return is_real_date(&caps[1], &caps[2], &caps[3]);
    }
    match TIMESTAMP.captures(text) {
        Some(caps) => is_real_time(&caps) && caps.get(7).is_none_or(|f| f.as_str().len() == 4),
        None => false,
    }
}

/// A parseable UTC timestamp ending in `Z`, any fraction (a native lease's `leaseUntil`).
pub fn is_utc_timestamp(text: &str) -> bool {
    TIMESTAMP.captures(text).is_some_and(|caps| {
        is_real_time(&caps) && caps.get(7).is_none_or(|f| f.as_str().len() <= 10)
    })
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
        ] {
            assert_eq!(is_observed_at(text), ok, "{text}");
        }
        assert!(is_utc_timestamp("2026-12-02T10:00:00.123456Z"));
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
