//! The room as `acc watch` shows it: `acc status` plus each session's process, the messages
//! in flight per recipient, who owes whom an answer, the decisions and the tail of the event
//! log. One read transaction, so every pane shows the same moment; it never writes.

use super::decisions::{self, DecisionState};
use super::events::EventType;
use super::status::StatusReport;
use super::{Core, sessions};
use crate::error::Result;
use crate::ids::{ParticipantId, SessionId};
use crate::store::engine::Connection;
use serde_json::Value;
use std::collections::BTreeMap;

/// How much history the view reads; the rest stays in the store.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RoomViewLimits {
    /// Events in the tail.
    pub events: usize,
    /// Open obligations listed (the count is always exact).
    pub obligations: usize,
    /// Decisions listed, newest first.
    pub decisions: usize,
    /// How long an ended session stays on screen, in milliseconds.
    pub ended_for_ms: i64,
}

impl Default for RoomViewLimits {
    fn default() -> Self {
        RoomViewLimits {
            events: 200,
            obligations: 200,
            decisions: 50,
            ended_for_ms: 15 * 60 * 1000,
        }
    }
}

/// The process behind a session, as its hooks or `acc attach` recorded it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SessionProcess {
    pub pid: Option<u32>,
    pub client_name: Option<String>,
    pub client_version: Option<String>,
    pub closed_at_ms: Option<i64>,
    pub heartbeat_at_ms: i64,
    /// The host the session runs on, recorded on a store several hosts share.
    pub host: Option<String>,
}

/// Receipts of one recipient, by state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecipientDeliveries {
    pub recipient: ParticipantId,
    pub queued: u64,
    pub offered: u64,
    pub retrieved: u64,
    pub acknowledged: u64,
    /// When the oldest message not yet acknowledged was sent.
    pub oldest_open_ms: Option<i64>,
}

/// What an open obligation asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Owed {
    Reply,
    Acknowledge,
}

impl Owed {
    pub fn as_str(self) -> &'static str {
        match self {
            Owed::Reply => "reply",
            Owed::Acknowledge => "ack",
        }
    }
}

/// `debtor` owes `creditor` an answer to `message_id`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Obligation {
    pub debtor: ParticipantId,
    pub creditor: ParticipantId,
    pub message_id: String,
    pub owed: Owed,
    pub sent_at_ms: i64,
}

/// One decision and where it stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecisionLine {
    pub message_id: String,
    pub from: ParticipantId,
    pub state: DecisionState,
    pub sent_at_ms: i64,
}

/// One event of the tail: its type, who did it, and the ids and resource it names. Free
/// text in a payload (subjects, bodies, reasons) is never read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EventLine {
    pub sequence: i64,
    pub kind: String,
    pub occurred_at_ms: i64,
    pub actor: Option<ParticipantId>,
    pub subject: Vec<String>,
}

/// Everything one frame of `acc watch` shows.
#[derive(Debug, Clone, PartialEq)]
pub struct RoomView {
    pub status: StatusReport,
    pub processes: BTreeMap<SessionId, SessionProcess>,
    pub deliveries: Vec<RecipientDeliveries>,
    pub obligations: Vec<Obligation>,
    pub obligations_total: u64,
    pub decisions: Vec<DecisionLine>,
    pub events: Vec<EventLine>,
    /// Hooks that failed open lately, on this machine's data home (any workspace): filled by
    /// the caller, which knows where the hook runtime logs them; empty from the store alone.
    pub hook_failures: Vec<HookFailureLine>,
    pub now_ms: i64,
}

/// A hook that failed open: when, which adapter, the stable reason code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HookFailureLine {
    pub at_ms: i64,
    pub adapter: String,
    pub code: String,
}

/// Payload keys whose values are ids, kinds or resources (never peer prose).
const EVENT_SUBJECT_KEYS: [&str; 11] = [
    "resource",
    "path",
    // A refused write's target: which path the actor tried.
    "target",
    "claimId",
    "messageId",
    "toParticipantIds",
    "participantId",
    "kind",
    "authority",
    // A takeover's caller: what acc knows of the processes that did it.
    "processLine",
    "outcome",
];

