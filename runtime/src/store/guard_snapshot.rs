//! A small read-only copy of the guarded claims, next to the store
//! (`<store dir>/guarded-claims.tsv`), for the write guard to answer from when the store
//! itself cannot be read within its budget: another process holding it with
//! `PRAGMA locking_mode=EXCLUSIVE`, a read-only data home where SQLite cannot open its
//! shared-memory file, a store being repaired.
//!
//! Every write transaction that changes the guarded claims (a claim, a release, a renewal,
//! a forced release, a session closing its claims, a prune) rewrites it after the commit,
//! atomically (a temporary file renamed over it), so a reader sees one whole snapshot. A
//! reader applies each claim's expiry itself, so an old snapshot never denies for a claim
//! that ran out. The header names the store's guard version it was written from: the
//! guard's shell path reads the claimed paths to fingerprint from it while that version is
//! the store's (a row read instead of every claim's), and from the store otherwise.
//!
//! After the claims, a blank line and then every hook binding with its session's state:
//! with the tag in the header equal to the published token ([`super::guard_token`]), the
//! snapshot is the store's present state for everything the guard reads, and the guard's
//! fast path answers an allow from it without opening the store.

use crate::error::{AccError, ErrorCode, Result};
use crate::store::engine::Connection;
use std::borrow::Cow;
use std::io::Read;
use std::path::{Path, PathBuf};

/// The snapshot's file name, beside `acc.db`. One claim a line, tab-separated: the write
/// guard's shell path reads it on every call while peers hold guarded claims (to fingerprint
/// the claimed files), so it must parse without a JSON decoder or an allocation per field.
pub const SNAPSHOT_FILE: &str = "guarded-claims.tsv";

/// The JSON snapshot of earlier versions, removed when the line format is first written.
const LEGACY_FILE: &str = "guarded-claims.json";

/// The first field of the header line.
const MAGIC: &str = "acc-guarded-claims";

/// The line format's version; another version is not read.
pub const SCHEMA: u32 = 3;

/// A snapshot larger than this is not read (10,000 claims fit several times over).
pub const MAX_SNAPSHOT_BYTES: u64 = 8 * 1024 * 1024;

/// One guarded claim as the guard needs it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SnapshotClaim {
    pub claim_id: String,
    pub resource: String,
    pub owner_session_id: String,
    pub owner_participant_id: String,
    pub expires_at_ms: i64,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Snapshot {
    /// The store's claims version ([`fingerprint`]) the snapshot was written from.
    pub claims_version: i64,
    pub workspace_id: String,
    pub written_at_ms: i64,
    /// The publication it belongs to ([`super::guard_token`]).
    pub tag: String,
    pub claims: Vec<SnapshotClaim>,
    pub bindings: Vec<SnapshotBinding>,
}

/// One hook binding and the state of the session it names, as the guard needs them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SnapshotBinding {
    pub binding_key: String,
    pub session_id: String,
    pub generation: String,
    /// `None` when the session is gone (pruned).
    pub session: Option<BoundSession>,
}

/// The state of a bound session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BoundSession {
    pub open: bool,
    pub generation: String,
    pub participant_id: String,
    pub parent_session_id: Option<String>,
}

impl SnapshotBinding {
    /// The binding's session is open at the bound generation.
    pub fn is_live(&self) -> bool {
        self.session
            .as_ref()
            .is_some_and(|s| s.open && s.generation == self.generation)
    }
}

/// One claim line, borrowed from the snapshot's bytes (a field is copied only when it
/// held an escape).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClaimLine<'a> {
    pub expires_at_ms: i64,
    pub claim_id: Cow<'a, str>,
    pub owner_session_id: Cow<'a, str>,
    pub owner_participant_id: Cow<'a, str>,
    pub resource: Cow<'a, str>,
}

impl ClaimLine<'_> {
    pub fn owned(&self) -> SnapshotClaim {
        SnapshotClaim {
            claim_id: self.claim_id.to_string(),
            resource: self.resource.to_string(),
            owner_session_id: self.owner_session_id.to_string(),
            owner_participant_id: self.owner_participant_id.to_string(),
            expires_at_ms: self.expires_at_ms,
        }
    }
}

