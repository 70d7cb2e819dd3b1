//! A store that changed behind acc's back while guarded claims existed: removed, replaced by
//! another workspace's store, or robbed of claim rows without a release. acc's own writes
//! never do any of these, so when one is found, what the last published guarded-claims
//! snapshot named ([`super::guard_snapshot`]) is kept in a marker beside the store
//! (`<store dir>/store-tampered`) and the write guard refuses every write those claims
//! covered until their leases run out or a person runs `acc doctor --accept-store-loss`.
//!
//! The marker is written once (the first finding wins; a later open never replaces it) and
//! survives a fresh store created over the missing one, so a session start that creates a
//! new store does not lift the refusal. A marker that cannot be written (a read-only data
//! home) is still kept in this process, so the call that found it is refused all the same.

use super::Store;
use super::guard_snapshot::{self, SnapshotClaim, SnapshotText};
use crate::error::Result;
use crate::store::engine::{Connection, OptionalExtension, params};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// The marker's file name, beside `acc.db`.
pub const MARKER_FILE: &str = "store-tampered";

/// The first field of the marker's first line.
const MAGIC: &str = "acc-store-tampered";

/// A marker larger than this was not written by acc (a snapshot is capped the same way).
const MAX_MARKER_BYTES: u64 = guard_snapshot::MAX_SNAPSHOT_BYTES + 4096;

/// What was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TamperKind {
    /// `acc.db` is gone while acc last published live guarded claims for it.
    StoreMissing,
    /// `acc.db` belongs to another workspace.
    StoreForeign,
    /// A live guarded claim the last publication named is not in the store as published
    /// (no row, not guarded, expired early, another participant's) and was not released.
    ClaimsDeleted,
}

impl TamperKind {
    pub fn as_str(self) -> &'static str {
        match self {
            TamperKind::StoreMissing => "store_missing",
            TamperKind::StoreForeign => "store_foreign",
            TamperKind::ClaimsDeleted => "claims_deleted",
        }
    }

    fn parse(s: &str) -> Option<TamperKind> {
        [
            TamperKind::StoreMissing,
            TamperKind::StoreForeign,
            TamperKind::ClaimsDeleted,
        ]
        .into_iter()
        .find(|k| k.as_str() == s)
    }

    /// What happened to the store, in words: `acc's store <what>`.
    pub fn what(self) -> &'static str {
        match self {
            TamperKind::StoreMissing => "was removed",
            TamperKind::StoreForeign => "was replaced by another workspace's store",
            TamperKind::ClaimsDeleted => "had guarded claims deleted",
        }
    }
}

/// A finding, with the claims the last publication named.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Marker {
    pub kind: TamperKind,
    pub detected_at_ms: i64,
    /// One line: which workspace the store belongs to, which claims vanished.
    pub detail: String,
    /// The guarded-claims snapshot as it was when the finding was made.
    pub snapshot: String,
}

impl Marker {
    /// Every guarded claim the kept snapshot names (none when it does not parse).
    pub fn claims(&self) -> Vec<SnapshotClaim> {
        let Some(text) = SnapshotText::parse(&self.snapshot) else {
            return Vec::new();
        };
        text.claims().map_while(|c| c.map(|c| c.owned())).collect()
    }

    /// The kept claims whose lease has not run out at `now_ms`: the ones still refused.
    pub fn live_claims(&self, now_ms: i64) -> Vec<SnapshotClaim> {
        let mut claims = self.claims();
        claims.retain(|c| c.expires_at_ms > now_ms);
        claims
    }

    /// One line for `acc status`, `acc watch` and a session's turn.
    pub fn summary(&self, now_ms: i64) -> String {
        let refused = match self.live_claims(now_ms).len() {
            0 => {
                "the guarded claims it held have run out; a person runs `acc doctor` to clear this"
                    .to_string()
            }
            n => format!(
                "{n} guarded claim(s) it held stay refused until a person runs `acc doctor`"
            ),
        };
        format!(
            "acc's store {} behind acc's back (found {}); {refused}",
            self.kind.what(),
            crate::clock::to_iso(self.detected_at_ms),
        )
    }

