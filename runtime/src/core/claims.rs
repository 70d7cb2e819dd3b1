//! Claims: leases on resources. The conflict check and the write happen in one IMMEDIATE
//! transaction, so of N processes racing for one exclusive resource exactly one wins.
//! Stale presence never releases a claim: only expiry, a release by the owner, or a forced
//! release with an authority does.
//!
//! A claim outlives the session that made it. Once that session has ended (closed, or offline:
//! its process is gone or it fell silent past presence's limits), its participant's other
//! sessions inherit it: they may release it, adopt it by claiming the same resource (same
//! claim id, their session, a fresh lease), and the write guard never denies them a write
//! into it. A participant id is an address, not a credential, so this gives a session
//! nothing it could not already take by attaching under that name.

use super::events::{self, EventType};
use super::model::{Authority, ClaimMode, Enforcement, Presence};
use super::resources::Resource;
use super::sessions::{self, SessionRow, check_owner, check_owner_for_write};
use super::{Core, Owner, Ports};
use crate::clock::to_iso;
use crate::error::{AccError, ErrorCode, Result};
use crate::ids::{ClaimId, IdKind, ParticipantId, SessionId};
use crate::store::engine::{Connection, ToSql, params};
use crate::text;
use serde::Serialize;
use serde_json::json;

/// The lease a claim gets unless told otherwise.
pub const DEFAULT_LEASE_SECONDS: u64 = 1800;
/// The longest lease: a week.
pub const MAX_LEASE_SECONDS: u64 = 7 * 24 * 3600;

#[derive(Debug, Clone, PartialEq)]
pub struct ClaimRequest {
    pub resource: Resource,
    pub mode: ClaimMode,
    pub enforcement: Enforcement,
    pub reason: Option<String>,
    pub lease_seconds: Option<u64>,
}

impl ClaimRequest {
    /// An exclusive, advisory claim with the default lease.
    pub fn new(resource: Resource) -> Self {
        ClaimRequest {
            resource,
            mode: ClaimMode::Exclusive,
            enforcement: Enforcement::Advisory,
            reason: None,
            lease_seconds: None,
        }
    }
}

/// A claim as reported (never with its generation).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ClaimRecord {
    pub claim_id: ClaimId,
    pub owner_session_id: SessionId,
    pub owner_participant_id: ParticipantId,
    pub resource: Resource,
    pub mode: ClaimMode,
    pub enforcement: Enforcement,
    pub reason: Option<String>,
    pub acquired_at: String,
    pub expires_at: String,
    pub live: bool,
}

/// A claim as the write guard's fingerprints name it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClaimKey {
    pub claim_id: ClaimId,
    pub resource: Resource,
    pub owner_session_id: SessionId,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ClaimOutcome {
    pub claim: ClaimRecord,
    /// True when the owner already held this exact resource and the lease was renewed.
    pub renewed: bool,
    /// The ended session of the same participant whose claim on this exact resource the
    /// owner adopted (same claim id; `renewed` is true too).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub adopted_from: Option<SessionId>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ReleaseOutcome {
    pub claim_id: ClaimId,
    pub resource: Resource,
    pub owner_session_id: SessionId,
    pub authority: Option<Authority>,
}

#[derive(Debug, Clone)]
pub(crate) struct ClaimRow {
    pub claim_id: ClaimId,
    pub owner_session_id: SessionId,
    pub owner_participant_id: ParticipantId,
    pub resource: Resource,
    pub mode: ClaimMode,
    pub enforcement: Enforcement,
    pub reason: Option<String>,
    pub acquired_at: i64,
    pub expires_at: i64,
    pub generation: String,
}

impl ClaimRow {
    pub(crate) fn record(&self, now: i64) -> ClaimRecord {
        ClaimRecord {
            claim_id: self.claim_id.clone(),
            owner_session_id: self.owner_session_id.clone(),
            owner_participant_id: self.owner_participant_id.clone(),
            resource: self.resource.clone(),
            mode: self.mode,
            enforcement: self.enforcement,
            reason: self.reason.clone(),
            acquired_at: to_iso(self.acquired_at),
            expires_at: to_iso(self.expires_at),
            live: self.expires_at > now,
        }
    }
}

const CLAIM_SELECT: &str = "SELECT c.claim_id, c.owner_session_id, s.participant_id, c.resource,
        c.mode, c.enforcement, c.reason, c.acquired_at, c.expires_at, c.generation
     FROM claims c JOIN sessions s ON s.session_id = c.owner_session_id";

fn rows(
    conn: &Connection,
    filter: &str,
    p: impl crate::store::engine::Params,
) -> Result<Vec<ClaimRow>> {
    let sql = format!("{CLAIM_SELECT} {filter}");
    let mut stmt = conn.prepare_cached(&sql)?;
    let mut rows = stmt.query(p)?;
    let mut out = Vec::new();
    while let Some(r) = rows.next()? {
        out.push(ClaimRow {
            claim_id: ClaimId::from_store(r.get(0)?),
            owner_session_id: SessionId::from_store(r.get(1)?),
            owner_participant_id: ParticipantId::from_store(r.get(2)?),
            resource: Resource::from_store(r.get(3)?),
            mode: ClaimMode::from_store(&r.get::<_, String>(4)?)?,
            enforcement: Enforcement::from_store(&r.get::<_, String>(5)?)?,
            reason: r.get(6)?,
            acquired_at: r.get(7)?,
            expires_at: r.get(8)?,
            generation: r.get(9)?,
        });
    }
    Ok(out)
}

/// Live claims (`expires_at > now`), oldest first.
pub(crate) fn live(conn: &Connection, now: i64) -> Result<Vec<ClaimRow>> {
    rows(
        conn,
        "WHERE c.expires_at > ?1 ORDER BY c.acquired_at, c.rowid",
        params![now],
    )
}

/// Every stored claim (live or expired) of any session of `participant`, oldest first.
pub(crate) fn of_participant(
    conn: &Connection,
    participant: &ParticipantId,
) -> Result<Vec<ClaimRow>> {
    of_participant_where(conn, participant, None, None)
}