impl Core {
    /// The room for `acc watch`, read in one snapshot.
    pub fn room_view(&mut self, limits: RoomViewLimits) -> Result<RoomView> {
        let now = self.now_ms();
        // Sessions ended a while ago leave the view; status filters nothing by age.
        let mut status = self.status(None, true)?;
        let view = self.store.read(|c| {
            let processes = processes(c)?;
            let deliveries = deliveries(c)?;
            let (obligations, obligations_total) = obligations(c, limits.obligations)?;
            let decisions = decision_lines(c, limits.decisions)?;
            let events = event_tail(c, limits.events)?;
            Ok((
                processes,
                deliveries,
                obligations,
                obligations_total,
                decisions,
                events,
            ))
        })?;
        let (processes, deliveries, obligations, obligations_total, decisions, events) = view;
        status.sessions.retain(|s| {
            processes
                .get(&s.session_id)
                .and_then(|p| p.closed_at_ms)
                .is_none_or(|closed| now - closed <= limits.ended_for_ms)
        });
        Ok(RoomView {
            status,
            processes,
            deliveries,
            obligations,
            obligations_total,
            decisions,
            events,
            hook_failures: Vec::new(),
            now_ms: now,
        })
    }

    /// SQLite's `data_version`: it changes whenever another connection commits to the store,
    /// so a reader can poll it without reading anything else.
    pub fn data_version(&mut self) -> Result<i64> {
        self.store
            .read(|c| Ok(c.query_row("PRAGMA data_version", [], |r| r.get(0))?))
    }
}

fn processes(c: &Connection) -> Result<BTreeMap<SessionId, SessionProcess>> {
    let mut out = BTreeMap::new();
    for row in sessions::load_all(c, false)? {
        let client = row.extensions.get("client");
        let field = |k: &str| {
            client
                .and_then(|v| v.get(k))
                .and_then(Value::as_str)
                .map(str::to_string)
        };
        out.insert(
            row.session_id.clone(),
            SessionProcess {
                pid: row.pid,
                client_name: field("name").or(row.client_name.clone()),
                client_version: field("version"),
                closed_at_ms: row.closed_at,
                heartbeat_at_ms: row.heartbeat_at,
                host: row.host().map(str::to_string),
            },
        );
    }
    Ok(out)
}

fn deliveries(c: &Connection) -> Result<Vec<RecipientDeliveries>> {
    let mut stmt = c.prepare_cached(
        "SELECT r.recipient_participant_id, r.state, count(*),
                min(CASE WHEN r.state <> 'acknowledged' THEN m.sent_at END)
           FROM receipts r JOIN messages m ON m.seq = r.message_seq
          GROUP BY r.recipient_participant_id, r.state",
    )?;
    let mut rows = stmt.query([])?;
    let mut by: BTreeMap<String, RecipientDeliveries> = BTreeMap::new();
    while let Some(r) = rows.next()? {
        let recipient: String = r.get(0)?;
        let Ok(id) = ParticipantId::parse(&recipient) else {
            continue;
        };
        let state: String = r.get(1)?;
        let n = r.get::<_, i64>(2)? as u64;
        let oldest: Option<i64> = r.get(3)?;
        let entry = by.entry(recipient).or_insert_with(|| RecipientDeliveries {
            recipient: id,
            queued: 0,
            offered: 0,
            retrieved: 0,
            acknowledged: 0,
            oldest_open_ms: None,
        });
        match state.as_str() {
            "queued" => entry.queued = n,
            "offered" => entry.offered = n,
            "retrieved" => entry.retrieved = n,
            _ => entry.acknowledged = n,
        }
        entry.oldest_open_ms = match (entry.oldest_open_ms, oldest) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
    }
    let mut out: Vec<RecipientDeliveries> = by.into_values().collect();
    // Whoever has waited longest first; recipients with nothing open last.
    out.sort_by_key(|d| (d.oldest_open_ms.is_none(), d.oldest_open_ms));
    Ok(out)
}