    /// The detail as doctor may print it: only plain characters and spaces (a marker is a
    /// file a forger can write).
    pub fn shown_detail(&self) -> String {
        self.detail
            .chars()
            .map(|c| {
                if acc_sdk::peer_text::is_plain(c) || matches!(c, ' ' | '(' | ')') {
                    c
                } else {
                    '?'
                }
            })
            .collect()
    }

    fn render(&self) -> String {
        let detail: String = self
            .detail
            .chars()
            .map(|c| if c.is_control() { ' ' } else { c })
            .collect();
        format!(
            "{MAGIC}\t1\t{}\t{}\t{detail}\n{}",
            self.kind.as_str(),
            self.detected_at_ms,
            self.snapshot
        )
    }

    fn parse(text: &str) -> Option<Marker> {
        let (header, snapshot) = text.split_once('\n')?;
        let mut f = header.splitn(5, '\t');
        if f.next()? != MAGIC || f.next()? != "1" {
            return None;
        }
        Some(Marker {
            kind: TamperKind::parse(f.next()?)?,
            detected_at_ms: f.next()?.parse().ok()?,
            detail: f.next()?.to_string(),
            snapshot: snapshot.to_string(),
        })
    }
}

/// `<store dir>/store-tampered` for the store at `store_file`.
pub fn path_for(store_file: &Path) -> PathBuf {
    store_file.with_file_name(MARKER_FILE)
}

/// Findings this process could not write down, by store file.
static UNWRITTEN: Mutex<Vec<(PathBuf, Marker)>> = Mutex::new(Vec::new());

/// Whether the store at `store_file` is marked (one `stat`: the guard's fast path asks).
pub fn marked(store_file: &Path) -> bool {
    path_for(store_file).symlink_metadata().is_ok() || unwritten(store_file).is_some()
}

fn unwritten(store_file: &Path) -> Option<Marker> {
    let kept = UNWRITTEN.lock().unwrap_or_else(|e| e.into_inner());
    kept.iter()
        .find(|(p, _)| p == store_file)
        .map(|(_, m)| m.clone())
}

/// The marker of the store at `store_file`. A file at its place that acc did not write
/// still marks the store, with no claims of its own to refuse.
pub fn read(store_file: &Path) -> Option<Marker> {
    use std::os::unix::fs::OpenOptionsExt;
    let path = path_for(store_file);
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(&path);
    let file = match file {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return unwritten(store_file),
        Err(_) => return Some(unreadable()),
    };
    let mut text = String::new();
    if file
        .take(MAX_MARKER_BYTES)
        .read_to_string(&mut text)
        .is_err()
    {
        return Some(unreadable());
    }
    Some(Marker::parse(&text).unwrap_or_else(unreadable))
}

fn unreadable() -> Marker {
    Marker {
        kind: TamperKind::ClaimsDeleted,
        detected_at_ms: 0,
        detail: format!("the marker {MARKER_FILE} is not one acc wrote"),
        snapshot: String::new(),
    }
}

/// Removes the marker (a person accepted the loss); true when there was one.
pub fn clear(store_file: &Path) -> std::io::Result<bool> {
    UNWRITTEN
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .retain(|(p, _)| p != store_file);
    match std::fs::remove_file(path_for(store_file)) {
        Ok(()) => Ok(true),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
        Err(e) => Err(e),
    }
}

/// Writes the finding unless the store is marked already (the first finding stands): whole
/// or not at all (a temporary file hard-linked into place, which fails when one is there),
/// creating the store's directory when it went with the store.
fn record(store_file: &Path, marker: Marker) {
    if marked(store_file) {
        return;
    }
    let path = path_for(store_file);
    let dir = path.parent().unwrap_or(Path::new("."));
    let temp = dir.join(format!(".{MARKER_FILE}.{}.tmp", std::process::id()));
    let written = {
        use std::os::unix::fs::DirBuilderExt;
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(dir)
            .and_then(|()| {
                std::fs::OpenOptions::new()
                    .write(true)
                    .create(true)
                    .truncate(true)
                    .open(&temp)
            })
            .and_then(|mut f| f.write_all(marker.render().as_bytes()))
            .and_then(|()| std::fs::hard_link(&temp, &path))
    };
    let _ = std::fs::remove_file(&temp);
    match written {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
        Err(_) => UNWRITTEN
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push((store_file.to_path_buf(), marker)),
    }
}

