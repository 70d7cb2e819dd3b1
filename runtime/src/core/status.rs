//! Status: the room at a glance. Presence, intents, checkouts, live claims, protection,
//! attention for the caller, and unretrieved counts. Never shows a generation.

use super::attention;
use super::claims::{self, ClaimRecord};
use super::intents::{self, IntentRecord};
use super::model::{Enforcement, Lifecycle, Presence, Protection, SessionState};
use super::refusals::RefusedWrites;
use super::sessions::{self, SessionRow, check_owner};
use super::takeovers::Takeovers;
use super::{Core, Owner, Ports};
use crate::clock::to_iso;
use crate::error::Result;
use crate::ids::{EventSeq, ParticipantId, SessionId};
use crate::store::engine::Connection;
use crate::workspace::WorkspaceSource;
use acc_sdk::context::AttentionItem;
use serde::Serialize;
use std::collections::HashMap;

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct StatusSession {
    pub session_id: SessionId,
    pub participant_id: ParticipantId,
    pub harness: String,
    pub state: SessionState,
    pub presence: Presence,
    pub parent_session_id: Option<String>,
    pub checkout_root: Option<String>,
    pub branch: Option<String>,
    pub enforcement: Enforcement,
    pub lifecycle: Lifecycle,
    pub intent: Option<IntentRecord>,
    pub started_at: String,
    pub heartbeat_at: String,
    /// The host the session runs on, on a store several hosts share; left out otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub host: Option<String>,
}

/// Whether the session that made a claim is still live. A claim outlives its session; once
/// the session has ended (closed, or offline), the claim is its participant's to release or
/// adopt from another session.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum OwnerSession {
    Live,
    Ended,
}

