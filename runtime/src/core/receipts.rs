//! Receipts: one per (message, recipient participant), moving forward only through
//! `queued -> offered -> retrieved -> acknowledged`. Skipping ahead is allowed, repeating a
//! state is a no-op, and moving back is a conflict.

use super::Ports;
use super::events::{self, EventType};
use super::model::ReceiptState;
use crate::clock::to_iso;
use crate::error::{AccError, ErrorCode, Result};
use crate::ids::{MessageId, ParticipantId, ReceiptId, SessionId};
use crate::store::engine::{Connection, params};
use rusqlite::ToSql;
use serde::Serialize;
use serde_json::json;
use std::collections::HashSet;

/// How a transport offered a message (kept with the receipt).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct OfferInfo {
    pub transport: String,
    pub at: String,
    pub repeated_at: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ReceiptRecord {
    pub receipt_id: ReceiptId,
    pub message_id: MessageId,
    pub recipient_participant_id: ParticipantId,
    pub state: ReceiptState,
    pub updated_at: String,
    pub offer: Option<OfferInfo>,
}

#[derive(Debug, Clone)]
pub(crate) struct ReceiptRow {
    pub message_id: MessageId,
    pub recipient: ParticipantId,
    pub state: ReceiptState,
    pub updated_at: i64,
    pub offer_transport: Option<String>,
    pub offer_at: Option<i64>,
    pub offer_repeated_at: Option<i64>,
}

impl ReceiptRow {
    pub(crate) fn record(&self) -> ReceiptRecord {
        ReceiptRecord {
            receipt_id: ReceiptId::derive(&self.message_id, &self.recipient),
            message_id: self.message_id.clone(),
            recipient_participant_id: self.recipient.clone(),
            state: self.state,
            updated_at: to_iso(self.updated_at),
            offer: self.offer_transport.as_ref().map(|t| OfferInfo {
                transport: t.clone(),
                at: self.offer_at.map(to_iso).unwrap_or_default(),
                repeated_at: self.offer_repeated_at.map(to_iso),
            }),
        }
    }
}

const RECEIPT_SELECT: &str = "SELECT message_seq, message_id, recipient_participant_id, state,
    updated_at, offer_transport, offer_at, offer_repeated_at FROM receipts";

fn from_row(r: &crate::store::engine::Row<'_>) -> Result<ReceiptRow> {
    Ok(ReceiptRow {
        message_id: MessageId::from_store(r.get(1)?),
        recipient: ParticipantId::from_store(r.get(2)?),
        state: ReceiptState::from_store(&r.get::<_, String>(3)?)?,
        updated_at: r.get(4)?,
        offer_transport: r.get(5)?,
        offer_at: r.get(6)?,
        offer_repeated_at: r.get(7)?,
    })
}

pub(crate) fn load(
    conn: &Connection,
    message: &MessageId,
    recipient: &ParticipantId,
) -> Result<Option<ReceiptRow>> {
    let sql = format!("{RECEIPT_SELECT} WHERE message_id = ?1 AND recipient_participant_id = ?2");
    let mut stmt = conn.prepare_cached(&sql)?;
    let mut rows = stmt.query(params![message.as_str(), recipient.as_str()])?;
    match rows.next()? {
        Some(r) => Ok(Some(from_row(&r)?)),
        None => Ok(None),
    }
}

/// At most this many receipts are offered by one statement (the ids are bound one by one).
const OFFER_CHUNK: usize = 100;

/// The state is compared as an expression (`state || ''`) so that no index serves it:
/// SQLite, without statistics, would otherwise walk `receipts_by_recipient` over every
/// queued receipt of the recipient (10,000 of them) instead of looking up each id in the
/// unique (message, recipient) index.
fn offer_queued_sql(list: &str) -> String {
    format!(
        "UPDATE receipts SET state = 'offered', updated_at = ?1, offer_transport = ?2,
            offer_at = ?1
         WHERE recipient_participant_id = ?3 AND state || '' = 'queued'
           AND message_id IN ({list})
         RETURNING message_id"
    )
}

/// Offers, in one statement per [`OFFER_CHUNK`] ids, each of `recipient`'s receipts among
/// `messages` that is still queued; returns the ids it changed. A receipt already past
/// `queued`, or none at all, is left to the caller, which reads it.
pub(crate) fn offer_queued(
    conn: &Connection,
    messages: &[&MessageId],
    recipient: &ParticipantId,
    now: i64,
    transport: &str,
) -> Result<HashSet<String>> {
    let mut offered = HashSet::with_capacity(messages.len());
    for chunk in messages.chunks(OFFER_CHUNK) {
        let list = (4..4 + chunk.len())
            .map(|n| format!("?{n}"))
            .collect::<Vec<_>>()
            .join(", ");
        let sql = offer_queued_sql(&list);
        let recipient = recipient.as_str();
        let ids: Vec<&str> = chunk.iter().map(|id| id.as_str()).collect();
        let mut values: Vec<&dyn ToSql> = vec![&now, &transport, &recipient];
        values.extend(ids.iter().map(|id| id as &dyn ToSql));
        let mut stmt = conn.prepare_cached(&sql)?;
        let changed = stmt
            .query_map(values.as_slice(), |r| r.get::<_, String>(0))?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        offered.extend(changed);
    }
    Ok(offered)
}

