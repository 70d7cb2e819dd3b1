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

/// The line format's version. Version 5 added the bindings' length to the header and the
/// block index after the bindings ([`block_index`]); the block reader ([`SealedFile`]) reads
/// no other version (a snapshot of version 4 is no snapshot to it: the store path judges),
/// and the whole-text readers read version 4 too, so that the claims a tamper marker or a
/// witness kept before an upgrade are still enforced.
pub const SCHEMA: u32 = 5;

/// The version before the block index: its claims and bindings are read whole.
const SCHEMA_V4: u32 = 4;

mod block_index;

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
    /// The latest expiry of a guarded claim held by another session acting as the same
    /// participant (0 for none), computed at publication so that the guard need not read
    /// every claim to learn whether one is live.
    pub others_until_ms: i64,
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

/// A header line's fields.
struct HeaderFields<'a> {
    schema: u32,
    claims_version: i64,
    written_at_ms: i64,
    workspace_id: Cow<'a, str>,
    tag: &'a str,
    /// The length in bytes of the claim lines that follow the header.
    claims_bytes: usize,
    /// The length in bytes of the binding lines after the claims' blank line; `None` in
    /// version 4, whose binding lines run to the end.
    bindings_bytes: Option<usize>,
}

fn header_fields(header: &str) -> Option<HeaderFields<'_>> {
    let mut f = header.split('\t');
    if f.next()? != MAGIC {
        return None;
    }
    let schema = f.next()?.parse::<u32>().ok()?;
    if schema != SCHEMA && schema != SCHEMA_V4 {
        return None;
    }
    let claims_version = f.next()?.parse().ok()?;
    let written_at_ms = f.next()?.parse().ok()?;
    let workspace_id = unescape(f.next()?)?;
    let tag = f.next()?;
    let claims_bytes = f.next()?.parse().ok()?;
    let bindings_bytes = match schema {
        SCHEMA => Some(f.next()?.parse().ok()?),
        _ => None,
    };
    if f.next().is_some() {
        return None;
    }
    Some(HeaderFields {
        schema,
        claims_version,
        written_at_ms,
        workspace_id,
        tag,
        claims_bytes,
        bindings_bytes,
    })
}

