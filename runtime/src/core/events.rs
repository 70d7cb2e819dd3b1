//! The event log: an append-only, closed set of event types, numbered by a sequence that is
//! never reused (pruned history leaves a gap, not a recycled number).

use crate::clock::to_iso;
use crate::error::{AccError, ErrorCode, Result};
use crate::ids::{EventSeq, IdKind, IdSource, SessionId};
use crate::store::engine::{Connection, params};
use rusqlite::ToSql;
use serde::Serialize;
use serde_json::Value;

/// The closed set of event types.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum EventType {
    WorkspaceMaterialised,
    SessionOpened,
    SessionClosed,
    IntentPublished,
    IntentCleared,
    ClaimAcquired,
    ClaimReleased,
    ClaimRenewed,
    ClaimForceReleased,
    MessageRecorded,
    MessageOffered,
    MessageRetrieved,
    MessageAcknowledged,
    MessageOfferSucceeded,
    MessageOfferFailed,
    /// The guard refused a peer's write into a guarded claim ([`super::refusals`]).
    ClaimWriteRefused,
    /// A session was shown the refusals into its claims up to a sequence.
    ClaimWriteRefusalsShown,
    /// A claimed file changed while a peer's allowed shell call ran ([`super::refusals`]).
    ClaimWriteDetected,
    /// A release, detach or attach reached a live agent session from outside its client
    /// ([`super::takeovers`]).
    SessionTakeover,
    /// A held takeover was confirmed or refused.
    SessionTakeoverSettled,
}

impl EventType {
    pub const ALL: [EventType; 20] = [
        EventType::WorkspaceMaterialised,
        EventType::SessionOpened,
        EventType::SessionClosed,
        EventType::IntentPublished,
        EventType::IntentCleared,
        EventType::ClaimAcquired,
        EventType::ClaimReleased,
        EventType::ClaimRenewed,
        EventType::ClaimForceReleased,
        EventType::MessageRecorded,
        EventType::MessageOffered,
        EventType::MessageRetrieved,
        EventType::MessageAcknowledged,
        EventType::MessageOfferSucceeded,
        EventType::MessageOfferFailed,
        EventType::ClaimWriteRefused,
        EventType::ClaimWriteRefusalsShown,
        EventType::ClaimWriteDetected,
        EventType::SessionTakeover,
        EventType::SessionTakeoverSettled,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            EventType::WorkspaceMaterialised => "workspace.materialised",
            EventType::SessionOpened => "session.opened",
            EventType::SessionClosed => "session.closed",
            EventType::IntentPublished => "intent.published",
            EventType::IntentCleared => "intent.cleared",
            EventType::ClaimAcquired => "claim.acquired",
            EventType::ClaimReleased => "claim.released",
            EventType::ClaimRenewed => "claim.renewed",
            EventType::ClaimForceReleased => "claim.force_released",
            EventType::MessageRecorded => "message.recorded",
            EventType::MessageOffered => "message.offered",
            EventType::MessageRetrieved => "message.retrieved",
            EventType::MessageAcknowledged => "message.acknowledged",
            EventType::MessageOfferSucceeded => "message.offer_succeeded",
            EventType::MessageOfferFailed => "message.offer_failed",
            EventType::ClaimWriteRefused => "claim.write_refused",
            EventType::ClaimWriteRefusalsShown => "claim.write_refusals_shown",
            EventType::ClaimWriteDetected => "claim.write_detected",
            EventType::SessionTakeover => "session.takeover",
            EventType::SessionTakeoverSettled => "session.takeover_settled",
        }
    }

    pub fn parse(s: &str) -> Option<EventType> {
        EventType::ALL.into_iter().find(|t| t.as_str() == s)
    }
}

/// One event as readers see it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Event {
    pub sequence: EventSeq,
    pub event_id: String,
    pub actor_session_id: Option<String>,
    #[serde(rename = "type")]
    pub event_type: String,
    pub occurred_at: String,
    pub payload: Value,
}