/// The guarded claims acc last published for `workspace`'s store: the snapshot beside it
/// when the token seals it (acc wrote it, and the witness is a copy of it), else those of
/// the snapshot and of its witness ([`guard_snapshot::witness_path`]) together (a claim in
/// either is kept: a forger has to change both). `None` when neither is this workspace's.
pub fn last_known(store_file: &Path, workspace: &str) -> Option<Vec<SnapshotClaim>> {
    if let Some((_, text)) = guard_snapshot::vouched_text(store_file)
        && let Some(parsed) = SnapshotText::parse(&text)
        && parsed.workspace_id == workspace
    {
        return parsed.claims().map(|c| c.map(|c| c.owned())).collect();
    }
    let sources = [
        Some(guard_snapshot::path_for(store_file)),
        guard_snapshot::witness_path(store_file),
    ];
    let mut found = false;
    let mut claims: Vec<SnapshotClaim> = Vec::new();
    // By claim id: comparing each claim with every one kept took seconds at 10,000 claims,
    // longer than a hook's budget, so no hook could publish the snapshot that ends this.
    let mut kept_at: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    for path in sources.into_iter().flatten() {
        let Ok(Some(text)) = guard_snapshot::read_text(&path) else {
            continue;
        };
        let Some(parsed) = SnapshotText::parse(&text) else {
            continue;
        };
        if parsed.workspace_id != workspace {
            continue;
        }
        found = true;
        for c in parsed.claims().flatten() {
            match kept_at.get(c.claim_id.as_ref()) {
                Some(&at) => {
                    let kept = &mut claims[at];
                    kept.expires_at_ms = kept.expires_at_ms.max(c.expires_at_ms);
                }
                None => {
                    kept_at.insert(c.claim_id.to_string(), claims.len());
                    claims.push(c.owned());
                }
            }
        }
    }
    found.then_some(claims)
}

fn live(claims: Vec<SnapshotClaim>, now_ms: i64) -> Vec<SnapshotClaim> {
    claims
        .into_iter()
        .filter(|c| c.expires_at_ms > now_ms)
        .collect()
}

/// Marks the store with `kind` when acc last knew of live guarded claims in it.
fn mark_if_guarded(
    store_file: &Path,
    workspace: &str,
    now_ms: i64,
    kind: TamperKind,
    detail: String,
) {
    if marked(store_file) {
        return;
    }
    let claims = live(
        last_known(store_file, workspace).unwrap_or_default(),
        now_ms,
    );
    if claims.is_empty() {
        return;
    }
    record(
        store_file,
        Marker {
            kind,
            detected_at_ms: now_ms,
            detail,
            snapshot: guard_snapshot::render_claims(workspace, now_ms, &claims),
        },
    );
}

/// Before opening a store that is not there: marks it when acc last knew of live guarded
/// claims in it (acc never removes a store; a person who moved it aside says so to doctor).
pub fn on_missing(store_file: &Path, workspace: &str, now_ms: i64) {
    mark_if_guarded(
        store_file,
        workspace,
        now_ms,
        TamperKind::StoreMissing,
        "the store file is gone".to_string(),
    );
}

/// After finding that the store belongs to another workspace (`found`).
pub fn on_foreign(store_file: &Path, workspace: &str, found: &str, now_ms: i64) {
    mark_if_guarded(
        store_file,
        workspace,
        now_ms,
        TamperKind::StoreForeign,
        format!(
            "the store file belongs to workspace {}",
            acc_sdk::peer_text::display(found)
        ),
    );
}