/// The claims of `participant`'s sessions expiring after `after` (any when `None`), those
/// of `except` left out, oldest first. A turn reads both its inherited claims and its
/// participant's claims (attention): one statement serves both, so a process compiles it
/// once (a statement of this join cost about 150 k instructions to compile).
fn of_participant_where(
    conn: &Connection,
    participant: &ParticipantId,
    after: Option<i64>,
    except: Option<&SessionId>,
) -> Result<Vec<ClaimRow>> {
    // No integer is bound as null: PostgreSQL types a parameter tested with `IS NULL` by
    // the value bound, and a null one as text, which it would not compare with an expiry.
    rows(
        conn,
        "WHERE s.participant_id = ?1 AND (?2 = 0 OR c.expires_at > ?3)
           AND (?4 IS NULL OR c.owner_session_id <> ?4)
         ORDER BY c.acquired_at, c.rowid",
        params![
            participant.as_str(),
            i64::from(after.is_some()),
            after.unwrap_or(0),
            except.map(SessionId::as_str)
        ],
    )
}

/// Live claims of every session that is not `participant`'s, oldest first.
pub(crate) fn live_of_others(
    conn: &Connection,
    participant: &ParticipantId,
    now: i64,
) -> Result<Vec<ClaimRow>> {
    rows(
        conn,
        "WHERE c.expires_at > ?1 AND s.participant_id <> ?2 ORDER BY c.acquired_at, c.rowid",
        params![now, participant.as_str()],
    )
}

/// `?first, ?first+1, ...`: `n` numbered placeholders for an `IN` list. A statement is
/// compiled once per count (a resource's depth), and its text stays a constant shape for
/// the statement cache.
fn numbered_list(first: usize, n: usize) -> String {
    let mut out = String::with_capacity(n * 5);
    for i in first..first + n {
        if i > first {
            out.push_str(", ");
        }
        out.push('?');
        out.push_str(&i.to_string());
    }
    out
}

/// Live claims that may overlap `resource`, found through the resource index rather than a
/// scan, so claiming stays fast with thousands of claims.
fn live_overlapping(conn: &Connection, resource: &Resource, now: i64) -> Result<Vec<ClaimRow>> {
    let (exact, range) = resource.overlap_candidates();
    let mut p: Vec<&dyn ToSql> = vec![&now];
    let filter = format!(
        "WHERE c.expires_at > ?1 AND {} ORDER BY c.acquired_at, c.rowid",
        candidates(&exact, range.as_ref(), &mut p)
    );
    let found = rows(conn, &filter, p.as_slice())?;
    Ok(found
        .into_iter()
        .filter(|c| c.resource.overlaps(resource))
        .collect())
}

/// The `WHERE` term selecting the claims whose spelling is one of `exact` or, for a tree,
/// inside `range`, numbered after the placeholders already in `p`, whose values it appends.
/// A resource that is not a tree has no range, and its term has no range either: an empty
/// range (`>= '' AND < ''`) selected nothing, but the `OR` beside it made SQLite plan the
/// statement as a multi-index `OR`, the costliest part of the claim's compile (the whole
/// statement 0.28 M instructions, 0.15 M without it). The same index serves both texts.
fn candidates<'a>(
    exact: &'a [String],
    range: Option<&'a (String, String)>,
    p: &mut Vec<&'a dyn ToSql>,
) -> String {
    let first = p.len() + 1;
    let term = match range {
        Some((lo, hi)) => {
            p.extend([lo as &dyn ToSql, hi as &dyn ToSql]);
            format!(
                "(c.resource IN ({}) OR (c.resource >= ?{first} AND c.resource < ?{}))",
                numbered_list(first + 2, exact.len()),
                first + 1
            )
        }
        None => format!("c.resource IN ({})", numbered_list(first, exact.len())),
    };
    p.extend(exact.iter().map(|e| e as &dyn ToSql));
    term
}

/// What a claim reads before it writes, in one statement: the live claims overlapping
/// `resource` (as [`live_overlapping`] reads them) and every claim of `participant` on
/// exactly `resource`, live or not, each in the store's order. (Each of the two statements
/// this replaces, a join with a `json_each`, cost a claim 0.23 M instructions to compile.)
/// The exact spellings are bound one placeholder each ([`numbered_list`]) rather than as a
/// JSON array read through `json_each`: the table-valued function made this statement the
/// winner's costliest compile (0.32 M instructions, its virtual table's declaration parsed
/// at each compile), and a list of placeholders selects the same rows through the same
/// resource index.
/// The exact resource is always among the overlap's candidates, so the rows read are the
/// union of the two reads, split here by the same comparisons SQLite made (byte equality).
fn overlapping_and_own(
    conn: &Connection,
    resource: &Resource,
    now: i64,
    participant: &ParticipantId,
) -> Result<(Vec<ClaimRow>, Vec<ClaimRow>)> {
    let (exact, range) = resource.overlap_candidates();
    let (wanted, who) = (resource.as_str(), participant.as_str());
    let mut p: Vec<&dyn ToSql> = Vec::new();
    let filter = match &range {
        // A tree's range reaches every claim ever made inside it until a prune: SQLite
        // leaves out the run out ones that are not the participant's own on the tree.
        Some(_) => {
            p.extend([&now as &dyn ToSql, &wanted, &who]);
            format!(
                "WHERE {} AND (c.expires_at > ?1 OR (c.resource = ?2 AND s.participant_id = ?3))
                 ORDER BY c.acquired_at, c.rowid",
                candidates(&exact, range.as_ref(), &mut p)
            )
        }
        // One file's candidates are a few exact spellings: every claim on them is read and
        // the run out ones are left out below, by the comparisons SQLite made (the `OR`
        // cost the statement's compile a quarter of its instructions, and SQLite fetched
        // each row to judge it anyway).
        None => format!(
            "WHERE {} ORDER BY c.acquired_at, c.rowid",
            candidates(&exact, None, &mut p)
        ),
    };
    let found = rows(conn, &filter, p.as_slice())?;
    let own = found
        .iter()
        .filter(|c| c.resource == *resource && c.owner_participant_id == *participant)
        .cloned()
        .collect();
    let live = found
        .into_iter()
        .filter(|c| c.expires_at > now && c.resource.overlaps(resource))
        .collect();
    Ok((live, own))
}

/// Whether `session` has ended for its claims: closed, or offline. A session that is gone
/// from the store has ended too.
pub(crate) fn session_ended(
    conn: &Connection,
    ports: &Ports,
    now: i64,
    session: &SessionId,
) -> Result<bool> {
    Ok(sessions::load(conn, session.as_str())?
        .is_none_or(|s| s.presence(ports, now) == Presence::Offline))
}

/// Whether `claim` is one `me` inherits: held by another, ended session of its participant.
fn inherits(
    conn: &Connection,
    ports: &Ports,
    now: i64,
    me: &SessionRow,
    claim: &ClaimRow,
) -> Result<bool> {
    Ok(claim.owner_session_id != me.session_id
        && claim.owner_participant_id == me.participant_id
        && session_ended(conn, ports, now, &claim.owner_session_id)?)
}