/// Appends one event inside the caller's transaction.
pub fn append(
    conn: &Connection,
    ids: &dyn IdSource,
    now_ms: i64,
    actor: Option<&SessionId>,
    event_type: EventType,
    payload: Value,
) -> Result<EventSeq> {
    conn.prepare_cached(
        "INSERT INTO events (event_id, actor_session_id, type, occurred_at, payload)
         VALUES (?1, ?2, ?3, ?4, ?5)",
    )?
    .execute(params![
        ids.next(IdKind::Event),
        actor.map(|s| s.as_str()),
        event_type.as_str(),
        now_ms,
        payload.to_string()
    ])?;
    Ok(EventSeq(conn.last_insert_rowid() as u64))
}

/// At most this many events are inserted by one statement of [`append_all`].
const APPEND_CHUNK: usize = 100;

/// Appends one event per payload (each a JSON object's text), all of one type, actor and
/// time, in the order given (so their sequences follow it): one `INSERT` of many rows,
/// since `AUTOINCREMENT` reads and writes `sqlite_sequence` once per statement, not once
/// per row.
pub fn append_all(
    conn: &Connection,
    ids: &dyn IdSource,
    now_ms: i64,
    actor: Option<&SessionId>,
    event_type: EventType,
    payloads: &[String],
) -> Result<()> {
    for chunk in payloads.chunks(APPEND_CHUNK) {
        let rows = (0..chunk.len())
            .map(|i| format!("(?{}, ?1, ?2, ?3, ?{})", 4 + 2 * i, 5 + 2 * i))
            .collect::<Vec<_>>()
            .join(", ");
        let sql = format!(
            "INSERT INTO events (event_id, actor_session_id, type, occurred_at, payload)
             VALUES {rows}"
        );
        let actor = actor.map(|s| s.as_str());
        let event_type = event_type.as_str();
        let event_ids = ids.run(IdKind::Event, chunk.len());
        let mut values: Vec<&dyn ToSql> = vec![&actor, &event_type, &now_ms];
        for (id, payload) in event_ids.iter().zip(chunk) {
            values.push(id);
            values.push(payload);
        }
        conn.prepare_cached(&sql)?.execute(values.as_slice())?;
    }
    Ok(())
}

/// Appends one event with the id `event_id` inside the caller's transaction, unless an
/// event with that id is already in the log (`None`): a record kept outside the store
/// ([`super::refusal_spool`]) and taken in twice is recorded once.
pub fn append_once(
    conn: &Connection,
    event_id: &str,
    occurred_at_ms: i64,
    actor: Option<&SessionId>,
    event_type: EventType,
    payload: Value,
) -> Result<Option<EventSeq>> {
    let inserted = conn
        .prepare_cached(
            "INSERT INTO events (event_id, actor_session_id, type, occurred_at, payload)
             VALUES (?1, ?2, ?3, ?4, ?5) ON CONFLICT (event_id) DO NOTHING",
        )?
        .execute(params![
            event_id,
            actor.map(|s| s.as_str()),
            event_type.as_str(),
            occurred_at_ms,
            payload.to_string()
        ])?;
    Ok((inserted == 1).then(|| EventSeq(conn.last_insert_rowid() as u64)))
}

/// The highest sequence ever assigned, or 0 for a log that never had an event. This is
/// SQLite's AUTOINCREMENT high-water mark, not the newest remaining row, so pruning old
/// events never moves the head (and every cursor handed out from it) backwards.
pub fn head(conn: &Connection) -> Result<EventSeq> {
    let seq: i64 = conn
        .prepare_cached(
            "SELECT max(
                 coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'events'), 0),
                 coalesce((SELECT max(sequence) FROM events), 0))",
        )?
        .query_row([], |r| r.get(0))?;
    Ok(EventSeq(seq.max(0) as u64))
}