impl<'a> SnapshotText<'a> {
    /// The header of `text`, whose every block is checked against its sums; `None` when it
    /// is not a whole snapshot of this format.
    pub fn parse(text: &'a str) -> Option<SnapshotText<'a>> {
        let text = content_of(text)?;
        let (header, body) = text.split_once('\n')?;
        let h = header_fields(header)?;
        // A text that does not end a line was cut short: its last line would be lost.
        if !text.ends_with('\n') {
            return None;
        }
        // The claims end with a blank line; the bindings follow it (then, from version 5,
        // the block index, which a reader of the whole text does not need).
        let bytes = body.as_bytes();
        let claims_bytes = h.claims_bytes;
        if bytes.get(claims_bytes) != Some(&b'\n')
            || (claims_bytes > 0 && bytes[claims_bytes - 1] != b'\n')
        {
            return None;
        }
        let after = claims_bytes + 1;
        let bindings_end = match h.bindings_bytes {
            None => bytes.len(),
            Some(n) => {
                let end = after.checked_add(n).filter(|&end| end <= bytes.len())?;
                if n > 0 && bytes[end - 1] != b'\n' {
                    return None;
                }
                end
            }
        };
        Some(SnapshotText {
            claims_version: h.claims_version,
            written_at_ms: h.written_at_ms,
            workspace_id: h.workspace_id,
            tag: h.tag,
            body: &body[..claims_bytes],
            bindings: &body[after..bindings_end],
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
/// `closed`, or empty when the session is gone), generation, participant, parent (empty
/// for none) and the latest expiry of another session's claim as that participant.
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
        others_until,
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
                others_until_ms: expiry(others_until.as_bytes())?,
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
/// strings is kept). The header, which names the claim lines' length, is put before them
/// when the text is finished.
struct Text {
    out: String,
    /// Where the claim lines end, once they have.
    claims_end: Option<usize>,
}

impl Text {
    fn new() -> Text {
        Text {
            out: String::new(),
            claims_end: None,
        }
    }

    fn claim(&mut self, expires_at_ms: i64, fields: [&str; 4]) {
        use std::fmt::Write as _;
        let out = &mut self.out;
        let _ = write!(out, "{expires_at_ms}");
        for field in fields {
            out.push('\t');
            escape(field, out);
        }
        out.push('\n');
    }

    /// Every claim of `claims`, sorted as the store writes them, then the end of the claims.
    fn claims(&mut self, claims: &[SnapshotClaim]) {
        let mut sorted: Vec<&SnapshotClaim> = claims.iter().collect();
        sorted.sort_by(|a, b| (&a.resource, &a.claim_id).cmp(&(&b.resource, &b.claim_id)));
        for c in sorted {
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
        self.claims_end = Some(self.out.len());
        self.out.push('\n');
    }

    /// `session`: open, generation, participant, parent (empty for none), and the latest
    /// expiry of another session's claim as that participant.
    fn binding(&mut self, fields: [&str; 3], session: Option<(bool, [&str; 3], i64)>) {
        let out = &mut self.out;
        escape(fields[0], out);
        for field in &fields[1..] {
            out.push('\t');
            escape(field, out);
        }
        match session {
            None => out.push_str("\t\t\t\t\t"),
            Some((open, rest, others_until)) => {
                out.push_str(if open { "\topen" } else { "\tclosed" });
                for field in rest {
                    out.push('\t');
                    escape(field, out);
                }
                out.push('\t');
                out.push_str(&others_until.to_string());
            }
        }
        out.push('\n');
    }

    /// The claim lines, and the blank line and binding lines after them.
    fn split(&self) -> (&str, &str) {
        let claims_end = self.claims_end.unwrap_or(0);
        (&self.out[..claims_end], &self.out[claims_end..])
    }

    /// The header, the lines, the block index, and the sums of every block.
    fn finish(self, header: &Header<'_>) -> String {
        let (claims, rest) = self.split();
        let (head, index) = head_and_index(header, claims, rest);
        let mut text = head;
        text.reserve(self.out.len() + index.len() + self.out.len() / BLOCK * SUM_LINE + 64);
        text.push_str(&self.out);
        text.push_str(&index);
        seal_text(text)
    }

    /// The header line, the lines, the block index and the sums, in that order, to be
    /// written one after the other: the lines are not copied behind the header (at 10,000
    /// claims each copy of the snapshot cost a million instructions).
    fn write_to(self, header: &Header<'_>, path: &Path, witness: Option<&Path>) -> Result<()> {
        let (claims, rest) = self.split();
        let (head, index) = head_and_index(header, claims, rest);
        let seal = seal_of_parts(&[head.as_bytes(), self.out.as_bytes(), index.as_bytes()]);
        let parts = [
            head.as_bytes(),
            self.out.as_bytes(),
            index.as_bytes(),
            seal.as_bytes(),
        ];
        put(path, &parts)?;
        // Best effort: the witness only ever adds claims to refuse when the store is found
        // tampered with, and one that is behind names claims whose release the store
        // recorded. Only its workspace and claim lines are ever read ([`super::tamper`]):
        // a witness that already holds these, as a whole snapshot of this format, is left
        // as it is (a write that moved no guarded claim, such as every advisory claim,
        // rewrote the same lines under a new header, inside the claims' turn).
        if let Some(witness) = witness
            && !holds_claims(witness, header.workspace_id, claims)
        {
            let _ = put(witness, &parts);
        }
        Ok(())
    }
}

/// Whether the file at `path` is a whole snapshot (every block matching its sums, read
/// without following a link) of `workspace_id` whose claim lines are `claims`, byte for
/// byte: what [`super::tamper::last_known`] would read from it is then these claims.
fn holds_claims(path: &Path, workspace_id: &str, claims: &str) -> bool {
    let Ok(Some(text)) = read_text(path) else {
        return false;
    };
    SnapshotText::parse(&text)
        .is_some_and(|old| old.workspace_id == workspace_id && old.body == claims)
}

/// The header line for `claims` (the claim lines) followed by `rest` (the blank line and
/// the binding lines), and the block index of those claim lines as they lie behind it.
fn head_and_index(header: &Header<'_>, claims: &str, rest: &str) -> (String, String) {
    let head = header_line(header, claims.len(), rest.len().saturating_sub(1));
    let index = block_index::write(head.len(), claims.as_bytes(), BLOCK);
    (head, index)
}

/// The header line: the claims version, the time, the workspace, the tag, the length of
/// the claim lines that follow, and the length of the binding lines after their blank line.
fn header_line(header: &Header<'_>, claims_bytes: usize, bindings_bytes: usize) -> String {
    let mut text = format!(
        "{MAGIC}\t{SCHEMA}\t{}\t{}\t",
        header.claims_version, header.now_ms
    );
    escape(header.workspace_id, &mut text);
    text.push('\t');
    text.push_str(header.tag);
    text.push('\t');
    text.push_str(&claims_bytes.to_string());
    text.push('\t');
    text.push_str(&bindings_bytes.to_string());
    text.push('\n');
    text
}

/// The sums cover the snapshot in blocks of this many bytes: a reader that reads a few
/// blocks (the guard looking up a few targets) checks only those.
const BLOCK: usize = 4096;

/// One block's sum: sixteen hex digits and a newline.
const SUM_LINE: usize = 17;

/// The last line: this, then the length of what the sums cover, in twenty digits.
const SUMS_MAGIC: &str = "acc-sums\t";
const FOOTER_LEN: usize = SUMS_MAGIC.len() + 20 + 1;

/// A block's sum, seeded with its index so that blocks cannot be swapped. Not a defence
/// against a forger (who could recompute it; the token's seal is that): it makes a file cut
/// short, or one whose blocks were lost or zeroed in a crash, fail closed wherever it is
/// read.
fn block_sum(index: usize, bytes: &[u8]) -> u64 {
    const K: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut h = (index as u64 ^ bytes.len() as u64).wrapping_mul(K) ^ 0x6163_632d_7375_6d73;
    let mut words = bytes.chunks_exact(8);
    for w in &mut words {
        let w = u64::from_le_bytes(w.try_into().expect("eight bytes"));
        h = (h.rotate_left(23) ^ w).wrapping_mul(K);
    }
    let mut tail = [0u8; 8];
    tail[..words.remainder().len()].copy_from_slice(words.remainder());
    h = (h.rotate_left(23) ^ u64::from_le_bytes(tail)).wrapping_mul(K);
    h ^ (h >> 29)
}

/// `content` followed by the sum of each of its blocks and the footer.
pub fn seal_text(mut content: String) -> String {
    let seal = seal_of_parts(&[content.as_bytes()]);
    content.push_str(&seal);
    content
}

/// The sums and the footer of the text `parts` make one after the other, without joining
/// them: only a block that straddles two parts is gathered.
fn seal_of_parts(parts: &[&[u8]]) -> String {
    use std::fmt::Write as _;
    let len: usize = parts.iter().map(|p| p.len()).sum();
    let mut out = String::with_capacity(len.div_ceil(BLOCK) * SUM_LINE + FOOTER_LEN);
    let mut index = 0;
    let mut sum = |block: &[u8], out: &mut String| {
        let _ = writeln!(out, "{:016x}", block_sum(index, block));
        index += 1;
    };
    let mut carry: Vec<u8> = Vec::new();
    for part in parts {
        let mut rest: &[u8] = part;
        if !carry.is_empty() {
            let take = (BLOCK - carry.len()).min(rest.len());
            carry.extend_from_slice(&rest[..take]);
            rest = &rest[take..];
            if carry.len() < BLOCK {
                continue;
            }
            sum(&carry, &mut out);
            carry.clear();
        }
        let whole = rest.len() / BLOCK * BLOCK;
        for block in rest[..whole].chunks_exact(BLOCK) {
            sum(block, &mut out);
        }
        carry.extend_from_slice(&rest[whole..]);
    }
    if !carry.is_empty() {
        sum(&carry, &mut out);
    }
    let _ = writeln!(out, "{SUMS_MAGIC}{len:020}");
    out
}

/// Where the sums of a snapshot of `file_len` bytes are, from its footer: the covered
/// length. `None` when the footer and the file's length disagree.
fn covered_len(footer: &[u8], file_len: usize) -> Option<usize> {
    let digits = footer
        .strip_prefix(SUMS_MAGIC.as_bytes())?
        .strip_suffix(b"\n")?;
    if digits.len() != 20 || !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let len: usize = std::str::from_utf8(digits).ok()?.parse().ok()?;
    let blocks = len.div_ceil(BLOCK);
    (len.checked_add(blocks * SUM_LINE + FOOTER_LEN)? == file_len).then_some(len)
}

/// A block's sum line parsed.
fn sum_of(line: &[u8]) -> Option<u64> {
    let hex = line.strip_suffix(b"\n")?;
    if hex.len() != 16 {
        return None;
    }
    u64::from_str_radix(std::str::from_utf8(hex).ok()?, 16).ok()
}

/// What `text` says before its sums, when every block matches its sum; `None` for a text
/// cut short, extended, or with a block changed.
pub fn content_of(text: &str) -> Option<&str> {
    let bytes = text.as_bytes();
    let footer = bytes.get(bytes.len().checked_sub(FOOTER_LEN)?..)?;
    let len = covered_len(footer, bytes.len())?;
    let sums = &bytes[len..bytes.len() - FOOTER_LEN];
    let ok = bytes[..len]
        .chunks(BLOCK)
        .zip(sums.chunks(SUM_LINE))
        .enumerate()
        .all(|(i, (block, sum))| sum_of(sum) == Some(block_sum(i, block)));
    // The cut falls on a character boundary: the footer is ASCII.
    ok.then(|| &text[..len])
}

/// A snapshot of `claims` alone (no bindings, so no fast path ever answers from it): what
/// the tamper marker keeps ([`super::tamper`]).
pub(crate) fn render_claims(workspace_id: &str, now_ms: i64, claims: &[SnapshotClaim]) -> String {
    let mut text = Text::new();
    text.claims(claims);
    text.finish(&Header {
        claims_version: 0,
        workspace_id,
        now_ms,
        tag: "kept",
    })
}

/// The snapshot's text for `claims` and `bindings`.
#[cfg(test)]
fn render(header: &Header<'_>, claims: &[SnapshotClaim], bindings: &[SnapshotBinding]) -> String {
    let mut text = Text::new();
    text.claims(claims);
    let mut bindings: Vec<&SnapshotBinding> = bindings.iter().collect();
    bindings.sort_by(|a, b| a.binding_key.cmp(&b.binding_key));
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
                    s.others_until_ms,
                )
            }),
        );
    }
    text.finish(header)
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

/// Which version of the claims the store holds: a counter every insert, update and delete
/// of a claim bumps (schema migration 4), read in one row lookup. Equal before and after a
/// write: the write touched no claim.
///
/// Cached: every write reads it two to three times, and compiling it each time cost more
/// than the read.
pub(crate) fn fingerprint(conn: &Connection) -> Result<i64> {
    Ok(conn
        .prepare_cached("SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'claims_version'")?
        .query_row([], |r| r.get(0))?)
}

/// Per participant, the two sessions whose guarded claims expire latest, and when: enough
/// to tell any session of it the latest expiry of a claim held by another.
#[derive(Default)]
struct LatestBySession(std::collections::HashMap<String, [(String, i64); 2]>);

impl LatestBySession {
    fn add(&mut self, participant: &str, session: &str, expires_at: i64) {
        let none = || (String::new(), i64::MIN);
        let top = match self.0.get_mut(participant) {
            Some(top) => top,
            None => self
                .0
                .entry(participant.to_string())
                .or_insert_with(|| [none(), none()]),
        };
        if top[0].0 == session {
            top[0].1 = top[0].1.max(expires_at);
        } else if top[1].0 == session {
            top[1].1 = top[1].1.max(expires_at);
        } else if expires_at > top[1].1 {
            top[1] = (session.to_string(), expires_at);
        }
        if top[1].1 > top[0].1 {
            top.swap(0, 1);
        }
    }

    /// The latest expiry of a claim of `participant` held by a session other than
    /// `session`; 0 for none.
    fn others(&self, participant: &str, session: &str) -> i64 {
        let Some(top) = self.0.get(participant) else {
            return 0;
        };
        let (s, at) = top.iter().find(|(s, _)| s != session).expect("two entries");
        if s.is_empty() { 0 } else { (*at).max(0) }
    }
}

/// Every guarded claim row as the publication's one read of the claims found it (the
/// proof's, [`super::claims_proof::render`]), so the snapshot needs no statement of its
/// own: the same rows of the same transaction, put in the snapshot's order here.
#[derive(Debug, Default)]
pub(crate) struct GuardedRows {
    /// Every row's text, one after the other (no string per field).
    text: String,
    rows: Vec<GuardedRow>,
}

#[derive(Debug)]
struct GuardedRow {
    expires_at: i64,
    rowid: i64,
    claim_id: std::ops::Range<usize>,
    owner: std::ops::Range<usize>,
    resource: std::ops::Range<usize>,
}

impl GuardedRows {
    pub(crate) fn push(
        &mut self,
        expires_at: i64,
        rowid: i64,
        claim_id: &str,
        owner: &str,
        resource: &str,
    ) {
        let mut put = |field: &str| {
            let start = self.text.len();
            self.text.push_str(field);
            start..self.text.len()
        };
        let (claim_id, owner, resource) = (put(claim_id), put(owner), put(resource));
        self.rows.push(GuardedRow {
            expires_at,
            rowid,
            claim_id,
            owner,
            resource,
        });
    }

    /// The rows in the order `ORDER BY resource, rowid` gives: SQLite's `BINARY`
    /// collation compares the bytes, as `str` does.
    fn sorted(&self) -> Vec<&GuardedRow> {
        let mut rows: Vec<&GuardedRow> = self.rows.iter().collect();
        rows.sort_unstable_by(|a, b| {
            (&self.text[a.resource.clone()], a.rowid)
                .cmp(&(&self.text[b.resource.clone()], b.rowid))
        });
        rows
    }
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
    write_with(conn, path, workspace_id, now_ms, tag, None)
}

/// [`write`], its claims taken from `guarded` when the publication read them already (in
/// this transaction), else read here.
pub(crate) fn write_with(
    conn: &Connection,
    path: &Path,
    workspace_id: &str,
    now_ms: i64,
    tag: &str,
    guarded: Option<&GuardedRows>,
) -> Result<()> {
    let header = Header {
        claims_version: fingerprint(conn)?,
        workspace_id,
        now_ms,
        tag,
    };
    let mut text = Text::new();
    // Each claim's participant from a map of the sessions (a few hundred rows) rather than
    // a join per claim: at 10,000 claims the join was most of a publication. Read at the
    // first guarded claim: a store of advisory claims (a claim race) needs none of it.
    let mut participants: Option<std::collections::HashMap<String, String>> = None;
    let mut latest = LatestBySession::default();
    match guarded {
        Some(g) => {
            for row in g.sorted() {
                let field = |r: &std::ops::Range<usize>| &g.text[r.clone()];
                let session = field(&row.owner);
                if participants.is_none() {
                    participants = Some(session_participants(conn)?);
                }
                // A claim whose session is gone names no participant (the join dropped it).
                let Some(participant) = participants.as_ref().and_then(|p| p.get(session)) else {
                    continue;
                };
                latest.add(participant, session, row.expires_at);
                let fields = [
                    field(&row.claim_id),
                    session,
                    participant,
                    field(&row.resource),
                ];
                text.claim(row.expires_at, fields);
            }
        }
        None => {
            // Sorted by resource (byte order, as `str` compares), so that the guard finds
            // the claims overlapping a target by binary search ([`SealedFile`]); the
            // resource index gives that order without a sort.
            let mut stmt = conn.prepare_cached(
                "SELECT expires_at, claim_id, owner_session_id, resource FROM claims
                 WHERE enforcement = 'guarded' ORDER BY resource, rowid",
            )?;
            let mut rows = stmt.query([])?;
            while let Some(r) = rows.next()? {
                let s = |i| r.get_ref(i).and_then(|v| Ok(v.as_str()?));
                let expires_at: i64 = r.get(0)?;
                let session = s(2)?;
                if participants.is_none() {
                    participants = Some(session_participants(conn)?);
                }
                // A claim whose session is gone names no participant (the join dropped it).
                let Some(participant) = participants.as_ref().and_then(|p| p.get(session)) else {
                    continue;
                };
                latest.add(participant, session, expires_at);
                text.claim(expires_at, [s(1)?, session, participant, s(3)?]);
            }
        }
    }
    text.end_claims();
    write_bindings(conn, &mut text, |participant, session| {
        Ok(latest.others(participant, session))
    })?;
    text.write_to(&header, path, witness_path(path).as_deref())?;
    let _ = std::fs::remove_file(path.with_file_name(LEGACY_FILE));
    Ok(())
}

/// Whether the store has any hook binding: the text of `core::bindings::ANY_BINDING`, so
/// that the connection's cached statement is the one the CLI compiled (the store does not
/// import the core; `claims_proof`'s tests hold the two equal).
pub(crate) const ANY_BINDING: &str = "SELECT EXISTS (SELECT 1 FROM hook_bindings)";

/// Each session's participant, by session id.
fn session_participants(conn: &Connection) -> Result<std::collections::HashMap<String, String>> {
    let mut participants = std::collections::HashMap::new();
    let mut stmt = conn.prepare_cached("SELECT session_id, participant_id FROM sessions")?;
    let mut rows = stmt.query([])?;
    while let Some(r) = rows.next()? {
        participants.insert(r.get(0)?, r.get(1)?);
    }
    Ok(participants)
}

/// Every binding line, sorted by key; `others(participant, session)` is the latest expiry
/// of a guarded claim held by another session acting as `participant`.
fn write_bindings(
    conn: &Connection,
    text: &mut Text,
    mut others: impl FnMut(&str, &str) -> Result<i64>,
) -> Result<()> {
    // Most stores outside a hooked client have no binding: one row read, from a statement
    // the command compiled already, instead of compiling the join (in the same transaction,
    // so the join would have found no row either).
    let any: bool = conn
        .prepare_cached(ANY_BINDING)?
        .query_row([], |r| r.get(0))?;
    if !any {
        return Ok(());
    }
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
            Some(state) => {
                let others = others(s(5)?, s(1)?)?;
                Some((state == "open", [s(4)?, s(5)?, s(6)?], others))
            }
        };
        text.binding([s(0)?, s(1)?, s(2)?], session);
    }
    Ok(())
}