/// A snapshot's text, parsed lazily: the header at once, the claims as they are iterated.
#[derive(Debug, Clone)]
pub struct SnapshotText<'a> {
    pub claims_version: i64,
    pub written_at_ms: i64,
    pub workspace_id: Cow<'a, str>,
    pub tag: &'a str,
    body: &'a str,
    bindings: &'a str,
}

/// A header line's fields: claims version, time written, workspace id, tag.
type HeaderFields<'a> = (i64, i64, Cow<'a, str>, &'a str);

fn header_fields(header: &str) -> Option<HeaderFields<'_>> {
    let mut f = header.split('\t');
    if f.next()? != MAGIC || f.next()?.parse::<u32>().ok()? != SCHEMA {
        return None;
    }
    let claims_version = f.next()?.parse().ok()?;
    let written_at_ms = f.next()?.parse().ok()?;
    let workspace_id = unescape(f.next()?)?;
    let tag = f.next()?;
    if f.next().is_some() {
        return None;
    }
    Some((claims_version, written_at_ms, workspace_id, tag))
}

impl<'a> SnapshotText<'a> {
    /// The header of `text`; `None` when it is not a snapshot of this format.
    pub fn parse(text: &'a str) -> Option<SnapshotText<'a>> {
        let (header, body) = text.split_once('\n')?;
        let (claims_version, written_at_ms, workspace_id, tag) = header_fields(header)?;
        // A text that does not end a line was cut short: its last line would be lost.
        if !text.ends_with('\n') {
            return None;
        }
        // The claims end at the first blank line; the bindings follow it.
        let (body, bindings) = if let Some(rest) = body.strip_prefix('\n') {
            ("", rest)
        } else {
            let end = memchr::memmem::find(body.as_bytes(), b"\n\n")?;
            (&body[..=end], &body[end + 2..])
        };
        Some(SnapshotText {
            claims_version,
            written_at_ms,
            workspace_id,
            tag,
            body,
            bindings,
        })
    }

    /// The binding with `key`: `None` when a line acc did not write stands in the way,
    /// `Some(None)` when there is no such binding.
    pub fn binding(&self, key: &str) -> Option<Option<SnapshotBinding>> {
        for line in self.binding_lines() {
            let b = binding_line(line)?;
            if b.binding_key == key {
                return Some(Some(b));
            }
        }
        Some(None)
    }

    fn binding_lines(&self) -> impl Iterator<Item = &'a str> + 'a {
        let body = self.bindings;
        let mut start = 0;
        memchr::memchr_iter(b'\n', body.as_bytes()).map(move |end| {
            let line = &body[start..end];
            start = end + 1;
            line
        })
    }

    /// Every claim line; `None` for a line acc did not write (the whole snapshot is then
    /// not to be trusted).
    pub fn claims(&self) -> impl Iterator<Item = Option<ClaimLine<'a>>> + 'a {
        let body = self.body;
        let mut start = 0;
        memchr::memchr_iter(b'\n', body.as_bytes())
            .map(move |end| {
                let line = &body[start..end];
                start = end + 1;
                line
            })
            .map(claim_line)
    }

    /// Whether a claim expires after `now_ms`, reading only the expiries up to the first
    /// such claim (`None` for a line before it that does not start with one): a store open
    /// asks this of every snapshot, and counting 10,000 claims cost it more than the rest.
    pub fn has_live(&self, now_ms: i64) -> Option<bool> {
        let body = self.body.as_bytes();
        let mut start = 0;
        for end in memchr::memchr_iter(b'\n', body) {
            let line = &body[start..end];
            start = end + 1;
            let tab = memchr::memchr(b'\t', line)?;
            if expiry(&line[..tab])? > now_ms {
                return Some(true);
            }
        }
        Some(false)
    }

    fn owned(&self) -> Option<Snapshot> {
        let claims = self
            .claims()
            .map(|c| c.map(|c| c.owned()))
            .collect::<Option<Vec<_>>>()?;
        let bindings = self
            .binding_lines()
            .map(binding_line)
            .collect::<Option<Vec<_>>>()?;
        Some(Snapshot {
            claims_version: self.claims_version,
            workspace_id: self.workspace_id.to_string(),
            written_at_ms: self.written_at_ms,
            tag: self.tag.to_string(),
            claims,
            bindings,
        })
    }
}

/// A line's expiry field: decimal digits (an optional `-`), without a string conversion
/// (the tamper check reads every line's at every store open).
fn expiry(field: &[u8]) -> Option<i64> {
    let (negative, digits) = match field.split_first() {
        Some((b'-', rest)) => (true, rest),
        _ => (false, field),
    };
    if digits.is_empty() || digits.len() > 18 {
        return None;
    }
    let mut n: i64 = 0;
    for &d in digits {
        if !d.is_ascii_digit() {
            return None;
        }
        n = n * 10 + i64::from(d - b'0');
    }
    Some(if negative { -n } else { n })
}

/// One claim line: five tab-separated fields, found in one pass over its bytes (every call
/// of the guard's shell path reads every line).
fn claim_line(line: &str) -> Option<ClaimLine<'_>> {
    let mut fields = [""; 5];
    let (mut n, mut start) = (0, 0);
    for i in memchr::memchr_iter(b'\t', line.as_bytes()) {
        *fields.get_mut(n)? = &line[start..i];
        n += 1;
        start = i + 1;
    }
    let escaped = memchr::memchr(b'\\', line.as_bytes()).is_some();
    if n != 4 {
        return None;
    }
    fields[4] = &line[start..];
    let field = |f| {
        if escaped {
            unescape(f)
        } else {
            Some(Cow::Borrowed(f))
        }
    };
    Some(ClaimLine {
        expires_at_ms: fields[0].parse().ok()?,
        claim_id: field(fields[1])?,
        owner_session_id: field(fields[2])?,
        owner_participant_id: field(fields[3])?,
        resource: field(fields[4])?,
    })
}

