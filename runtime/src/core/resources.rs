//! Resource URIs: what claims and intent hints name.
//!
//! Syntax `^[a-z][a-z0-9+.-]*:[^\s]+$`, at most 1024 characters ([`FILE_RESOURCE_MAX`] for
//! `file:`). `file:<path>` names one file and `file:<dir>/**` a tree; other schemes are
//! opaque. `file:` paths can name every file name through escapes
//! ([`super::path_spelling`]: `file:src/Read\x20Me.md`, `file:src/a\*b.rs`) and are
//! normalised (escapes decoded and written back canonically, empty and `.` segments dropped,
//! `x/..` folded, a leading `..` or `/` and a trailing `/**` kept); a trailing `/` and any
//! unescaped `*` other than a final `/**` are refused.

use super::path_spelling::{SegmentError, decode_segment, encode_segment};
use crate::error::{AccError, ErrorCode, Result};
use serde::Serialize;
use std::ffi::OsString;
use std::path::{Component, Path, PathBuf};

/// Longest resource URI, in characters.
pub const RESOURCE_MAX: usize = 1024;

/// Longest `file:` resource, in characters: a path of 4,096 bytes (Linux's `PATH_MAX`) with
/// every byte escaped, its scheme and a tree marker. Paths longer than 1,024 characters
/// exist and must be claimable.
pub const FILE_RESOURCE_MAX: usize = 4 * 4096 + "file:".len() + "/**".len();

/// A validated, normalised resource URI.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(transparent)]
pub struct Resource(String);

fn refuse(raw: &str, why: &str) -> AccError {
    AccError::new(
        ErrorCode::InvalidResource,
        format!("resource {raw:?} {why}"),
    )
    .with("resource", raw)
}

fn too_long(raw: &str, scheme: &str) -> Option<AccError> {
    let (max, why) = if scheme == "file" {
        (FILE_RESOURCE_MAX, "is longer than 16392 characters")
    } else {
        (RESOURCE_MAX, "is longer than 1024 characters")
    };
    (raw.chars().count() > max).then(|| refuse(raw, why))
}

fn check_syntax(raw: &str) -> Result<(&str, &str)> {
    let scheme = raw.split_once(':').map_or("", |(s, _)| s);
    if let Some(e) = too_long(raw, scheme) {
        return Err(e);
    }
    let Some((scheme, body)) = raw.split_once(':') else {
        return Err(refuse(raw, "needs a scheme, such as file:src/lib.rs"));
    };
    let mut sc = scheme.chars();
    let scheme_ok = sc.next().is_some_and(|c| c.is_ascii_lowercase())
        && sc.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || matches!(c, '+' | '.' | '-'));
    if !scheme_ok {
        return Err(refuse(
            raw,
            "has an invalid scheme; use lowercase letters, digits, '+', '.' or '-' after a letter",
        ));
    }
    if body.is_empty() {
        return Err(refuse(raw, "names nothing after the scheme"));
    }
    if body.chars().any(char::is_whitespace) {
        return Err(refuse(raw, "contains whitespace"));
    }
    if body.chars().any(char::is_control) {
        return Err(refuse(raw, "contains a control character"));
    }
    Ok((scheme, body))
}

fn normalise_file_path(raw: &str, body: &str) -> Result<String> {
    if body.ends_with('/') {
        return Err(refuse(
            raw,
            "ends with '/'; name a file, or a tree as file:<dir>/**",
        ));
    }
    let (path, tree) = match body.strip_suffix("/**") {
        Some(p) => (p, true),
        None => (body, false),
    };
    let absolute = path.starts_with('/');
    let mut segs: Vec<Vec<u8>> = Vec::new();
    for seg in path.split('/') {
        let name = decode_segment(seg).map_err(|e| match e {
            SegmentError::Wildcard => refuse(
                raw,
                "uses a wildcard; only a final /** (a whole tree) is allowed, and \\* is a literal *",
            ),
            SegmentError::ImpossibleByte => {
                refuse(raw, "escapes a '/' or a NUL byte, which no file name holds")
            }
        })?;
        match name.as_slice() {
            b"" | b"." => {}
            b".." => match segs.last() {
                Some(last) if last != b".." => {
                    segs.pop();
                }
                _ if absolute => {}
                _ => segs.push(name),
            },
            _ => segs.push(name),
        }
    }
    if segs.is_empty() {
        return Err(refuse(raw, "names no path"));
    }
    let mut out = String::with_capacity(body.len());
    if absolute {
        out.push('/');
    }
    for (i, seg) in segs.iter().enumerate() {
        if i > 0 {
            out.push('/');
        }
        encode_segment(seg, &mut out);
    }
    if tree {
        out.push_str("/**");
    }
    Ok(out)
}

