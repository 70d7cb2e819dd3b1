//! The inbox: summary pages of unresolved messages (receipts untouched) and exact reads
//! (which advance the reader's receipt to `retrieved`).

use super::decisions::{self, DecisionStatus, HEAD_ONLY};
use super::messages::{self, MessageRecord};
use super::model::{MessageKind, Obligation, ReceiptState};
use super::receipts::{self, ReceiptRecord};
use super::sessions::{check_owner, check_owner_for_write};
use super::{Core, Owner};
use crate::clock::to_iso;
use crate::error::{AccError, ErrorCode, Result};
use crate::ids::{MessageId, ParticipantId, SessionId, ThreadId};
use crate::store::engine::{Connection, params};
use crate::text::{LISTED_SUBJECT_BYTES, cut_bytes};
use serde::Serialize;

pub const DEFAULT_PAGE_ITEMS: usize = 20;
pub const MAX_PAGE_ITEMS: usize = 500;
/// A summary page never exceeds this many bytes of JSON.
pub const PAGE_BYTES: usize = 12_000;

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct InboxItem {
    pub message_id: MessageId,
    pub thread_id: ThreadId,
    pub kind: MessageKind,
    pub obligation: Obligation,
    pub from_participant_id: ParticipantId,
    pub from_session_id: SessionId,
    /// Cut to 160 bytes.
    pub subject: String,
    pub sent_at: String,
    pub receipt_state: ReceiptState,
    pub room: bool,
    /// Only on decisions (see `core::decisions`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub decision_status: Option<DecisionStatus>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct InboxPage {
    pub items: Vec<InboxItem>,
    /// Pass as the cursor to read the next page; `None` on the last page.
    pub next_cursor: Option<MessageId>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MessageRead {
    pub message: MessageRecord,
    pub receipt: ReceiptRecord,
}

/// The SQL condition for "unresolved": queued or offered, or retrieved while an obligation
/// is still open. Decisions that were replaced or withdrawn are never listed.
pub(crate) const UNRESOLVED: &str = "(r.state IN ('queued', 'offered')
    OR (r.state = 'retrieved' AND m.obligation <> 'none'))";

fn message_seq(conn: &Connection, id: &MessageId) -> Result<i64> {
    conn.prepare_cached("SELECT seq FROM messages WHERE message_id = ?1")?
        .query_row(params![id.as_str()], |r| r.get(0))
        .map_err(|_| {
            AccError::new(
                ErrorCode::InvalidCursor,
                format!("cursor {id} names no message in this workspace"),
            )
        })
}

fn page(conn: &Connection, me: &ParticipantId, after: i64, limit: usize) -> Result<InboxPage> {
    let sql = format!(
        "SELECT m.message_id, m.thread_id, m.kind, m.obligation, m.from_participant_id,
            m.from_session_id, m.subject, m.sent_at, r.state, m.to_participant_ids, m.seq
         FROM receipts r JOIN messages m ON m.seq = r.message_seq
         WHERE r.recipient_participant_id = ?1 AND m.seq > ?2 AND {UNRESOLVED} AND {HEAD_ONLY}
         ORDER BY m.seq LIMIT ?3"
    );
    let mut stmt = conn.prepare_cached(&sql)?;
    let mut rows = stmt.query(params![me.as_str(), after, (limit + 1) as i64])?;
    let mut items = Vec::new();
    let mut decision_seqs = Vec::new();
    while let Some(r) = rows.next()? {
        let subject: String = r.get(6)?;
        let to: String = r.get(9)?;
        let kind = MessageKind::from_store(&r.get::<_, String>(2)?)?;
        if kind == MessageKind::Decision {
            decision_seqs.push((items.len(), r.get::<_, i64>(10)?));
        }
        items.push(InboxItem {
            message_id: MessageId::from_store(r.get(0)?),
            thread_id: ThreadId::from_store(r.get(1)?),
            kind,
            obligation: Obligation::from_store(&r.get::<_, String>(3)?)?,
            from_participant_id: ParticipantId::from_store(r.get(4)?),
            from_session_id: SessionId::from_store(r.get(5)?),
            subject: cut_bytes(&subject, LISTED_SUBJECT_BYTES).to_string(),
            sent_at: to_iso(r.get(7)?),
            receipt_state: ReceiptState::from_store(&r.get::<_, String>(8)?)?,
            room: to == "[]",
            decision_status: None,
        });
    }
    drop(rows);
    let seqs: Vec<i64> = decision_seqs.iter().map(|(_, seq)| *seq).collect();
    let mut found = decisions::statuses(conn, &seqs)?;
    for (i, seq) in decision_seqs {
        items[i].decision_status = found.remove(&seq);
    }
    let mut more = items.len() > limit;
    items.truncate(limit);
    // Keep the serialised page under the byte cap; one item always fits (subjects are cut).
    let overhead = r#"{"items":[],"nextCursor":""}"#.len() + 64;
    let mut used = overhead;
    let mut keep = 0;
    for item in &items {
        let n = serde_json::to_string(item)
            .map(|s| s.len() + 1)
            .unwrap_or(0);
        if keep > 0 && used + n > PAGE_BYTES {
            break;
        }
        used += n;
        keep += 1;
    }
    if keep < items.len() {
        items.truncate(keep);
        more = true;
    }
    let next_cursor = if more {
        items.last().map(|i| i.message_id.clone())
    } else {
        None
    };
    Ok(InboxPage { items, next_cursor })
}