/// Up to this many bytes a snapshot is gathered and written in one call (a race's
/// snapshot is a few hundred bytes in four parts: four `write`s inside the claims' turn);
/// a larger one is written part by part rather than copied.
const GATHER_BYTES: usize = 64 * 1024;

/// `parts`, one after the other, put at `path` atomically.
fn put(path: &Path, parts: &[&[u8]]) -> Result<()> {
    let len: usize = parts.iter().map(|p| p.len()).sum();
    let gathered: Vec<u8>;
    let one: [&[u8]; 1];
    let parts = if len <= GATHER_BYTES && parts.len() > 1 {
        gathered = parts.concat();
        one = [&gathered];
        &one[..]
    } else {
        parts
    };
    crate::atomic_write::AtomicWrite::new()
        .write_parts(path, parts)
        .map_err(|e| {
            AccError::new(
                ErrorCode::StoreIo,
                format!("{}: cannot be written ({e})", path.display()),
            )
        })
}

/// Which version of the claim lines the store holds: a counter (schema migration 7) that
/// every change to a claim row bumps, and every session removed or given another
/// participant. `None` for a store without it (a shared store's, or one not migrated yet).
pub(crate) fn claim_rows(conn: &Connection) -> Option<i64> {
    conn.prepare_cached("SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'claim_rows_version'")
        .ok()?
        .query_row([], |r| r.get(0))
        .ok()
}

/// A publication's snapshot file as a write found it vouched for, just before withdrawing
/// the token: its claim lines are the store's for as long as the claim rows stay at
/// `claim_rows`, and the file is that publication's for as long as its seal is `seal`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Published {
    seal: String,
    tag: String,
    claim_rows: i64,
}

impl Published {
    pub(crate) fn claim_rows(&self) -> i64 {
        self.claim_rows
    }
}

/// The publication the token of the store at `store_file` vouches for now (the snapshot
/// file is the one it sealed), the store's claim rows being at `claim_rows`.
pub(crate) fn published(store_file: &Path, claim_rows: i64) -> Option<Published> {
    let token = super::guard_token::read(store_file)?;
    let meta = std::fs::symlink_metadata(path_for(store_file)).ok()?;
    (super::guard_token::seal_of(&meta) == token.seal).then_some(Published {
        seal: token.seal,
        tag: token.tag,
        claim_rows,
    })
}

