//! What a losing `acc claim` needs to be refused without opening SQLite
//! (`<store dir>/claims-proof.tsv`): every live claim, in the order the store's conflict
//! check visits them, and the sessions that check reads (the claimant's credentials, each
//! holder's presence facts). Written at each publication of the guard's snapshot, under the
//! same write lock, and sealed by the same token ([`super::guard_token`]): a reader that
//! finds the token naming this file's seal and tag knows no claim, session or binding
//! changed since it was written.
//!
//! Written only while it can prove what the store path would answer: no hook binding (a
//! hooked client's caller is judged from the process table and the bindings, which this
//! file does not carry) and at most [`MAX_CLAIMS`] live claims and [`MAX_SESSIONS`]
//! sessions (what a publication writes stays bounded). Otherwise no file is written and
//! every claim takes the store path.

use super::guard_snapshot::GuardedRows;
use crate::error::{AccError, ErrorCode, Result};
use crate::store::engine::{Connection, Row, params};
use rusqlite::types::ValueRef;
use std::fmt::Write as _;
use std::io::Read;
use std::path::{Path, PathBuf};

/// The file's name, beside `acc.db`.
pub const PROOF_FILE: &str = "claims-proof.tsv";

const MAGIC: &str = "acc-claims-proof";
/// The last line: a proof cut short at a line's end is no proof.
const END: &str = "end\n";
const FORMAT: u32 = 1;

/// More live claims than this and no proof is written (a publication stays bounded).
pub const MAX_CLAIMS: usize = 512;
/// More sessions to name than this and no proof is written.
pub const MAX_SESSIONS: usize = 256;
/// A larger file was not written by acc.
const MAX_BYTES: u64 = 256 * 1024;
/// What a proof's reader makes room for before its first read (a few sessions and claims
/// take a few KiB; a larger proof grows the buffer as it reads).
const READ_AT_ONCE: usize = 16 * 1024;

/// `<store dir>/claims-proof.tsv` for the store at `store_file`.
pub fn path_for(store_file: &Path) -> PathBuf {
    store_file.with_file_name(PROOF_FILE)
}

/// A session as the claim's checks read it (its text borrowed from the proof's: a proof
/// of a few hundred claims was read into a thousand small allocations).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProofSession<'a> {
    pub session_id: &'a str,
    pub participant_id: &'a str,
    pub generation: &'a str,
    pub open: bool,
    pub heartbeat_at_ms: i64,
    pub cadence_ms: i64,
    /// The process ids presence probes (already dropped for another host's session).
    pub pid: Option<u32>,
    pub host_pid: Option<u32>,
    /// Named as the taker of a takeover (held or settled): only the store can tell which.
    pub taker: bool,
}

/// A live claim as the conflict check reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProofClaim<'a> {
    pub claim_id: &'a str,
    pub owner_session_id: &'a str,
    pub resource: &'a str,
    pub mode: &'a str,
    pub expires_at_ms: i64,
}

/// A proof as read: its claims in the store's order (`acquired_at`, rowid).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Proof<'a> {
    pub tag: &'a str,
    pub schema_version: u32,
    /// The time its claims were live at: a claim that ran out before it is not listed, so
    /// the proof says nothing to a reader whose clock reads earlier.
    pub written_at_ms: i64,
    pub sessions: Vec<ProofSession<'a>>,
    pub claims: Vec<ProofClaim<'a>>,
}

impl<'a> Proof<'a> {
    pub fn session(&self, id: &str) -> Option<&ProofSession<'a>> {
        self.sessions.iter().find(|s| s.session_id == id)
    }
}

/// A field the line format can carry: no separator, no line break.
fn plain(s: &str) -> bool {
    // `memchr3` rather than `str::contains` of a set of chars: a proof's every field is
    // checked, and the char search was most of its writer's own instructions.
    memchr::memchr3(b'\t', b'\n', b'\r', s.as_bytes()).is_none()
}

fn opt(p: Option<u32>) -> String {
    p.map_or_else(|| "-".into(), |p| p.to_string())
}

/// Puts the proof `text` rendered beside the store at `store_file`, or removes the file
/// when there is none to put (`Ok(false)`: the token then names no proof).
pub(crate) fn put(store_file: &Path, text: Option<String>) -> Result<bool> {
    let path = path_for(store_file);
    let Some(text) = text else {
        match std::fs::remove_file(&path) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(io(&path, e)),
        }
        return Ok(false);
    };
    crate::atomic_write::AtomicWrite::new()
        .write(&path, text.as_bytes())
        .map_err(|e| io(&path, e))?;
    Ok(true)
}