/// The claims (live, or any when `live_only` is false) `me` inherits, oldest first.
fn inherited_rows(
    conn: &Connection,
    ports: &Ports,
    now: i64,
    me: &SessionRow,
    live_only: bool,
) -> Result<Vec<ClaimRow>> {
    let cutoff = if live_only { now } else { i64::MIN };
    let mut out = Vec::new();
    for row in of_participant_where(conn, &me.participant_id, Some(cutoff), Some(&me.session_id))? {
        if session_ended(conn, ports, now, &row.owner_session_id)? {
            out.push(row);
        }
    }
    Ok(out)
}

fn by_id(conn: &Connection, id: &str) -> Result<Option<ClaimRow>> {
    Ok(rows(conn, "WHERE c.claim_id = ?1", params![id])?.pop())
}

fn not_found(id: &str) -> AccError {
    AccError::new(
        ErrorCode::NotFound,
        format!("claim {id} does not exist (released or pruned)"),
    )
    .with("claimId", id)
}

fn conflict(
    conn: &Connection,
    ports: &Ports,
    now: i64,
    wanted: &Resource,
    held: &ClaimRow,
) -> Result<AccError> {
    let presence = sessions::load(conn, held.owner_session_id.as_str())?
        .map(|s| s.presence(ports, now))
        .unwrap_or(Presence::Offline);
    Ok(conflict_error(
        wanted,
        &Held {
            claim_id: &held.claim_id,
            resource: &held.resource,
            mode: held.mode,
            owner_participant_id: &held.owner_participant_id,
            owner_session_id: &held.owner_session_id,
            expires_at: held.expires_at,
        },
        presence,
    ))
}

/// A conflicting claim as its refusal names it.
/// Typed, so that each is shown as the store path always showed it (a peer's spelling
/// escaped).
pub(crate) struct Held<'a> {
    pub claim_id: &'a ClaimId,
    pub resource: &'a Resource,
    pub mode: ClaimMode,
    pub owner_participant_id: &'a ParticipantId,
    pub owner_session_id: &'a SessionId,
    pub expires_at: i64,
}

/// The refusal (exit 5) of a claim on `wanted` that `held` conflicts with: the store path's
/// and the proof's ([`crate::store::claims_proof`]) say the same bytes.
pub(crate) fn conflict_error(wanted: &Resource, held: &Held<'_>, presence: Presence) -> AccError {
    AccError::new(
        ErrorCode::ClaimConflict,
        format!(
            "{wanted} conflicts with {} held {} by {} (session {}, {presence}) until {}",
            held.resource,
            held.mode,
            held.owner_participant_id,
            held.owner_session_id,
            to_iso(held.expires_at)
        ),
    )
    .with("claimId", held.claim_id.as_str())
    .with("resource", held.resource.as_str())
    .with("ownerSessionId", held.owner_session_id.as_str())
    .with("ownerPresence", presence.as_str())
    .with("expiresAt", to_iso(held.expires_at))
}

fn delete(tx: &Connection, id: &ClaimId) -> Result<()> {
    tx.prepare_cached("DELETE FROM claims WHERE claim_id = ?1")?
        .execute(params![id.as_str()])?;
    Ok(())
}

impl Core {
    /// Copies this process's commits from the WAL into `acc.db` before its close
    /// ([`crate::store::Store::checkpoint`]); `acc claim` calls it once it has let go of the
    /// claims' turn, so the next claim's open does not wait behind this one's syncs. Best
    /// effort: the commit stands whatever this does, and the close checkpoints what is left.
    pub(crate) fn checkpoint_before_close(&mut self) {
        let _ = self.store.checkpoint();
    }