/// One binding line: key, session, generation, then the session's state (`open`,
/// `closed`, or empty when the session is gone), generation, participant and parent (empty
/// for none).
fn binding_line(line: &str) -> Option<SnapshotBinding> {
    let f: Vec<&str> = line.split('\t').collect();
    let [
        key,
        session,
        generation,
        state,
        s_generation,
        participant,
        parent,
    ] = f[..]
    else {
        return None;
    };
    let session_state = match state {
        "" => None,
        "open" => Some(true),
        "closed" => Some(false),
        _ => return None,
    };
    let field = |f: &str| unescape(f).map(|c| c.into_owned());
    Some(SnapshotBinding {
        binding_key: field(key)?,
        session_id: field(session)?,
        generation: field(generation)?,
        session: match session_state {
            None => None,
            Some(open) => Some(BoundSession {
                open,
                generation: field(s_generation)?,
                participant_id: field(participant)?,
                parent_session_id: Some(field(parent)?).filter(|p| !p.is_empty()),
            }),
        },
    })
}

/// A field with its tab, newline, carriage return and backslash escaped, so that a line is
/// one claim whatever its strings hold.
fn escape(field: &str, out: &mut String) {
    // Almost every field holds none of them: copied whole (a snapshot is written at every
    // change to claims, sessions or bindings, each field of every row).
    let bytes = field.as_bytes();
    if memchr::memchr3(b'\\', b'\t', b'\n', bytes).is_none()
        && memchr::memchr(b'\r', bytes).is_none()
    {
        out.push_str(field);
        return;
    }
    for c in field.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            c => out.push(c),
        }
    }
}

fn unescape(field: &str) -> Option<Cow<'_, str>> {
    if !field.contains('\\') {
        return Some(Cow::Borrowed(field));
    }
    let mut out = String::with_capacity(field.len());
    let mut chars = field.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        out.push(match chars.next()? {
            '\\' => '\\',
            't' => '\t',
            'n' => '\n',
            'r' => '\r',
            _ => return None,
        });
    }
    Some(Cow::Owned(out))
}

