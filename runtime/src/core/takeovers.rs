//! Acts on a live agent session from outside its client: the loud path.
//!
//! An agent's `acc` acts only as its own session ([`crate::cli::agent`]), judged by the
//! caller's process ancestry. A process that left its client's tree (re-parented by
//! `setsid`, a double fork, `nohup`, `at`) has no ancestry left to judge, and on one machine,
//! one user, nothing else tells it from a person's shell. So such an act is never quiet: every
//! release, forced release, detach or attach that reaches a session whose hooked client is
//! alive, from a caller outside that client, is a `session.takeover` event naming what acc
//! knows of the caller's processes; the owner is shown it in its next turn, `acc status` lists
//! it, `acc watch` shows it. What would take something from a live owner (a release, a
//! detach) is **held**: nothing changes until the owner (from inside its own client) or a
//! person confirms it (`acc takeover confirm`), so the taker's next write into the claim is
//! still refused. An attach under a live participant's name holds the new session instead: it
//! claims nothing until confirmed.
//!
//! Settling is a `session.takeover_settled` event naming the takeover's sequence; the held
//! act is carried out in the same transaction. The events carry ids, the claim's resource and
//! the caller's process names, which that caller chose: readers escape them.

use super::Core;
use super::claims;
use super::events::{self, EventType};
use super::model::{Authority, SessionState};
use super::sessions;
use crate::clock::to_iso;
use crate::error::{AccError, ErrorCode, Result};
use crate::ids::{ClaimId, EventSeq, SessionId};
use crate::store::engine::{Connection, OptionalExtension, ToSql, params};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use std::collections::HashMap;

/// The most takeovers a turn, a status or a list shows (the count says how many there were).
pub const MAX_LISTED: usize = 20;

/// What was done, or asked, to a session from outside its client.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum TakeoverKind {
    /// `acc release --authority …` of the session's claim.
    ForcedRelease,
    /// `acc release` of the session's claim with the session's own credentials.
    Release,
    /// `acc detach` of the session with its own credentials.
    Detach,
    /// `acc attach` under the participant the session acts as.
    AttachLive,
    /// Any other command run with the session's credentials (a claim, a message, an
    /// acknowledgement): done at once, told.
    ActedAs,
}

impl TakeoverKind {
    pub fn as_str(self) -> &'static str {
        match self {
            TakeoverKind::ForcedRelease => "forcedRelease",
            TakeoverKind::Release => "release",
            TakeoverKind::Detach => "detach",
            TakeoverKind::AttachLive => "attachLive",
            TakeoverKind::ActedAs => "actedAs",
        }
    }

    /// How acc says it to the owner: "release of your claim", "detach of your session".
    pub fn phrase(self) -> &'static str {
        match self {
            TakeoverKind::ForcedRelease => "forced release of your claim",
            TakeoverKind::Release => "release of your claim",
            TakeoverKind::Detach => "detach of your session",
            TakeoverKind::AttachLive => "attach under your name",
            TakeoverKind::ActedAs => "command run as your session",
        }
    }
}

/// Where a takeover stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum TakeoverState {
    /// Waiting for the owner or a person: nothing was changed yet (an attach: the new session
    /// may not claim).
    Held,
    /// Done when asked (the owner was not live, or the act takes nothing away); told only.
    Done,
    /// A held act the owner or a person confirmed; carried out then.
    Confirmed,
    /// A held act the owner or a person refused; nothing was changed.
    Refused,
}

impl TakeoverState {
    pub fn as_str(self) -> &'static str {
        match self {
            TakeoverState::Held => "held",
            TakeoverState::Done => "done",
            TakeoverState::Confirmed => "confirmed",
            TakeoverState::Refused => "refused",
        }
    }
}

/// Who settled a held takeover.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", tag = "by")]
pub enum Settler {
    /// The session the takeover reached, from inside its own client.
    Owner { session_id: String },
    /// A caller the person check accepted (a terminal, no hooked ancestor).
    Person,
}

/// One process among the caller's ancestors, as the process table showed it. `name` and
/// `exe` are the caller's to choose.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CallerProcess {
    pub pid: u32,
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exe: Option<String>,
}

/// `4242 script <- 1 systemd`: the chain on one line, names as they are (readers escape).
pub fn process_line(chain: &[CallerProcess]) -> String {
    chain
        .iter()
        .map(|p| format!("{} {}", p.pid, p.name))
        .collect::<Vec<_>>()
        .join(" <- ")
}