/// A live claim as status shows it: the claim, and whether its session is gone.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct StatusClaim {
    #[serde(flatten)]
    pub claim: ClaimRecord,
    pub owner_session: OwnerSession,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct WorkspaceSummary {
    pub id: String,
    pub display_name: String,
    pub source: WorkspaceSource,
    pub roots: Vec<String>,
    pub store: String,
    pub store_exists: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Unretrieved {
    pub queued: u64,
    pub offered: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct StatusCounts {
    /// Sessions that are not offline.
    pub live_sessions: u64,
    pub live_claims: u64,
    pub unretrieved: Unretrieved,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct StatusReport {
    pub workspace: WorkspaceSummary,
    pub sessions: Vec<StatusSession>,
    pub claims: Vec<StatusClaim>,
    pub protection: Protection,
    /// For the caller's participant; empty without an owner.
    pub attention: Vec<AttentionItem>,
    pub counts: StatusCounts,
    /// Writes the guard refused into guarded claims (the caller's own, with an owner),
    /// newest last; left out when there were none.
    #[serde(skip_serializing_if = "RefusedWrites::is_empty")]
    pub refused_writes: RefusedWrites,
    /// Files under guarded claims that changed while a peer's allowed shell call ran, newest
    /// last; left out when there were none.
    #[serde(skip_serializing_if = "RefusedWrites::is_empty")]
    pub detected_writes: RefusedWrites,
    /// Acts on live agent sessions from outside their clients (the caller's own, with an
    /// owner), newest last, held ones counted; left out when there were none.
    #[serde(skip_serializing_if = "Takeovers::is_empty")]
    pub takeovers: Takeovers,
    /// Where the workspace's files disagree with the workspace its conversations are bound
    /// to (filled by the caller, which knows the directory); left out when they agree.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub workspace_faults: Vec<String>,
    /// The store changed behind acc's back while guarded claims existed (removed, replaced,
    /// claims deleted): one line, until a person runs `acc doctor`; left out otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub store_tampered: Option<String>,
}

/// `none` without live claims; `guarded` only when every live session and every live claim
/// is guarded; `advisory` otherwise.
pub fn protection(
    live_session_enforcements: &[Enforcement],
    live_claim_enforcements: &[Enforcement],
) -> Protection {
    if live_claim_enforcements.is_empty() {
        return Protection::None;
    }
    let all_guarded = live_session_enforcements
        .iter()
        .chain(live_claim_enforcements)
        .all(|e| *e == Enforcement::Guarded);
    if all_guarded {
        Protection::Guarded
    } else {
        Protection::Advisory
    }
}

fn status_session(
    row: &SessionRow,
    presence: Presence,
    intent: Option<IntentRecord>,
) -> StatusSession {
    StatusSession {
        session_id: row.session_id.clone(),
        participant_id: row.participant_id.clone(),
        harness: row.harness.clone(),
        state: row.state,
        presence,
        parent_session_id: row.parent_session_id.clone(),
        checkout_root: row.checkout_root.clone(),
        branch: row.branch.clone(),
        enforcement: row.enforcement,
        lifecycle: row.lifecycle,
        intent,
        started_at: to_iso(row.started_at),
        heartbeat_at: to_iso(row.heartbeat_at),
        host: row.host().map(str::to_string),
    }
}

fn unretrieved(conn: &Connection) -> Result<Unretrieved> {
    let mut stmt = conn.prepare_cached(
        "SELECT state, count(*) FROM receipts WHERE state IN ('queued', 'offered') GROUP BY state",
    )?;
    let mut rows = stmt.query([])?;
    let mut out = Unretrieved {
        queued: 0,
        offered: 0,
    };
    while let Some(r) = rows.next()? {
        let state: String = r.get(0)?;
        let n: i64 = r.get(1)?;
        if state == "queued" {
            out.queued = n as u64;
        } else {
            out.offered = n as u64;
        }
    }
    Ok(out)
}

pub(crate) struct RoomState {
    pub sessions: Vec<StatusSession>,
    pub claims: Vec<ClaimRecord>,
    pub protection: Protection,
    pub live_sessions: u64,
}

/// Sessions (open ones, or all), live claims and protection, read in one snapshot.
pub(crate) fn room(conn: &Connection, ports: &Ports, now: i64, all: bool) -> Result<RoomState> {
    let rows = sessions::load_all(conn, !all)?;
    let mut intents: HashMap<SessionId, IntentRecord> = intents::load_all(conn)?
        .into_iter()
        .map(|i| (i.session_id.clone(), i))
        .collect();
    let mut list = Vec::with_capacity(rows.len());
    let mut live_enforcements = Vec::new();
    for row in &rows {
        let presence = row.presence(ports, now);
        if presence != Presence::Offline {
            live_enforcements.push(row.enforcement);
        }
        list.push(status_session(
            row,
            presence,
            intents.remove(&row.session_id),
        ));
    }
    let claims: Vec<ClaimRecord> = claims::live(conn, now)?
        .iter()
        .map(|c| c.record(now))
        .collect();
    let claim_enforcements: Vec<Enforcement> = claims.iter().map(|c| c.enforcement).collect();
    Ok(RoomState {
        protection: protection(&live_enforcements, &claim_enforcements),
        live_sessions: live_enforcements.len() as u64,
        sessions: list,
        claims,
    })
}

impl Core {
    /// The room's status. With an owner, attention is computed for its participant (and the
    /// owner is checked). `all` includes closed sessions.
    pub fn status(&mut self, owner: Option<&Owner>, all: bool) -> Result<StatusReport> {
        // Best effort: a reader that cannot take the write lock still reports, and presence
        // already shows a gone client's session offline.
        let _ = self.close_sessions_of_gone_clients();
        let mut report = self.room_status(owner, all)?;
        report.refused_writes = self.refused_writes(owner.map(|o| &o.session), EventSeq(0))?;
        report.detected_writes = self.detected_writes(owner.map(|o| &o.session), EventSeq(0))?;
        report.takeovers = self.takeovers(owner.map(|o| &o.session), EventSeq(0))?;
        Ok(report)
    }

    fn room_status(&mut self, owner: Option<&Owner>, all: bool) -> Result<StatusReport> {
        let ports = &self.ports;
        let now = ports.now();
        let ws = &self.workspace;
        let store_exists = !self.store.is_ephemeral();
        let store_path = self.store.path().display().to_string();
        self.store
            .read(|c| {
                let attention = match owner {
                    Some(o) => {
                        let me = check_owner(c, o)?;
                        attention::for_participant(c, ports, now, &me.participant_id)?
                    }
                    None => Vec::new(),
                };
                let room = room(c, ports, now, all)?;
                let claims = room
                    .claims
                    .into_iter()
                    .map(|claim| {
                        let ended = claims::session_ended(c, ports, now, &claim.owner_session_id)?;
                        Ok(StatusClaim {
                            claim,
                            owner_session: if ended {
                                OwnerSession::Ended
                            } else {
                                OwnerSession::Live
                            },
                        })
                    })
                    .collect::<Result<Vec<_>>>()?;
                Ok(StatusReport {
                    workspace: WorkspaceSummary {
                        id: ws.id.as_str().to_owned(),
                        display_name: ws.display_name.clone(),
                        source: ws.source,
                        roots: ws.roots.iter().map(|r| r.display().to_string()).collect(),
                        store: store_path,
                        store_exists,
                    },
                    counts: StatusCounts {
                        live_sessions: room.live_sessions,
                        live_claims: claims.len() as u64,
                        unretrieved: unretrieved(c)?,
                    },
                    sessions: room.sessions,
                    claims,
                    protection: room.protection,
                    attention,
                    refused_writes: RefusedWrites::default(),
                    detected_writes: RefusedWrites::default(),
                    takeovers: Takeovers::default(),
                    workspace_faults: Vec::new(),
                    store_tampered: None,
                })
            })
            .map(|mut report| {
                report.store_tampered = crate::store::tamper::read(self.store_path())
                    .map(|m| m.summary(self.ports.now()));
                report
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::claims::ClaimRequest;
    use crate::core::resources::Resource;
    use crate::core::testkit::kit;

    #[test]
    fn protection_levels() {
        use Enforcement::*;
        assert_eq!(protection(&[Guarded], &[]), Protection::None);
        assert_eq!(
            protection(&[Guarded, Guarded], &[Guarded]),
            Protection::Guarded
        );
        assert_eq!(
            protection(&[Guarded, Advisory], &[Guarded]),
            Protection::Advisory
        );
        assert_eq!(protection(&[Guarded], &[Advisory]), Protection::Advisory);
    }

    #[test]
    fn status_counts_and_protection() {
        let mut k = kit();
        let a = k.attach_guarded("alice");
        let b = k.attach_guarded("bob");
        let mut req = ClaimRequest::new(Resource::parse("file:src/**").unwrap());
        req.enforcement = Enforcement::Guarded;
        k.core.claim(&a, req).unwrap();
        let s = k.core.status(None, false).unwrap();
        assert_eq!(s.counts.live_sessions, 2);
        assert_eq!(s.counts.live_claims, 1);
        assert_eq!(s.protection, Protection::Guarded);
        assert!(s.workspace.store_exists);
        k.core.close_session(&b, None).unwrap();
        assert_eq!(k.core.status(None, false).unwrap().sessions.len(), 1);
        assert_eq!(k.core.status(None, true).unwrap().sessions.len(), 2);
        k.attach("carol");
        assert_eq!(
            k.core.status(None, false).unwrap().protection,
            Protection::Advisory
        );
        // A claim outlives its session, and status says the session is gone.
        assert_eq!(
            k.core.status(None, false).unwrap().claims[0].owner_session,
            OwnerSession::Live
        );
        k.core.close_session(&a, None).unwrap();
        let after = k.core.status(None, false).unwrap();
        assert_eq!(after.claims.len(), 1);
        assert_eq!(after.claims[0].owner_session, OwnerSession::Ended);
        assert_eq!(after.claims[0].claim.owner_participant_id.as_str(), "alice");
        let json = serde_json::to_value(&after).unwrap();
        assert_eq!(json["claims"][0]["ownerSession"], "ended");
        assert_eq!(json["claims"][0]["ownerParticipantId"], "alice");
        // A status never carries a generation.
        let c = k.attach("carol");
        let json = serde_json::to_string(&k.core.status(Some(&c), true).unwrap()).unwrap();
        assert!(!json.contains("generation_"), "{json}");
    }
}