/// After opening the store: marks it when a live guarded claim acc last published is not in
/// it as published (no row, no longer guarded, expired early, or under another participant)
/// and the store recorded no release of it.
///
/// Almost always the sealed snapshot is of the store's claims version and its schema (no
/// trigger that bumps the version was dropped since): then no claim changed since acc
/// published it (one row read, no claim compared). Otherwise every claim is compared.
pub fn check_claims(store: &mut Store, workspace: &str, now_ms: i64) -> Result<()> {
    let store_file = store.path().to_path_buf();
    if store.is_ephemeral() || marked(&store_file) {
        return Ok(());
    }
    if let Some(sealed) = sealed_state(&store_file, workspace, now_ms) {
        if !sealed.live {
            // Nothing acc published is live, so nothing can have vanished. This
            // connection's first write need not look again while the store is still at
            // the sealed version: every later publication follows a write that moved the
            // version, and a store found at another version is checked as before (the
            // second look read the token and the snapshot again inside the claims' turn).
            store.saw_version(sealed.version);
            return Ok(());
        }
        let unchanged = store.read(|tx| {
            let (version, schema): (i64, i64) = tx
                .prepare_cached(
                    "SELECT CAST(value AS INTEGER),
                            (SELECT schema_version FROM pragma_schema_version)
                     FROM meta WHERE key = 'claims_version'",
                )?
                .query_row([], |r| Ok((r.get(0)?, r.get(1)?)))?;
            Ok(version == sealed.version && Some(schema) == sealed.schema)
        })?;
        if unchanged {
            // This connection's first write need not look again.
            store.saw_version(sealed.version);
            return Ok(());
        }
    }
    let claims = live(
        last_known(&store_file, workspace).unwrap_or_default(),
        now_ms,
    );
    if claims.is_empty() {
        return Ok(());
    }
    let vanished = store.read(|tx| vanished(tx, &claims, now_ms))?;
    mark_vanished(&store_file, workspace, now_ms, &claims, vanished);
    Ok(())
}

/// What the sealed snapshot says of the store it was published from.
struct Sealed {
    /// Its claims version.
    version: i64,
    /// The store's schema cookie at publication.
    schema: Option<i64>,
    /// Whether one of its claims is live at the time asked.
    live: bool,
}

fn sealed_state(store_file: &Path, workspace: &str, now_ms: i64) -> Option<Sealed> {
    // Almost always the first claim is live: the head answers without reading the rest.
    if let Some((token, head)) = guard_snapshot::vouched_head(store_file, now_ms)
        && let Some(live) = head.live
    {
        if head.workspace_id != workspace {
            return None;
        }
        return Some(Sealed {
            version: head.claims_version,
            schema: super::guard_token::schema_of(&token.tag),
            live,
        });
    }
    let (token, text) = guard_snapshot::vouched_text(store_file)?;
    let parsed = SnapshotText::parse(&text)?;
    if parsed.workspace_id != workspace {
        return None;
    }
    Some(Sealed {
        version: parsed.claims_version,
        schema: super::guard_token::schema_of(&token.tag),
        live: parsed.has_live(now_ms)?,
    })
}

/// Inside a write transaction of a connection that has not seen the store's claims version
/// `version` (another process changed it since): unless the sealed snapshot is of that
/// version (acc published it), the full check, so that this write's publication cannot
/// forget claims a forger removed (a long-lived connection, such as the MCP server's,
/// opens no store before it writes).
pub(crate) fn check_before_write(
    tx: &Connection,
    store_file: &Path,
    version: i64,
    now_ms: i64,
) -> Result<()> {
    if marked(store_file) {
        return Ok(());
    }
    // The head alone names the version: a writer with 10,000 claims read and parsed the
    // whole snapshot here (1 MB) before every first write of a process.
    if let Some((token, head)) = guard_snapshot::vouched_head(store_file, now_ms)
        && head.claims_version == version
    {
        let schema: i64 = tx
            .prepare_cached(super::SCHEMA_COOKIE)?
            .query_row([], |r| r.get(0))?;
        if super::guard_token::schema_of(&token.tag) == Some(schema) {
            return Ok(());
        }
    }
    let workspace: String = tx
        .prepare_cached(super::WORKSPACE_ID)?
        .query_row([], |r| r.get(0))?;
    let claims = live(
        last_known(store_file, &workspace).unwrap_or_default(),
        now_ms,
    );
    if claims.is_empty() {
        return Ok(());
    }
    let vanished = vanished(tx, &claims, now_ms)?;
    mark_vanished(store_file, &workspace, now_ms, &claims, vanished);
    Ok(())
}

fn mark_vanished(
    store_file: &Path,
    workspace: &str,
    now_ms: i64,
    claims: &[SnapshotClaim],
    vanished: Vec<String>,
) {
    if vanished.is_empty() {
        return;
    }
    record(
        store_file,
        Marker {
            kind: TamperKind::ClaimsDeleted,
            detected_at_ms: now_ms,
            detail: format!(
                "{} guarded claim(s) gone without a release: {}",
                vanished.len(),
                vanished.join(", ")
            ),
            snapshot: guard_snapshot::render_claims(workspace, now_ms, claims),
        },
    );
}