/// What the CLI asks core to record.
#[derive(Debug, Clone)]
pub struct TakeoverRequest {
    pub kind: TakeoverKind,
    /// The session the act reached.
    pub owner_session_id: SessionId,
    /// The claim it releases, for a release.
    pub claim_id: Option<ClaimId>,
    /// The session that acts under the owner's name, for an attach.
    pub taker_session_id: Option<SessionId>,
    /// The `acc` verb that asked (`release`, `detach`, `attach`, `message`).
    pub command: String,
    /// The caller's ancestors, nearest first.
    pub process: Vec<CallerProcess>,
    /// Held until confirmed, or done at once.
    pub held: bool,
    /// A forced release's authority and reason, kept to carry it out on confirmation.
    pub authority: Option<Authority>,
    pub reason: Option<String>,
}

/// A takeover as readers see it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Takeover {
    /// What `acc takeover confirm|refuse` takes: the sequence as a plain number.
    pub number: u64,
    pub sequence: EventSeq,
    pub occurred_at: String,
    pub kind: TakeoverKind,
    pub state: TakeoverState,
    pub owner_session_id: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub owner_participant_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub claim_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub claim_resource: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub taker_session_id: Option<String>,
    pub command: String,
    pub process: Vec<CallerProcess>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub settled_by: Option<Settler>,
}

impl Takeover {
    pub fn is_held(&self) -> bool {
        self.state == TakeoverState::Held
    }
}

/// Takeovers for one reader: the newest [`MAX_LISTED`] and how many there were.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Takeovers {
    pub total: u64,
    pub held: u64,
    pub listed: Vec<Takeover>,
}

impl Takeovers {
    pub fn is_empty(&self) -> bool {
        self.total == 0
    }

    pub fn newest(&self) -> Option<EventSeq> {
        self.listed.iter().map(|t| t.sequence).max()
    }
}

/// Whether to confirm or refuse a held takeover.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Settlement {
    Confirm,
    Refuse,
}

fn read_takeover(seq: i64, at: i64, payload: &str, settled: Option<&(String, Value)>) -> Takeover {
    let p: Value = serde_json::from_str(payload).unwrap_or(Value::Null);
    let text = |k: &str| p[k].as_str().map(str::to_string);
    let kind = serde_json::from_value(p["kind"].clone()).unwrap_or(TakeoverKind::ActedAs);
    let held = p["held"].as_bool().unwrap_or(false);
    let (state, settled_by) = match settled {
        Some((outcome, by)) => (
            if outcome == "confirmed" {
                TakeoverState::Confirmed
            } else {
                TakeoverState::Refused
            },
            serde_json::from_value(by.clone()).ok(),
        ),
        None if held => (TakeoverState::Held, None),
        None => (TakeoverState::Done, None),
    };
    Takeover {
        number: seq.max(0) as u64,
        sequence: EventSeq(seq.max(0) as u64),
        occurred_at: to_iso(at),
        kind,
        state,
        owner_session_id: text("ownerSessionId").unwrap_or_default(),
        owner_participant_id: text("ownerParticipantId"),
        claim_id: text("claimId"),
        claim_resource: text("claimResource"),
        taker_session_id: text("takerSessionId"),
        command: text("command").unwrap_or_default(),
        process: serde_json::from_value(p["process"].clone()).unwrap_or_default(),
        settled_by,
    }
}

/// Every settlement after `after` (a settlement always follows its takeover), by the
/// takeover sequence it names.
fn settlements(conn: &Connection, after: i64) -> Result<HashMap<i64, (String, Value)>> {
    let mut stmt = conn.prepare_cached(
        "SELECT payload FROM events WHERE sequence > ?1 AND type = 'session.takeover_settled'
          ORDER BY sequence",
    )?;
    let mut out = HashMap::new();
    let mut rows = stmt.query(params![after])?;
    while let Some(r) = rows.next()? {
        let payload: String = r.get(0)?;
        let p: Value = serde_json::from_str(&payload).unwrap_or(Value::Null);
        if let Some(seq) = p["takeover"].as_i64() {
            // The first settlement stands; a second one is refused before it is written.
            out.entry(seq).or_insert_with(|| {
                (
                    p["outcome"].as_str().unwrap_or_default().to_string(),
                    p["settledBy"].clone(),
                )
            });
        }
    }
    Ok(out)
}