/// Refuses a cursor beyond the head. No sync ever returned one, so it was made up or comes
/// from another store; reading from it would silently skip every event until the log caught
/// up. `name` is how the caller spelled the cursor (`cursor`, `--before`), `fix` what to do.
pub fn refuse_beyond_head(
    conn: &Connection,
    name: &str,
    cursor: EventSeq,
    fix: &str,
) -> Result<EventSeq> {
    let head = head(conn)?;
    if cursor > head {
        return Err(AccError::new(
            ErrorCode::InvalidCursor,
            format!("{name} {cursor} is beyond the newest event of this workspace ({head}); {fix}"),
        )
        .with("cursor", cursor.to_string())
        .with("head", head.to_string()));
    }
    Ok(head)
}

/// Events after `cursor`, oldest first, at most `limit`, optionally only some types and
/// optionally leaving out one actor's own events. Also returns the last sequence examined,
/// which is the cursor to continue from (filtered-out events are not seen again).
pub fn since(
    conn: &Connection,
    cursor: EventSeq,
    limit: usize,
    types: &[EventType],
    exclude_actor: Option<&SessionId>,
) -> Result<(Vec<Event>, EventSeq)> {
    let mut stmt = conn.prepare_cached(
        "SELECT sequence, event_id, actor_session_id, type, occurred_at, payload
         FROM events WHERE sequence > ?1 ORDER BY sequence",
    )?;
    let mut rows = stmt.query(params![cursor.0 as i64])?;
    let mut out = Vec::new();
    let mut last = cursor;
    let mut exhausted = true;
    while let Some(row) = rows.next()? {
        if out.len() >= limit {
            exhausted = false;
            break;
        }
        last = EventSeq(row.get::<_, i64>(0)? as u64);
        let actor: Option<String> = row.get(2)?;
        let ty: String = row.get(3)?;
        if !types.is_empty() && !types.iter().any(|t| t.as_str() == ty) {
            continue;
        }
        if let (Some(ex), Some(a)) = (exclude_actor, actor.as_deref())
            && ex.as_str() == a
        {
            continue;
        }
        let payload: String = row.get(5)?;
        out.push(Event {
            sequence: EventSeq(row.get::<_, i64>(0)? as u64),
            event_id: row.get(1)?,
            actor_session_id: actor,
            event_type: ty,
            occurred_at: to_iso(row.get(4)?),
            payload: serde_json::from_str(&payload).unwrap_or(Value::Null),
        });
    }
    drop(rows);
    if exhausted {
        // Everything up to the head was read; continue from the head even when its events
        // were pruned, so the cursor never goes backwards.
        last = last.max(head(conn)?);
    }
    Ok((out, last))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::SequentialIds;

    fn db() -> Connection {
        let c = Connection::open_in_memory().unwrap();
        for m in crate::store::schema::MIGRATIONS {
            c.execute_batch(m.sql).unwrap();
        }
        c
    }

    #[test]
    fn type_names_round_trip() {
        for t in EventType::ALL {
            assert_eq!(EventType::parse(t.as_str()), Some(t));
        }
        assert_eq!(EventType::parse("task.created"), None);
    }

    /// The events one statement appends sit side by side in the id index (so the statement
    /// writes one or two of its pages, not one a row), among ids drawn one by one, in the
    /// order given, each distinct.
    #[test]
    fn one_statements_events_are_neighbours_in_the_id_index() {
        let c = db();
        let ids = crate::ids::RandomIds;
        for _ in 0..300 {
            append(
                &c,
                &ids,
                1,
                None,
                EventType::ClaimAcquired,
                serde_json::json!({}),
            )
            .unwrap();
        }
        let payloads: Vec<String> = (0..11).map(|i| format!(r#"{{"n":{i}}}"#)).collect();
        append_all(
            &c,
            &ids,
            2,
            None,
            EventType::MessageOfferSucceeded,
            &payloads,
        )
        .unwrap();
        let by_id: Vec<(String, i64)> = c
            .prepare("SELECT event_id, occurred_at FROM events ORDER BY event_id")
            .unwrap()
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .unwrap()
            .collect::<rusqlite::Result<_>>()
            .unwrap();
        let run: Vec<usize> = (0..by_id.len()).filter(|&i| by_id[i].1 == 2).collect();
        assert_eq!(run.len(), 11);
        assert_eq!(
            run[10] - run[0],
            10,
            "the run is interleaved with other ids"
        );
        let (appended, _) = since(&c, EventSeq(300), 20, &[], None).unwrap();
        let order: Vec<i64> = appended
            .iter()
            .map(|e| e.payload["n"].as_i64().unwrap())
            .collect();
        assert_eq!(order, (0..11).collect::<Vec<_>>());
        let mut distinct: Vec<&str> = appended.iter().map(|e| e.event_id.as_str()).collect();
        distinct.sort_unstable();
        distinct.dedup();
        assert_eq!(distinct.len(), 11);
    }

    #[test]
    fn appends_in_order_and_filters() {
        let c = db();
        let ids = SequentialIds::default();
        let s = SessionId::parse("session_a").unwrap();
        let one = append(
            &c,
            &ids,
            5,
            Some(&s),
            EventType::SessionOpened,
            serde_json::json!({}),
        )
        .unwrap();
        let two = append(
            &c,
            &ids,
            6,
            None,
            EventType::ClaimAcquired,
            serde_json::json!({"x":1}),
        )
        .unwrap();
        assert!(two > one);
        assert_eq!(head(&c).unwrap(), two);
        let (all, last) = since(&c, EventSeq(0), 10, &[], None).unwrap();
        assert_eq!(all.len(), 2);
        assert_eq!(last, two);
        assert_eq!(all[1].payload["x"], 1);
        let (others, last) = since(&c, EventSeq(0), 10, &[], Some(&s)).unwrap();
        assert_eq!(others.len(), 1);
        assert_eq!(last, two);
        let (claims, _) = since(&c, EventSeq(0), 10, &[EventType::ClaimAcquired], None).unwrap();
        assert_eq!(claims[0].event_type, "claim.acquired");
        assert_eq!(since(&c, one, 10, &[], None).unwrap().0.len(), 1);
        let (first, last) = since(&c, EventSeq(0), 1, &[], None).unwrap();
        assert_eq!((first.len(), last), (1, one));
        assert_eq!(since(&c, two, 10, &[], None).unwrap(), (vec![], two));
    }

    /// Appends a `session.opened` event at `at`.
    fn opened(c: &Connection, ids: &SequentialIds, at: i64) -> Result<EventSeq> {
        append(
            c,
            ids,
            at,
            None,
            EventType::SessionOpened,
            serde_json::json!({}),
        )
    }

    #[test]
    fn the_head_never_goes_backwards_when_events_are_deleted() {
        let c = db();
        let ids = SequentialIds::default();
        assert_eq!(head(&c).unwrap(), EventSeq(0));
        for _ in 0..3 {
            opened(&c, &ids, 1).unwrap();
        }
        c.execute("DELETE FROM events", []).unwrap();
        assert_eq!(head(&c).unwrap(), EventSeq(3));
        // A reader starting from nothing continues from the head, not from 0.
        assert_eq!(
            since(&c, EventSeq(0), 10, &[], None).unwrap(),
            (vec![], EventSeq(3))
        );
        let next = opened(&c, &ids, 2);
        assert_eq!(next.unwrap(), EventSeq(4), "sequences are never reused");
    }

    #[test]
    fn a_cursor_beyond_the_head_is_refused_naming_the_head() {
        let c = db();
        let ids = SequentialIds::default();
        opened(&c, &ids, 1).unwrap();
        assert_eq!(
            refuse_beyond_head(&c, "cursor", EventSeq(1), "fix").unwrap(),
            EventSeq(1)
        );
        let e = refuse_beyond_head(&c, "cursor", EventSeq(2), "pass another").unwrap_err();
        assert_eq!(e.code, ErrorCode::InvalidCursor);
        assert_eq!(e.exit_code(), 2);
        assert_eq!(
            e.message,
            "cursor 0000000000000002 is beyond the newest event of this workspace (0000000000000001); pass another"
        );
        assert_eq!(e.details["head"], "0000000000000001");
    }
}