fn os_name(bytes: &[u8]) -> OsString {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStringExt;
        OsString::from_vec(bytes.to_vec())
    }
    #[cfg(not(unix))]
    {
        OsString::from(String::from_utf8_lossy(bytes).into_owned())
    }
}

fn name_bytes(name: &std::ffi::OsStr) -> std::borrow::Cow<'_, [u8]> {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        std::borrow::Cow::Borrowed(name.as_bytes())
    }
    #[cfg(not(unix))]
    {
        std::borrow::Cow::Owned(name.to_string_lossy().into_owned().into_bytes())
    }
}

/// What a root-relative `file:` resource names, as a path: compared by components, never
/// by spelling.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FilePattern {
    /// Root-relative, only normal components, never empty.
    pub path: PathBuf,
    /// `file:<path>/**`: the path and everything under it.
    pub tree: bool,
}

impl Resource {
    /// Validates and normalises a resource URI.
    pub fn parse(raw: &str) -> Result<Resource> {
        let (scheme, body) = check_syntax(raw)?;
        if scheme == "file" {
            let path = normalise_file_path(raw, body)?;
            let canonical = format!("file:{path}");
            if let Some(e) = too_long(&canonical, scheme) {
                return Err(e);
            }
            return Ok(Resource(canonical));
        }
        // Other schemes name things acc cannot check, and peers read them: keep them to
        // characters that can never pass for text acc wrote or hide anything.
        if let Some(c) = body.chars().find(|&c| !acc_sdk::peer_text::is_plain(c)) {
            return Err(refuse(
                raw,
                &format!(
                    "contains {c:?}; outside file: use only letters, digits and . _ - / : @ + = ~ , * # %"
                ),
            ));
        }
        Ok(Resource(raw.to_string()))
    }

    /// The `file:` resource of a root-relative path (`tree`: `<path>/**`); `None` for an
    /// empty path, one with other than normal components, or one too long to spell.
    pub fn from_relative_path(path: &Path, tree: bool) -> Option<Resource> {
        let mut out = String::from("file:");
        for (i, c) in path.components().enumerate() {
            let Component::Normal(name) = c else {
                return None;
            };
            if i > 0 {
                out.push('/');
            }
            encode_segment(&name_bytes(name), &mut out);
        }
        if out.len() == "file:".len() {
            return None;
        }
        if tree {
            out.push_str("/**");
        }
        too_long(&out, "file").is_none().then_some(Resource(out))
    }

    /// The path a root-relative `file:` resource names; `None` for other schemes and for
    /// paths spelt outside the root (absolute, or leading `..`).
    pub fn relative_pattern(&self) -> Option<FilePattern> {
        relative_pattern_of(&self.0)
    }