/// Takeovers reaching `owner_session` (every session's without one) after `after`, newest
/// last; with `taker`, only those naming it as the taker.
fn list(
    conn: &Connection,
    owner_session: Option<&SessionId>,
    taker: Option<&SessionId>,
    after: EventSeq,
) -> Result<Vec<Takeover>> {
    // One text for each filter a caller names, rather than one with `?N IS NULL OR ...`
    // for each: a process calls `list` one way (a claim only for its taker, a turn only for
    // its owner), and the filters it does not name cost its compile (the claim's: 0.08 M
    // instructions with both, about half without).
    const SELECT: &str = "SELECT sequence, occurred_at, payload FROM events
          WHERE type = 'session.takeover' AND sequence > ?1";
    const OWNER: &str = " AND json_extract(payload, '$.ownerSessionId') = ?";
    const TAKER: &str = " AND json_extract(payload, '$.takerSessionId') = ?";
    let mut sql = String::from(SELECT);
    let after = after.0 as i64;
    let (owner, taker) = (
        owner_session.map(SessionId::as_str),
        taker.map(SessionId::as_str),
    );
    let mut p: Vec<&dyn ToSql> = vec![&after];
    for (filter, id) in [(OWNER, &owner), (TAKER, &taker)] {
        if let Some(id) = id {
            p.push(id);
            sql.push_str(filter);
            sql.push_str(&p.len().to_string());
        }
    }
    sql.push_str(" ORDER BY sequence");
    let mut stmt = conn.prepare_cached(&sql)?;
    let rows = stmt.query_map(p.as_slice(), |r| {
        Ok((
            r.get::<_, i64>(0)?,
            r.get::<_, i64>(1)?,
            r.get::<_, String>(2)?,
        ))
    })?;
    let found: Vec<(i64, i64, String)> = rows.collect::<rusqlite::Result<_>>()?;
    // Only read settlements when there is something they could settle: a turn with no
    // takeover reads one range of the log and no more.
    let Some(first) = found.first().map(|f| f.0) else {
        return Ok(Vec::new());
    };
    let settled = settlements(conn, first)?;
    Ok(found
        .into_iter()
        .map(|(seq, at, payload)| read_takeover(seq, at, &payload, settled.get(&seq)))
        .collect())
}

/// The newest [`MAX_LISTED`] of `all`, the held ones first among them kept.
fn summarise(all: Vec<Takeover>) -> Takeovers {
    let total = all.len() as u64;
    let held = all.iter().filter(|t| t.is_held()).count() as u64;
    let skip = all.len().saturating_sub(MAX_LISTED);
    Takeovers {
        total,
        held,
        listed: all.into_iter().skip(skip).collect(),
    }
}

fn not_found(seq: EventSeq) -> AccError {
    AccError::new(
        ErrorCode::NotFound,
        format!("takeover {seq} does not exist; `acc takeover list` lists them"),
    )
    .with("takeover", seq.0)
}

impl Core {
    /// Records `req`; returns it as readers will see it.
    pub fn record_takeover(
        &mut self,
        actor: Option<&SessionId>,
        req: &TakeoverRequest,
    ) -> Result<Takeover> {
        let now = self.ports.now();
        let ids = self.ports.ids.clone();
        self.store.write(|tx| {
            let owner_participant = sessions::load(tx, req.owner_session_id.as_str())?
                .map(|s| s.participant_id.as_str().to_string());
            let claim_resource: Option<String> = match &req.claim_id {
                Some(id) => tx
                    .prepare_cached("SELECT resource FROM claims WHERE claim_id = ?1")?
                    .query_row(params![id.as_str()], |r| r.get(0))
                    .optional()?,
                None => None,
            };
            let payload = json!({
                "kind": req.kind,
                "held": req.held,
                "ownerSessionId": req.owner_session_id.as_str(),
                "ownerParticipantId": owner_participant,
                "claimId": req.claim_id.as_ref().map(ClaimId::as_str),
                "claimResource": claim_resource,
                "takerSessionId": req.taker_session_id.as_ref().map(SessionId::as_str),
                "command": req.command,
                "process": req.process,
                "processLine": process_line(&req.process),
                "authority": req.authority.map(|a| a.as_str()),
                "reason": req.reason,
            });
            let seq = events::append(
                tx,
                ids.as_ref(),
                now,
                actor,
                EventType::SessionTakeover,
                payload.clone(),
            )?;
            Ok(read_takeover(seq.0 as i64, now, &payload.to_string(), None))
        })
    }

    /// Takeovers reaching `owner_session` (every session's without one) after `after`.
    pub fn takeovers(
        &mut self,
        owner_session: Option<&SessionId>,
        after: EventSeq,
    ) -> Result<Takeovers> {
        self.store
            .read(|c| Ok(summarise(list(c, owner_session, None, after)?)))
    }