/// What the publication's one read of the claims gives: the proof's text (`None`: the store
/// holds what the proof cannot carry), and, when asked for, every guarded claim row for the
/// snapshot (`None`: a row the snapshot's own statement must judge, or not asked for).
#[derive(Debug, Default)]
pub(crate) struct Rendered {
    pub(crate) proof: Option<String>,
    pub(crate) guarded: Option<GuardedRows>,
}

fn io(path: &Path, e: std::io::Error) -> AccError {
    AccError::new(
        ErrorCode::StoreIo,
        format!("{}: cannot be written ({e})", path.display()),
    )
}

/// The proof for the committed state `conn` reads, tagged `tag`; with `guarded`, the
/// guarded claim rows of the same read for the snapshot (one statement and one scan of the
/// claims for both files, where each compiled and ran its own).
pub(crate) fn render(conn: &Connection, tag: &str, now_ms: i64, guarded: bool) -> Result<Rendered> {
    // A hooked store (the common case under an agent) pays this one row read at each
    // publication and no more.
    let bound: bool = conn
        .prepare_cached(crate::core::bindings::ANY_BINDING)?
        .query_row([], |r| r.get(0))?;
    if bound {
        return Ok(Rendered::default());
    }
    // The store was opened by this acc, which refuses a newer schema and migrates an older
    // one: it is at this acc's version.
    let version = super::schema::current_version();
    // Each row is written as it is read, from SQLite's own text (no copy per field, no
    // string per line). The claims are read in rowid order and put in the store's order
    // (`acquired_at`, rowid) here: SQLite sorted them into a temporary b-tree, which cost
    // the winner of a race more than reading them.
    let mut lines = String::with_capacity(READ_AT_ONCE);
    let mut claims: Vec<ClaimLine> = Vec::new();
    let mut proof = true;
    let mut rows_for_snapshot = guarded.then(GuardedRows::default);
    // Every claim, not only the live ones: the snapshot lists guarded claims whatever their
    // expiry. `enforcement = 'guarded'` is the snapshot's own statement's filter.
    let mut stmt = conn.prepare_cached(
        "SELECT claim_id, owner_session_id, resource, mode, expires_at, acquired_at, rowid,
                enforcement = 'guarded'
         FROM claims ORDER BY rowid",
    )?;
    let mut rows = stmt.query([])?;
    while let Some(r) = rows.next()? {
        let expires = r.get_ref(4)?;
        if let Some(g) = rows_for_snapshot.as_mut()
            && matches!(r.get_ref(7)?, ValueRef::Integer(1))
        {
            let text = |i| r.get_ref(i).ok().and_then(|v| v.as_str().ok());
            let rowid = r.get_ref(6)?;
            match (text(0), text(1), text(2), expires, rowid) {
                (
                    Some(id),
                    Some(owner),
                    Some(resource),
                    ValueRef::Integer(at),
                    ValueRef::Integer(rowid),
                ) => g.push(at, rowid, id, owner, resource),
                // Not acc's: the snapshot's own statement judges it, as before.
                _ => rows_for_snapshot = None,
            }
        }
        if !proof {
            if rows_for_snapshot.is_none() {
                break;
            }
            continue;
        }
        // Live as `expires_at > ?1` reads it; a value that is not an integer (never acc's)
        // that this would list is no proof, as its read failed before.
        let live = match expires {
            ValueRef::Integer(at) => at > now_ms,
            ValueRef::Null => false,
            ValueRef::Real(at) => {
                proof = at <= now_ms as f64;
                false
            }
            ValueRef::Text(_) | ValueRef::Blob(_) => {
                proof = false;
                false
            }
        };
        if !live {
            continue;
        }
        if claims.len() == MAX_CLAIMS {
            proof = false;
            continue;
        }
        let start = lines.len();
        lines.push('c');
        let mut owner = 0..0;
        for i in 0..4 {
            // A field that is not text, or that the line format cannot carry: no proof
            // (the store path judges).
            let field = match r.get_ref(i)?.as_str() {
                Ok(field) if plain(field) => field,
                _ => {
                    proof = false;
                    break;
                }
            };
            lines.push('\t');
            if i == 1 {
                owner = lines.len()..lines.len() + field.len();
            }
            lines.push_str(field);
        }
        if !proof {
            continue;
        }
        let ValueRef::Integer(expires_at_ms) = expires else {
            unreachable!("a live claim's expiry is an integer");
        };
        let _ = writeln!(lines, "\t{expires_at_ms}");
        // The store orders by the stored value: one that is not an integer (never acc's)
        // sorts where this order cannot say, so no proof.
        let (ValueRef::Integer(acquired_at), ValueRef::Integer(rowid)) =
            (r.get_ref(5)?, r.get_ref(6)?)
        else {
            proof = false;
            continue;
        };
        claims.push(ClaimLine {
            order: (acquired_at, rowid),
            line: start..lines.len(),
            owner,
        });
    }
    drop(rows);
    let text = match proof {
        true => sessions_and_claims(conn, tag, version, now_ms, &lines, &mut claims)?,
        false => None,
    };
    Ok(Rendered {
        proof: text,
        guarded: rows_for_snapshot,
    })
}