fn obligations(c: &Connection, limit: usize) -> Result<(Vec<Obligation>, u64)> {
    let total: i64 = c.query_row(
        "SELECT count(*) FROM receipts r JOIN messages m ON m.seq = r.message_seq
          WHERE m.obligation <> 'none' AND r.state <> 'acknowledged'",
        [],
        |r| r.get(0),
    )?;
    let mut stmt = c.prepare_cached(
        "SELECT r.recipient_participant_id, m.from_participant_id, m.message_id, m.obligation,
                m.sent_at
           FROM receipts r JOIN messages m ON m.seq = r.message_seq
          WHERE m.obligation <> 'none' AND r.state <> 'acknowledged'
          ORDER BY m.seq
          LIMIT ?1",
    )?;
    let mut rows = stmt.query([limit as i64])?;
    let mut out = Vec::new();
    while let Some(r) = rows.next()? {
        let debtor: String = r.get(0)?;
        let creditor: String = r.get(1)?;
        let (Ok(debtor), Ok(creditor)) = (
            ParticipantId::parse(&debtor),
            ParticipantId::parse(&creditor),
        ) else {
            continue;
        };
        let owed = if r.get::<_, String>(3)? == "reply" {
            Owed::Reply
        } else {
            Owed::Acknowledge
        };
        out.push(Obligation {
            debtor,
            creditor,
            message_id: r.get(2)?,
            owed,
            sent_at_ms: r.get(4)?,
        });
    }
    Ok((out, total as u64))
}

fn decision_lines(c: &Connection, limit: usize) -> Result<Vec<DecisionLine>> {
    let mut stmt = c.prepare_cached(
        "SELECT seq, message_id, from_participant_id, sent_at FROM messages
          WHERE kind = 'decision' ORDER BY seq DESC LIMIT ?1",
    )?;
    let rows: Vec<(i64, String, String, i64)> = stmt
        .query_map([limit as i64], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?))
        })?
        .collect::<std::result::Result<_, _>>()?;
    let seqs: Vec<i64> = rows.iter().map(|r| r.0).collect();
    let statuses = decisions::statuses(c, &seqs)?;
    Ok(rows
        .into_iter()
        .filter_map(|(seq, message_id, from, sent_at_ms)| {
            Some(DecisionLine {
                message_id,
                from: ParticipantId::parse(&from).ok()?,
                state: statuses
                    .get(&seq)
                    .map_or(DecisionState::Current, |s| s.state),
                sent_at_ms,
            })
        })
        .collect())
}

fn event_tail(c: &Connection, limit: usize) -> Result<Vec<EventLine>> {
    let mut stmt = c.prepare_cached(
        "SELECT e.sequence, e.type, e.occurred_at, s.participant_id, e.payload
           FROM events e LEFT JOIN sessions s ON s.session_id = e.actor_session_id
          ORDER BY e.sequence DESC LIMIT ?1",
    )?;
    let mut rows = stmt.query([limit as i64])?;
    let mut out = Vec::new();
    while let Some(r) = rows.next()? {
        let kind: String = r.get(1)?;
        let actor: Option<String> = r.get(3)?;
        let payload: String = r.get(4)?;
        out.push(EventLine {
            sequence: r.get(0)?,
            kind: EventType::parse(&kind).map_or(kind, |t| t.as_str().to_string()),
            occurred_at_ms: r.get(2)?,
            actor: actor.and_then(|a| ParticipantId::parse(&a).ok()),
            subject: event_subject(&payload),
        });
    }
    out.reverse();
    Ok(out)
}