    /// Acquires `req.resource` for the owner session, or renews the owner's identical claim
    /// (same id, new expiry). A live overlapping claim of another session where either side
    /// is exclusive is a conflict (exit 5) whose details name the holder.
    pub fn claim(&mut self, owner: &Owner, req: ClaimRequest) -> Result<ClaimOutcome> {
        if let Some(reason) = &req.reason {
            text::check_peer_line("reason", reason)?;
        }
        let lease = req.lease_seconds.unwrap_or(DEFAULT_LEASE_SECONDS);
        if lease == 0 || lease > MAX_LEASE_SECONDS {
            return Err(AccError::usage(format!(
                "lease must be between 1 and {MAX_LEASE_SECONDS} seconds, got {lease}"
            )));
        }
        let ports = &self.ports;
        let now = ports.now();
        self.store.write(|tx| {
            let me = check_owner_for_write(tx, owner, now)?;
            let expires = now + (lease as i64) * 1000;
            let (live, same) = overlapping_and_own(tx, &req.resource, now, &me.participant_id)?;
            for held in live {
                if held.owner_session_id == owner.session || inherits(tx, ports, now, &me, &held)? {
                    continue;
                }
                if held.mode == ClaimMode::Exclusive || req.mode == ClaimMode::Exclusive {
                    return Err(conflict(tx, ports, now, &req.resource, &held)?);
                }
            }
            // This participant's claims on this exact resource, live or not: the owner's
            // own, or else one an ended session of the participant holds.
            let (mine, others): (Vec<ClaimRow>, Vec<ClaimRow>) = same
                .into_iter()
                .partition(|c| c.owner_session_id == owner.session);
            let mine = mine.into_iter().next_back();
            // Claiming a resource an ended session of this participant holds adopts that claim
            // rather than leaving two.
            let adopted = match mine {
                Some(_) => None,
                None => {
                    let mut found = None;
                    for c in others {
                        if session_ended(tx, ports, now, &c.owner_session_id)? {
                            found = Some(c);
                            break;
                        }
                    }
                    found
                }
            };
            let adopted_from = adopted.as_ref().map(|c| c.owner_session_id.clone());
            // What the row holds after the write below, reported without reading it back.
            let (mut acquired_at, mut reason) = (now, req.reason.clone());
            let (claim_id, renewed) = match mine.or(adopted) {
                Some(existing) => {
                    acquired_at = existing.acquired_at;
                    reason = reason.or(existing.reason);
                    tx.execute(
                        "UPDATE claims SET mode = ?2, enforcement = ?3, reason = coalesce(?4, reason),
                            expires_at = ?5, generation = ?6, owner_session_id = ?7
                         WHERE claim_id = ?1",
                        params![
                            existing.claim_id.as_str(),
                            req.mode.as_str(),
                            req.enforcement.as_str(),
                            req.reason,
                            expires,
                            me.generation.as_str(),
                            owner.session.as_str()
                        ],
                    )?;
                    (existing.claim_id, true)
                }
                None => {
                    let id = ClaimId::from_store(ports.ids.next(IdKind::Claim));
                    tx.prepare_cached(
                        "INSERT INTO claims (claim_id, owner_session_id, resource, scheme, mode,
                            enforcement, reason, acquired_at, expires_at, generation)
                         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
                    )?
                    .execute(params![
                        id.as_str(),
                        owner.session.as_str(),
                        req.resource.as_str(),
                        req.resource.scheme(),
                        req.mode.as_str(),
                        req.enforcement.as_str(),
                        req.reason,
                        now,
                        expires,
                        me.generation.as_str()
                    ])?;
                    (id, false)
                }
            };
            events::append(
                tx,
                ports.ids.as_ref(),
                now,
                Some(&owner.session),
                if renewed { EventType::ClaimRenewed } else { EventType::ClaimAcquired },
                {
                    let mut payload = json!({
                        "claimId": claim_id.as_str(),
                        "resource": req.resource.as_str(),
                        "mode": req.mode.as_str(),
                        "enforcement": req.enforcement.as_str(),
                        "ownerSessionId": owner.session.as_str(),
                        "expiresAt": to_iso(expires),
                    });
                    if let Some(from) = &adopted_from {
                        payload["adoptedFromSessionId"] = json!(from.as_str());
                    }
                    payload
                },
            )?;
            let claim = ClaimRow {
                claim_id,
                owner_session_id: owner.session.clone(),
                owner_participant_id: me.participant_id.clone(),
                resource: req.resource.clone(),
                mode: req.mode,
                enforcement: req.enforcement,
                reason,
                acquired_at,
                expires_at: expires,
                generation: me.generation.as_str().to_string(),
            };
            Ok(ClaimOutcome {
                claim: claim.record(now),
                renewed,
                adopted_from,
            })
        })
    }

    /// Releases one of the owner session's claims; emits `claim.released`.
    pub fn release_claim(&mut self, owner: &Owner, claim: &ClaimId) -> Result<ReleaseOutcome> {
        let ports = &self.ports;
        let now = ports.now();
        self.store.write(|tx| {
            let me = check_owner_for_write(tx, owner, now)?;
            let row = by_id(tx, claim.as_str())?.ok_or_else(|| not_found(claim.as_str()))?;
            if row.owner_session_id != owner.session && !inherits(tx, ports, now, &me, &row)? {
                return Err(AccError::new(
                    ErrorCode::NotClaimOwner,
                    format!(
                        "claim {claim} belongs to session {} of {}; releasing it needs --authority human or policy",
                        row.owner_session_id, row.owner_participant_id
                    ),
                )
                .with("claimId", claim.as_str())
                .with("ownerSessionId", row.owner_session_id.as_str()));
            }
            release_in_tx(tx, ports, now, Some(&owner.session), &row)
        })
    }

    /// Releases the owner session's claim on exactly `resource` (normalised spelling), else
    /// the oldest one on it that an ended session of the same participant left.
    pub fn release_resource(
        &mut self,
        owner: &Owner,
        resource: &Resource,
    ) -> Result<ReleaseOutcome> {
        let ports = &self.ports;
        let now = ports.now();
        self.store.write(|tx| {
            let me = check_owner_for_write(tx, owner, now)?;
            let mine = rows(
                tx,
                "WHERE c.owner_session_id = ?1 AND c.resource = ?2",
                params![owner.session.as_str(), resource.as_str()],
            )?
            .pop();
            let row = match mine {
                Some(row) => row,
                None => inherited_rows(tx, ports, now, &me, false)?
                    .into_iter()
                    .find(|c| &c.resource == resource)
                    .ok_or_else(|| {
                        AccError::new(
                            ErrorCode::NotFound,
                            format!(
                                "neither this session nor an ended session of {} holds a claim on {resource}",
                                me.participant_id
                            ),
                        )
                        .with("resource", resource.as_str())
                    })?,
            };
            release_in_tx(tx, ports, now, Some(&owner.session), &row)
        })
    }

    /// Live claims the owner's session inherits from ended sessions of its participant,
    /// oldest first.
    pub fn inherited_claims(&mut self, owner: &Owner) -> Result<Vec<ClaimRecord>> {
        let ports = &self.ports;
        let now = ports.now();
        self.store.read(|c| {
            let me = check_owner(c, owner)?;
            Ok(inherited_rows(c, ports, now, &me, true)?
                .iter()
                .map(|r| r.record(now))
                .collect())
        })
    }

    /// Releases any session's claim under an authority; records the authority, the reason
    /// and the generation it replaced in `claim.force_released`. `actor` is checked when given.
    pub fn force_release(
        &mut self,
        actor: Option<&Owner>,
        claim: &ClaimId,
        authority: Authority,
        reason: Option<&str>,
    ) -> Result<ReleaseOutcome> {
        if let Some(r) = reason {
            text::check_peer_line("reason", r)?;
        }
        let ports = &self.ports;
        let now = ports.now();
        self.store.write(|tx| {
            if let Some(a) = actor {
                check_owner_for_write(tx, a, now)?;
            }
            let row = by_id(tx, claim.as_str())?.ok_or_else(|| not_found(claim.as_str()))?;
            delete(tx, &row.claim_id)?;
            events::append(
                tx,
                ports.ids.as_ref(),
                now,
                actor.map(|a| &a.session),
                EventType::ClaimForceReleased,
                json!({
                    "claimId": row.claim_id.as_str(),
                    "resource": row.resource.as_str(),
                    "ownerSessionId": row.owner_session_id.as_str(),
                    "authority": authority.as_str(),
                    "reason": reason,
                    "replacedGeneration": row.generation,
                }),
            )?;
            Ok(ReleaseOutcome {
                claim_id: row.claim_id,
                resource: row.resource,
                owner_session_id: row.owner_session_id,
                authority: Some(authority),
            })
        })
    }

    /// The session that holds claim `id` (live or expired), if the claim exists.
    pub fn claim_owner(&mut self, id: &ClaimId) -> Result<Option<SessionId>> {
        self.store
            .read(|c| Ok(by_id(c, id.as_str())?.map(|r| r.owner_session_id)))
    }

    /// The owner session's own claim on exactly `resource`, if it holds one.
    pub fn own_claim_on(&mut self, owner: &Owner, resource: &Resource) -> Result<Option<ClaimId>> {
        self.store.read(|c| {
            Ok(rows(
                c,
                "WHERE c.owner_session_id = ?1 AND c.resource = ?2",
                params![owner.session.as_str(), resource.as_str()],
            )?
            .pop()
            .map(|r| r.claim_id))
        })
    }

    /// Live claims, oldest first.
    pub fn live_claims(&mut self) -> Result<Vec<ClaimRecord>> {
        let now = self.ports.now();
        self.store
            .read(|c| Ok(live(c, now)?.iter().map(|r| r.record(now)).collect()))
    }

    /// Live guarded `file:` claims that can deny `me` a write (neither its own nor inherited
    /// from its participant's ended sessions), oldest first: what the write guard judges a
    /// tool call against.
    pub fn guarded_file_claims_of_others(&mut self, me: &SessionId) -> Result<Vec<ClaimRecord>> {
        let ports = &self.ports;
        let now = ports.now();
        self.store.read(|c| {
            let row = sessions::load(c, me.as_str())?;
            let found = rows(
                c,
                "WHERE c.expires_at > ?1 AND c.enforcement = ?2 AND c.scheme = 'file'
                    AND c.owner_session_id <> ?3 ORDER BY c.acquired_at, c.rowid",
                params![now, Enforcement::Guarded.as_str(), me.as_str()],
            )?;
            let mut out = Vec::new();
            for claim in found {
                if guards_against(c, ports, now, me, row.as_ref(), &claim)? {
                    out.push(claim.record(now));
                }
            }
            Ok(out)
        })
    }

    /// The store's claims version: every claim change bumps it, and the guarded-claims
    /// snapshot names the version it was written from, so a reader can tell it is current.
    pub fn claims_version(&mut self) -> Result<i64> {
        self.store.read(crate::store::guard_snapshot::fingerprint)
    }

    /// The live guarded `file:` claims that can deny `me` a write, with only what the write
    /// guard's fingerprints need (id, resource, owner session), in no particular order. One
    /// indexed scan of the claims; the inheritance rule is asked only of the other sessions
    /// of `me`'s own participant.
    pub fn guarded_file_claim_keys(&mut self, me: &SessionId) -> Result<Vec<ClaimKey>> {
        let ports = &self.ports;
        let now = ports.now();
        self.store.read(|c| {
            let mut inherited_from: Vec<SessionId> = Vec::new();
            if let Some(me_row) = sessions::load(c, me.as_str())? {
                let mut stmt = c.prepare_cached(
                    "SELECT session_id FROM sessions WHERE participant_id = ?1 AND session_id <> ?2",
                )?;
                let mut rows =
                    stmt.query(params![me_row.participant_id.as_str(), me.as_str()])?;
                while let Some(r) = rows.next()? {
                    let other = SessionId::from_store(r.get(0)?);
                    if session_ended(c, ports, now, &other)? {
                        inherited_from.push(other);
                    }
                }
            }
            let mut stmt = c.prepare_cached(
                "SELECT claim_id, resource, owner_session_id FROM claims
                  WHERE scheme = 'file' AND expires_at > ?1 AND enforcement = ?2
                    AND owner_session_id <> ?3",
            )?;
            let mut rows = stmt.query(params![now, Enforcement::Guarded.as_str(), me.as_str()])?;
            let mut out = Vec::new();
            while let Some(r) = rows.next()? {
                let owner_session_id = SessionId::from_store(r.get(2)?);
                if inherited_from.contains(&owner_session_id) {
                    continue;
                }
                out.push(ClaimKey {
                    claim_id: ClaimId::from_store(r.get(0)?),
                    resource: Resource::from_store(r.get(1)?),
                    owner_session_id,
                });
            }
            Ok(out)
        })
    }

    /// Live guarded `file:` claims that can deny `me` a write and overlap any of `targets`,
    /// found through the resource index (a few targets cost a few index lookups, however
    /// many claims exist), oldest first.
    pub fn guarded_file_claims_overlapping(
        &mut self,
        me: &SessionId,
        targets: &[Resource],
    ) -> Result<Vec<ClaimRecord>> {
        let ports = &self.ports;
        let now = ports.now();
        self.store.read(|c| {
            let row = sessions::load(c, me.as_str())?;
            let mut found: Vec<ClaimRow> = Vec::new();
            for target in targets.iter().filter(|t| t.is_file()) {
                for claim in live_overlapping(c, target, now)? {
                    if !found.iter().any(|f| f.claim_id == claim.claim_id)
                        && guards_against(c, ports, now, me, row.as_ref(), &claim)?
                    {
                        found.push(claim);
                    }
                }
            }
            found.sort_by_key(|r| r.acquired_at);
            Ok(found.iter().map(|r| r.record(now)).collect())
        })
    }

    /// Checks `owner` without writing anything (for read commands that take an owner).
    pub fn check_owner(&mut self, owner: &Owner) -> Result<()> {
        self.store.read(|c| check_owner(c, owner).map(|_| ()))
    }
}