/// Writes the snapshot as [`write`] does, copying the claim lines from `prior`'s file when
/// no claim row changed since it was published (a session start binds a conversation and
/// changes no claim: at 10,000 claims, rebuilding their lines from the store was most of
/// its cost). The copied lines are checked against their sums first, so a block damaged
/// since is never sealed anew. The witness is not rewritten: its claims are these.
/// `Ok(false)`, having written nothing, when the claims moved or the file is not `prior`'s
/// (rewritten, replaced, damaged): the caller then writes the snapshot whole.
pub(crate) fn write_reusing(
    conn: &Connection,
    path: &Path,
    workspace_id: &str,
    now_ms: i64,
    tag: &str,
    prior: &Published,
) -> Result<bool> {
    if claim_rows(conn) != Some(prior.claim_rows) {
        return Ok(false);
    }
    let Ok(Some((old, seal))) = read_sealed(path) else {
        return Ok(false);
    };
    let Some(parsed) = SnapshotText::parse(&old) else {
        return Ok(false);
    };
    if seal != prior.seal || parsed.tag != prior.tag || parsed.workspace_id != workspace_id {
        return Ok(false);
    }
    // Written in place while it was read: the bytes read may not be the sealed ones.
    let after = std::fs::symlink_metadata(path).map(|m| super::guard_token::seal_of(&m));
    if after.ok().as_deref() != Some(prior.seal.as_str()) {
        return Ok(false);
    }
    let header = Header {
        claims_version: fingerprint(conn)?,
        workspace_id,
        now_ms,
        tag,
    };
    // The blank line and the bindings after the copied lines.
    let mut text = Text::new();
    text.end_claims();
    // Per binding from the claims index, instead of from a pass over every claim.
    let mut latest = conn.prepare_cached(
        "SELECT coalesce(max(c.expires_at), 0) FROM sessions s
         JOIN claims c ON c.owner_session_id = s.session_id
         WHERE s.participant_id = ?1 AND s.session_id <> ?2 AND c.enforcement = 'guarded'",
    )?;
    write_bindings(conn, &mut text, |participant, session| {
        let at: i64 = latest.query_row([participant, session], |r| r.get(0))?;
        Ok(at.max(0))
    })?;
    let (head, index) = head_and_index(&header, parsed.body, &text.out);
    let parts = [
        head.as_bytes(),
        parsed.body.as_bytes(),
        text.out.as_bytes(),
        index.as_bytes(),
    ];
    let seal = seal_of_parts(&parts);
    put(
        path,
        &[parts[0], parts[1], parts[2], parts[3], seal.as_bytes()],
    )?;
    Ok(true)
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
        let h = header_fields(header)?;
        let (claims_version, workspace_id, tag) = (h.claims_version, h.workspace_id, h.tag);
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

/// A sealed snapshot read a block at a time: the guard looks up its binding and the claims
/// that can overlap a few targets by binary search, so what it reads (and checks against
/// the sums) does not grow with the claims. Read with `pread`, not mapped: a file cut short
/// under a mapping would kill the process instead of failing closed.
pub struct SealedFile {
    file: std::fs::File,
    /// The file's bytes as far as read; the rest zeros.
    buf: lazy_zeroed::LazyZeroed,
    /// Per block: read and checked against its sum.
    checked: Vec<bool>,
    /// The length the sums cover (everything before them).
    len: usize,
    pub claims_version: i64,
    pub workspace_id: String,
    pub tag: String,
    /// The claim lines, then (after a blank line) the binding lines, then the block index
    /// ([`block_index`]).
    claims: std::ops::Range<usize>,
    bindings: std::ops::Range<usize>,
    index: std::ops::Range<usize>,
    /// Lines a search already read, by start: their key and where the next line starts.
    /// A later search for a nearby key (a target's ancestors, its tree) starts between
    /// them instead of from the whole range, so it reads no block again and few new ones.
    fences: Vec<Fence>,
}

/// A line a search of the range starting at `range` read: `start..next` holds it, `key` is
/// its sort key (the claims' and the bindings' keys differ).
struct Fence {
    range: usize,
    start: usize,
    next: usize,
    key: String,
    /// Named by the block index, not read: the search's answer is checked where it stands.
    hint: bool,
}

/// Where a search of a range stands: its bounds, and whether each was set by a line the
/// block index named rather than one read.
struct Bounds {
    lo: usize,
    hi: usize,
    lo_hint: bool,
    hi_hint: bool,
}

impl SealedFile {
    /// The sealed snapshot of the store at `store_file` when the published token vouches
    /// for it, as [`vouched_text`] decides; only its header, footer and sums are read.
    pub fn open(store_file: &Path) -> Option<(super::guard_token::Token, SealedFile)> {
        use std::os::unix::fs::{FileExt, OpenOptionsExt};
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
        let file_len = meta.len() as usize;
        let mut footer = [0u8; FOOTER_LEN];
        file.read_exact_at(&mut footer, file_len.checked_sub(FOOTER_LEN)? as u64)
            .ok()?;
        let len = covered_len(&footer, file_len)?;
        let mut sealed = SealedFile {
            file,
            buf: lazy_zeroed::LazyZeroed::new(file_len)?,
            checked: vec![false; len.div_ceil(BLOCK)],
            len,
            claims_version: 0,
            workspace_id: String::new(),
            tag: String::new(),
            claims: 0..0,
            bindings: 0..0,
            index: 0..0,
            fences: Vec::new(),
        };
        sealed.buf[file_len - FOOTER_LEN..].copy_from_slice(&footer);
        // The sums, in one read.
        sealed
            .file
            .read_exact_at(&mut sealed.buf[len..file_len - FOOTER_LEN], len as u64)
            .ok()?;
        let header_end = sealed.find_newline(0)?;
        let header = std::str::from_utf8(&sealed.buf[..header_end]).ok()?;
        let h = header_fields(header)?;
        // Only the format with the block index: an older one is no snapshot here.
        let (SCHEMA, Some(bindings_bytes)) = (h.schema, h.bindings_bytes) else {
            return None;
        };
        if h.tag != token.tag {
            return None;
        }
        let (claims_version, claims_bytes) = (h.claims_version, h.claims_bytes);
        let (workspace_id, tag) = (h.workspace_id.into_owned(), h.tag.to_string());
        sealed.claims_version = claims_version;
        sealed.workspace_id = workspace_id;
        sealed.tag = tag;
        let claims_start = header_end + 1;
        let claims_end = claims_start.checked_add(claims_bytes)?;
        let bindings_end = claims_end.checked_add(1)?.checked_add(bindings_bytes)?;
        if bindings_end > len || claims_end >= len {
            return None;
        }
        // The claims end a line and are followed by the blank line; the bindings end a
        // line. (The index's last entry is read only by a search that reaches it, which
        // fails closed on a line without its newline: checking it here read a block more,
        // the bindings' no longer being the last.)
        sealed.ensure(claims_end, claims_end + 1)?;
        if sealed.buf[claims_end] != b'\n' {
            return None;
        }
        for end in [
            (claims_bytes > 0).then_some(claims_end),
            (bindings_bytes > 0).then_some(bindings_end),
        ]
        .into_iter()
        .flatten()
        {
            sealed.ensure(end - 1, end)?;
            if sealed.buf[end - 1] != b'\n' {
                return None;
            }
        }
        sealed.claims = claims_start..claims_end;
        sealed.bindings = claims_end + 1..bindings_end;
        sealed.index = bindings_end..len;
        Some((token, sealed))
    }

    /// The file's length.
    pub fn len(&self) -> usize {
        self.buf.len()
    }

    /// Whether the file holds nothing.
    pub fn is_empty(&self) -> bool {
        self.buf.is_empty()
    }

    /// Reads and checks the blocks holding `start..end`.
    fn ensure(&mut self, start: usize, end: usize) -> Option<()> {
        use std::os::unix::fs::FileExt;
        if end > self.len || start > end {
            return None;
        }
        let last = end.max(start + 1).div_ceil(BLOCK);
        for i in start / BLOCK..last {
            if self.checked[i] {
                continue;
            }
            let range = i * BLOCK..((i + 1) * BLOCK).min(self.len);
            self.file
                .read_exact_at(&mut self.buf[range.clone()], range.start as u64)
                .ok()?;
            let at = self.len + i * SUM_LINE;
            if sum_of(&self.buf[at..at + SUM_LINE]) != Some(block_sum(i, &self.buf[range])) {
                return None;
            }
            self.checked[i] = true;
        }
        Some(())
    }

    /// The position of the first newline at or after `from`.
    fn find_newline(&mut self, from: usize) -> Option<usize> {
        let mut at = from;
        while at < self.len {
            let end = ((at / BLOCK + 1) * BLOCK).min(self.len);
            self.ensure(at, end)?;
            if let Some(i) = memchr::memchr(b'\n', &self.buf[at..end]) {
                return Some(at + i);
            }
            at = end;
        }
        None
    }

    /// The start of the line holding `at`, not before `floor`.
    fn line_start(&mut self, floor: usize, at: usize) -> Option<usize> {
        let mut end = at;
        while end > floor {
            let start = ((end - 1) / BLOCK * BLOCK).max(floor);
            self.ensure(start, end)?;
            if let Some(i) = memchr::memrchr(b'\n', &self.buf[start..end]) {
                return Some(start + i + 1);
            }
            end = start;
        }
        Some(floor)
    }

    /// The line starting at `start` (without its newline), checked as UTF-8.
    fn line(&mut self, start: usize) -> Option<(&str, usize)> {
        let end = self.find_newline(start)?;
        Some((std::str::from_utf8(&self.buf[start..end]).ok()?, end + 1))
    }

    /// `b` narrowed by the lines earlier searches of `range` read (or the block index
    /// named) around `key`.
    fn narrow(&self, range: &std::ops::Range<usize>, key: &str, b: &mut Bounds) {
        for f in self
            .fences
            .iter()
            .filter(|f| f.range == range.start && f.next <= range.end)
        {
            if f.key.as_str() < key {
                if f.next > b.lo {
                    (b.lo, b.lo_hint) = (f.next, f.hint);
                }
            } else if f.start < b.hi {
                (b.hi, b.hi_hint) = (f.start, f.hint);
            }
        }
    }

    /// The first line of `range` whose key is not less than `key` (lines sorted by it).
    fn lower_bound(
        &mut self,
        range: std::ops::Range<usize>,
        key: &str,
        key_of: fn(&str) -> Option<Cow<'_, str>>,
    ) -> Option<usize> {
        let mut b = Bounds {
            lo: range.start,
            hi: range.end,
            lo_hint: false,
            hi_hint: false,
        };
        // Narrowed by the lines earlier searches read in this range (the same bisection
        // would have ended between them). The range's first line is looked at first: a
        // key before every line (a target's ancestor tree, which sorts before the claims
        // under it) is then answered from the block the header was read with.
        self.narrow(&range, key, &mut b);
        let mut first = b.lo == range.start && b.lo < b.hi;
        // The claims' block index, asked once the first line did not answer and more than
        // a block is left: it leaves the block or two around the key.
        let mut indexed = range.start != self.claims.start || self.index.is_empty();
        while b.lo < b.hi {
            if !first && !indexed && b.hi - b.lo > BLOCK {
                indexed = true;
                self.index_fences(key)?;
                self.narrow(&range, key, &mut b);
                continue;
            }
            let mid = if first {
                b.lo
            } else {
                b.lo + (b.hi - b.lo) / 2
            };
            first = false;
            let start = self.line_start(b.lo, mid)?;
            let (line, next) = self.line(start)?;
            let line_key = key_of(line)?.into_owned();
            let before = line_key.as_str() < key;
            self.fences.push(Fence {
                range: range.start,
                start,
                next,
                key: line_key,
                hint: false,
            });
            if before {
                (b.lo, b.lo_hint) = (next, false);
            } else {
                (b.hi, b.hi_hint) = (start, false);
            }
        }
        let lo = b.lo;
        // A bound the block index set (a hint) is checked where the search ended: a line
        // starts there, the one before it sorts before `key`, and the one at it does not.
        // The lines being sorted, that is the first not before `key`. Bounds set by lines
        // read need no check.
        if lo < range.start || lo > range.end {
            return None;
        }
        if b.lo_hint && lo > range.start {
            self.ensure(lo - 1, lo)?;
            if self.buf[lo - 1] != b'\n' {
                return None;
            }
            let start = self.line_start(range.start, lo - 1)?;
            let (line, _) = self.line(start)?;
            if key_of(line)?.as_ref() >= key {
                return None;
            }
        }
        if (b.hi_hint || lo != b.hi) && lo < range.end {
            let (line, _) = self.line(lo)?;
            if key_of(line)?.as_ref() < key {
                return None;
            }
        }
        Some(lo)
    }

    /// The two entries of the block index around `key` (the last before it, the first not
    /// before it), kept as lines a search read: a search of the claims then starts between
    /// them. Entries that cannot be lines of the claims are left out.
    fn index_fences(&mut self, key: &str) -> Option<()> {
        let index = self.index.clone();
        let claims = self.claims.clone();
        let at = self.lower_bound(index.clone(), key, resource_of)?;
        let mut around = Vec::with_capacity(2);
        if at > index.start {
            around.push(self.line_start(index.start, at - 1)?);
        }
        if at < index.end {
            around.push(at);
        }
        for start in around {
            let (line, _) = self.line(start)?;
            let (start, next, key) = block_index::entry(line)?;
            if start < claims.start || next > claims.end {
                return None;
            }
            let key = key.into_owned();
            self.fences.push(Fence {
                range: claims.start,
                start,
                next,
                key,
                hint: true,
            });
        }
        Some(())
    }

    /// The binding with `key`: `None` when a line acc did not write stands in the way,
    /// `Some(None)` when there is no such binding.
    pub fn binding(&mut self, key: &str) -> Option<Option<SnapshotBinding>> {
        let range = self.bindings.clone();
        let at = self.lower_bound(range.clone(), key, binding_key_of)?;
        if at >= range.end {
            return Some(None);
        }
        let (line, _) = self.line(at)?;
        let b = binding_line(line)?;
        Some((b.binding_key == key).then_some(b))
    }

    /// The claims whose resource is `key` (or, with `prefix`, starts with it).
    pub fn claims_at(&mut self, key: &str, prefix: bool) -> Option<Vec<SnapshotClaim>> {
        let range = self.claims.clone();
        let mut at = self.lower_bound(range.clone(), key, resource_of)?;
        let mut found = Vec::new();
        while at < range.end {
            let (line, next) = self.line(at)?;
            let claim = claim_line(line)?;
            let matches = if prefix {
                claim.resource.starts_with(key)
            } else {
                claim.resource == key
            };
            if !matches {
                break;
            }
            found.push(claim.owned());
            at = next;
        }
        Some(found)
    }

    /// Every claim that can overlap the resource `spelling` ([`spellings_overlap`]'s
    /// candidates: the spelling itself, every tree above it and itself as a tree, and for a
    /// tree everything under it), each once.
    ///
    /// [`spellings_overlap`]: crate::core::resources::spellings_overlap
    pub fn claims_overlapping(&mut self, spelling: &str) -> Option<Vec<SnapshotClaim>> {
        let mut found: Vec<SnapshotClaim> = Vec::new();
        let mut add = |claims: Vec<SnapshotClaim>| {
            for c in claims {
                if !found.iter().any(|f| f.claim_id == c.claim_id) {
                    found.push(c);
                }
            }
        };
        add(self.claims_at(spelling, false)?);
        if let Some((scheme, body)) = spelling.split_once(':') {
            let tree = body.strip_suffix("/**");
            let base = tree.unwrap_or(body);
            for (i, _) in base.match_indices('/') {
                add(self.claims_at(&format!("{scheme}:{}/**", &base[..i]), false)?);
            }
            add(self.claims_at(&format!("{scheme}:{base}/**"), false)?);
            if tree.is_some() {
                add(self.claims_at(&format!("{scheme}:{base}"), false)?);
                add(self.claims_at(&format!("{scheme}:{base}/"), true)?);
            }
        }
        Some(found)
    }

    /// The whole text, every block checked: for a caller that needs every claim.
    pub fn into_text(mut self) -> Option<String> {
        self.ensure(0, self.len)?;
        String::from_utf8(self.buf.to_vec()).ok()
    }
}

/// The read buffer of a [`SealedFile`]: zeroed pages the kernel supplies when first
/// touched, so a look-up faults in only the blocks it reads. `vec![0; n]` below glibc's
/// mmap threshold (the snapshot of a few hundred claims) is carved from the heap's top and
/// `memset`, touching every page of the file (each a page fault, about 3 µs on the hosts
/// measured) where a look-up reads two or three blocks. Anonymous memory, never the file
/// mapped: a file cut short under a mapping would kill the process instead of failing
/// closed.
mod lazy_zeroed {
    use std::ptr::NonNull;

    pub struct LazyZeroed {
        ptr: NonNull<u8>,
        len: usize,
    }

    // SAFETY: the pages are owned by this value alone, as a `Vec`'s heap block is; nothing
    // else holds the pointer.
    unsafe impl Send for LazyZeroed {}
    // SAFETY: shared access only reads, through `&[u8]`.
    unsafe impl Sync for LazyZeroed {}

    impl LazyZeroed {
        /// `len` zero bytes; `None` when the kernel gives no mapping.
        pub fn new(len: usize) -> Option<Self> {
            if len == 0 {
                return Some(LazyZeroed {
                    ptr: NonNull::dangling(),
                    len,
                });
            }
            // SAFETY: a fresh private anonymous mapping, not at a fixed address: it aliases
            // nothing, and the kernel fills it with zeros.
            let at = unsafe {
                libc::mmap(
                    std::ptr::null_mut(),
                    len,
                    libc::PROT_READ | libc::PROT_WRITE,
                    libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                    -1,
                    0,
                )
            };
            if at == libc::MAP_FAILED {
                return None;
            }
            Some(LazyZeroed {
                ptr: NonNull::new(at.cast::<u8>())?,
                len,
            })
        }
    }

    impl std::ops::Deref for LazyZeroed {
        type Target = [u8];
        fn deref(&self) -> &[u8] {
            // SAFETY: `len` readable bytes from `ptr` (zeros until written), alive until
            // the drop; a dangling pointer only for length 0.
            unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
        }
    }

    impl std::ops::DerefMut for LazyZeroed {
        fn deref_mut(&mut self) -> &mut [u8] {
            // SAFETY: as for `deref`, and `&mut self` makes this the only access.
            unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.len) }
        }
    }

    impl Drop for LazyZeroed {
        fn drop(&mut self) {
            if self.len > 0 {
                // SAFETY: the mapping `new` made, unmapped once; no slice of it outlives
                // `self`.
                unsafe {
                    libc::munmap(self.ptr.as_ptr().cast(), self.len);
                }
            }
        }
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        #[test]
        fn it_reads_as_zeros_until_written_and_keeps_what_is_written() {
            for len in [0, 1, 4095, 4096, 3 * 4096 + 7] {
                let mut buf = LazyZeroed::new(len).unwrap();
                assert_eq!(buf.len(), len);
                assert!(buf.iter().all(|&b| b == 0));
                let written: Vec<usize> = [0, len / 2, len.saturating_sub(1)]
                    .into_iter()
                    .filter(|&at| at < len)
                    .collect();
                for &at in &written {
                    buf[at] = b'x';
                }
                for (at, &b) in buf.iter().enumerate() {
                    assert_eq!(b == b'x', written.contains(&at), "len {len}, at {at}");
                }
            }
        }
    }
}