impl Core {
    /// One summary page of the owner participant's unresolved messages, oldest first, after
    /// `cursor` (a message id). At most `limit` items (default 20, 1..=500) and 12,000 bytes.
    pub fn inbox(
        &mut self,
        owner: &Owner,
        cursor: Option<&MessageId>,
        limit: Option<usize>,
    ) -> Result<InboxPage> {
        let limit = limit.unwrap_or(DEFAULT_PAGE_ITEMS);
        if !(1..=MAX_PAGE_ITEMS).contains(&limit) {
            return Err(AccError::usage(format!(
                "limit must be between 1 and {MAX_PAGE_ITEMS}, got {limit}"
            )));
        }
        self.store.read(|c| {
            let me = check_owner(c, owner)?;
            let after = match cursor {
                Some(id) => message_seq(c, id)?,
                None => 0,
            };
            page(c, &me.participant_id, after, limit)
        })
    }

    /// Reads one message in full and advances the owner's receipt to `retrieved` (an
    /// acknowledged receipt stays acknowledged). A message not addressed to the owner's
    /// participant is a conflict.
    pub fn read_message(&mut self, owner: &Owner, id: &MessageId) -> Result<MessageRead> {
        let ports = &self.ports;
        let now = ports.now();
        self.store.write(|tx| {
            let me = check_owner_for_write(tx, owner, now)?;
            let msg = messages::load_required(tx, id)?;
            let row = receipts::load(tx, id, &me.participant_id)?
                .ok_or_else(|| not_addressed(id, &me.participant_id))?;
            if row.state.rank() < ReceiptState::Retrieved.rank() {
                receipts::advance(
                    tx,
                    ports,
                    now,
                    &owner.session,
                    &row,
                    ReceiptState::Retrieved,
                )?;
            }
            let row = receipts::load(tx, id, &me.participant_id)?.expect("the receipt exists");
            Ok(MessageRead {
                message: msg.record,
                receipt: row.record(),
            })
        })
    }
}

pub(crate) fn not_addressed(id: &MessageId, me: &ParticipantId) -> AccError {
    AccError::new(
        ErrorCode::NotAddressed,
        format!("message {id} is not addressed to participant {me}"),
    )
    .with("messageId", id.as_str())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::messages::SendMessage;
    use crate::core::testkit::kit;

    fn note(subject: &str) -> SendMessage {
        SendMessage {
            to: vec!["bob".into()],
            kind: MessageKind::Note,
            obligation: None,
            subject: subject.into(),
            body: "b".into(),
            client_message_id: None,
        }
    }

    #[test]
    fn pages_by_count_and_cursor_without_touching_receipts() {
        let mut k = kit();
        let a = k.attach("alice");
        let b = k.attach("bob");
        for i in 0..25 {
            k.core.send(&a, note(&format!("n{i}"))).unwrap();
        }
        let first = k.core.inbox(&b, None, None).unwrap();
        assert_eq!(first.items.len(), 20);
        assert_eq!(first.items[0].subject, "n0");
        let next = first.next_cursor.clone().unwrap();
        let second = k.core.inbox(&b, Some(&next), None).unwrap();
        assert_eq!(second.items.len(), 5);
        assert_eq!(second.items[0].subject, "n20");
        assert!(second.next_cursor.is_none());
        assert_eq!(
            k.count("SELECT count(*) FROM receipts WHERE state <> 'queued'"),
            0
        );
        assert_eq!(k.core.inbox(&b, None, Some(0)).unwrap_err().exit_code(), 2);
        let bad = MessageId::parse("message_nope").unwrap();
        assert_eq!(
            k.core.inbox(&b, Some(&bad), None).unwrap_err().code,
            ErrorCode::InvalidCursor
        );
    }

    #[test]
    fn pages_stay_under_the_byte_cap_and_subjects_are_cut() {
        let mut k = kit();
        let a = k.attach("alice");
        let b = k.attach("bob");
        for _ in 0..100 {
            k.core.send(&a, note(&"é".repeat(250))).unwrap();
        }
        let page = k.core.inbox(&b, None, Some(500)).unwrap();
        assert!(page.items.len() < 100);
        assert!(page.next_cursor.is_some());
        assert!(serde_json::to_string(&page).unwrap().len() <= PAGE_BYTES);
        assert_eq!(page.items[0].subject.len(), 160);
    }

    #[test]
    fn exact_read_retrieves_and_unaddressed_is_a_conflict() {
        let mut k = kit();
        let a = k.attach("alice");
        let b = k.attach("bob");
        let c = k.attach("carol");
        let sent = k.core.send(&a, note("hello")).unwrap();
        let id = sent.message.message_id;
        let read = k.core.read_message(&b, &id).unwrap();
        assert_eq!(read.receipt.state, ReceiptState::Retrieved);
        assert_eq!(read.message.body, "b");
        // A note needs nothing more: it leaves the inbox once retrieved.
        assert!(k.core.inbox(&b, None, None).unwrap().items.is_empty());
        k.core.read_message(&b, &id).unwrap();
        assert_eq!(
            k.count("SELECT count(*) FROM events WHERE type = 'message.retrieved'"),
            1
        );
        let e = k.core.read_message(&c, &id).unwrap_err();
        assert_eq!(e.code, ErrorCode::NotAddressed);
        assert_eq!(e.exit_code(), 5);
    }
}