/// The ids of `claims` the store no longer holds as they were published, without a release.
fn vanished(tx: &Connection, claims: &[SnapshotClaim], now_ms: i64) -> Result<Vec<String>> {
    let pairs: Vec<(&str, &str)> = claims
        .iter()
        .map(|c| (c.claim_id.as_str(), c.owner_participant_id.as_str()))
        .collect();
    let pairs = serde_json::to_string(&pairs).unwrap_or_default();
    let mut held = tx.prepare_cached(
        "SELECT json_extract(j.value, '$[0]') FROM json_each(?1) j
         JOIN claims c ON c.claim_id = json_extract(j.value, '$[0]')
         JOIN sessions s ON s.session_id = c.owner_session_id
         WHERE s.participant_id = json_extract(j.value, '$[1]')
           AND c.enforcement = 'guarded' AND c.expires_at > ?2",
    )?;
    let held: std::collections::HashSet<String> = held
        .query_map(params![pairs, now_ms], |r| r.get(0))?
        .collect::<std::result::Result<_, _>>()?;
    if held.len() == claims.len() {
        return Ok(Vec::new());
    }
    let mut released = tx.prepare_cached(
        "SELECT 1 FROM events WHERE type IN ('claim.released', 'claim.force_released')
         AND json_extract(payload, '$.claimId') = ?1 LIMIT 1",
    )?;
    let mut vanished = Vec::new();
    for c in claims
        .iter()
        .filter(|c| !held.contains(c.claim_id.as_str()))
    {
        let id = c.claim_id.as_str();
        if released
            .query_row(params![id], |_| Ok(()))
            .optional()?
            .is_none()
        {
            vanished.push(id.to_string());
        }
    }
    Ok(vanished)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn snapshot() -> String {
        let claims =
            "100\tclaim_a\tsess_p\tpeer\tfile:src/**\n9000\tclaim_b\tsess_p\tpeer\tfile:docs/**\n";
        guard_snapshot::seal_text(format!(
            "acc-guarded-claims\t4\t5\t1\tws1\t1.2.3\t{}\n{claims}\n",
            claims.len()
        ))
    }

    #[test]
    fn a_marker_reads_back_whole_and_keeps_the_live_claims() {
        let m = Marker {
            kind: TamperKind::StoreForeign,
            detected_at_ms: 42,
            detail: "a\tb\nc".into(),
            snapshot: snapshot(),
        };
        let back = Marker::parse(&m.render()).unwrap();
        assert_eq!(back.kind, TamperKind::StoreForeign);
        assert_eq!(back.detail, "a b c");
        assert_eq!(back.snapshot, snapshot());
        assert_eq!(back.claims().len(), 2);
        let live = back.live_claims(500);
        assert_eq!(live.len(), 1);
        assert_eq!(live[0].claim_id, "claim_b");
        assert!(back.live_claims(9000).is_empty(), "expired claims stop");
    }

    #[test]
    fn the_first_finding_stands_and_clearing_removes_it() {
        let dir = tempfile::tempdir().unwrap();
        let store = dir.path().join("acc.db");
        std::fs::write(guard_snapshot::path_for(&store), snapshot()).unwrap();
        on_missing(&store, "other", 0);
        assert!(!marked(&store), "another workspace's snapshot says nothing");
        on_missing(&store, "ws1", 10_000);
        assert!(!marked(&store), "no live claim, nothing to keep");
        on_missing(&store, "ws1", 500);
        on_foreign(&store, "ws1", "ws2", 600);
        let m = read(&store).unwrap();
        assert_eq!((m.kind, m.detected_at_ms), (TamperKind::StoreMissing, 500));
        assert!(clear(&store).unwrap());
        assert!(!marked(&store) && read(&store).is_none());
        assert!(!clear(&store).unwrap());
    }

    #[test]
    fn a_marker_acc_did_not_write_still_marks_the_store() {
        let dir = tempfile::tempdir().unwrap();
        let store = dir.path().join("acc.db");
        std::fs::write(path_for(&store), "hello").unwrap();
        let m = read(&store).unwrap();
        assert!(m.claims().is_empty());
    }
}