/// The ids, kinds and resources an event payload names, in [`EVENT_SUBJECT_KEYS`] order.
fn event_subject(payload: &str) -> Vec<String> {
    let Ok(Value::Object(map)) = serde_json::from_str::<Value>(payload) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for key in EVENT_SUBJECT_KEYS {
        match map.get(key) {
            Some(Value::String(s)) => out.push(s.clone()),
            Some(Value::Array(items)) => {
                out.extend(items.iter().filter_map(Value::as_str).map(str::to_string))
            }
            _ => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::claims::ClaimRequest;
    use crate::core::messages::SendMessage;
    use crate::core::model::{Enforcement, MessageKind};
    use crate::core::resources::Resource;
    use crate::core::testkit::kit;

    fn question(to: &str, subject: &str, body: &str) -> SendMessage {
        SendMessage {
            to: vec![to.to_string()],
            kind: MessageKind::Question,
            obligation: None,
            subject: subject.into(),
            body: body.into(),
            client_message_id: None,
        }
    }

    #[test]
    fn a_populated_room_reads_into_every_pane() {
        let mut k = kit();
        let a = k.attach_guarded("alice");
        let b = k.attach_guarded("bob");
        let mut req = ClaimRequest::new(Resource::parse("file:src/**").unwrap());
        req.enforcement = Enforcement::Guarded;
        k.core.claim(&a, req).unwrap();
        let sent = k
            .core
            .send(&b, question("alice", "may I?", "body text"))
            .unwrap();
        let held = k.core.live_claims().unwrap()[0].clone();
        k.core
            .record_refused_write(
                Some(&b.session),
                &crate::core::refusals::Refusal {
                    claim_id: held.claim_id.clone(),
                    claim_resource: held.resource.as_str().to_string(),
                    owner_session_id: held.owner_session_id.clone(),
                    owner_participant_id: held.owner_participant_id.clone(),
                    target: "file:src/engine.rs".into(),
                },
            )
            .unwrap();
        let view = k.core.room_view(RoomViewLimits::default()).unwrap();

        assert_eq!(view.status.sessions.len(), 2);
        assert_eq!(view.status.claims.len(), 1);
        let alice = &view.deliveries[0];
        assert_eq!(alice.recipient.as_str(), "alice");
        assert_eq!((alice.queued, alice.acknowledged), (1, 0));
        assert_eq!(view.obligations_total, 1);
        let owed = &view.obligations[0];
        assert_eq!(
            (owed.debtor.as_str(), owed.creditor.as_str(), owed.owed),
            ("alice", "bob", Owed::Reply)
        );
        assert_eq!(owed.message_id, sent.message.message_id.as_str());
        let kinds: Vec<&str> = view.events.iter().map(|e| e.kind.as_str()).collect();
        assert!(kinds.contains(&"claim.acquired"), "{kinds:?}");
        let claimed = view
            .events
            .iter()
            .find(|e| e.kind == "claim.acquired")
            .unwrap();
        assert_eq!(claimed.actor.as_ref().unwrap().as_str(), "alice");
        assert!(
            claimed.subject.iter().any(|s| s == "file:src/**"),
            "{claimed:?}"
        );
        // A guard refusal: who tried which path, into which claim.
        let refused = view
            .events
            .iter()
            .find(|e| e.kind == "claim.write_refused")
            .unwrap();
        assert_eq!(refused.actor.as_ref().unwrap().as_str(), "bob");
        assert_eq!(
            refused.subject,
            ["file:src/engine.rs", held.claim_id.as_str()]
        );
        // Peer prose never reaches the view's event subjects.
        assert!(
            view.events.iter().all(|e| e
                .subject
                .iter()
                .all(|s| !s.contains("body text") && s != "may I?")),
            "{:?}",
            view.events
        );
    }

    #[test]
    fn answering_clears_the_obligation_and_ended_sessions_age_out() {
        let mut k = kit();
        let a = k.attach("alice");
        let b = k.attach("bob");
        let sent = k.core.send(&b, question("alice", "s", "b")).unwrap();
        k.core
            .reply(&a, &sent.message.message_id, "yes", None, None)
            .unwrap();
        let view = k.core.room_view(RoomViewLimits::default()).unwrap();
        assert!(
            view.obligations
                .iter()
                .all(|o| o.debtor.as_str() != "alice"),
            "{:?}",
            view.obligations
        );
        k.core.close_session(&b, None).unwrap();
        let limits = RoomViewLimits::default();
        assert_eq!(k.core.room_view(limits).unwrap().status.sessions.len(), 2);
        k.clock.advance_ms(limits.ended_for_ms + 1);
        let later = k.core.room_view(limits).unwrap();
        let left: Vec<&str> = later
            .status
            .sessions
            .iter()
            .map(|s| s.participant_id.as_str())
            .collect();
        assert_eq!(left, ["alice"]);
    }

    #[test]
    fn data_version_moves_when_another_connection_commits() {
        let mut k = kit();
        k.attach("alice");
        let path = k.core.store_path().to_path_buf();
        let before = k.core.data_version().unwrap();
        let other = rusqlite::Connection::open(&path).unwrap();
        other
            .execute(
                "INSERT INTO meta (key, value) VALUES ('watch-test', 'x')",
                [],
            )
            .unwrap();
        assert_ne!(k.core.data_version().unwrap(), before);
    }
}