/// Whether a live `claim` can deny session `me` (whose row is `me_row`) a write.
fn guards_against(
    conn: &Connection,
    ports: &Ports,
    now: i64,
    me: &SessionId,
    me_row: Option<&SessionRow>,
    claim: &ClaimRow,
) -> Result<bool> {
    if claim.enforcement != Enforcement::Guarded || &claim.owner_session_id == me {
        return Ok(false);
    }
    Ok(match me_row {
        Some(row) => !inherits(conn, ports, now, row, claim)?,
        None => true,
    })
}

/// Deletes a claim and emits `claim.released`.
pub(crate) fn release_in_tx(
    tx: &Connection,
    ports: &Ports,
    now: i64,
    actor: Option<&SessionId>,
    row: &ClaimRow,
) -> Result<ReleaseOutcome> {
    delete(tx, &row.claim_id)?;
    events::append(
        tx,
        ports.ids.as_ref(),
        now,
        actor,
        EventType::ClaimReleased,
        json!({
            "claimId": row.claim_id.as_str(),
            "resource": row.resource.as_str(),
            "ownerSessionId": row.owner_session_id.as_str(),
        }),
    )?;
    Ok(ReleaseOutcome {
        claim_id: row.claim_id.clone(),
        resource: row.resource.clone(),
        owner_session_id: row.owner_session_id.clone(),
        authority: None,
    })
}