/// What a snapshot is written from, besides its claims and bindings.
struct Header<'a> {
    claims_version: i64,
    workspace_id: &'a str,
    now_ms: i64,
    tag: &'a str,
}

/// The snapshot's text, written line by line straight from the rows (no copy of a row's
/// strings is kept).
struct Text(String);

impl Text {
    fn new(header: &Header<'_>) -> Text {
        let mut out = format!(
            "{MAGIC}\t{SCHEMA}\t{}\t{}\t",
            header.claims_version, header.now_ms
        );
        escape(header.workspace_id, &mut out);
        out.push('\t');
        out.push_str(header.tag);
        out.push('\n');
        Text(out)
    }

    fn claim(&mut self, expires_at_ms: i64, fields: [&str; 4]) {
        let out = &mut self.0;
        out.push_str(&expires_at_ms.to_string());
        for field in fields {
            out.push('\t');
            escape(field, out);
        }
        out.push('\n');
    }

    /// Every claim of `claims`, then the end of the claims.
    fn claims(&mut self, claims: &[SnapshotClaim]) {
        for c in claims {
            self.claim(
                c.expires_at_ms,
                [
                    &c.claim_id,
                    &c.owner_session_id,
                    &c.owner_participant_id,
                    &c.resource,
                ],
            );
        }
        self.end_claims();
    }

    /// Ends the claims; bindings follow.
    fn end_claims(&mut self) {
        self.0.push('\n');
    }

    /// `session`: open, generation, participant and parent (empty for none).
    fn binding(&mut self, fields: [&str; 3], session: Option<(bool, [&str; 3])>) {
        let out = &mut self.0;
        escape(fields[0], out);
        for field in &fields[1..] {
            out.push('\t');
            escape(field, out);
        }
        match session {
            None => out.push_str("\t\t\t\t"),
            Some((open, rest)) => {
                out.push_str(if open { "\topen" } else { "\tclosed" });
                for field in rest {
                    out.push('\t');
                    escape(field, out);
                }
            }
        }
        out.push('\n');
    }
}

/// A snapshot of `claims` alone (no bindings, so no fast path ever answers from it): what
/// the tamper marker keeps ([`super::tamper`]).
pub(crate) fn render_claims(workspace_id: &str, now_ms: i64, claims: &[SnapshotClaim]) -> String {
    let mut text = Text::new(&Header {
        claims_version: 0,
        workspace_id,
        now_ms,
        tag: "kept",
    });
    text.claims(claims);
    text.0
}

/// The snapshot's text for `claims` and `bindings`.
#[cfg(test)]
fn render(header: &Header<'_>, claims: &[SnapshotClaim], bindings: &[SnapshotBinding]) -> String {
    let mut text = Text::new(header);
    text.claims(claims);
    for b in bindings {
        text.binding(
            [&b.binding_key, &b.session_id, &b.generation],
            b.session.as_ref().map(|s| {
                (
                    s.open,
                    [
                        s.generation.as_str(),
                        s.participant_id.as_str(),
                        s.parent_session_id.as_deref().unwrap_or(""),
                    ],
                )
            }),
        );
    }
    text.0
}

/// `<store dir>/guarded-claims.tsv` for the store at `store_file`.
pub fn path_for(store_file: &Path) -> PathBuf {
    store_file.with_file_name(SNAPSHOT_FILE)
}

/// The witness's suffix: `<data home>/acc/workspaces/<workspace id>.last-guarded.tsv`.
const WITNESS_SUFFIX: &str = ".last-guarded.tsv";

