//! Client version text: the order evidence is resolved by, the STABLE form native contracts
//! name, and reading a version out of a client's `--version` output.
//!
//! A prerelease is ordered by its release triple (`1.3.0-rc.1` is `1.3.0`), because
//! evidence applies forward from the version that recorded it and a build of 1.3.0 must not
//! fall below 1.3.0's captures.

use crate::text_forms::{Scan, suffix, triple};

/// The numeric release triple of a client version. Orders numerically, field by field.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct VersionTriple(pub u64, pub u64, pub u64);

impl std::fmt::Display for VersionTriple {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}.{}.{}", self.0, self.1, self.2)
    }
}

/// `^N.N.N(?:[<leads>][0-9A-Za-z.-]+)?$`, where `canonical` refuses leading zeros.
fn is_whole_version(version: &str, canonical: bool, leads: &[u8]) -> bool {
    let mut s = Scan::new(version);
    triple(&mut s, canonical).is_some() && {
        suffix(&mut s, leads);
        s.at_end()
    }
}

/// The release triple of `version`, or `None` when it cannot be read (`unknown` in any
/// case, or text that is not `X.Y.Z` with an optional `-pre`/`+build` suffix). `None` sorts
/// below every triple.
pub fn version_order(version: &str) -> Option<VersionTriple> {
    if version.eq_ignore_ascii_case("unknown") {
        return None;
    }
    // ^(\d+)\.(\d+)\.(\d+)(?:[-+][0-9A-Za-z.-]+)?$
    let mut s = Scan::new(version);
    let [major, minor, patch] = triple(&mut s, false)?;
    suffix(&mut s, b"-+");
    if !s.at_end() {
        return None;
    }
    Some(VersionTriple(
        major.parse().ok()?,
        minor.parse().ok()?,
        patch.parse().ok()?,
    ))
}

/// An exact client version as evidence rows record it: orderable and not `unknown`.
pub fn is_exact_version(version: &str) -> bool {
    version_order(version).is_some()
}

/// The STABLE form native contracts use: no leading zeros, no prerelease, optional build.
pub fn is_stable(version: &str) -> bool {
    is_whole_version(version, true, b"+") && version_order(version).is_some()
}

/// A stable triple with no suffix at all (native capture fixtures).
pub fn is_strict_triple(version: &str) -> bool {
    is_whole_version(version, true, b"") && version_order(version).is_some()
}

/// `v?(N.N.N(?:[-+][0-9A-Za-z.-]+)?)` starting exactly at byte `start`: the version
/// without its `v`, and where the match ends.
fn version_at(output: &str, start: usize) -> Option<(&str, usize)> {
    let mut s = Scan::at(output, start);
    s.eat(b'v');
    let from = s.pos();
    triple(&mut s, false)?;
    suffix(&mut s, b"-+");
    Some((&output[from..s.pos()], s.pos()))
}

/// The first `v?X.Y.Z(suffix)` in a client's version output, without the `v`. Matches are
/// taken leftmost first and never overlap: one that cannot be ordered (a field beyond
/// `u64`) is skipped as a whole.
pub fn extract_version(output: &str) -> Option<String> {
    let mut start = 0;
    while start < output.len() {
        match version_at(output, start) {
            Some((version, _)) if version_order(version).is_some() => {
                return Some(version.to_owned());
            }
            Some((_, end)) => start = end,
            None => start += 1,
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn order_reads_triples_and_judges_prereleases_by_their_release() {
        type Case<'a> = (&'a str, Option<(u64, u64, u64)>);
        let cases: &[Case] = &[
            ("1.2.3", Some((1, 2, 3))),
            ("0.0.0", Some((0, 0, 0))),
            ("1.3.0-rc.1", Some((1, 3, 0))),
            ("2.2.0-beta.1", Some((2, 2, 0))),
            ("1.2.3+build.7", Some((1, 2, 3))),
            ("10.20.30", Some((10, 20, 30))),
            ("01.2.3", Some((1, 2, 3))),
            ("unknown", None),
            ("UNKNOWN", None),
            ("", None),
            ("1.2", None),
            ("v1.2.3", None),
            ("1.2.3-", None),
            ("1.2.3 ", None),
            ("1.2.3-rc_1", None),
            ("99999999999999999999.0.0", None),
        ];
        for (text, want) in cases {
            let got = version_order(text).map(|t| (t.0, t.1, t.2));
            assert_eq!(got, *want, "version_order({text:?})");
        }
    }

    #[test]
    fn triples_compare_numerically_not_textually() {
        let a = version_order("1.10.0").unwrap();
        let b = version_order("1.9.9").unwrap();
        assert!(a > b);
        assert_eq!(version_order("1.3.0-rc.1"), version_order("1.3.0"));
        assert!(None < Some(VersionTriple(0, 0, 0)));
    }

    #[test]
    fn stable_refuses_prereleases_and_leading_zeros() {
        let cases = [
            ("2.1.282", true),
            ("0.152.1", true),
            ("1.2.3+build", true),
            ("1.2.3-rc.1", false),
            ("01.2.3", false),
            ("1.02.3", false),
            ("1.2", false),
            ("unknown", false),
        ];
        for (text, want) in cases {
            assert_eq!(is_stable(text), want, "is_stable({text:?})");
        }
        assert!(is_strict_triple("1.2.3"));
        assert!(!is_strict_triple("1.2.3+b"));
        assert!(!is_strict_triple("1.2.3-rc.1"));
    }

    #[test]
    fn extraction_finds_the_first_version_in_output() {
        let cases = [
            ("2.1.332 (Claude Code)\n", Some("2.1.332")),
            ("codex-cli 0.171.0", Some("0.171.0")),
            (
                "gemini v0.61.0-nightly.2 on node 22.1.0",
                Some("0.61.0-nightly.2"),
            ),
            ("build 12 of 2026", None),
            ("", None),
            ("v1.2.3", Some("1.2.3")),
            ("vv1.2.3", Some("1.2.3")),
            ("tool 1.2.3- (dirty)", Some("1.2.3")),
            ("1.2.3+build.7, node 22.1.0", Some("1.2.3+build.7")),
            ("12.3 then 4.5.6", Some("4.5.6")),
            ("1.2.3.4.5", Some("1.2.3")),
            ("99999999999999999999.0.0 then 1.2.3", Some("1.2.3")),
            // A skipped match is skipped whole: the search resumes after its end.
            ("99999999999999999999.0.0", None),
            ("\u{e9}t\u{e9} 2.0.1\u{e9}", Some("2.0.1")),
            ("x1.2.3y", Some("1.2.3")),
        ];
        for (text, want) in cases {
            assert_eq!(
                extract_version(text).as_deref(),
                want,
                "extract_version({text:?})"
            );
        }
    }
}