/// The proof's text: its header, the sessions its checks read, then the claim `lines` in the
/// store's order.
fn sessions_and_claims(
    conn: &Connection,
    tag: &str,
    version: u32,
    now_ms: i64,
    lines: &str,
    claims: &mut [ClaimLine],
) -> Result<Option<String>> {
    // Rowids are unique: the order is total.
    claims.sort_unstable_by_key(|c| c.order);
    let mut out = String::with_capacity(lines.len() + READ_AT_ONCE / 4);
    let _ = writeln!(out, "{MAGIC}\t{FORMAT}\t{tag}\t{version}\t{now_ms}");
    // The sessions the check reads: the open ones, then the holders of live claims whose
    // sessions are not open, in the order the single statement of earlier versions gave
    // them (SQLite's OR plan: `sessions_by_state` for the open ones, then the holders' ids
    // in their sorted order), so the file's bytes are those acc wrote before. One
    // statement over the open sessions and one by id for each other holder (none while
    // every holder is open) instead of a second scan of the claims.
    let takeover = "EXISTS (SELECT 1 FROM events
                 WHERE type = 'session.takeover'
                   AND json_extract(payload, '$.takerSessionId') = sessions.session_id)";
    let sql = format!(
        "SELECT {}, {takeover} FROM sessions WHERE state = 'open'
         ORDER BY participant_id, rowid LIMIT {}",
        crate::core::sessions::SESSION_COLUMNS,
        MAX_SESSIONS + 1
    );
    let mut named: Vec<String> = Vec::new();
    let mut stmt = conn.prepare_cached(&sql)?;
    let mut rows = stmt.query([])?;
    while let Some(r) = rows.next()? {
        if !session_line(&mut out, &r, &mut named)? {
            return Ok(None);
        }
    }
    drop(rows);
    let mut others: Vec<&str> = claims
        .iter()
        .map(|c| &lines[c.owner.clone()])
        .filter(|id| !named.iter().any(|n| n == id))
        .collect();
    others.sort_unstable();
    others.dedup();
    if !others.is_empty() {
        let sql = format!(
            "SELECT {}, {takeover} FROM sessions WHERE session_id = ?1",
            crate::core::sessions::SESSION_COLUMNS
        );
        let mut stmt = conn.prepare_cached(&sql)?;
        for id in others {
            let mut rows = stmt.query(params![id])?;
            // A claim whose session is gone names no session, as the join it replaces.
            if let Some(r) = rows.next()?
                && !session_line(&mut out, &r, &mut named)?
            {
                return Ok(None);
            }
        }
    }
    for c in claims.iter() {
        out.push_str(&lines[c.line.clone()]);
    }
    out.push_str(END);
    Ok(Some(out))
}

/// A live claim's line in the text read, with what orders it and its holder's id.
struct ClaimLine {
    order: (i64, i64),
    line: std::ops::Range<usize>,
    owner: std::ops::Range<usize>,
}