/// A copy of the last published snapshot kept beside the workspace directories rather than
/// in the store's own, so that removing the store's directory, or copying another
/// workspace's directory over it, leaves what acc last knew was guarded
/// ([`super::tamper`]). `None` for a store outside a data home's `workspaces` directory.
pub fn witness_path(store_file: &Path) -> Option<PathBuf> {
    let dir = store_file.parent()?;
    let workspaces = dir.parent()?;
    if workspaces.file_name()? != "workspaces" {
        return None;
    }
    let mut name = dir.file_name()?.to_os_string();
    name.push(WITNESS_SUFFIX);
    Some(workspaces.join(name))
}

/// `bytes` written to `path` through a temporary file renamed over it.
fn replace_file(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    crate::atomic_write::AtomicWrite::new().write(path, bytes)
}

/// Which version of the claims the store holds: a counter every insert, update and delete
/// of a claim bumps (schema migration 4), read in one row lookup. Equal before and after a
/// write: the write touched no claim.
pub(crate) fn fingerprint(conn: &Connection) -> Result<i64> {
    Ok(conn.query_row(
        "SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'claims_version'",
        [],
        |r| r.get(0),
    )?)
}

/// Writes the snapshot of every guarded claim and every binding to `path`, tagged `tag`,
/// atomically (a temporary file renamed over it), so a reader sees the old snapshot or the
/// new one, never half of one.
pub(crate) fn write(
    conn: &Connection,
    path: &Path,
    workspace_id: &str,
    now_ms: i64,
    tag: &str,
) -> Result<()> {
    let header = Header {
        claims_version: fingerprint(conn)?,
        workspace_id,
        now_ms,
        tag,
    };
    let mut text = Text::new(&header);
    let mut stmt = conn.prepare_cached(
        "SELECT c.expires_at, c.claim_id, c.owner_session_id, s.participant_id, c.resource
         FROM claims c JOIN sessions s ON s.session_id = c.owner_session_id
         WHERE c.enforcement = 'guarded' ORDER BY c.acquired_at, c.rowid",
    )?;
    let mut rows = stmt.query([])?;
    while let Some(r) = rows.next()? {
        let s = |i| r.get_ref(i).and_then(|v| Ok(v.as_str()?));
        text.claim(r.get(0)?, [s(1)?, s(2)?, s(3)?, s(4)?]);
    }
    text.end_claims();
    let mut stmt = conn.prepare_cached(
        "SELECT b.binding_key, b.session_id, b.generation, s.state, s.generation,
                s.participant_id, coalesce(s.parent_session_id, '')
         FROM hook_bindings b LEFT JOIN sessions s ON s.session_id = b.session_id
         ORDER BY b.binding_key",
    )?;
    let mut rows = stmt.query([])?;
    while let Some(r) = rows.next()? {
        let s = |i| r.get_ref(i).and_then(|v| Ok(v.as_str()?));
        let state: Option<&str> = r.get_ref(3).and_then(|v| Ok(v.as_str_or_null()?))?;
        let session = match state {
            None => None,
            Some(state) => Some((state == "open", [s(4)?, s(5)?, s(6)?])),
        };
        text.binding([s(0)?, s(1)?, s(2)?], session);
    }
    let bytes = text.0.into_bytes();
    if let Err(e) = replace_file(path, &bytes) {
        return Err(AccError::new(
            ErrorCode::StoreIo,
            format!("{}: cannot be written ({e})", path.display()),
        ));
    }
    // Best effort: the witness only ever adds claims to refuse when the store is found
    // tampered with, and one that is behind names claims whose release the store recorded.
    if let Some(witness) = witness_path(path) {
        let _ = replace_file(&witness, &bytes);
    }
    let _ = std::fs::remove_file(path.with_file_name(LEGACY_FILE));
    Ok(())
}

/// Reads the snapshot at `path`: `Ok(None)` when there is none.
pub fn read(path: &Path) -> Result<Option<Snapshot>> {
    let Some(text) = read_text(path)? else {
        return Ok(None);
    };
    SnapshotText::parse(&text)
        .and_then(|t| t.owned())
        .map(Some)
        .ok_or_else(|| not_acc(path))
}

fn not_acc(path: &Path) -> AccError {
    AccError::new(
        ErrorCode::StoreIo,
        format!("{}: is not a snapshot acc wrote", path.display()),
    )
}