    pub(crate) fn from_store(s: String) -> Resource {
        Resource(s)
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    pub fn scheme(&self) -> &str {
        self.0.split_once(':').map(|(s, _)| s).unwrap_or("")
    }

    fn body(&self) -> &str {
        self.0.split_once(':').map(|(_, b)| b).unwrap_or("")
    }

    pub fn is_file(&self) -> bool {
        self.scheme() == "file"
    }

    /// `P` of a tree `P/**`, or `None` for a single resource.
    fn tree_base(&self) -> Option<&str> {
        self.body().strip_suffix("/**")
    }

    /// Same scheme, and equal, or one is a tree `P/**` and the other is `P` or lies under
    /// `P/`. Compared per segment: `src/**` does not cover `srcx`.
    pub fn overlaps(&self, other: &Resource) -> bool {
        spellings_overlap(&self.0, &other.0)
    }

    /// Resolves a `file:` resource against the filesystem: the deepest existing ancestor is
    /// canonicalised (symlinks, case) and the result made relative to `root`. Paths outside
    /// `root` and other schemes are returned unchanged.
    pub fn resolve_against(&self, root: &Path) -> Resource {
        if !self.is_file() {
            return self.clone();
        }
        let body = self.body();
        let (path, tree) = match body.strip_suffix("/**") {
            Some(p) => (p, true),
            None => (body, false),
        };
        let root_real = crate::paths::realpath_lenient(root);
        let mut candidate = if path.starts_with('/') {
            PathBuf::from("/")
        } else {
            root_real.clone()
        };
        for seg in path.split('/').filter(|s| !s.is_empty()) {
            let Ok(name) = decode_segment(seg) else {
                return self.clone();
            };
            candidate.push(os_name(&name));
        }
        let real = crate::paths::realpath_lenient(&candidate);
        let Ok(rel) = real.strip_prefix(&root_real) else {
            return self.clone();
        };
        Resource::from_relative_path(rel, tree).unwrap_or_else(|| self.clone())
    }

    /// The stored spellings that could overlap this resource, for an index lookup: the exact
    /// spelling and every ancestor tree `P/**`, plus (for a tree `B/**`) the file `B` and the
    /// half-open range of everything under `B/`. [`Resource::overlaps`] stays the judge.
    pub fn overlap_candidates(&self) -> (Vec<String>, Option<(String, String)>) {
        let scheme = self.scheme();
        let body = self.body();
        let (path, tree) = match body.strip_suffix("/**") {
            Some(p) => (p, true),
            None => (body, false),
        };
        let mut exact = vec![self.0.clone()];
        for (i, _) in path.match_indices('/').filter(|(i, _)| *i > 0) {
            exact.push(format!("{scheme}:{}/**", &path[..i]));
        }
        exact.push(format!("{scheme}:{path}/**"));
        let range = tree.then(|| {
            exact.push(format!("{scheme}:{path}"));
            // '0' is the byte after '/', so [B/, B0) is exactly "starts with B/".
            (format!("{scheme}:{path}/"), format!("{scheme}:{path}0"))
        });
        exact.sort();
        exact.dedup();
        (exact, range)
    }

    /// The path of a `file:` resource without the tree suffix.
    pub fn file_path(&self) -> Option<&str> {
        if !self.is_file() {
            return None;
        }
        Some(self.tree_base().unwrap_or(self.body()))
    }
}

/// [`Resource::relative_pattern`] of a stored spelling, without making a `Resource` of it
/// (the guard's shell path names every peer claim's path per call, from the snapshot's text).
/// [`Resource::overlaps`] on two canonical spellings, without making resources of them (the
/// guard's fast path compares every claim line of its snapshot this way).
pub fn spellings_overlap(a: &str, b: &str) -> bool {
    if a == b {
        return true;
    }
    fn split(s: &str) -> (&str, &str) {
        match memchr::memchr(b':', s.as_bytes()) {
            Some(i) => (&s[..i], &s[i + 1..]),
            None => ("", ""),
        }
    }
    let ((scheme_a, body_a), (scheme_b, body_b)) = (split(a), split(b));
    if scheme_a != scheme_b {
        return false;
    }
    fn covers(tree: &str, other: &str) -> bool {
        let Some(base) = tree.strip_suffix("/**") else {
            return false;
        };
        let o = other.strip_suffix("/**").unwrap_or(other);
        o.strip_prefix(base)
            .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
    }
    covers(body_a, body_b) || covers(body_b, body_a)
}

pub fn relative_pattern_of(spelling: &str) -> Option<FilePattern> {
    let body = spelling.strip_prefix("file:")?;
    if body.starts_with('/') {
        return None;
    }
    let (body, tree) = match body.strip_suffix("/**") {
        Some(base) => (base, true),
        None => (body, false),
    };
    // Most spellings hold no escape: the path is the spelling itself, checked segment
    // by segment without decoding.
    if !body.contains('\\') {
        if body.split('/').any(|seg| matches!(seg, "" | "." | "..")) {
            return None;
        }
        return Some(FilePattern {
            path: PathBuf::from(body),
            tree,
        });
    }
    let mut path = PathBuf::new();
    for seg in body.split('/') {
        let name = decode_segment(seg).ok()?;
        if matches!(name.as_slice(), b"" | b"." | b"..") {
            return None;
        }
        path.push(os_name(&name));
    }
    Some(FilePattern { path, tree })
}

/// A resource as shown to a model or a terminal (deny reasons, CLI lines, errors): a name a
/// peer chose, so through the one rendering for peer strings, bare when plain and quoted and
/// escaped otherwise. `as_str` is the stored spelling.
impl std::fmt::Display for Resource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // A canonical `file:` spelling writes every unusual byte as an escape, so its
        // backslashes start escapes and it is shown as spelt: the form `acc claim` takes.
        // Anything else a peer could have stored goes through the one peer-string rendering.
        let escaped_file = self.is_file()
            && self
                .0
                .chars()
                .all(|c| acc_sdk::peer_text::is_plain(c) || c == '\\');
        if escaped_file {
            return f.write_str(&self.0);
        }
        f.write_str(&acc_sdk::peer_text::display(&self.0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(s: &str) -> Resource {
        Resource::parse(s).unwrap()
    }

    #[test]
    fn normalises_file_paths() {
        assert_eq!(r("file:./src//a/../b.rs").as_str(), "file:src/b.rs");
        assert_eq!(r("file:src/**").as_str(), "file:src/**");
        assert_eq!(r("file:./src/./**").as_str(), "file:src/**");
        assert_eq!(r("file:../up/x").as_str(), "file:../up/x");
        assert_eq!(r("file:a/../../x").as_str(), "file:../x");
        assert_eq!(r("file:/abs//x/../y").as_str(), "file:/abs/y");
        assert_eq!(r("file:/../x").as_str(), "file:/x");
        assert_eq!(r("git:refs/heads/main").as_str(), "git:refs/heads/main");
    }

    #[test]
    fn refuses_bad_spellings() {
        for bad in [
            "src/lib.rs",
            "File:src",
            "1x:src",
            "file:",
            "file:src/",
            "file:src/*.rs",
            "file:src/**/x",
            "file:**",
            "file:a b",
            "file:.",
            "file:a/..",
            "file:a\u{7}",
            "file:src/a\\x2fb",
            "file:src/a\\x00",
            "file:src/\\**",
        ] {
            let e = Resource::parse(bad).unwrap_err();
            assert_eq!(e.code, ErrorCode::InvalidResource, "{bad}");
            assert_eq!(e.exit_code(), 2);
        }
        let long = format!("doc:{}", "x".repeat(1021));
        assert!(Resource::parse(&long).is_err());
        assert!(Resource::parse(&long[..1024]).is_ok());
    }

    #[test]
    fn other_schemes_keep_to_a_safe_charset() {
        for ok in [
            "git:refs/heads/main",
            "issue:acc#13",
            "db:users@primary",
            "x:a=b,c~d%20",
        ] {
            assert_eq!(r(ok).as_str(), ok);
        }
        for bad in [
            "doc:ACC\u{202e}txt",
            "doc:a\u{200b}b",
            "doc:\"quoted\"",
            "doc:back`tick",
            "doc:caf\u{e9}",
            "doc:a\\b",
        ] {
            let e = Resource::parse(bad).unwrap_err();
            assert_eq!(e.code, ErrorCode::InvalidResource, "{bad}");
        }
    }

    #[test]
    fn shown_through_the_peer_string_rendering() {
        assert_eq!(r("file:src/**").to_string(), "file:src/**");
        assert_eq!(
            Resource::from_store("file:docs/a b\n\u{202e}.md".into()).to_string(),
            "\"file:docs/a b\\n\\u202e.md\""
        );
    }

    #[test]
    fn escapes_name_every_file_name_with_one_spelling() {
        // Spelt raw, with needless escapes, or canonically: one resource.
        assert_eq!(
            r("file:src/Read\\x20Me.md").as_str(),
            "file:src/Read\\x20Me.md"
        );
        assert_eq!(r("file:src/\\x61\\*b.rs").as_str(), "file:src/a\\*b.rs");
        assert_eq!(r("file:src/a\\*b/**").as_str(), "file:src/a\\*b/**");
        // A backslash before anything else is literal, as before, and spelt `\\`.
        assert_eq!(r("file:dir\\name").as_str(), "file:dir\\\\name");
        assert_eq!(r("file:dir\\\\name"), r("file:dir\\name"));
        // An escaped `..` is a parent directory like any other.
        assert_eq!(r("file:src/\\x2e\\x2e/x").as_str(), "file:x");
        // Longer than 1,024 characters.
        let long = format!("file:{}/x", "d".repeat(2000));
        assert_eq!(r(&long).as_str(), long);
        assert!(Resource::parse(&format!("doc:{}", "d".repeat(2000))).is_err());
    }

    #[test]
    fn a_relative_path_and_its_resource_round_trip() {
        for (path, tree, spelt) in [
            ("src/Read Me.md", false, "file:src/Read\\x20Me.md"),
            ("src/a*b.rs", false, "file:src/a\\*b.rs"),
            ("src/tab\there\n", true, "file:src/tab\\x09here\\x0a/**"),
            ("src/trail ", false, "file:src/trail\\x20"),
            ("src/nb\u{a0}sp", false, "file:src/nb\\xc2\\xa0sp"),
        ] {
            let res = Resource::from_relative_path(Path::new(path), tree).unwrap();
            assert_eq!(res.as_str(), spelt);
            assert_eq!(r(spelt), res, "it parses to itself");
            let pattern = res.relative_pattern().unwrap();
            assert_eq!(
                (pattern.path.as_path(), pattern.tree),
                (Path::new(path), tree)
            );
        }
        assert!(Resource::from_relative_path(Path::new(""), false).is_none());
        assert!(Resource::from_relative_path(Path::new("../x"), false).is_none());
        assert!(r("file:../x").relative_pattern().is_none());
        assert!(r("file:/abs/x").relative_pattern().is_none());
        assert!(r("doc:x").relative_pattern().is_none());
    }

    #[test]
    fn overlap_is_per_segment() {
        assert!(r("file:src/**").overlaps(&r("file:src/lib.rs")));
        assert!(r("file:src/lib.rs").overlaps(&r("file:src/**")));
        assert!(r("file:src/**").overlaps(&r("file:src")));
        assert!(r("file:src/**").overlaps(&r("file:src/a/**")));
        assert!(r("file:src/lib.rs").overlaps(&r("file:src/lib.rs")));
        assert!(!r("file:src/**").overlaps(&r("file:srcx/lib.rs")));
        assert!(!r("file:src/lib.rs").overlaps(&r("file:src/lib.rs.bak")));
        assert!(!r("file:src/a.rs").overlaps(&r("file:src/b.rs")));
        assert!(!r("file:src/**").overlaps(&r("doc:src/x")));
        assert!(r("doc:design/**").overlaps(&r("doc:design/api")));
    }

    #[test]
    fn candidates_cover_every_overlap() {
        let all = [
            "file:src/**",
            "file:src",
            "file:src/a/**",
            "file:src/a/b.rs",
            "file:src/ab.rs",
            "file:srcx/**",
            "file:/abs/**",
            "file:/abs/x",
            "file:other.rs",
        ];
        for a in all {
            let ra = r(a);
            let (exact, range) = ra.overlap_candidates();
            for b in all {
                let rb = r(b);
                let found = exact.iter().any(|e| e == rb.as_str())
                    || range.as_ref().is_some_and(|(lo, hi)| {
                        rb.as_str() >= lo.as_str() && rb.as_str() < hi.as_str()
                    });
                if ra.overlaps(&rb) {
                    assert!(found, "{a} must find {b}");
                }
            }
        }
    }

    #[test]
    fn resolves_against_the_filesystem() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::create_dir_all(root.join("real/deep")).unwrap();
        std::os::unix::fs::symlink(root.join("real"), root.join("link")).unwrap();
        assert_eq!(
            r("file:link/deep/new.rs").resolve_against(&root).as_str(),
            "file:real/deep/new.rs"
        );
        assert_eq!(
            r("file:link/**").resolve_against(&root).as_str(),
            "file:real/**"
        );
        assert_eq!(
            r("file:./src//a/../b.rs").resolve_against(&root).as_str(),
            "file:src/b.rs"
        );
        let abs = format!("file:{}/real/x", root.display());
        assert_eq!(r(&abs).resolve_against(&root).as_str(), "file:real/x");
        assert_eq!(
            r("file:/elsewhere/x").resolve_against(&root).as_str(),
            "file:/elsewhere/x"
        );
        assert_eq!(r("git:main").resolve_against(&root).as_str(), "git:main");
    }
}