/// Releases a claim a held takeover asked for, once confirmed: gone already is fine (its
/// owner released it meanwhile). With an authority it is a forced release, as asked.
pub(crate) fn release_held_in_tx(
    tx: &Connection,
    ports: &Ports,
    now: i64,
    claim: &ClaimId,
    authority: Option<Authority>,
    reason: Option<&str>,
) -> Result<()> {
    let Some(row) = by_id(tx, claim.as_str())? else {
        return Ok(());
    };
    match authority {
        None => release_in_tx(tx, ports, now, None, &row).map(|_| ()),
        Some(authority) => {
            delete(tx, &row.claim_id)?;
            events::append(
                tx,
                ports.ids.as_ref(),
                now,
                None,
                EventType::ClaimForceReleased,
                json!({
                    "claimId": row.claim_id.as_str(),
                    "resource": row.resource.as_str(),
                    "ownerSessionId": row.owner_session_id.as_str(),
                    "authority": authority.as_str(),
                    "reason": reason,
                    "replacedGeneration": row.generation,
                }),
            )?;
            Ok(())
        }
    }
}

/// Every claim (live or expired) owned by `session`.
pub(crate) fn of_session(conn: &Connection, session: &SessionId) -> Result<Vec<ClaimRow>> {
    rows(
        conn,
        "WHERE c.owner_session_id = ?1 ORDER BY c.acquired_at, c.rowid",
        params![session.as_str()],
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::testkit::kit;

    #[test]
    fn one_read_before_the_write_finds_what_the_two_reads_found() {
        // The claim's single statement against the two it replaced, on claims of every kind:
        // live and run out, the participant's and another's, the exact resource, its
        // ancestors' trees, inside a tree, unrelated.
        let conn = rusqlite::Connection::open_in_memory().unwrap();
        for m in crate::store::schema::MIGRATIONS {
            conn.execute_batch(m.sql).unwrap();
        }
        let mut sql = String::new();
        for (s, p) in [("s1", "amy"), ("s2", "amy"), ("s3", "bob")] {
            sql.push_str(&format!(
                "INSERT INTO participants VALUES ('{p}', '{p}', 'agent', 0) ON CONFLICT DO NOTHING;
                 INSERT INTO sessions (session_id, participant_id, generation, harness, state,
                     enforcement, lifecycle, cadence_ms, started_at, heartbeat_at)
                 VALUES ('{s}', '{p}', 'g', 'cli', 'open', 'advisory', 'manual', 1000, 0, 0);"
            ));
        }
        let claims = [
            ("s1", "file:src/a.rs", 10, 50),
            ("s2", "file:src/a.rs", 5, 500),
            ("s3", "file:src/a.rs", 7, 500),
            ("s3", "file:src/**", 3, 500),
            ("s3", "file:src/**", 2, 50),
            ("s1", "file:src/a.rs/x", 1, 500),
            ("s3", "file:src/b.rs", 1, 500),
            ("s2", "file:other.rs", 4, 500),
            ("s1", "file:src/a.rs", 5, 500),
        ];
        for (i, (s, r, at, until)) in claims.iter().enumerate() {
            sql.push_str(&format!(
                "INSERT INTO claims (claim_id, owner_session_id, resource, scheme, mode,
                     enforcement, acquired_at, expires_at, generation)
                 VALUES ('c{i}', '{s}', '{r}', 'file', 'exclusive', 'advisory', {at}, {until}, 'g');"
            ));
        }
        conn.execute_batch(&sql).unwrap();
        let conn = Connection::Sqlite(conn);
        let ids = |v: &[ClaimRow]| v.iter().map(|c| c.claim_id.to_string()).collect::<Vec<_>>();
        for wanted in [
            "file:src/a.rs",
            "file:src/**",
            "file:src/a.rs/**",
            "file:new.rs",
        ] {
            let wanted = Resource::from_store(wanted.to_string());
            for participant in ["amy", "bob", "cat"] {
                let participant = ParticipantId::from_store(participant.to_string());
                let (live, own) = overlapping_and_own(&conn, &wanted, 100, &participant).unwrap();
                let before = live_overlapping(&conn, &wanted, 100).unwrap();
                // And both against every live claim, scanned: the candidates (a tree's range
                // or not) leave out no overlapping claim.
                let scanned: Vec<ClaimRow> = super::live(&conn, 100)
                    .unwrap()
                    .into_iter()
                    .filter(|c| c.resource.overlaps(&wanted))
                    .collect();
                assert!(!scanned.is_empty() || wanted.as_str() == "file:new.rs");
                assert_eq!(ids(&before), ids(&scanned), "{wanted} {participant}");
                let own_before = rows(
                    &conn,
                    "WHERE c.resource = ?1 AND s.participant_id = ?2 ORDER BY c.acquired_at, c.rowid",
                    params![wanted.as_str(), participant.as_str()],
                )
                .unwrap();
                assert_eq!(ids(&live), ids(&before), "{wanted} {participant}");
                assert_eq!(ids(&own), ids(&own_before), "{wanted} {participant}");
            }
        }
        let amy = ParticipantId::from_store("amy".to_string());
        let exact = Resource::from_store("file:src/a.rs".to_string());
        let (live, own) = overlapping_and_own(&conn, &exact, 100, &amy).unwrap();
        assert_eq!(ids(&own), ["c1", "c8", "c0"]);
        assert_eq!(ids(&live), ["c3", "c1", "c8", "c2"]);
    }

    fn req(s: &str) -> ClaimRequest {
        ClaimRequest::new(Resource::parse(s).unwrap())
    }

    fn leased(mut r: ClaimRequest, seconds: u64) -> ClaimRequest {
        r.lease_seconds = Some(seconds);
        r
    }

    #[test]
    fn exclusive_overlap_conflicts_with_details() {
        let mut k = kit();
        let a = k.attach("alice");
        let b = k.attach("bob");
        let mut tree = req("file:src/**");
        tree.enforcement = Enforcement::Guarded;
        let got = k.core.claim(&a, tree).unwrap();
        assert!(!got.renewed);
        let e = k.core.claim(&b, req("file:src/lib.rs")).unwrap_err();
        assert_eq!(e.code, ErrorCode::ClaimConflict);
        assert_eq!(e.exit_code(), 5);
        assert_eq!(e.details["claimId"], got.claim.claim_id.as_str());
        assert_eq!(e.details["resource"], "file:src/**");
        assert_eq!(e.details["ownerSessionId"], a.session.as_str());
        assert_eq!(e.details["ownerPresence"], "online");
        assert!(e.details.contains_key("expiresAt"));
        // Nothing else overlaps: a sibling tree is fine.
        k.core.claim(&b, req("file:docs/**")).unwrap();
        assert_eq!(k.count("SELECT count(*) FROM claims"), 2);
    }

    #[test]
    fn shared_claims_coexist_but_not_with_exclusive() {
        let mut k = kit();
        let a = k.attach("alice");
        let b = k.attach("bob");
        let c = k.attach("carol");
        let mut shared = req("doc:plan");
        shared.mode = ClaimMode::Shared;
        k.core.claim(&a, shared.clone()).unwrap();
        k.core.claim(&b, shared).unwrap();
        assert_eq!(
            k.core.claim(&c, req("doc:plan")).unwrap_err().code,
            ErrorCode::ClaimConflict
        );
    }

    #[test]
    fn reclaim_renews_with_the_same_id() {
        let mut k = kit();
        let a = k.attach("alice");
        let first = k.core.claim(&a, req("file:a.rs")).unwrap();
        k.clock.advance_ms(60_000);
        let again = k.core.claim(&a, req("file:./a.rs")).unwrap();
        assert!(again.renewed);
        assert_eq!(again.claim.claim_id, first.claim.claim_id);
        assert!(again.claim.expires_at > first.claim.expires_at);
        assert_eq!(
            k.count("SELECT count(*) FROM events WHERE type = 'claim.renewed'"),
            1
        );
    }

    #[test]
    fn stale_presence_never_releases_but_expiry_does() {
        let mut k = kit();
        let a = k.attach("alice");
        let b = k.attach("bob");
        k.core.claim(&a, req("file:x")).unwrap();
        // Alice goes silent past 30 minutes (offline without pid) but the lease is 30 min:
        // advance just under the lease; the claim still blocks.
        k.clock.advance_ms(29 * 60_000);
        k.core.heartbeat(&b).unwrap();
        assert_eq!(
            k.core.claim(&b, req("file:x")).unwrap_err().code,
            ErrorCode::ClaimConflict
        );
        k.clock.advance_ms(60_001);
        k.core.claim(&b, req("file:x")).unwrap();
    }

    #[test]
    fn release_rules() {
        let mut k = kit();
        let a = k.attach("alice");
        let b = k.attach("bob");
        let held = k.core.claim(&a, req("file:x")).unwrap().claim;
        let e = k.core.release_claim(&b, &held.claim_id).unwrap_err();
        assert_eq!(e.code, ErrorCode::NotClaimOwner);
        let forced = k
            .core
            .force_release(Some(&b), &held.claim_id, Authority::Human, Some("stuck"))
            .unwrap();
        assert_eq!(forced.authority, Some(Authority::Human));
        let payload: String = k
            .core
            .store
            .read(|c| {
                Ok(c.query_row(
                    "SELECT payload FROM events WHERE type = 'claim.force_released'",
                    [],
                    |r| r.get(0),
                )?)
            })
            .unwrap();
        let payload: serde_json::Value = serde_json::from_str(&payload).unwrap();
        assert_eq!(payload["replacedGeneration"], a.generation.as_str());
        assert_eq!(payload["reason"], "stuck");
        assert_eq!(
            k.core.release_claim(&a, &held.claim_id).unwrap_err().code,
            ErrorCode::NotFound
        );
        k.core.claim(&a, req("file:y")).unwrap();
        let out = k
            .core
            .release_resource(&a, &Resource::parse("file:./y").unwrap())
            .unwrap();
        assert_eq!(out.resource.as_str(), "file:y");
        assert_eq!(k.count("SELECT count(*) FROM claims"), 0);
    }

    #[test]
    fn guard_query_finds_only_live_guarded_claims_of_others() {
        let mut k = kit();
        let a = k.attach("alice");
        let b = k.attach("bob");
        let mut g = req("file:src/**");
        g.enforcement = Enforcement::Guarded;
        k.core.claim(&a, g).unwrap();
        k.core.claim(&a, req("file:docs/**")).unwrap();
        let targets = [
            Resource::parse("file:src/lib.rs").unwrap(),
            Resource::parse("file:docs/a.md").unwrap(),
        ];
        let hits = k
            .core
            .guarded_file_claims_overlapping(&b.session, &targets)
            .unwrap();
        assert_eq!(hits.len(), 1);
        assert_eq!(hits[0].owner_participant_id.as_str(), "alice");
        let judged: Vec<String> = k
            .core
            .guarded_file_claims_of_others(&b.session)
            .unwrap()
            .into_iter()
            .map(|c| c.resource.to_string())
            .collect();
        assert_eq!(judged, ["file:src/**"]);
        let overlapping = |k: &mut crate::core::testkit::Kit, who: &SessionId| {
            k.core
                .guarded_file_claims_overlapping(who, &targets)
                .unwrap()
                .into_iter()
                .map(|c| c.resource.to_string())
                .collect::<Vec<_>>()
        };
        assert_eq!(overlapping(&mut k, &b.session), ["file:src/**"]);
        assert!(overlapping(&mut k, &a.session).is_empty());
        assert!(
            k.core
                .guarded_file_claims_of_others(&a.session)
                .unwrap()
                .is_empty()
        );
        k.clock
            .advance_ms((DEFAULT_LEASE_SECONDS as i64) * 1000 + 1);
        assert!(
            k.core
                .guarded_file_claims_overlapping(&b.session, &targets)
                .unwrap()
                .is_empty()
        );
        assert!(
            k.core
                .guarded_file_claims_of_others(&b.session)
                .unwrap()
                .is_empty()
        );
    }

    fn guarded(s: &str) -> ClaimRequest {
        let mut r = req(s);
        r.enforcement = Enforcement::Guarded;
        r
    }

    fn src() -> Resource {
        Resource::parse("file:src/lib.rs").unwrap()
    }

    #[test]
    fn a_later_session_of_the_participant_releases_what_its_ended_session_left() {
        let mut k = kit();
        let first = k.attach("alice");
        let tree = k.core.claim(&first, guarded("file:src/**")).unwrap().claim;
        let second = k.attach("alice");
        let bob = k.attach("bob");
        let tree_res = Resource::parse("file:src/**").unwrap();
        // While the first session is live, the claim is not the second's to release.
        let e = k.core.release_resource(&second, &tree_res).unwrap_err();
        assert_eq!(e.code, ErrorCode::NotFound);
        assert_eq!(
            e.message,
            "neither this session nor an ended session of alice holds a claim on file:src/**"
        );
        assert_eq!(
            k.core
                .release_claim(&second, &tree.claim_id)
                .unwrap_err()
                .code,
            ErrorCode::NotClaimOwner
        );
        assert!(k.core.inherited_claims(&second).unwrap().is_empty());
        k.core.close_session(&first, None).unwrap();
        // The claim outlives its session: bob is still refused, by claim and by guard.
        assert_eq!(
            k.core.claim(&bob, req("file:src/a.rs")).unwrap_err().code,
            ErrorCode::ClaimConflict
        );
        assert_eq!(
            k.core
                .guarded_file_claims_overlapping(&bob.session, &[src()])
                .unwrap()
                .len(),
            1
        );
        assert_eq!(
            k.core.release_resource(&bob, &tree_res).unwrap_err().code,
            ErrorCode::NotFound
        );
        assert_eq!(
            k.core.release_claim(&bob, &tree.claim_id).unwrap_err().code,
            ErrorCode::NotClaimOwner
        );
        // Alice's later session inherits it: the guard lets it write, and it may release it.
        let inherited = k.core.inherited_claims(&second).unwrap();
        assert_eq!(inherited.len(), 1);
        assert_eq!(inherited[0].claim_id, tree.claim_id);
        assert!(
            k.core
                .guarded_file_claims_overlapping(&second.session, &[src()])
                .unwrap()
                .is_empty()
        );
        assert!(
            k.core
                .guarded_file_claims_of_others(&second.session)
                .unwrap()
                .is_empty()
        );
        assert_eq!(
            k.core
                .guarded_file_claims_of_others(&bob.session)
                .unwrap()
                .len(),
            1
        );
        let out = k.core.release_resource(&second, &tree_res).unwrap();
        assert_eq!(out.claim_id, tree.claim_id);
        assert_eq!(out.owner_session_id, first.session);
        assert_eq!(k.count("SELECT count(*) FROM claims"), 0);
        k.core.claim(&bob, req("file:src/a.rs")).unwrap();
    }

    #[test]
    fn claiming_the_same_resource_again_adopts_the_ended_sessions_claim() {
        let mut k = kit();
        let first = k.attach("alice");
        let held = k.core.claim(&first, guarded("file:src/**")).unwrap().claim;
        k.core.close_session(&first, None).unwrap();
        k.clock.advance_ms(60_000);
        let second = k.attach("alice");
        // An overlapping claim of its own is no conflict with what it inherits.
        let inside = k.core.claim(&second, req("file:src/lib.rs")).unwrap();
        assert!(inside.adopted_from.is_none());
        let adopted = k.core.claim(&second, guarded("file:src/**")).unwrap();
        assert_eq!(adopted.adopted_from.as_ref(), Some(&first.session));
        assert!(adopted.renewed);
        assert_eq!(adopted.claim.claim_id, held.claim_id);
        assert_eq!(adopted.claim.owner_session_id, second.session);
        assert!(adopted.claim.expires_at > held.expires_at);
        assert!(k.core.inherited_claims(&second).unwrap().is_empty());
        assert_eq!(k.count("SELECT count(*) FROM claims"), 2);
        let payload: String = k
            .core
            .store
            .read(|c| {
                Ok(c.query_row(
                    "SELECT payload FROM events WHERE type = 'claim.renewed'",
                    [],
                    |r| r.get(0),
                )?)
            })
            .unwrap();
        assert!(payload.contains(first.session.as_str()), "{payload}");
        // Once adopted it is the second session's: release it by id like any own claim.
        k.core.release_claim(&second, &held.claim_id).unwrap();
    }

    #[test]
    fn an_offline_session_counts_as_ended_and_another_participant_never_inherits() {
        let mut k = kit();
        let first = k.attach("alice");
        let long = leased(guarded("file:src/**"), 3600);
        let held = k.core.claim(&first, long).unwrap().claim;
        // Silent without a pid past presence's limit: offline, though never closed.
        k.clock
            .advance_ms(super::super::presence::OFFLINE_WITHOUT_PID_AFTER_MS + 1);
        let second = k.attach("alice");
        let carol = k.attach("carol");
        assert_eq!(k.core.inherited_claims(&second).unwrap().len(), 1);
        assert!(k.core.inherited_claims(&carol).unwrap().is_empty());
        k.core.release_claim(&second, &held.claim_id).unwrap();
    }

    #[test]
    fn bad_lease_and_reason_write_nothing() {
        let mut k = kit();
        let a = k.attach("alice");
        let mut r = req("file:x");
        r.lease_seconds = Some(0);
        assert_eq!(k.core.claim(&a, r.clone()).unwrap_err().exit_code(), 2);
        r.lease_seconds = None;
        r.reason = Some("a\nb".into());
        assert_eq!(k.core.claim(&a, r).unwrap_err().exit_code(), 2);
        assert_eq!(k.count("SELECT count(*) FROM claims"), 0);
    }

    /// The inherited claims and the participant's claims are one statement with different
    /// bounds: each keeps exactly its own rows (an expired claim, the session's own claim,
    /// another participant's claim, in the order they were taken).
    #[test]
    fn inherited_and_participant_claims_read_through_one_statement_keep_their_rows() {
        let mut k = kit();
        let first = k.attach("alice");
        let kept = k
            .core
            .claim(&first, leased(req("file:a.rs"), 3600))
            .unwrap()
            .claim;
        let short = leased(req("file:b.rs"), 60);
        let expired = k.core.claim(&first, short).unwrap().claim;
        k.core.close_session(&first, None).unwrap();
        k.clock.advance_ms(120_000);
        let second = k.attach("alice");
        let own = k.core.claim(&second, req("file:c.rs")).unwrap().claim;
        let bob = k.attach("bob");
        k.core.claim(&bob, req("file:d.rs")).unwrap();
        let alice = ParticipantId::parse("alice").unwrap();
        let ports = k.core.ports.clone();
        let now = ports.now();
        let (all, live, any) = k
            .core
            .store
            .read(|c| {
                let me = sessions::load(c, second.session.as_str())?.unwrap();
                let ids = |rows: Vec<ClaimRow>| -> Vec<ClaimId> {
                    rows.into_iter().map(|r| r.claim_id).collect()
                };
                Ok((
                    ids(of_participant(c, &alice)?),
                    ids(inherited_rows(c, &ports, now, &me, true)?),
                    ids(inherited_rows(c, &ports, now, &me, false)?),
                ))
            })
            .unwrap();
        assert_eq!(
            all,
            [
                kept.claim_id.clone(),
                expired.claim_id.clone(),
                own.claim_id
            ]
        );
        assert_eq!(live, std::slice::from_ref(&kept.claim_id));
        assert_eq!(any, [kept.claim_id, expired.claim_id]);
        let inherited: Vec<ClaimId> = k
            .core
            .inherited_claims(&second)
            .unwrap()
            .into_iter()
            .map(|c| c.claim_id)
            .collect();
        assert_eq!(inherited, live);
    }
}