/// The snapshot's text at `path` (parse it with [`SnapshotText::parse`]): `Ok(None)` when
/// there is none. Opened non-blocking and without following a symlink; its size is capped.
pub fn read_text(path: &Path) -> Result<Option<String>> {
    Ok(read_sealed(path)?.map(|(text, _)| text))
}

/// The snapshot's text at `path` and the seal of the file it was read from
/// ([`super::guard_token::seal_of`], from the open file, so both are of one file).
pub fn read_sealed(path: &Path) -> Result<Option<(String, String)>> {
    use std::os::unix::fs::OpenOptionsExt;
    let io =
        |what: String| AccError::new(ErrorCode::StoreIo, format!("{}: {what}", path.display()));
    let file = match std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(path)
    {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(io(format!("cannot be read ({e})"))),
    };
    let meta = file
        .metadata()
        .map_err(|e| io(format!("cannot be read ({e})")))?;
    if !meta.is_file() || meta.len() > MAX_SNAPSHOT_BYTES {
        return Err(not_acc(path));
    }
    let mut text = String::with_capacity(meta.len() as usize);
    file.take(MAX_SNAPSHOT_BYTES)
        .read_to_string(&mut text)
        .map_err(|_| not_acc(path))?;
    Ok(Some((text, super::guard_token::seal_of(&meta))))
}

/// How much of a snapshot [`vouched_head`] reads: the header and the first claims (a
/// snapshot of 10,000 claims is about 1 MB, and every store open asks).
const HEAD_BYTES: u64 = 16 * 1024;

/// What a store open needs of the sealed snapshot, read from its first [`HEAD_BYTES`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SnapshotHead {
    pub claims_version: i64,
    pub workspace_id: String,
    pub tag: String,
    /// Whether a claim is live at the time asked; `None` when the claims read so far are
    /// all expired and more follow (the caller reads the whole snapshot).
    pub live: Option<bool>,
}

impl SnapshotHead {
    /// The head of a snapshot from its first bytes (`whole`: all of them). `None` when they
    /// are not a snapshot of this format.
    fn parse(bytes: &[u8], whole: bool, now_ms: i64) -> Option<SnapshotHead> {
        // Only whole lines: the cut may fall inside a line, or inside a character.
        let end = memchr::memrchr(b'\n', bytes)?;
        if whole && end + 1 != bytes.len() {
            return None;
        }
        let text = std::str::from_utf8(&bytes[..=end]).ok()?;
        let (header, mut rest) = text.split_once('\n')?;
        let (claims_version, _, workspace_id, tag) = header_fields(header)?;
        let mut live = None;
        while let Some((line, after)) = rest.split_once('\n') {
            if line.is_empty() {
                live = Some(false);
                break;
            }
            let tab = memchr::memchr(b'\t', line.as_bytes())?;
            if expiry(&line.as_bytes()[..tab])? > now_ms {
                live = Some(true);
                break;
            }
            rest = after;
        }
        // A whole text whose claims never end is not a snapshot.
        if whole && live.is_none() {
            return None;
        }
        Some(SnapshotHead {
            claims_version,
            workspace_id: workspace_id.into_owned(),
            tag: tag.to_string(),
            live,
        })
    }
}

/// The head of the snapshot of the store at `store_file` when the published token vouches
/// for it (as [`vouched_text`] decides, from the seal alone: the file is the one acc wrote),
/// reading only its first bytes.
pub fn vouched_head(
    store_file: &Path,
    now_ms: i64,
) -> Option<(super::guard_token::Token, SnapshotHead)> {
    use std::os::unix::fs::OpenOptionsExt;
    let token = super::guard_token::read(store_file)?;
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(path_for(store_file))
        .ok()?;
    let meta = file.metadata().ok()?;
    if !meta.is_file() || meta.len() > MAX_SNAPSHOT_BYTES {
        return None;
    }
    if super::guard_token::seal_of(&meta) != token.seal {
        return None;
    }
    let mut bytes = Vec::with_capacity(HEAD_BYTES.min(meta.len()) as usize);
    file.take(HEAD_BYTES).read_to_end(&mut bytes).ok()?;
    let whole = bytes.len() as u64 == meta.len();
    let head = SnapshotHead::parse(&bytes, whole, now_ms)?;
    (head.tag == token.tag).then_some((token, head))
}