/// A binding line's key: its first field.
fn binding_key_of(line: &str) -> Option<Cow<'_, str>> {
    unescape(line.split('\t').next()?)
}

/// A claim line's resource: its last field.
fn resource_of(line: &str) -> Option<Cow<'_, str>> {
    let tab = memchr::memrchr(b'\t', line.as_bytes())?;
    unescape(&line[tab + 1..])
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

    /// `n` claims of "peer" on the trees `src/m<i>/**` (`i` padded to `width` digits), each
    /// with an id of its own.
    fn peer_trees(n: usize, width: usize) -> Vec<SnapshotClaim> {
        (0..n)
            .map(|i| {
                let mut c = claim(&format!("file:src/m{i:0width$}/**"), "peer");
                c.claim_id = format!("claim_{i}");
                c
            })
            .collect()
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
                others_until_ms: 5,
            }),
        }
    }

    #[test]
    fn the_head_of_a_snapshot_says_what_the_whole_text_says() {
        let bindings = vec![binding("k1", Some(("open", None)))];
        let mut claims: Vec<SnapshotClaim> = peer_trees(2_000, 0);
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
        let mut claims = vec![
            claim("file:src/**", "peer"),
            claim("file:src/a\\x09b\\\\c.rs", "we\tird\nname\\"),
            claim("file:docs/Read Me.md\r", ""),
        ];
        let mut bindings = vec![
            binding("k1", Some(("open", None))),
            binding("k\t2", Some(("closed", Some("par\nent")))),
            binding("k3", None),
        ];
        let text = render(&header(7, "ws\t1", 42), &claims, &bindings);
        // Eight lines, the block index's one entry, one block's sum and the footer.
        assert_eq!(text.lines().count(), 11, "{text}");
        let parsed = SnapshotText::parse(&text).unwrap();
        assert_eq!(parsed.claims_version, 7);
        assert_eq!(parsed.workspace_id, "ws\t1");
        assert_eq!(parsed.tag, "1.2.7.9.9");
        let back = parsed.owned().unwrap();
        // Sorted: claims by resource, bindings by key.
        claims.sort_by(|a, b| a.resource.cmp(&b.resource));
        bindings.sort_by(|a, b| a.binding_key.cmp(&b.binding_key));
        assert_eq!(back.claims, claims);
        assert_eq!(back.bindings, bindings);
        assert_eq!(back.written_at_ms, 42);
        assert_eq!(parsed.has_live(0), Some(true));
        assert_eq!(parsed.has_live(1_700_000_000_000), Some(false));
        assert_eq!(parsed.binding("k\t2"), Some(Some(bindings[0].clone())));
        assert_eq!(parsed.binding("k4"), Some(None));
        assert!(bindings[1].is_live());
        assert!(!bindings[0].is_live() && !bindings[2].is_live());
        // A field without an escape is borrowed, not copied.
        let plain = parsed.claims().nth(1).unwrap().unwrap();
        assert_eq!(plain.resource, "file:src/**");
        assert!(matches!(plain.resource, Cow::Borrowed(_)));
    }

    #[test]
    fn a_text_cut_short_extended_or_changed_anywhere_fails_its_sums() {
        let claims: Vec<SnapshotClaim> = (0..300)
            .map(|i| claim(&format!("file:src/m{i}/**"), "peer"))
            .collect();
        let text = render(&header(7, "ws", 42), &claims, &[]);
        assert!(text.len() > 3 * BLOCK);
        let content = content_of(&text).unwrap();
        assert!(SnapshotText::parse(&text).is_some());
        // One byte changed in each block, or a block zeroed as a crash can leave it.
        for at in [0, BLOCK + 7, 2 * BLOCK + 100, content.len() - 2] {
            let mut bytes = text.clone().into_bytes();
            bytes[at] = if bytes[at] == b'7' { b'8' } else { b'7' };
            let changed = String::from_utf8(bytes).unwrap();
            assert_eq!(content_of(&changed), None, "byte {at}");
            assert!(SnapshotText::parse(&changed).is_none());
        }
        let zeroed = text.replacen(&text[BLOCK..2 * BLOCK], &"\0".repeat(BLOCK), 1);
        assert_eq!(content_of(&zeroed), None);
        for cut in [text.len() - 1, text.len() - FOOTER_LEN, content.len(), 10] {
            assert_eq!(content_of(&text[..cut]), None, "cut at {cut}");
        }
        assert_eq!(content_of(&format!("{text}x\n")), None);
        // Resealed, the same content reads back.
        assert_eq!(content_of(&seal_text(content.to_string())), Some(content));
    }

    #[test]
    fn sums_of_parts_are_the_sums_of_the_parts_joined() {
        let text: String = (0..3 * BLOCK + 123)
            .map(|i| (b'a' + (i % 23) as u8) as char)
            .collect();
        let whole = seal_text(text.clone());
        for cuts in [
            vec![],
            vec![0],
            vec![1],
            vec![BLOCK],
            vec![BLOCK - 1, BLOCK + 1],
            vec![10, 20, 2 * BLOCK + 5],
            vec![text.len()],
        ] {
            let mut parts = Vec::new();
            let mut at = 0;
            for cut in cuts.iter().chain([&text.len()]) {
                parts.push(&text.as_bytes()[at..*cut]);
                at = *cut;
            }
            let sealed = format!("{text}{}", seal_of_parts(&parts));
            assert_eq!(sealed, whole, "{cuts:?}");
        }
    }

    /// A store file, a snapshot of `claims` and `bindings` beside it and the token that
    /// seals it.
    fn published(
        claims: &[SnapshotClaim],
        bindings: &[SnapshotBinding],
    ) -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let store = dir.path().join("acc.db");
        std::fs::write(&store, b"x").unwrap();
        let tag = super::super::guard_token::new_tag(&store, 7, 3).unwrap();
        let h = Header {
            claims_version: 7,
            workspace_id: "ws",
            now_ms: 42,
            tag: &tag,
        };
        std::fs::write(path_for(&store), render(&h, claims, bindings)).unwrap();
        super::super::guard_token::publish(&store, &tag, &path_for(&store), None).unwrap();
        (dir, store)
    }

    #[test]
    fn a_look_up_finds_what_a_scan_of_every_claim_finds() {
        use crate::core::resources::spellings_overlap;
        let mut claims = Vec::new();
        let names = [
            "a", "a b", "a.rs", "a/b", "a/b/c.rs", "a/bb", "ab", "b", "a-",
        ];
        for (i, name) in names.iter().enumerate() {
            for (j, spelt) in [format!("file:{name}"), format!("file:{name}/**")]
                .into_iter()
                .enumerate()
            {
                let mut c = claim(&spelt, &format!("p{}", i % 3));
                c.claim_id = format!("claim_{i}_{j}");
                claims.push(c);
            }
        }
        claims.push(claim("port:8080", "peer"));
        // Many more, so that the search crosses blocks.
        for i in 0..3_000 {
            let mut c = claim(&format!("file:src/m{i}/lib.rs"), "peer");
            c.claim_id = format!("claim_m{i}");
            claims.push(c);
        }
        let bindings: Vec<SnapshotBinding> = (0..500)
            .map(|i| binding(&format!("k{i:04}"), Some(("open", None))))
            .collect();
        let (_dir, store) = published(&claims, &bindings);
        let (_, mut sealed) = SealedFile::open(&store).unwrap();
        assert_eq!(sealed.claims_version, 7);
        let lookups = [
            "file:a",
            "file:a/**",
            "file:a/b",
            "file:a/b/**",
            "file:a/b/c.rs",
            "file:ab",
            "file:a b",
            "file:b/x/y",
            "file:c",
            "file:c/**",
            "port:8080",
            "port:80",
            "file:src/m1234/lib.rs",
            "file:src/m1234/**",
            "file:src/**",
            "file:src/m999",
            "file:**",
            "nothing",
        ];
        for lookup in lookups {
            let mut want: Vec<&str> = claims
                .iter()
                .filter(|c| spellings_overlap(lookup, &c.resource))
                .map(|c| c.claim_id.as_str())
                .collect();
            let found = sealed.claims_overlapping(lookup).unwrap();
            let mut got: Vec<&str> = found
                .iter()
                .filter(|c| spellings_overlap(lookup, &c.resource))
                .map(|c| c.claim_id.as_str())
                .collect();
            want.sort();
            got.sort();
            assert_eq!(got, want, "{lookup}");
        }
        for i in [0, 1, 250, 499] {
            let key = format!("k{i:04}");
            let b = sealed.binding(&key).unwrap().unwrap();
            assert_eq!(b.binding_key, key);
        }
        assert_eq!(sealed.binding("k0250x"), Some(None));
        assert_eq!(sealed.binding("a"), Some(None));
        assert_eq!(sealed.binding("z"), Some(None));
        let text = sealed.into_text().unwrap();
        // A binding and a file's claims read a few blocks of the many.
        let (_, mut sealed) = SealedFile::open(&store).unwrap();
        assert!(sealed.binding("k0250").unwrap().is_some());
        assert_eq!(
            sealed
                .claims_overlapping("file:src/m1234/lib.rs")
                .unwrap()
                .len(),
            1
        );
        let read = sealed.checked.iter().filter(|c| **c).count();
        assert!(
            read <= 16 && sealed.checked.len() > 40,
            "{read} blocks read"
        );
        assert_eq!(text, std::fs::read_to_string(path_for(&store)).unwrap());
    }

    /// Earlier searches narrow later ones: whatever order the look-ups come in, one file
    /// answers each as a file opened for it alone does, and a target's ancestors (trees
    /// sorting before every claim under them) cost no block beyond the target's own.
    #[test]
    fn look_ups_in_any_order_find_what_each_finds_alone() {
        let mut claims = Vec::new();
        for i in 0..10_000 {
            let mut c = claim(&format!("file:src/module_{i:05}/**"), "peer");
            c.claim_id = format!("claim_m{i}");
            claims.push(c);
        }
        for (i, r) in [
            "file:src",
            "file:src/module_05000/a.rs",
            "file:zz/**",
            "file:!/x",
        ]
        .iter()
        .enumerate()
        {
            let mut c = claim(r, "peer");
            c.claim_id = format!("claim_x{i}");
            claims.push(c);
        }
        let bindings = vec![binding("k1", Some(("open", None)))];
        let (_dir, store) = published(&claims, &bindings);
        let lookups = [
            "file:src/module_09999/new_file.rs",
            "file:src/**",
            "file:src/module_05000/a.rs",
            "file:src/module_05000/**",
            "file:src",
            "file:!/x/y",
            "file:zz/a",
            "file:docs/notes.md",
            "file:src/module_00000/x",
            "file:src/module_10000/x",
            "file:**",
        ];
        let ids = |found: Vec<SnapshotClaim>| {
            let mut ids: Vec<String> = found.into_iter().map(|c| c.claim_id).collect();
            ids.sort();
            ids
        };
        let alone: Vec<Vec<String>> = lookups
            .iter()
            .map(|l| {
                let (_, mut sealed) = SealedFile::open(&store).unwrap();
                ids(sealed.claims_overlapping(l).unwrap())
            })
            .collect();
        assert_eq!(alone[0], ["claim_m9999"]);
        assert_eq!(alone[1].len(), 10_002, "all under src/ and src itself");
        let n = lookups.len();
        for order in [
            (0..n).collect::<Vec<_>>(),
            (0..n).rev().collect(),
            (0..n).map(|i| (i * 7) % n).collect(),
        ] {
            let (_, mut sealed) = SealedFile::open(&store).unwrap();
            assert!(sealed.binding("k1").unwrap().is_some());
            for &i in &order {
                let got = ids(sealed.claims_overlapping(lookups[i]).unwrap());
                assert_eq!(got, alone[i], "{} after {order:?}", lookups[i]);
            }
        }
        // The bench's deny at 10,000 claims: the target, then its ancestors' trees.
        let (_dir, store) = published(&claims[..10_000], &bindings);
        let (_, mut sealed) = SealedFile::open(&store).unwrap();
        assert!(sealed.binding("k1").unwrap().is_some());
        let before = sealed.checked.iter().filter(|c| **c).count();
        sealed
            .claims_at("file:src/module_09999/new_file.rs", false)
            .unwrap();
        let target = sealed.checked.iter().filter(|c| **c).count();
        let found = sealed
            .claims_overlapping("file:src/module_09999/new_file.rs")
            .unwrap();
        assert_eq!(ids(found), ["claim_m9999"]);
        let all = sealed.checked.iter().filter(|c| **c).count();
        // The index: the first line, the index's entries around the target, the block
        // between them (a bisection of the claims read twelve).
        assert!(
            all - target <= 1 && target - before <= 3,
            "{before} blocks for the binding, {target} with the target, {all} in all, of {}",
            sealed.checked.len()
        );
    }

    /// `content` (a snapshot's text before its sums) sealed and published under the token's
    /// tag, as acc would publish it: what no forger can do (the token seals the file acc
    /// wrote), done here to show what the reader makes of whatever the file says.
    fn republish(store: &Path, content: &str) {
        let tag = super::super::guard_token::read(store).unwrap().tag;
        std::fs::write(path_for(store), seal_text(content.to_string())).unwrap();
        super::super::guard_token::publish(store, &tag, &path_for(store), None).unwrap();
    }

    /// The content of a published snapshot split before its block index.
    fn before_index(store: &Path) -> (String, String) {
        let text = std::fs::read_to_string(path_for(store)).unwrap();
        let content = content_of(&text).unwrap();
        let (header, _) = content.split_once('\n').unwrap();
        let h = header_fields(header).unwrap();
        let at = header.len() + 1 + h.claims_bytes + 1 + h.bindings_bytes.unwrap();
        (content[..at].to_string(), content[at..].to_string())
    }

    fn claim_ids(found: Vec<SnapshotClaim>) -> Vec<String> {
        let mut ids: Vec<String> = found.into_iter().map(|c| c.claim_id).collect();
        ids.sort();
        ids
    }

    /// The block index is a hint: whatever it says (keys that sort elsewhere, offsets inside
    /// lines or outside the claims, entries swapped, dropped or repeated), a look-up finds
    /// every claim a scan finds, or fails closed (`None`: the store path judges). Never
    /// fewer claims.
    #[test]
    fn an_index_that_lies_never_hides_a_claim() {
        let mut claims = Vec::new();
        for i in 0..2_000 {
            let mut c = claim(&format!("file:src/m{i:04}/**"), "peer");
            c.claim_id = format!("claim_m{i}");
            claims.push(c);
        }
        for (i, r) in ["file:src/m1500/a.rs", "file:src", "file:zz/**"]
            .iter()
            .enumerate()
        {
            let mut c = claim(r, "peer");
            c.claim_id = format!("claim_x{i}");
            claims.push(c);
        }
        let (_dir, store) = published(&claims, &[binding("k1", Some(("open", None)))]);
        let lookups = [
            "file:src/m1999/new.rs",
            "file:src/m1500/a.rs",
            "file:src/m0000/x",
            "file:src/m0777/**",
            "file:zz/q",
            "file:docs/a.md",
            "file:src/m2000/x",
        ];
        let want: Vec<Vec<String>> = lookups
            .iter()
            .map(|l| {
                let mut ids: Vec<String> = claims
                    .iter()
                    .filter(|c| crate::core::resources::spellings_overlap(l, &c.resource))
                    .map(|c| c.claim_id.clone())
                    .collect();
                ids.sort();
                ids
            })
            .collect();
        let (lines, index) = before_index(&store);
        let entries: Vec<(usize, usize, String)> = index
            .lines()
            .map(|l| {
                let (s, n, k) = block_index::entry(l).unwrap();
                (s, n, k.into_owned())
            })
            .collect();
        assert!(entries.len() > 20, "{} entries", entries.len());
        let render = |entries: &[(usize, usize, String)]| -> String {
            entries
                .iter()
                .map(|(s, n, k)| format!("{s}\t{n}\t{k}\n"))
                .collect()
        };
        type Entry = (usize, usize, String);
        let map = |f: &dyn Fn(usize, &Entry) -> Entry| {
            render(
                &entries
                    .iter()
                    .enumerate()
                    .map(|(i, e)| f(i, e))
                    .collect::<Vec<_>>(),
            )
        };
        let n = entries.len();
        let lies = [
            ("honest", index.clone()),
            ("none", String::new()),
            (
                "keys sort first",
                map(&|_, (s, x, _)| (*s, *x, "file:".into())),
            ),
            (
                "keys sort last",
                map(&|_, (s, x, _)| (*s, *x, "file:~".into())),
            ),
            (
                "inside lines",
                map(&|_, (s, x, k)| (s + 1, x + 1, k.clone())),
            ),
            (
                "next entry's key",
                map(&|i, (s, x, _)| (*s, *x, entries[(i + 1) % n].2.clone())),
            ),
            (
                "previous entry's offsets",
                map(&|i, (_, _, k)| {
                    let (s, x, _) = &entries[(i + n - 1) % n];
                    (*s, *x, k.clone())
                }),
            ),
            (
                "all the first line",
                map(&|_, (_, _, k)| (entries[0].0, entries[0].1, k.clone())),
            ),
            (
                "past the claims",
                map(&|_, (_, _, k)| (lines.len() - 20, lines.len() - 10, k.clone())),
            ),
            ("reversed", {
                let mut e = entries.clone();
                e.reverse();
                render(&e)
            }),
            (
                "every other",
                render(&entries.iter().step_by(2).cloned().collect::<Vec<_>>()),
            ),
            ("not entries", "x\ty\tz\n".repeat(3)),
        ];
        for (lie, index) in &lies {
            republish(&store, &format!("{lines}{index}"));
            let mut answered = 0;
            for (l, want) in lookups.iter().zip(&want) {
                let (_, mut sealed) = SealedFile::open(&store).expect("opens");
                if let Some(found) = sealed.claims_overlapping(l) {
                    assert_eq!(&claim_ids(found), want, "{lie}: {l}");
                    answered += 1;
                }
            }
            // The honest index and none at all answer everything.
            if ["honest", "none", "every other"].contains(lie) {
                assert_eq!(answered, lookups.len(), "{lie}");
            }
        }
    }

    /// A snapshot an acc before the block index published is no snapshot to the guard's
    /// block reader (the store path judges), and still the claims and bindings it names to
    /// the readers of the whole text (a tamper marker's or a witness's claims are kept
    /// across the upgrade).
    #[test]
    fn a_snapshot_of_version_4_is_read_whole_but_never_by_block() {
        let claims: Vec<SnapshotClaim> = peer_trees(300, 3);
        let bindings = [binding("k1", Some(("open", None)))];
        let (_dir, store) = published(&claims, &bindings);
        let (lines, _) = before_index(&store);
        let (header, rest) = lines.split_once('\n').unwrap();
        let (v4_header, bindings_bytes) = header.rsplit_once('\t').unwrap();
        assert!(bindings_bytes.parse::<usize>().is_ok());
        let v4_header = v4_header.replacen("acc-guarded-claims\t5\t", "acc-guarded-claims\t4\t", 1);
        republish(&store, &format!("{v4_header}\n{rest}"));
        assert!(SealedFile::open(&store).is_none());
        let (_, text) = vouched_text(&store).unwrap();
        let whole = read(&path_for(&store)).unwrap().unwrap();
        assert_eq!(whole.claims_version, 7);
        assert_eq!(SnapshotText::parse(&text).unwrap().owned().unwrap(), whole);
        let mut sorted = claims.clone();
        sorted.sort_by(|a, b| a.resource.cmp(&b.resource));
        assert_eq!(whole.claims, sorted);
        assert_eq!(whole.bindings, bindings);
        let (_, head) = vouched_head(&store, 0).unwrap();
        assert_eq!((head.claims_version, head.live), (7, Some(true)));
        // The same file as version 5 again: the block reader reads it.
        republish(&store, &lines);
        assert!(SealedFile::open(&store).is_some());
    }

    #[test]
    fn a_sealed_file_that_is_not_what_acc_wrote_fails_closed() {
        let claims: Vec<SnapshotClaim> = peer_trees(400, 3);
        let (_dir, store) = published(&claims, &[binding("k1", Some(("open", None)))]);
        let file = path_for(&store);
        let good = std::fs::read_to_string(&file).unwrap();
        assert!(SealedFile::open(&store).is_some());
        // Rewritten with one claim fewer: the token's seal no longer matches.
        let forged = good.replacen("file:src/m200/**", "file:src/m200/*x", 1);
        std::fs::write(&file, &forged).unwrap();
        assert!(SealedFile::open(&store).is_none());
        // Sealed anew by a token (a crash that lost a block after publication): the block
        // read for the look-up fails its sum.
        let tag = SnapshotText::parse(&good).unwrap().tag.to_string();
        super::super::guard_token::publish(&store, &tag, &file, None).unwrap();
        let (_, mut sealed) = SealedFile::open(&store).unwrap();
        assert_eq!(sealed.claims_overlapping("file:src/m200/a.rs"), None);
        // Cut short and sealed: its footer no longer matches its length.
        std::fs::write(&file, &good[..good.len() - 5]).unwrap();
        super::super::guard_token::publish(&store, &tag, &file, None).unwrap();
        assert!(SealedFile::open(&store).is_none());
    }

    /// A store under a data home's `workspaces` directory (so it has a witness) with two
    /// participants, three sessions, 300 guarded claims (the newest of `p` held by `s2`)
    /// and one binding, published.
    fn populated_store() -> (tempfile::TempDir, crate::store::Store) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("acc/workspaces/ws1/acc.db");
        let mut store = crate::store::testing::open(&path);
        store
            .write(|c| {
                three_sessions(c)?;
                for i in 0..300 {
                    let owner = ["s1", "s2", "s3"][i % 3];
                    c.execute(
                        "INSERT INTO claims VALUES (?1, ?2, ?3, 'file', 'exclusive', 'guarded',
                         NULL, 1, ?4, 'g')",
                        rusqlite::params![
                            format!("claim_{i:03}"),
                            owner,
                            format!("file:src/m{i:03}/**"),
                            5_000_000_000_000_i64 + i as i64
                        ],
                    )?;
                }
                bind(c, "k1", "s1")
            })
            .unwrap();
        (dir, store)
    }

    /// Participants `p` and `q`, with sessions `s1` and `s2` of `p` and `s3` of `q`.
    fn three_sessions(c: &Connection) -> Result<()> {
        c.execute_batch(
            "INSERT INTO participants VALUES ('p', 'p', 'agent', 1), ('q', 'q', 'agent', 1);",
        )?;
        for (s, p) in [("s1", "p"), ("s2", "p"), ("s3", "q")] {
            session(c, s, p)?;
        }
        Ok(())
    }

    fn session(c: &Connection, id: &str, participant: &str) -> Result<()> {
        c.execute(
            "INSERT INTO sessions (session_id, participant_id, generation, harness, state,
                 enforcement, lifecycle, cadence_ms, started_at, heartbeat_at)
             VALUES (?1, ?2, 'g', 'h', 'open', 'guarded', 'managed', 1000, 1, 1)",
            [id, participant],
        )?;
        Ok(())
    }

    fn bind(c: &Connection, key: &str, session: &str) -> Result<()> {
        c.execute(
            "INSERT INTO hook_bindings VALUES (?1, ?2, 'g', 'claude-code', NULL, NULL, 1)",
            [key, session],
        )?;
        Ok(())
    }

    /// The snapshot as a whole publication writes it for the store's present state, with
    /// the tag and time of `published`.
    fn written_whole(store: &mut crate::store::Store, published: &str) -> String {
        let parsed = SnapshotText::parse(published).unwrap();
        let (tag, at, ws) = (
            parsed.tag.to_string(),
            parsed.written_at_ms,
            parsed.workspace_id.to_string(),
        );
        let elsewhere = tempfile::tempdir().unwrap();
        let file = elsewhere.path().join(SNAPSHOT_FILE);
        store.read(|c| write(c, &file, &ws, at, &tag)).unwrap();
        std::fs::read_to_string(file).unwrap()
    }

    /// The snapshot written from the guarded rows the proof's read collected is the one its
    /// own statement writes, byte for byte: the same claims (expired ones included,
    /// advisory ones left out) in the order of
    /// `ORDER BY resource, rowid` (resources inserted out of order, one resource twice).
    #[test]
    fn the_snapshot_from_the_proofs_read_is_the_one_its_own_statement_writes() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("acc/workspaces/ws1/acc.db");
        let mut store = crate::store::testing::open(&path);
        store
            .write(|c| {
                three_sessions(c)?;
                let rows: [(&str, &str, &str, &str, i64); 6] = [
                    ("claim_z", "s1", "file:z/**", "guarded", 5_000_000_000_000),
                    ("claim_b2", "s3", "file:b/**", "guarded", 5_000_000_000_001),
                    ("claim_a", "s2", "file:a.rs", "guarded", 5),
                    (
                        "claim_adv",
                        "s1",
                        "file:a/**",
                        "advisory",
                        5_000_000_000_000,
                    ),
                    ("claim_b1", "s1", "file:b/**", "guarded", 5_000_000_000_002),
                    (
                        "claim_\u{e9}",
                        "s3",
                        "file:\u{e9}.rs",
                        "guarded",
                        5_000_000_000_000,
                    ),
                ];
                for (id, owner, resource, enforcement, expires) in rows {
                    c.execute(
                        "INSERT INTO claims VALUES (?1, ?2, ?3, 'file', 'shared', ?4,
                         NULL, 1, ?5, 'g')",
                        rusqlite::params![id, owner, resource, enforcement, expires],
                    )?;
                }
                Ok(())
            })
            .unwrap();
        let elsewhere = tempfile::tempdir().unwrap();
        let (own, shared) = (
            elsewhere.path().join("own.tsv"),
            elsewhere.path().join("shared.tsv"),
        );
        store
            .read(|c| {
                let rendered = super::super::claims_proof::render(c, "tag", 1000, true)?;
                assert!(rendered.proof.is_some());
                let guarded = rendered.guarded.expect("every row is acc's");
                assert_eq!(guarded.rows.len(), 5);
                write_with(c, &shared, "ws1", 7, "tag", Some(&guarded))?;
                write(c, &own, "ws1", 7, "tag")
            })
            .unwrap();
        let own = std::fs::read_to_string(own).unwrap();
        assert_eq!(std::fs::read_to_string(shared).unwrap(), own);
        let parsed = SnapshotText::parse(&own).unwrap();
        let ids: Vec<String> = parsed
            .claims()
            .map(|c| c.unwrap().claim_id.to_string())
            .collect();
        assert_eq!(
            ids,
            ["claim_a", "claim_b2", "claim_b1", "claim_z", "claim_\u{e9}"]
        );
        // What the publication itself wrote beside the store is that snapshot too.
        let published = std::fs::read_to_string(path_for(&path)).unwrap();
        assert_eq!(
            SnapshotText::parse(&published).unwrap().body,
            parsed.body,
            "the publication's claim lines"
        );
    }

    /// The witness is rewritten only when what the tamper check reads from it (the
    /// workspace and the claim lines) would change: an advisory claim leaves it alone, a
    /// guarded one, a damaged witness and a link put at its name are written over.
    #[test]
    fn the_witness_is_rewritten_only_when_its_claims_would_change() {
        use std::os::unix::fs::MetadataExt;
        let (dir, mut store) = populated_store();
        let witness = witness_path(store.path()).unwrap();
        let ino = |p: &Path| std::fs::symlink_metadata(p).unwrap().ino();
        let before = (std::fs::read(&witness).unwrap(), ino(&witness));
        let advisory = |c: &Connection, id: &str| {
            c.execute(
                "INSERT INTO claims VALUES (?1, 's3', ?2, 'file', 'exclusive', 'advisory',
                 NULL, 1, 5000000000000, 'g')",
                rusqlite::params![id, format!("file:adv/{id}.rs")],
            )?;
            Ok(())
        };
        store.write(|c| advisory(c, "claim_a1")).unwrap();
        // A new snapshot (its header names the new claims version), the same witness.
        assert_ne!(
            SnapshotText::parse(&std::fs::read_to_string(path_for(store.path())).unwrap())
                .unwrap()
                .claims_version,
            SnapshotText::parse(std::str::from_utf8(&before.0).unwrap())
                .unwrap()
                .claims_version
        );
        assert_eq!((std::fs::read(&witness).unwrap(), ino(&witness)), before);

        // A guarded claim: the witness names it.
        store
            .write(|c| {
                c.execute(
                    "INSERT INTO claims VALUES ('claim_g1', 's3', 'file:g/1.rs', 'file',
                     'exclusive', 'guarded', NULL, 1, 5000000000000, 'g')",
                    [],
                )?;
                Ok(())
            })
            .unwrap();
        let text = std::fs::read_to_string(&witness).unwrap();
        let names = |t: &str| {
            SnapshotText::parse(t)
                .unwrap()
                .claims()
                .any(|c| c.unwrap().claim_id == "claim_g1")
        };
        assert!(names(&text));

        // A witness whose claim lines were edited (its sums no longer hold): written over.
        let damaged = text.replacen("claim_g1", "claim_x1", 1);
        std::fs::write(&witness, &damaged).unwrap();
        store.write(|c| advisory(c, "claim_a2")).unwrap();
        assert!(names(&std::fs::read_to_string(&witness).unwrap()));

        // A link to a file holding the same text: replaced by a file, the target untouched.
        let target = dir.path().join("elsewhere.tsv");
        std::fs::rename(&witness, &target).unwrap();
        std::os::unix::fs::symlink(&target, &witness).unwrap();
        let kept = std::fs::read(&target).unwrap();
        store.write(|c| advisory(c, "claim_a3")).unwrap();
        assert!(std::fs::symlink_metadata(&witness).unwrap().is_file());
        assert!(names(&std::fs::read_to_string(&witness).unwrap()));
        assert_eq!(std::fs::read(&target).unwrap(), kept);
    }

    #[test]
    fn a_binding_alone_copies_the_claim_lines_and_writes_what_a_whole_publication_writes() {
        let (_dir, mut store) = populated_store();
        let snapshot = path_for(store.path());
        let witness = witness_path(store.path()).unwrap();
        let first = std::fs::read_to_string(&snapshot).unwrap();
        assert_eq!(SnapshotText::parse(&first).unwrap().claims().count(), 300);
        let witnessed = std::fs::read(&witness).unwrap();
        // A new session of `p` bound: the only change is a binding and a session.
        store
            .write(|c| {
                session(c, "s4", "p")?;
                bind(c, "k4", "s4")
            })
            .unwrap();
        let second = std::fs::read_to_string(&snapshot).unwrap();
        assert_ne!(second, first);
        assert_eq!(second, written_whole(&mut store, &second));
        // Copied, not rebuilt: the witness (whose claims are these) was left as it was.
        assert_eq!(std::fs::read(&witness).unwrap(), witnessed);
        let (_, mut sealed) = SealedFile::open(store.path()).unwrap();
        let s4 = sealed.binding("k4").unwrap().unwrap().session.unwrap();
        assert_eq!(s4.others_until_ms, 5_000_000_000_000 + 298);
        let s1 = sealed.binding("k1").unwrap().unwrap().session.unwrap();
        assert_eq!(s1.others_until_ms, 5_000_000_000_000 + 298);

        // A claim changed in the same deferral as a binding: rebuilt from the store.
        let began = store.begin_deferral();
        store.write(|c| bind(c, "k5", "s3")).unwrap();
        store
            .write(|c| {
                c.execute("DELETE FROM claims WHERE claim_id = 'claim_150'", [])?;
                Ok(())
            })
            .unwrap();
        store.end_deferral(began);
        let third = std::fs::read_to_string(&snapshot).unwrap();
        assert_eq!(third, written_whole(&mut store, &third));
        assert_eq!(SnapshotText::parse(&third).unwrap().claims().count(), 299);
        assert_ne!(std::fs::read(&witness).unwrap(), witnessed);

        // A session removed drops its claims' lines: rebuilt too.
        store
            .write(|c| {
                c.execute("DELETE FROM hook_bindings WHERE session_id = 's2'", [])?;
                c.execute(
                    "UPDATE sessions SET participant_id = 'q' WHERE session_id = 's2'",
                    [],
                )?;
                Ok(())
            })
            .unwrap();
        let fourth = std::fs::read_to_string(&snapshot).unwrap();
        assert_eq!(fourth, written_whole(&mut store, &fourth));
        assert!(fourth.contains("\tclaim_001\ts2\tq\tfile:src/m001/**\n"));
    }

    #[test]
    fn bindings_and_participants_are_read_only_when_there_are_some_and_always_then() {
        // The publication skips the bindings' join when the store has none and the sessions'
        // participants until a guarded claim needs one: each appears as soon as it exists.
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("acc/workspaces/ws1/acc.db");
        let mut store = crate::store::testing::open(&path);
        let claim = |c: &Connection, id: &str, enforcement: &str| -> Result<()> {
            c.execute(
                "INSERT INTO claims VALUES (?1, 's1', ?2, 'file', 'exclusive', ?3, NULL, 1,
                 5000000000000, 'g')",
                [id, &format!("file:{id}"), enforcement],
            )?;
            Ok(())
        };
        store
            .write(|c| {
                c.execute_batch("INSERT INTO participants VALUES ('p', 'p', 'agent', 1);")?;
                session(c, "s1", "p")?;
                claim(c, "advisory_1", "advisory")
            })
            .unwrap();
        let snapshot = path_for(store.path());
        let read = || std::fs::read_to_string(&snapshot).unwrap();
        // The binding `k1` as the published snapshot answers it.
        let k1 = |store: &crate::store::Store| {
            SealedFile::open(store.path())
                .unwrap()
                .1
                .binding("k1")
                .unwrap()
        };
        let first = read();
        assert_eq!(SnapshotText::parse(&first).unwrap().claims().count(), 0);
        assert!(k1(&store).is_none());
        store.write(|c| bind(c, "k1", "s1")).unwrap();
        let second = read();
        assert_eq!(second, written_whole(&mut store, &second));
        let bound = k1(&store).unwrap();
        assert_eq!(bound.session.unwrap().participant_id, "p");
        store.write(|c| claim(c, "guarded_1", "guarded")).unwrap();
        let third = read();
        assert_eq!(third, written_whole(&mut store, &third));
        assert!(
            third.contains("\tguarded_1\ts1\tp\tfile:guarded_1\n"),
            "{third}"
        );
        store
            .write(|c| {
                c.execute("DELETE FROM hook_bindings", [])?;
                Ok(())
            })
            .unwrap();
        assert!(k1(&store).is_none());
    }

    #[test]
    fn a_publication_never_copies_claim_lines_it_cannot_vouch_for() {
        let (_dir, mut store) = populated_store();
        let snapshot = path_for(store.path());
        let good = std::fs::read_to_string(&snapshot).unwrap();
        let tag = SnapshotText::parse(&good).unwrap().tag.to_string();
        let every_claim = |text: &str| {
            let parsed = SnapshotText::parse(text).unwrap();
            parsed.claims().filter(|c| c.is_some()).count()
        };
        let forged = seal_text(content_of(&good).unwrap().replacen(
            "file:src/m200/**",
            "file:src/m200/*x",
            1,
        ));
        // Forged in place (its sums recomputed): the token no longer seals it.
        std::fs::write(&snapshot, &forged).unwrap();
        store.write(|c| bind(c, "k2", "s2")).unwrap();
        let after = std::fs::read_to_string(&snapshot).unwrap();
        assert!(after.contains("file:src/m200/**") && !after.contains("*x"));
        assert_eq!(after, written_whole(&mut store, &after));
        assert_eq!(every_claim(&after), 300);

        // Forged and sealed anew by a token (what a crash losing a block after the
        // publication looks like): its sums fail, nothing of it is copied.
        let tag_now = SnapshotText::parse(&after).unwrap().tag.to_string();
        let mut damaged = after.clone().into_bytes();
        let at = after.find("file:src/m250/**").unwrap();
        damaged[at + 10] = b'9';
        std::fs::write(&snapshot, &damaged).unwrap();
        crate::store::guard_token::publish(store.path(), &tag_now, &snapshot, None).unwrap();
        store.write(|c| bind(c, "k3", "s3")).unwrap();
        let after = std::fs::read_to_string(&snapshot).unwrap();
        assert!(after.contains("file:src/m250/**"));
        assert_eq!(after, written_whole(&mut store, &after));

        // Replaced by an earlier publication's file under its old token's tag: its seal
        // is not the token's.
        std::fs::write(&snapshot, &good).unwrap();
        store.write(|c| bind(c, "k6", "s1")).unwrap();
        let after = std::fs::read_to_string(&snapshot).unwrap();
        assert_ne!(SnapshotText::parse(&after).unwrap().tag, tag);
        assert!(after.contains("\nk6\ts1\t"));
        assert_eq!(after, written_whole(&mut store, &after));
    }

    #[test]
    fn each_session_learns_the_latest_claim_of_another_as_its_participant() {
        let mut latest = LatestBySession::default();
        latest.add("p", "s1", 10);
        assert_eq!(latest.others("p", "s1"), 0);
        assert_eq!(latest.others("p", "s2"), 10);
        latest.add("p", "s2", 5);
        latest.add("p", "s3", 7);
        latest.add("p", "s2", 20);
        latest.add("q", "s9", 99);
        assert_eq!(latest.others("p", "s2"), 10);
        assert_eq!(latest.others("p", "s1"), 20);
        assert_eq!(latest.others("p", "s3"), 20);
        assert_eq!(latest.others("r", "s1"), 0);
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
        let good = content_of(&good).unwrap().to_string();
        for bad in [
            String::new(),
            "{\"schema\":1,\"claims\":[]}".to_string(),
            good.replace("acc-guarded-claims\t5", "acc-guarded-claims\t3"),
            // Version 4's header has no bindings' length.
            good.replace("acc-guarded-claims\t5", "acc-guarded-claims\t4"),
            good.replacen("\t36\n", "\t35\n", 1),
            good.replacen("\t36\n", "\t99\n", 1),
            good.replace("\n\n", "\n"),
            good.replace("\topen\t", "\tajar\t"),
            good.replace("\topen\t", "\topen\textra\t"),
            good.replace("\tpeer\t", "\tpeer\textra\t"),
            good.replace("\tpeer\t", "\tpe\\qer\t"),
            good.replacen("\n1", "\nsoon", 1),
            good.trim_end().to_string(),
        ] {
            // Sums that match: the format refuses it. Without them, the sums do.
            assert!(SnapshotText::parse(&bad).is_none());
            let bad = seal_text(bad);
            let parsed = SnapshotText::parse(&bad);
            assert!(
                parsed.is_none_or(|p| p.owned().is_none()),
                "accepted: {bad:?}"
            );
        }
    }
}