pub(crate) fn of_message(conn: &Connection, seq: i64) -> Result<Vec<ReceiptRow>> {
    let sql = format!("{RECEIPT_SELECT} WHERE message_seq = ?1 ORDER BY recipient_participant_id");
    let mut stmt = conn.prepare_cached(&sql)?;
    let mut rows = stmt.query(params![seq])?;
    let mut out = Vec::new();
    while let Some(r) = rows.next()? {
        out.push(from_row(&r)?);
    }
    Ok(out)
}

pub(crate) fn insert_queued(
    conn: &Connection,
    seq: i64,
    message: &MessageId,
    recipient: &ParticipantId,
    now: i64,
) -> Result<()> {
    conn.prepare_cached(
        "INSERT INTO receipts (receipt_id, message_seq, message_id, recipient_participant_id, state, updated_at)
         VALUES (?1, ?2, ?3, ?4, 'queued', ?5)",
    )?
    .execute(params![
        ReceiptId::derive(message, recipient).as_str(),
        seq,
        message.as_str(),
        recipient.as_str(),
        now
    ])?;
    Ok(())
}

/// Checks a move from `from` to `to`: `Ok(false)` for a repeat, `Ok(true)` to advance, a
/// conflict for a backward move.
pub fn check_transition(message: &MessageId, from: ReceiptState, to: ReceiptState) -> Result<bool> {
    if to.rank() < from.rank() {
        return Err(AccError::new(
            ErrorCode::ReceiptBackward,
            format!("the receipt of {message} is {from}; it cannot move back to {to}"),
        )
        .with("messageId", message.as_str())
        .with("state", from.as_str()));
    }
    Ok(to.rank() > from.rank())
}

/// Advances a receipt to `to` (retrieved or acknowledged) and emits the matching event.
/// Returns whether anything changed.
pub(crate) fn advance(
    tx: &Connection,
    ports: &Ports,
    now: i64,
    actor: &SessionId,
    row: &ReceiptRow,
    to: ReceiptState,
) -> Result<bool> {
    if !check_transition(&row.message_id, row.state, to)? {
        return Ok(false);
    }
    tx.prepare_cached(
        "UPDATE receipts SET state = ?3, updated_at = ?4
         WHERE message_id = ?1 AND recipient_participant_id = ?2",
    )?
    .execute(params![
        row.message_id.as_str(),
        row.recipient.as_str(),
        to.as_str(),
        now
    ])?;
    let event = match to {
        ReceiptState::Retrieved => Some(EventType::MessageRetrieved),
        ReceiptState::Acknowledged => Some(EventType::MessageAcknowledged),
        ReceiptState::Offered => Some(EventType::MessageOffered),
        ReceiptState::Queued => None,
    };
    if let Some(event) = event {
        events::append(
            tx,
            ports.ids.as_ref(),
            now,
            Some(actor),
            event,
            json!({
                "messageId": row.message_id.as_str(),
                "recipientParticipantId": row.recipient.as_str(),
            }),
        )?;
    }
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forward_only_with_idempotent_repeats() {
        use ReceiptState::*;
        let m = MessageId::parse("message_x").unwrap();
        assert!(check_transition(&m, Queued, Offered).unwrap());
        assert!(check_transition(&m, Queued, Acknowledged).unwrap());
        assert!(!check_transition(&m, Retrieved, Retrieved).unwrap());
        let e = check_transition(&m, Acknowledged, Retrieved).unwrap_err();
        assert_eq!(e.code, ErrorCode::ReceiptBackward);
        assert_eq!(e.exit_code(), 5);
        assert!(check_transition(&m, Offered, Queued).is_err());
    }

    #[test]
    fn a_turns_offers_look_up_each_receipt_instead_of_walking_the_queue() {
        let mut k = crate::core::testkit::kit();
        let plan: Vec<String> = k
            .core
            .store
            .read(|c| {
                let sql = format!("EXPLAIN QUERY PLAN {}", offer_queued_sql("?4, ?5"));
                let mut stmt = c.prepare(&sql)?;
                Ok(stmt
                    .query_map(params![0, "t", "p", "m1", "m2"], |r| r.get(3))?
                    .collect::<rusqlite::Result<Vec<_>>>()?)
            })
            .unwrap();
        assert!(
            plan.iter()
                .any(|d| d.contains("(message_id=? AND recipient_participant_id=?)")),
            "{plan:?}"
        );
    }
}