/// The size of the snapshot file of the store at `store_file`, without reading it.
pub fn size(store_file: &Path) -> Option<u64> {
    std::fs::symlink_metadata(path_for(store_file))
        .ok()
        .map(|m| m.len())
}

/// The snapshot of the store at `store_file` when the published token vouches for it: the
/// tag in its header is the token's and the file is the one the token sealed (not edited,
/// replaced or copied back since). `None` otherwise: the caller reads the store.
pub fn vouched_text(store_file: &Path) -> Option<(super::guard_token::Token, String)> {
    let token = super::guard_token::read(store_file)?;
    let (text, seal) = read_sealed(&path_for(store_file)).ok()??;
    let tag = SnapshotText::parse(&text)?.tag;
    (tag == token.tag && seal == token.seal).then_some((token, text))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn claim(resource: &str, participant: &str) -> SnapshotClaim {
        SnapshotClaim {
            claim_id: "claim_1".into(),
            resource: resource.into(),
            owner_session_id: "sess_1".into(),
            owner_participant_id: participant.into(),
            expires_at_ms: 1_700_000_000_000,
        }
    }

    fn header(version: i64, workspace_id: &str, now_ms: i64) -> Header<'_> {
        Header {
            claims_version: version,
            workspace_id,
            now_ms,
            tag: "1.2.7.9.9",
        }
    }

    fn binding(key: &str, session: Option<(&str, Option<&str>)>) -> SnapshotBinding {
        SnapshotBinding {
            binding_key: key.into(),
            session_id: format!("sess_{key}"),
            generation: "gen_1".into(),
            session: session.map(|(state, parent)| BoundSession {
                open: state == "open",
                generation: "gen_1".into(),
                participant_id: "p\\1".into(),
                parent_session_id: parent.map(str::to_string),
            }),
        }
    }

    #[test]
    fn the_head_of_a_snapshot_says_what_the_whole_text_says() {
        let bindings = vec![binding("k1", Some(("open", None)))];
        let mut claims: Vec<SnapshotClaim> = (0..2_000)
            .map(|i| {
                let mut c = claim(&format!("file:src/m{i}/**"), "peer");
                c.claim_id = format!("claim_{i}");
                c
            })
            .collect();
        let text = render(&header(7, "ws\t1", 42), &claims, &bindings);
        assert!(text.len() as u64 > HEAD_BYTES, "the head is a part");
        let full = SnapshotText::parse(&text).unwrap();
        for now in [0, 1_700_000_000_000] {
            let head = SnapshotHead::parse(&text.as_bytes()[..HEAD_BYTES as usize], false, now);
            let head = head.unwrap();
            assert_eq!(head.claims_version, full.claims_version);
            assert_eq!(head.workspace_id, full.workspace_id);
            assert_eq!(head.tag, full.tag);
            // Every claim expired: the head cannot tell whether a later one lives.
            let want = full.has_live(now).unwrap().then_some(true);
            assert_eq!(head.live, want, "at {now}");
            let whole = SnapshotHead::parse(text.as_bytes(), true, now).unwrap();
            assert_eq!(whole.live, full.has_live(now));
        }
        // A later claim alive behind expired ones is found by the whole text only.
        claims.last_mut().unwrap().expires_at_ms = 1_800_000_000_000;
        let text = render(&header(7, "ws", 42), &claims, &bindings);
        let now = 1_700_000_000_000;
        let head = SnapshotHead::parse(&text.as_bytes()[..HEAD_BYTES as usize], false, now);
        assert_eq!(head.unwrap().live, None);
        let whole = SnapshotHead::parse(text.as_bytes(), true, now).unwrap();
        assert_eq!(whole.live, Some(true));
        // A whole text cut inside a line, or without the blank line, is not a snapshot.
        assert_eq!(
            SnapshotHead::parse(&text.as_bytes()[..100], true, now),
            None
        );
        let no_end = text.split("\n\n").next().unwrap().to_string() + "\n";
        assert_eq!(
            SnapshotHead::parse(no_end.as_bytes(), true, 1_900_000_000_000),
            None
        );
    }

    #[test]
    fn no_claims_and_no_bindings_is_a_snapshot_too() {
        for (claims, bindings) in [
            (vec![], vec![]),
            (vec![claim("file:src/**", "peer")], vec![]),
            (vec![], vec![binding("k1", None)]),
        ] {
            let text = render(&header(1, "ws", 1), &claims, &bindings);
            let back = SnapshotText::parse(&text).unwrap().owned().unwrap();
            assert_eq!((back.claims, back.bindings), (claims, bindings));
        }
    }

    #[test]
    fn every_string_comes_back_whole_one_claim_a_line() {
        let claims = vec![
            claim("file:src/**", "peer"),
            claim("file:src/a\\x09b\\\\c.rs", "we\tird\nname\\"),
            claim("file:docs/Read Me.md\r", ""),
        ];
        let bindings = vec![
            binding("k1", Some(("open", None))),
            binding("k\t2", Some(("closed", Some("par\nent")))),
            binding("k3", None),
        ];
        let text = render(&header(7, "ws\t1", 42), &claims, &bindings);
        assert_eq!(text.lines().count(), 8, "{text}");
        let parsed = SnapshotText::parse(&text).unwrap();
        assert_eq!(parsed.claims_version, 7);
        assert_eq!(parsed.workspace_id, "ws\t1");
        assert_eq!(parsed.tag, "1.2.7.9.9");
        let back = parsed.owned().unwrap();
        assert_eq!(back.claims, claims);
        assert_eq!(back.bindings, bindings);
        assert_eq!(back.written_at_ms, 42);
        assert_eq!(parsed.has_live(0), Some(true));
        assert_eq!(parsed.has_live(1_700_000_000_000), Some(false));
        assert_eq!(parsed.binding("k\t2"), Some(Some(bindings[1].clone())));
        assert_eq!(parsed.binding("k4"), Some(None));
        assert!(bindings[0].is_live());
        assert!(!bindings[1].is_live() && !bindings[2].is_live());
        // A field without an escape is borrowed, not copied.
        let first = parsed.claims().next().unwrap().unwrap();
        assert!(matches!(first.resource, Cow::Borrowed(_)));
    }

    #[test]
    fn an_expiry_is_read_from_its_digits_alone() {
        assert_eq!(expiry(b"1700000000000"), Some(1_700_000_000_000));
        assert_eq!(expiry(b"-5"), Some(-5));
        for bad in [&b""[..], b"-", b"12a", b" 1", b"1234567890123456789"] {
            assert_eq!(expiry(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn text_acc_did_not_write_is_refused() {
        let good = render(
            &header(1, "ws", 1),
            &[claim("file:src/**", "peer")],
            &[binding("k1", Some(("open", None)))],
        );
        assert!(SnapshotText::parse(&good).is_some_and(|p| p.owned().is_some()));
        for bad in [
            String::new(),
            "{\"schema\":1,\"claims\":[]}".to_string(),
            good.replace("acc-guarded-claims\t3", "acc-guarded-claims\t2"),
            good.replace("\n\n", "\n"),
            good.replace("\topen\t", "\tajar\t"),
            good.replace("\topen\t", "\topen\textra\t"),
            good.replace("\tpeer\t", "\tpeer\textra\t"),
            good.replace("\tpeer\t", "\tpe\\qer\t"),
            good.replacen("\n1", "\nsoon", 1),
            good.trim_end().to_string(),
        ] {
            let parsed = SnapshotText::parse(&bad);
            assert!(
                parsed.is_none_or(|p| p.owned().is_none()),
                "accepted: {bad:?}"
            );
        }
    }
}