/// Writes the session line of `r` (its columns, then whether it was a takeover's taker)
/// and names it in `named`; false when the proof cannot carry it (a field the line format
/// cannot hold, or more than [`MAX_SESSIONS`] sessions).
fn session_line(out: &mut String, r: &Row<'_>, named: &mut Vec<String>) -> Result<bool> {
    if named.len() == MAX_SESSIONS {
        return Ok(false);
    }
    let row = crate::core::sessions::SessionRow::from_row(r)?;
    let facts = row.presence_facts();
    let (id, participant, generation) = (
        row.session_id.as_str(),
        row.participant_id.as_str(),
        row.generation.as_str(),
    );
    if ![id, participant, generation].iter().all(|f| plain(f)) {
        return Ok(false);
    }
    let taker: bool = r.get(17)?;
    let _ = writeln!(
        out,
        "s\t{id}\t{participant}\t{generation}\t{}\t{}\t{}\t{}\t{}\t{}",
        u8::from(facts.state == crate::core::model::SessionState::Open),
        facts.heartbeat_at_ms,
        facts.cadence_ms,
        opt(facts.pid),
        opt(facts.host_pid),
        u8::from(taker)
    );
    named.push(id.to_string());
    Ok(true)
}

/// `judge` of the proof the token of the store at `store_file` seals, read whole: `None`
/// when there is no token, it names no proof, or the file is not the one it sealed (edited,
/// replaced, copied back) or does not parse. (A closure, because the proof borrows the
/// text read here.)
pub fn vouched<R>(store_file: &Path, judge: impl FnOnce(&Proof<'_>) -> R) -> Option<R> {
    use std::os::unix::fs::OpenOptionsExt;
    let token = super::guard_token::read(store_file)?;
    let sealed = token.proof.as_deref()?;
    // The token is this publication's only while the snapshot it sealed is still there.
    let snapshot = std::fs::symlink_metadata(super::guard_snapshot::path_for(store_file)).ok()?;
    if super::guard_token::seal_of(&snapshot) != token.seal {
        return None;
    }
    let mut file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(path_for(store_file))
        .ok()?;
    // Room for a common proof at once: grown from empty, a 4 KiB proof took nine reads.
    let mut text = String::with_capacity(READ_AT_ONCE);
    (&mut file).take(MAX_BYTES).read_to_string(&mut text).ok()?;
    // Sealed after the read: a file written while it was read has a new change time.
    let meta = file.metadata().ok()?;
    if !meta.is_file() || super::guard_token::seal_of(&meta) != sealed {
        return None;
    }
    let proof = parse(&text)?;
    (proof.tag == token.tag).then(|| judge(&proof))
}

/// How long a claim waits for a write in progress (its token withdrawn) to publish before it
/// opens the store. A writer withdraws the token, commits, then writes the snapshot, this file
/// and the token, in a few milliseconds; a claim that went to the store meanwhile would wait
/// for the same writer's lock and then pay the store's open, which is most of a claim's cost
/// (in a race, most losers arrive while the winner writes).
pub const PUBLICATION_WAIT: std::time::Duration = std::time::Duration::from_millis(50);

/// [`vouched`], or, when the store is there and its token is not (a write in progress, whose
/// publication comes next), what that write publishes, waited for up to `wait`. A token that
/// is there but vouches for no proof (a store with hook bindings, a proof too large) is not
/// waited on. A writer that died after withdrawing leaves no token until the next write
/// publishes: the wait runs out and the caller goes to the store, as it would have.
pub fn vouched_or_awaited<R>(
    store_file: &Path,
    wait: std::time::Duration,
    judge: impl Fn(&Proof<'_>) -> R,
) -> Option<R> {
    use std::time::{Duration, Instant};
    if let Some(judged) = vouched(store_file, &judge) {
        return Some(judged);
    }
    let token = super::guard_token::path_for(store_file);
    if token.symlink_metadata().is_ok() || std::fs::symlink_metadata(store_file).is_err() {
        return None;
    }
    let deadline = Instant::now() + wait;
    loop {
        std::thread::sleep(Duration::from_micros(250));
        if token.symlink_metadata().is_ok() {
            return vouched(store_file, judge);
        }
        if Instant::now() >= deadline {
            return None;
        }
    }
}

fn num<T: std::str::FromStr>(s: &str) -> Option<T> {
    s.parse().ok()
}

fn pid(s: &str) -> Option<Option<u32>> {
    if s == "-" {
        Some(None)
    } else {
        num(s).map(Some)
    }
}

/// The `N` tab-separated fields of `line`, exactly `N` of them. (`memchr` finds the
/// tabs: `str::split` with a `char` was most of a proof's parse, a byte loop still 15
/// instructions a byte; a tab is ASCII, so each cut falls between characters.)
fn fields<const N: usize>(line: &str) -> Option<[&str; N]> {
    let mut out = [""; N];
    let mut n = 0;
    let mut start = 0;
    for i in memchr::memchr_iter(b'\t', line.as_bytes()) {
        *out.get_mut(n)? = &line[start..i];
        n += 1;
        start = i + 1;
    }
    *out.get_mut(n)? = &line[start..];
    (n + 1 == N).then_some(out)
}

/// The lines of `text`, each without its `\n`; `None` for a last line not ended.
fn lines(text: &str) -> impl Iterator<Item = Option<&str>> {
    let mut rest = text;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        Some(match memchr::memchr(b'\n', rest.as_bytes()) {
            Some(end) => {
                let line = &rest[..end];
                rest = &rest[end + 1..];
                Some(line)
            }
            None => {
                rest = "";
                None
            }
        })
    })
}