    /// One takeover by its sequence.
    pub fn takeover(&mut self, seq: EventSeq) -> Result<Takeover> {
        self.store.read(|c| {
            list(c, None, None, EventSeq(seq.0.saturating_sub(1)))?
                .into_iter()
                .find(|t| t.sequence == seq)
                .ok_or_else(|| not_found(seq))
        })
    }

    /// A held attach that made `session` act under a live participant's name, if any: such a
    /// session claims nothing until it is confirmed.
    pub fn held_taker(&mut self, session: &SessionId) -> Result<Option<Takeover>> {
        self.store.read(|c| {
            Ok(list(c, None, Some(session), EventSeq(0))?
                .into_iter()
                .find(Takeover::is_held))
        })
    }

    /// Confirms or refuses the held takeover `seq`; a confirmed release or detach is carried
    /// out in the same transaction. `settler` is who the CLI proved the caller to be.
    pub fn settle_takeover(
        &mut self,
        seq: EventSeq,
        settlement: Settlement,
        settler: &Settler,
    ) -> Result<Takeover> {
        let ports = &self.ports;
        let now = ports.now();
        self.store.write(|tx| {
            let found = list(tx, None, None, EventSeq(seq.0.saturating_sub(1)))?
                .into_iter()
                .find(|t| t.sequence == seq)
                .ok_or_else(|| not_found(seq))?;
            if !found.is_held() {
                return Err(AccError::new(
                    ErrorCode::TakeoverNotHeld,
                    format!(
                        "takeover {seq} is {}, not held: nothing is waiting for a confirmation",
                        found.state.as_str()
                    ),
                )
                .with("takeover", seq.0)
                .with("state", found.state.as_str()));
            }
            if let Settler::Owner { session_id } = settler
                && session_id != &found.owner_session_id
            {
                return Err(AccError::new(
                    ErrorCode::AgentActsAsAnother,
                    format!(
                        "takeover {seq} reached session {}, not yours: only its owner or a person settles it",
                        found.owner_session_id
                    ),
                )
                .with("why", "notYourSession"));
            }
            let owner_session = SessionId::from_store(found.owner_session_id.clone());
            if settlement == Settlement::Confirm {
                carry_out(tx, ports, now, &found, &owner_session)?;
            }
            let outcome = match settlement {
                Settlement::Confirm => "confirmed",
                Settlement::Refuse => "refused",
            };
            let actor = match settler {
                Settler::Owner { .. } => Some(&owner_session),
                Settler::Person => None,
            };
            events::append(
                tx,
                ports.ids.as_ref(),
                now,
                actor,
                EventType::SessionTakeoverSettled,
                json!({
                    "takeover": seq.0,
                    "outcome": outcome,
                    "settledBy": settler,
                    "ownerSessionId": found.owner_session_id,
                    "kind": found.kind,
                }),
            )?;
            let mut settled = found;
            settled.state = match settlement {
                Settlement::Confirm => TakeoverState::Confirmed,
                Settlement::Refuse => TakeoverState::Refused,
            };
            settled.settled_by = Some(settler.clone());
            Ok(settled)
        })
    }
}

/// What a confirmed takeover does: a release removes the claim (if it is still there), a
/// detach closes the session (if it is still open); an attach only lifts the hold.
fn carry_out(
    tx: &Connection,
    ports: &super::Ports,
    now: i64,
    t: &Takeover,
    owner_session: &SessionId,
) -> Result<()> {
    match t.kind {
        TakeoverKind::ForcedRelease | TakeoverKind::Release => {
            let Some(id) = &t.claim_id else {
                return Ok(());
            };
            let payload: Value = tx
                .prepare_cached("SELECT payload FROM events WHERE sequence = ?1")?
                .query_row(params![t.sequence.0 as i64], |r| r.get::<_, String>(0))
                .map(|p| serde_json::from_str(&p).unwrap_or(Value::Null))?;
            claims::release_held_in_tx(
                tx,
                ports,
                now,
                &ClaimId::from_store(id.clone()),
                payload["authority"]
                    .as_str()
                    .and_then(|a| Authority::parse(a).ok()),
                payload["reason"].as_str(),
            )
        }
        TakeoverKind::Detach => {
            if let Some(row) = sessions::load(tx, owner_session.as_str())?
                && row.state == SessionState::Open
            {
                sessions::close_in_tx(tx, ports, now, &row, "close", Some("takeover"))?;
            }
            Ok(())
        }
        TakeoverKind::AttachLive | TakeoverKind::ActedAs => Ok(()),
    }
}

#[cfg(test)]
mod tests;