/// Parses a proof's text; `None` for anything acc did not write.
pub fn parse(text: &str) -> Option<Proof<'_>> {
    let mut lines = lines(text.strip_suffix(END)?);
    let head = lines.next()??;
    let [magic, format, tag, schema_version, written_at_ms] = fields(head)?;
    if magic != MAGIC || num::<u32>(format)? != FORMAT {
        return None;
    }
    let mut proof = Proof {
        tag,
        schema_version: num(schema_version)?,
        written_at_ms: num(written_at_ms)?,
        sessions: Vec::new(),
        claims: Vec::new(),
    };
    for line in lines {
        let line = line?;
        if let Some(rest) = line.strip_prefix("s\t") {
            let [
                id,
                participant,
                generation,
                open,
                beat,
                cadence,
                p,
                hp,
                taker,
            ] = fields(rest)?;
            proof.sessions.push(ProofSession {
                session_id: id,
                participant_id: participant,
                generation,
                open: num::<u8>(open)? == 1,
                heartbeat_at_ms: num(beat)?,
                cadence_ms: num(cadence)?,
                pid: pid(p)?,
                host_pid: pid(hp)?,
                taker: num::<u8>(taker)? != 0,
            })
        } else if let Some(rest) = line.strip_prefix("c\t") {
            let [id, session, resource, mode, expires] = fields(rest)?;
            proof.claims.push(ProofClaim {
                claim_id: id,
                owner_session_id: session,
                resource,
                mode,
                expires_at_ms: num(expires)?,
            })
        } else {
            return None;
        }
    }
    Some(proof)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The proof's text alone, as the publication renders it.
    fn proof_of(conn: &Connection, tag: &str, now_ms: i64) -> Result<Option<String>> {
        Ok(render(conn, tag, now_ms, false)?.proof)
    }

    const HEAD: &str = "acc-claims-proof\t1\ttag\t8\t1000\n";

    #[test]
    fn a_proof_reads_back_in_its_order() {
        let text = format!(
            "{HEAD}s\tsession_a\talice\tgeneration_a\t1\t900\t30000\t42\t-\t0\n\
             c\tclaim_2\tsession_a\tfile:b.rs\texclusive\t5000\n\
             c\tclaim_1\tsession_a\tfile:a.rs\tshared\t6000\nend\n"
        );
        let p = parse(&text).unwrap();
        assert_eq!((p.tag, p.schema_version, p.written_at_ms), ("tag", 8, 1000));
        let s = p.session("session_a").unwrap();
        assert!(s.open && !s.taker);
        assert_eq!(
            (s.pid, s.host_pid, s.heartbeat_at_ms),
            (Some(42), None, 900)
        );
        let ids: Vec<&str> = p.claims.iter().map(|c| c.claim_id).collect();
        assert_eq!(ids, ["claim_2", "claim_1"]);
    }

    #[test]
    fn text_acc_did_not_write_is_no_proof() {
        for bad in [
            String::new(),
            "acc-claims-proof\t2\ttag\t8\t1000\nend\n".to_string(),
            "acc-claims-proof\t1\ttag\t8\nend\n".to_string(),
            format!("{HEAD}c\tclaim_1\tsession_a\tfile:a.rs\texclusive\nend\n"),
            format!("{HEAD}c\tclaim_1\tsession_a\tfile:a.rs\texclusive\tsoon\nend\n"),
            format!("{HEAD}s\tsession_a\talice\tgeneration_a\t1\t900\t30000\tx\t-\t0\nend\n"),
            format!("{HEAD}x\tsomething\nend\n"),
            // A field too many or too few, a line kind alone, a head with a field more.
            format!("{HEAD}c\tclaim_1\tsession_a\tfile:a.rs\texclusive\t5000\tx\nend\n"),
            format!("{HEAD}s\tsession_a\talice\tgeneration_a\t1\t900\t30000\t-\t0\nend\n"),
            format!("{HEAD}c\nend\n"),
            format!("{HEAD}\nend\n"),
            format!("{HEAD}c\t\nend\n"),
            format!("{HEAD}s\nend\n"),
            "acc-claims-proof\t1\ttag\t8\t1000\tx\nend\n".to_string(),
            // Lines not ended, or a carriage return before the end.
            format!("{HEAD}c\tclaim_1\tsession_a\tfile:a.rs\texclusive\t5000end\n"),
            format!("{HEAD}c\tclaim_1\tsession_a\tfile:a.rs\texclusive\t5000\r\nend\n"),
            // Cut short at a line's end: no last line.
            format!("{HEAD}c\tclaim_1\tsession_a\tfile:a.rs\texclusive\t5000\n"),
        ] {
            assert_eq!(parse(&bad), None, "{bad:?}");
        }
    }

    /// A store of the current schema in memory, with `sql` run on it.
    fn store_with(sql: &str) -> Connection {
        let conn = rusqlite::Connection::open_in_memory().unwrap();
        for m in crate::store::schema::MIGRATIONS {
            conn.execute_batch(m.sql).unwrap();
        }
        conn.execute_batch(sql).unwrap();
        Connection::Sqlite(conn)
    }

    fn session(id: &str, participant: &str, state: &str) -> String {
        format!(
            "INSERT INTO participants VALUES ('{participant}', '{participant}', 'agent', 0)
                 ON CONFLICT DO NOTHING;
             INSERT INTO sessions (session_id, participant_id, generation, harness, state,
                 enforcement, lifecycle, cadence_ms, started_at, heartbeat_at)
             VALUES ('{id}', '{participant}', 'g_{id}', 'cli', '{state}', 'advisory', 'manual',
                 30000, 0, 900);"
        )
    }

    fn claim(id: &str, session: &str, acquired_at: &str, expires_at: i64) -> String {
        format!(
            "INSERT INTO claims (claim_id, owner_session_id, resource, scheme, mode,
                 enforcement, acquired_at, expires_at, generation)
             VALUES ('{id}', '{session}', 'file:{id}.rs', 'file', 'exclusive', 'advisory',
                 {acquired_at}, {expires_at}, 'g_{session}');"
        )
    }

    /// What the single statements of earlier versions read, in their order: the proof's
    /// bytes must not change with how they are read (a reader of either judges the same).
    fn as_before(conn: &Connection, now_ms: i64) -> String {
        let mut out = format!(
            "{MAGIC}\t{FORMAT}\ttag\t{}\t{now_ms}\n",
            super::super::schema::current_version()
        );
        let sql = format!(
            "SELECT {}, EXISTS (SELECT 1 FROM events
                     WHERE type = 'session.takeover'
                       AND json_extract(payload, '$.takerSessionId') = sessions.session_id)
             FROM sessions
             WHERE state = 'open' OR session_id IN (SELECT owner_session_id FROM claims WHERE expires_at > ?1)
             LIMIT 257",
            crate::core::sessions::SESSION_COLUMNS
        );
        let mut stmt = conn.prepare_cached(&sql).unwrap();
        let mut rows = stmt.query(params![now_ms]).unwrap();
        let mut named = Vec::new();
        while let Some(r) = rows.next().unwrap() {
            assert!(session_line(&mut out, &r, &mut named).unwrap());
        }
        drop(rows);
        let mut stmt = conn
            .prepare_cached(
                "SELECT claim_id, owner_session_id, resource, mode, expires_at FROM claims
                 WHERE expires_at > ?1 ORDER BY acquired_at, rowid LIMIT 513",
            )
            .unwrap();
        let mut rows = stmt.query(params![now_ms]).unwrap();
        while let Some(r) = rows.next().unwrap() {
            let f = |i: usize| r.get::<_, String>(i).unwrap();
            let expires: i64 = r.get(4).unwrap();
            let _ = writeln!(out, "c\t{}\t{}\t{}\t{}\t{expires}", f(0), f(1), f(2), f(3));
        }
        out.push_str(END);
        out
    }

    #[test]
    fn the_claims_come_in_the_stores_order_and_the_sessions_as_before() {
        // Rowid order is not the store's: a later claim acquired earlier (a clock set back,
        // a renewal keeps its time), ties broken by rowid; closed sessions that hold live
        // claims after the open ones, in their ids' order, not their rows'.
        let conn = store_with(
            &[
                session("s_zed", "zed", "open"),
                session("s_amy", "amy", "open"),
                session("s_kim", "kim", "closed"),
                session("s_bob", "bob", "closed"),
                session("s_old", "old", "closed"),
                session("s_gone", "gone", "closed"),
                claim("c1", "s_zed", "1000", 9000),
                claim("c2", "s_amy", "500", 9000),
                claim("c3", "s_kim", "500", 9000),
                claim("c4", "s_bob", "100", 9000),
                claim("c5", "s_kim", "50", 9000),
                // Run out: listed nowhere, nor is its holder.
                claim("c6", "s_old", "10", 2000),
                "INSERT INTO events (event_id, type, occurred_at, payload) VALUES ('e1',
                 'session.takeover', 0, '{\"takerSessionId\":\"s_bob\"}');"
                    .into(),
            ]
            .concat(),
        );
        let text = proof_of(&conn, "tag", 5000).unwrap().unwrap();
        assert_eq!(text, as_before(&conn, 5000));
        let proof = parse(&text).unwrap();
        let sessions: Vec<&str> = proof.sessions.iter().map(|s| s.session_id).collect();
        assert_eq!(sessions, ["s_amy", "s_zed", "s_bob", "s_kim"]);
        assert!(proof.session("s_bob").unwrap().taker);
        let claims: Vec<&str> = proof.claims.iter().map(|c| c.claim_id).collect();
        assert_eq!(claims, ["c5", "c4", "c2", "c3", "c1"]);
    }

    #[test]
    fn the_snapshot_asks_for_bindings_with_the_statement_the_cli_compiled() {
        assert_eq!(
            crate::store::guard_snapshot::ANY_BINDING,
            crate::core::bindings::ANY_BINDING
        );
    }

    #[test]
    fn a_claims_time_acc_did_not_write_is_no_proof() {
        // Another program's value sorts where an integer order cannot say: the store judges.
        for acquired_at in ["'soon'", "1.5", "NULL"] {
            let conn = store_with(
                &[
                    session("s_a", "amy", "open"),
                    claim("c1", "s_a", "100", 9000),
                ]
                .concat(),
            );
            let forged = format!("UPDATE claims SET acquired_at = {acquired_at}");
            if conn.execute(&forged, []).is_err() {
                // NOT NULL holds whatever the pragma: nothing to judge.
                continue;
            }
            assert_eq!(proof_of(&conn, "tag", 5000).unwrap(), None, "{acquired_at}");
        }
    }

    #[test]
    fn more_sessions_or_claims_than_a_proof_carries_is_no_proof() {
        let mut sql = session("s_a", "amy", "open");
        for i in 0..=MAX_CLAIMS {
            sql.push_str(&claim(&format!("c{i}"), "s_a", "100", 9000));
        }
        assert_eq!(proof_of(&store_with(&sql), "tag", 5000).unwrap(), None);
        let mut sql = String::new();
        for i in 0..=MAX_SESSIONS {
            sql.push_str(&session(&format!("s{i}"), &format!("p{i}"), "open"));
        }
        assert_eq!(proof_of(&store_with(&sql), "tag", 5000).unwrap(), None);
        // Closed holders count too.
        let mut sql = String::new();
        for i in 0..MAX_SESSIONS {
            sql.push_str(&session(&format!("s{i}"), &format!("p{i}"), "open"));
        }
        sql.push_str(&session("s_closed", "closed", "closed"));
        sql.push_str(&claim("c1", "s_closed", "100", 9000));
        assert_eq!(proof_of(&store_with(&sql), "tag", 5000).unwrap(), None);
        sql.push_str("DELETE FROM claims;");
        assert!(proof_of(&store_with(&sql), "tag", 5000).unwrap().is_some());
    }
}
