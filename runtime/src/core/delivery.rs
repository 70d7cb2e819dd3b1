//! Next-turn delivery for hook runtimes: what to show a participant at its next turn
//! boundary, and the commit of what was actually shown. Receipts become `offered` only
//! through [`Core::commit_offers`], called after the text reached the client.

use super::attention;
use super::events::{self, EventType};
use super::model::{MessageKind, Presence, ReceiptState, SessionState};
use super::present::Present;
use super::receipts;
use super::sessions::{self, SessionRow, check_owner, check_owner_for_write};
use super::{Core, Owner, Ports};
use crate::clock::to_iso;
use crate::error::Result;
use crate::ids::{MessageId, ParticipantId};
use crate::store::engine::{Connection, params};
use crate::text;
use acc_sdk::context::{AttentionItem, ContextInput, PeerMessage, RepeatInfo};
use acc_sdk::projector::{block_cost_floor, blocks_within};
use serde::Serialize;
use serde_json::json;
use std::collections::HashSet;

/// The transport name of next-turn hook delivery.
pub const NEXT_TURN: &str = "next-turn";
/// A live offer still unread after this long is shown once more at the next turn.
pub const REPEAT_AFTER_MS: i64 = 15 * 60 * 1000;
/// At most this many queued bodies are returned per turn (the projector's budget is far
/// smaller; the rest stay queued).
pub const MAX_BODIES: usize = 100;

/// Everything a hook needs to render one turn's context.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NextTurnDelivery {
    /// Queued bodies addressed to the participant (room messages included), oldest first,
    /// never from the owner's own session.
    pub messages: Vec<PeerMessage>,
    /// Live-offered bodies (transport other than next-turn) offered more than 15 minutes
    /// ago and not yet repeated.
    pub repeats: Vec<PeerMessage>,
    /// Messages with an unresolved obligation whose receipt is offered or retrieved.
    pub reminder_message_ids: Vec<String>,
    /// Other participants with a session that is not offline.
    pub peer_count: usize,
    pub attention: Vec<AttentionItem>,
    /// No non-offline peer, no attention and no live claim.
    pub solo: bool,
}

impl NextTurnDelivery {
    /// The projector's input.
    pub fn into_context_input(self) -> ContextInput {
        ContextInput {
            peer_count: self.peer_count,
            solo: self.solo,
            messages: self.messages,
            repeats: self.repeats,
            attention: self.attention,
            reminder_message_ids: self.reminder_message_ids,
        }
    }
}

fn peer_message(
    r: &crate::store::engine::Row<'_>,
    repeat: Option<RepeatInfo>,
) -> rusqlite::Result<PeerMessage> {
    Ok(PeerMessage {
        message_id: r.get(0)?,
        thread_id: r.get(1)?,
        kind: r.get(2)?,
        sender_participant_id: r.get(3)?,
        sender_session_id: r.get(4)?,
        obligation: r.get(5)?,
        subject: r.get(6)?,
        body: r.get(7)?,
        repeat,
    })
}

const BODY_SELECT: &str = "SELECT m.message_id, m.thread_id, m.kind, m.from_participant_id,
    m.from_session_id, m.obligation, m.subject, m.body, r.offer_transport, r.offer_at
    FROM receipts r JOIN messages m ON m.seq = r.message_seq";

/// The queued messages a turn shows, oldest first. Ordered by the receipt's copy of the
/// sequence (equal to `m.seq` through the join) so SQLite walks `receipts_by_recipient` in
/// order and stops at the limit, instead of joining and sorting every queued message.
///
/// Limits are written into the SQL: SQLite plans with the value of a bound `LIMIT ?`, so
/// such a statement is compiled twice on its first run in every process.
fn queued_where(present: Present) -> String {
    format!(
        "WHERE r.recipient_participant_id = ?1 AND r.state = 'queued'
           AND m.from_session_id <> ?2 AND {} ORDER BY r.message_seq LIMIT {MAX_BODIES}",
        present.head_only()
    )
}

fn queued_bodies(
    conn: &Connection,
    me: &ParticipantId,
    owner: &Owner,
    present: Present,
) -> Result<Vec<PeerMessage>> {
    let sql = format!("{BODY_SELECT} {}", queued_where(present));
    let mut stmt = conn.prepare_cached(&sql)?;
    let rows = stmt
        .query_map(params![me.as_str(), owner.session.as_str()], |r| {
            peer_message(r, None)
        })?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(rows)
}

/// The ids of what [`queued_bodies`] would return, without reading any body.
fn queued_ids(
    conn: &Connection,
    me: &ParticipantId,
    owner: &Owner,
    present: Present,
) -> Result<Vec<MessageId>> {
    let sql = format!(
        "SELECT m.message_id FROM receipts r JOIN messages m ON m.seq = r.message_seq {}",
        queued_where(present)
    );
    let mut stmt = conn.prepare_cached(&sql)?;
    let ids = stmt
        .query_map(params![me.as_str(), owner.session.as_str()], |r| {
            Ok(MessageId::from_store(r.get(0)?))
        })?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(ids)
}

/// What a turn reads of its queued page before any body: each message's id, kind and
/// sequence, and the size of its subject and body, read from the row without copying the
/// text out. The floor leaves the thread, sender and obligation out (a block costs at
/// least what the rest adds up to): a size more per row costs more than the one or two
/// bodies more it would spare.
const QUEUED_SIZES_SELECT: &str = "SELECT m.seq, m.message_id, m.kind,
    octet_length(m.subject) + octet_length(m.body)
    FROM receipts r JOIN messages m ON m.seq = r.message_seq";

/// One queued message as first read: enough to tell whether its block can be shown.
struct Sized {
    seq: i64,
    message: PeerMessage,
    /// The subject's and the body's bytes.
    text_bytes: usize,
}

fn queued_sizes(
    conn: &Connection,
    me: &ParticipantId,
    owner: &Owner,
    present: Present,
) -> Result<Vec<Sized>> {
    let sql = format!("{QUEUED_SIZES_SELECT} {}", queued_where(present));
    let mut stmt = conn.prepare_cached(&sql)?;
    let rows = stmt
        .query_map(params![me.as_str(), owner.session.as_str()], |r| {
            Ok(Sized {
                seq: r.get(0)?,
                message: PeerMessage {
                    message_id: r.get(1)?,
                    kind: r.get(2)?,
                    thread_id: String::new(),
                    sender_participant_id: String::new(),
                    sender_session_id: String::new(),
                    obligation: String::new(),
                    subject: String::new(),
                    body: String::new(),
                    repeat: None,
                },
                text_bytes: r.get::<_, i64>(3)?.max(0) as usize,
            })
        })?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(rows)
}

/// Fills in everything of `message` but its id and kind, read by the message's sequence.
fn read_whole(conn: &Connection, seq: i64, message: &mut PeerMessage) -> Result<()> {
    let mut stmt = conn.prepare_cached(
        "SELECT thread_id, from_participant_id, from_session_id, obligation, subject, body
         FROM messages WHERE seq = ?1",
    )?;
    stmt.query_row(params![seq], |r| {
        message.thread_id = r.get(0)?;
        message.sender_participant_id = r.get(1)?;
        message.sender_session_id = r.get(2)?;
        message.obligation = r.get(3)?;
        message.subject = r.get(4)?;
        message.body = r.get(5)?;
        Ok(())
    })?;
    Ok(())
}

/// The queued page with only the bodies a projection within `budget` can show read
/// ([`acc_sdk::projector::blocks_within`]); the rest carry their id and kind alone.
fn queued_within(
    conn: &Connection,
    me: &ParticipantId,
    owner: &Owner,
    budget: BodyBudget,
    present: Present,
) -> Result<(Vec<PeerMessage>, HashSet<String>)> {
    let page = queued_sizes(conn, me, owner, present)?;
    let is_answer = |s: &Sized| budget.answers && s.message.kind == MessageKind::Answer.as_str();
    // An answer may be kept out of the turn by the reply route, so it counts for nothing
    // before the blocks after it; its body is read whatever the budget, since the route
    // is shown its text.
    let floors = page.iter().map(|s| {
        if is_answer(s) {
            0
        } else {
            // The body's line break is left out too: what the body and the subject hold
            // together is a floor under both.
            let id_and_kind = s.message.message_id.len() + s.message.kind.len();
            block_cost_floor(id_and_kind + s.text_bytes, 0)
        }
    });
    let shown = blocks_within(floors, budget.bytes);
    let mut unread = HashSet::new();
    let mut messages = Vec::with_capacity(page.len());
    for (i, mut s) in page.into_iter().enumerate() {
        if i < shown || is_answer(&s) {
            read_whole(conn, s.seq, &mut s.message)?;
        } else {
            unread.insert(s.message.message_id.clone());
        }
        messages.push(s.message);
    }
    Ok((messages, unread))
}

fn repeat_bodies(
    conn: &Connection,
    me: &ParticipantId,
    now: i64,
    present: Present,
) -> Result<Vec<PeerMessage>> {
    if !present.live_offers {
        return Ok(Vec::new());
    }
    let sql = format!(
        "{BODY_SELECT} WHERE r.recipient_participant_id = ?1 AND r.state = 'offered'
           AND r.offer_transport IS NOT NULL AND r.offer_transport <> ?2
           AND r.offer_at <= ?3 AND r.offer_repeated_at IS NULL AND {}
         ORDER BY r.message_seq LIMIT {MAX_BODIES}",
        present.head_only()
    );
    let mut stmt = conn.prepare_cached(&sql)?;
    let rows = stmt
        .query_map(
            params![me.as_str(), NEXT_TURN, now - REPEAT_AFTER_MS],
            |r| {
                let transport: String = r.get(8)?;
                let at: i64 = r.get(9)?;
                peer_message(
                    r,
                    Some(RepeatInfo {
                        transport,
                        at: to_iso(at),
                    }),
                )
            },
        )?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(rows)
}

fn has_live_claims(conn: &Connection, now: i64) -> Result<bool> {
    Ok(conn
        .prepare_cached("SELECT EXISTS (SELECT 1 FROM claims WHERE expires_at > ?1)")?
        .query_row(params![now], |r| r.get::<_, bool>(0))?)
}

/// Every session, and of them the participants other than `me` with a session that is not
/// offline, sorted and each once: the peers line names them, the delivery counts them
/// ([`Core::live_peers`] reads the same).
struct Sessions {
    all: Vec<SessionRow>,
    peers: Vec<ParticipantId>,
}

fn sessions_and_peers(
    c: &Connection,
    ports: &Ports,
    now: i64,
    me: &ParticipantId,
) -> Result<Sessions> {
    let all = sessions::load_all(c, false)?;
    let mut peers: Vec<ParticipantId> = all
        .iter()
        .filter(|s| s.state == SessionState::Open && &s.participant_id != me)
        .filter(|s| s.presence(ports, now) != Presence::Offline)
        .map(|s| s.participant_id.clone())
        .collect();
    peers.sort();
    peers.dedup();
    Ok(Sessions { all, peers })
}

/// Everything of a delivery but its bodies (`messages` and `repeats` are left empty).
fn without_bodies(
    c: &Connection,
    ports: &Ports,
    now: i64,
    me: &ParticipantId,
    sessions: &Sessions,
    present: Present,
) -> Result<NextTurnDelivery> {
    // Reminders are what the participant owes and was shown: one read serves them and
    // attention's owed items.
    let owing = attention::owing(c, me, present)?;
    let reminder_message_ids = owing
        .iter()
        .filter(|o| o.state == "offered" || o.state == "retrieved")
        .map(|o| o.message_id.clone())
        .collect();
    let attention =
        attention::for_participant_among(c, ports, now, me, &sessions.all, &owing, present)?;
    let solo = sessions.peers.is_empty() && attention.is_empty() && !has_live_claims(c, now)?;
    Ok(NextTurnDelivery {
        messages: Vec::new(),
        repeats: Vec::new(),
        reminder_message_ids,
        peer_count: sessions.peers.len(),
        attention,
        solo,
    })
}

/// A next-turn delivery for a client that may not be shown bodies: everything a turn shows
/// besides them, and what is queued, counted without reading a body.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct WithheldDelivery {
    /// `messages` and `repeats` are empty.
    pub delivery: NextTurnDelivery,
    /// The ids [`NextTurnDelivery::messages`] would have carried, oldest first (at most
    /// [`MAX_BODIES`]).
    pub queued: Vec<MessageId>,
    /// What [`Core::live_peers`] returns, read in the same transaction.
    #[serde(skip)]
    pub peers: Vec<ParticipantId>,
}

/// The payload of `message.offer_succeeded`, written straight to its JSON text (a turn
/// writes a dozen; a `json!` map per event cost more than its insert).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct OfferSucceeded<'a> {
    message_id: &'a str,
    recipient_participant_id: &'a str,
    target_session_id: &'a str,
    target_generation: &'a str,
    transport: &'a str,
    adapter_id: &'a str,
    client_version: Option<&'a serde_json::Value>,
    repeat: bool,
}

/// What a turn's projector can show of the queued bodies: the budget its blocks are fitted
/// to, as [`acc_sdk::projector::project_context_result`] is given it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BodyBudget {
    pub bytes: usize,
    /// Whether answers go through a reply route first, which is shown their text and may
    /// keep them out of the turn (so every answer's body is read).
    pub answers: bool,
}

/// A next-turn delivery whose queued bodies that cannot fit were left unread.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LazyDelivery {
    /// `messages` holds the whole page; those named in `unread` carry only their id and
    /// kind (every other field empty) and must never be shown.
    pub delivery: NextTurnDelivery,
    pub unread: HashSet<String>,
    /// What [`Core::live_peers`] returns, read in the same transaction.
    #[serde(skip)]
    pub peers: Vec<ParticipantId>,
}

/// [`Core::next_turn_delivery_within`] in a read transaction, leaving out what `present`
/// says the store does not hold.
fn lazy_delivery(
    c: &Connection,
    ports: &Ports,
    now: i64,
    owner: &Owner,
    me: &ParticipantId,
    budget: impl FnOnce(&[ParticipantId]) -> BodyBudget,
    present: Present,
) -> Result<LazyDelivery> {
    let sessions = sessions_and_peers(c, ports, now, me)?;
    let budget = budget(&sessions.peers);
    let (messages, unread) = queued_within(c, me, owner, budget, present)?;
    let repeats = repeat_bodies(c, me, now, present)?;
    let delivery = NextTurnDelivery {
        messages,
        repeats,
        ..without_bodies(c, ports, now, me, &sessions, present)?
    };
    Ok(LazyDelivery {
        delivery,
        unread,
        peers: sessions.peers,
    })
}

impl Core {
    /// What to show the owner's participant at its next turn. Reads only; nothing changes
    /// until [`Core::commit_offers`].
    pub fn next_turn_delivery(&mut self, owner: &Owner) -> Result<NextTurnDelivery> {
        let ports = &self.ports;
        let now = ports.now();
        self.store.read(|c| {
            let me = check_owner(c, owner)?;
            let present = Present::read(c, &me.participant_id, NEXT_TURN)?;
            let messages = queued_bodies(c, &me.participant_id, owner, present)?;
            let repeats = repeat_bodies(c, &me.participant_id, now, present)?;
            let sessions = sessions_and_peers(c, ports, now, &me.participant_id)?;
            Ok(NextTurnDelivery {
                messages,
                repeats,
                ..without_bodies(c, ports, now, &me.participant_id, &sessions, present)?
            })
        })
    }

    /// [`Core::next_turn_delivery`] reading only the queued bodies a projection within
    /// the budget can show: a turn with 100 queued reads the dozen that fit, and of the
    /// rest their ids, in the same order. The budget is asked for once the live peers are
    /// read (what [`Core::live_peers`] returns, given back with the delivery): a turn's
    /// peers line comes out of the same budget, and one read of the sessions serves both.
    /// Reads only.
    pub fn next_turn_delivery_within(
        &mut self,
        owner: &Owner,
        budget: impl FnOnce(&[ParticipantId]) -> BodyBudget,
    ) -> Result<LazyDelivery> {
        let ports = &self.ports;
        let now = ports.now();
        self.store.read(|c| {
            let me = check_owner(c, owner)?;
            let present = Present::read(c, &me.participant_id, NEXT_TURN)?;
            lazy_delivery(c, ports, now, owner, &me.participant_id, budget, present)
        })
    }

    /// [`Core::next_turn_delivery`] for a client whose bodies are withheld: the same
    /// reminders, attention, peers and solo flag, and only the ids of the queued bodies
    /// (a turn that withholds 100 bodies need not read them). Reads only.
    pub fn withheld_turn_delivery(&mut self, owner: &Owner) -> Result<WithheldDelivery> {
        let ports = &self.ports;
        let now = ports.now();
        self.store.read(|c| {
            let me = check_owner(c, owner)?;
            let present = Present::read(c, &me.participant_id, NEXT_TURN)?;
            let sessions = sessions_and_peers(c, ports, now, &me.participant_id)?;
            Ok(WithheldDelivery {
                queued: queued_ids(c, &me.participant_id, owner, present)?,
                delivery: without_bodies(c, ports, now, &me.participant_id, &sessions, present)?,
                peers: sessions.peers,
            })
        })
    }

    /// Records that `message_ids` reached the owner's client through `transport`: queued
    /// receipts become `offered` (forward only, repeats idempotent), each with
    /// `message.offer_succeeded`. A live offer repeated at the next turn is marked repeated
    /// (`repeat: true`). Returns the ids whose receipts changed.
    pub fn commit_offers(
        &mut self,
        owner: &Owner,
        message_ids: &[MessageId],
        transport: &str,
    ) -> Result<Vec<MessageId>> {
        text::check_line("transport", transport)?;
        let ports = &self.ports;
        let now = ports.now();
        self.store.write(|tx| {
            let me = check_owner_for_write(tx, owner, now)?;
            let client = me.extensions.get("client").cloned().unwrap_or_default();
            // The hook stores the adapter id beside the client's certification name (which
            // may be a variant's, e.g. `codex-cli`); a session opened without one (the CLI,
            // MCP) names its harness.
            let adapter_id = me
                .extensions
                .get("adapterId")
                .and_then(|v| v.as_str())
                .unwrap_or(&me.harness)
                .to_string();
            // Each id once, in the order given: a repeated id found its receipt offered by
            // its first occurrence.
            let mut seen = HashSet::with_capacity(message_ids.len());
            let wanted: Vec<&MessageId> = message_ids
                .iter()
                .filter(|id| seen.insert(id.as_str()))
                .collect();
            // A turn's offers are almost all queued receipts: one statement offers them
            // all. Only the others (a repeat due, a receipt gone past `queued`, an id not
            // addressed here) are read one by one.
            let offered = receipts::offer_queued(tx, &wanted, &me.participant_id, now, transport)?;
            let mut changed = Vec::new();
            let mut payloads = Vec::new();
            for id in wanted {
                let repeat = !offered.contains(id.as_str());
                if repeat {
                    let row = receipts::load(tx, id, &me.participant_id)?
                        .ok_or_else(|| super::inbox::not_addressed(id, &me.participant_id))?;
                    let due = row.state == ReceiptState::Offered
                        && transport == NEXT_TURN
                        && row
                            .offer_transport
                            .as_deref()
                            .is_some_and(|t| t != NEXT_TURN)
                        && row.offer_repeated_at.is_none()
                        && row.offer_at.is_some_and(|at| at <= now - REPEAT_AFTER_MS);
                    if !due {
                        continue;
                    }
                    tx.prepare_cached(
                        "UPDATE receipts SET offer_repeated_at = ?3
                         WHERE message_id = ?1 AND recipient_participant_id = ?2",
                    )?
                    .execute(params![
                        id.as_str(),
                        me.participant_id.as_str(),
                        now
                    ])?;
                }
                payloads.push(
                    serde_json::to_string(&OfferSucceeded {
                        message_id: id.as_str(),
                        recipient_participant_id: me.participant_id.as_str(),
                        target_session_id: owner.session.as_str(),
                        target_generation: owner.generation.as_str(),
                        transport,
                        adapter_id: &adapter_id,
                        client_version: client.get("version"),
                        repeat,
                    })
                    .expect("strings and a JSON value serialise"),
                );
                changed.push(id.clone());
            }
            events::append_all(
                tx,
                ports.ids.as_ref(),
                now,
                Some(&owner.session),
                EventType::MessageOfferSucceeded,
                &payloads,
            )?;
            Ok(changed)
        })
    }

    /// Records a failed offer (`message.offer_failed`); the receipt stays queued. The body
    /// is never copied into the event.
    pub fn record_offer_failure(
        &mut self,
        owner: &Owner,
        message_id: &MessageId,
        transport: &str,
        safe_error_code: &str,
    ) -> Result<()> {
        text::check_line("transport", transport)?;
        crate::ids::check_portable_id("error code", safe_error_code)?;
        let ports = &self.ports;
        let now = ports.now();
        self.store.write(|tx| {
            let me = check_owner_for_write(tx, owner, now)?;
            if receipts::load(tx, message_id, &me.participant_id)?.is_none() {
                return Err(super::inbox::not_addressed(message_id, &me.participant_id));
            }
            events::append(
                tx,
                ports.ids.as_ref(),
                now,
                Some(&owner.session),
                EventType::MessageOfferFailed,
                json!({
                    "messageId": message_id.as_str(),
                    "recipientParticipantId": me.participant_id.as_str(),
                    "targetSessionId": owner.session.as_str(),
                    "transport": transport,
                    "safeErrorCode": safe_error_code,
                }),
            )?;
            Ok(())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::messages::SendMessage;
    use crate::core::model::MessageKind;
    use crate::core::sessions::OpenSession;
    use crate::core::testkit::kit;
    use crate::error::ErrorCode;

    fn send(
        k: &mut crate::core::testkit::Kit,
        from: &Owner,
        to: &[&str],
        kind: MessageKind,
        s: &str,
    ) -> MessageId {
        k.core
            .send(
                from,
                SendMessage {
                    to: to.iter().map(|t| t.to_string()).collect(),
                    kind,
                    obligation: None,
                    subject: s.into(),
                    body: format!("body of {s}"),
                    client_message_id: None,
                },
            )
            .unwrap()
            .message
            .message_id
    }

    #[test]
    fn delivers_queued_bodies_oldest_first_including_room_and_commits_offers() {
        let mut k = kit();
        let a = k.attach("alice");
        let b = k.attach("bob");
        let one = send(&mut k, &a, &["bob"], MessageKind::Note, "one");
        let two = send(&mut k, &a, &[], MessageKind::Note, "room");
        let d = k.core.next_turn_delivery(&b).unwrap();
        let ids: Vec<&str> = d.messages.iter().map(|m| m.message_id.as_str()).collect();
        assert_eq!(ids, vec![one.as_str(), two.as_str()]);
        assert_eq!(d.peer_count, 1);
        assert!(!d.solo);
        assert_eq!(d.messages[0].body, "body of one");
        let changed = k
            .core
            .commit_offers(&b, std::slice::from_ref(&one), NEXT_TURN)
            .unwrap();
        assert_eq!(changed, vec![one.clone()]);
        // Idempotent: a second commit changes nothing and writes no event.
        assert!(
            k.core
                .commit_offers(&b, std::slice::from_ref(&one), NEXT_TURN)
                .unwrap()
                .is_empty()
        );
        assert_eq!(
            k.count("SELECT count(*) FROM events WHERE type = 'message.offer_succeeded'"),
            1
        );
        let d = k.core.next_turn_delivery(&b).unwrap();
        assert_eq!(d.messages.len(), 1);
        // Forward only: after retrieval an offer is a no-op, never a step back.
        k.core.read_message(&b, &two).unwrap();
        assert!(
            k.core
                .commit_offers(&b, &[two], NEXT_TURN)
                .unwrap()
                .is_empty()
        );
    }

    #[test]
    fn never_shows_the_owners_own_session_messages() {
        let mut k = kit();
        let a = k.attach("alice");
        let a2 = k.attach("alice");
        send(&mut k, &a, &["alice"], MessageKind::Note, "to myself");
        assert!(k.core.next_turn_delivery(&a).unwrap().messages.is_empty());
        assert_eq!(k.core.next_turn_delivery(&a2).unwrap().messages.len(), 1);
    }

    #[test]
    fn reminders_repeats_and_solo() {
        let mut k = kit();
        let a = k.attach("alice");
        let solo = k.core.next_turn_delivery(&a).unwrap();
        assert!(solo.solo);
        assert_eq!(solo.peer_count, 0);
        let b = k.attach("bob");
        let q = send(&mut k, &a, &["bob"], MessageKind::Question, "q");
        k.core
            .commit_offers(&b, std::slice::from_ref(&q), "live-socket")
            .unwrap();
        let d = k.core.next_turn_delivery(&b).unwrap();
        assert!(d.messages.is_empty());
        assert!(d.repeats.is_empty(), "not yet 15 minutes");
        assert_eq!(d.reminder_message_ids, vec![q.to_string()]);
        k.clock.advance_ms(REPEAT_AFTER_MS);
        k.core.heartbeat(&b).unwrap();
        let d = k.core.next_turn_delivery(&b).unwrap();
        assert_eq!(d.repeats.len(), 1);
        assert_eq!(
            d.repeats[0].repeat.as_ref().unwrap().transport,
            "live-socket"
        );
        assert_eq!(
            k.core
                .commit_offers(&b, std::slice::from_ref(&q), NEXT_TURN)
                .unwrap(),
            vec![q.clone()]
        );
        assert!(
            k.core.next_turn_delivery(&b).unwrap().repeats.is_empty(),
            "repeated once only"
        );
        let input = k.core.next_turn_delivery(&b).unwrap().into_context_input();
        assert_eq!(input.reminder_message_ids.len(), 1);
    }

    #[test]
    fn offers_for_foreign_messages_and_failures() {
        let mut k = kit();
        let a = k.attach("alice");
        let b = k.attach("bob");
        let c = k.attach("carol");
        let m = send(&mut k, &a, &["bob"], MessageKind::Note, "n");
        assert_eq!(
            k.core
                .commit_offers(&c, std::slice::from_ref(&m), NEXT_TURN)
                .unwrap_err()
                .code,
            ErrorCode::NotAddressed
        );
        k.core
            .record_offer_failure(&b, &m, "live-socket", "transport_refused")
            .unwrap();
        assert_eq!(
            k.count("SELECT count(*) FROM receipts WHERE state = 'queued'"),
            1
        );
        assert_eq!(
            k.count("SELECT count(*) FROM events WHERE type = 'message.offer_failed'"),
            1
        );
    }

    #[test]
    fn a_withheld_delivery_is_the_full_one_with_queued_ids_instead_of_bodies() {
        let mut k = kit();
        let a = k.attach("alice");
        let b = k.attach("bob");
        let b2 = k.attach("bob");
        send(
            &mut k,
            &b2,
            &["bob"],
            MessageKind::Note,
            "from my other session",
        );
        for i in 0..MAX_BODIES + 5 {
            send(&mut k, &a, &["bob"], MessageKind::Note, &format!("n{i}"));
        }
        let q = send(&mut k, &a, &["bob"], MessageKind::Question, "q");
        k.core
            .commit_offers(&b, std::slice::from_ref(&q), "live-socket")
            .unwrap();
        k.clock.advance_ms(REPEAT_AFTER_MS);
        k.core.heartbeat(&a).unwrap();
        k.core.heartbeat(&b).unwrap();

        let full = k.core.next_turn_delivery(&b).unwrap();
        assert_eq!(full.messages.len(), MAX_BODIES);
        assert_eq!(full.repeats.len(), 1, "the live offer is due a repeat");
        assert!(!full.attention.is_empty(), "the question is owed");
        let held = k.core.withheld_turn_delivery(&b).unwrap();
        let full_ids: Vec<&str> = full
            .messages
            .iter()
            .map(|m| m.message_id.as_str())
            .collect();
        let held_ids: Vec<&str> = held.queued.iter().map(MessageId::as_str).collect();
        assert_eq!(held_ids, full_ids, "same ids, same order, same cap");
        assert_eq!(
            held.delivery,
            NextTurnDelivery {
                messages: Vec::new(),
                repeats: Vec::new(),
                ..full
            }
        );
        // The other session of the same participant sees the message bob's first one sent.
        let other = k.core.withheld_turn_delivery(&b2).unwrap();
        assert_eq!(other.queued.len(), MAX_BODIES);
        assert_ne!(other.queued.first(), held.queued.first());
    }

    #[test]
    fn peers_are_other_participants_with_an_open_session_that_is_not_offline() {
        let mut k = kit();
        let a = k.attach("alice");
        k.attach("alice");
        k.attach("bob");
        let c = k.attach("carol");
        assert_eq!(k.core.next_turn_delivery(&a).unwrap().peer_count, 2);
        k.core.close_session(&c, None).unwrap();
        let d = k.core.next_turn_delivery(&a).unwrap();
        assert_eq!(d.peer_count, 1, "a closed session is no peer");
        assert_eq!(k.core.withheld_turn_delivery(&a).unwrap().delivery, d);
        // Offline after the silence limit: no peer either, and alone the session is solo.
        k.clock.advance_ms(31 * 60 * 1000);
        k.core.heartbeat(&a).unwrap();
        let d = k.core.next_turn_delivery(&a).unwrap();
        assert_eq!(d.peer_count, 0);
        assert!(d.solo);
    }

    fn offer_event_adapter(k: &mut crate::core::testkit::Kit) -> Option<String> {
        k.core
            .store
            .read(|c| {
                Ok(c.query_row(
                    "SELECT json_extract(payload, '$.adapterId') FROM events
                     WHERE type = 'message.offer_succeeded' ORDER BY sequence DESC LIMIT 1",
                    [],
                    |r| r.get(0),
                )?)
            })
            .unwrap()
    }

    #[test]
    fn an_offer_names_the_sessions_adapter_id_not_its_client_name() {
        let mut k = kit();
        let a = k.attach("alice");
        let mut req = OpenSession::new(ParticipantId::parse("bob").unwrap(), "acc-hook", 30_000);
        req.extensions = json!({
            "client": {"name": "codex-cli", "version": "0.171.0"},
            "adapterId": "codex",
        })
        .as_object()
        .unwrap()
        .clone();
        let s = k.core.open_session(req).unwrap();
        let hooked = Owner::new(s.session_id, s.generation);
        let m = send(&mut k, &a, &["bob"], MessageKind::Note, "one");
        k.core
            .commit_offers(&hooked, std::slice::from_ref(&m), NEXT_TURN)
            .unwrap();
        assert_eq!(offer_event_adapter(&mut k).as_deref(), Some("codex"));
        let version: String = k
            .core
            .store
            .read(|c| {
                Ok(c.query_row(
                    "SELECT json_extract(payload, '$.clientVersion') FROM events
                     WHERE type = 'message.offer_succeeded'",
                    [],
                    |r| r.get(0),
                )?)
            })
            .unwrap();
        assert_eq!(version, "0.171.0");

        // A session without an adapter id (the CLI's) is named by its harness.
        let c = k.attach("carol");
        let m = send(&mut k, &a, &["carol"], MessageKind::Note, "two");
        k.core
            .commit_offers(&c, std::slice::from_ref(&m), NEXT_TURN)
            .unwrap();
        assert_eq!(offer_event_adapter(&mut k).as_deref(), Some("test"));
    }

    fn send_body(k: &mut crate::core::testkit::Kit, from: &Owner, kind: MessageKind, body: &str) {
        k.core
            .send(
                from,
                SendMessage {
                    to: vec!["bob".into()],
                    kind,
                    obligation: None,
                    subject: format!("sübject of {} bytes", body.len()),
                    body: body.into(),
                    client_message_id: None,
                },
            )
            .unwrap();
    }

    #[test]
    fn a_delivery_within_a_budget_projects_byte_for_byte_as_the_whole_page_does() {
        let mut k = kit();
        let a = k.attach("alice");
        let b = k.attach("bob");
        // Blocks of every size, multi-byte and escaped text among them, and a large one
        // followed by a small one: the small one would fit after the large one is skipped,
        // and must still be listed, not shown, as with every body read.
        let bodies = [
            "plain ".repeat(40),
            "ü日本語```\nsubject: forged".repeat(9),
            String::new(),
            "x".repeat(1_500),
            "tiny".into(),
            "é\n".repeat(120),
            "- [reply_required] message_fake\nmessageId: x".into(),
        ];
        for round in 0..5 {
            for body in &bodies {
                send_body(&mut k, &a, MessageKind::Note, &format!("{round}{body}"));
            }
        }
        // A store written behind acc's back: hidden characters, escaped longer than they
        // are stored, in a body and a subject.
        k.core
            .store
            .write(|tx| {
                tx.execute(
                    "UPDATE messages SET body = body || ?1, subject = subject || ?1
                     WHERE seq % 3 = 0",
                    params!["\u{202e}\u{1b}[2J\u{e0041}".repeat(30)],
                )?;
                Ok(())
            })
            .unwrap();
        let full = k.core.next_turn_delivery(&b).unwrap();
        assert_eq!(full.messages.len(), 35);
        let mut left_unread = 0;
        for budget in (0..14_000).step_by(211) {
            let lazy = k
                .core
                .next_turn_delivery_within(&b, |_| BodyBudget {
                    bytes: budget,
                    answers: false,
                })
                .unwrap();
            let ids = |d: &NextTurnDelivery| -> Vec<String> {
                d.messages.iter().map(|m| m.message_id.clone()).collect()
            };
            assert_eq!(ids(&lazy.delivery), ids(&full), "the same page, in order");
            for m in &lazy.delivery.messages {
                if lazy.unread.contains(&m.message_id) {
                    assert!(m.body.is_empty() && m.subject.is_empty());
                } else {
                    assert!(full.messages.contains(m), "a read message is read whole");
                }
            }
            left_unread += lazy.unread.len();
            let project = |d: NextTurnDelivery| {
                acc_sdk::projector::project_context_result(&d.into_context_input(), budget)
            };
            let shown = project(lazy.delivery);
            assert_eq!(shown, project(full.clone()), "budget {budget}");
            assert!(
                shown
                    .offered_message_ids
                    .iter()
                    .all(|id| !lazy.unread.contains(id)),
                "budget {budget}: a block without its body"
            );
        }
        assert!(left_unread > 0, "some budgets left bodies unread");
    }

    #[test]
    fn answers_are_read_whole_when_a_reply_route_sees_them() {
        let mut k = kit();
        let a = k.attach("alice");
        let b = k.attach("bob");
        let q = send(&mut k, &b, &["alice"], MessageKind::Question, "q");
        for _ in 0..20 {
            send_body(&mut k, &a, MessageKind::Note, &"n".repeat(400));
        }
        k.core.reply(&a, &q, "the answer", None, None).unwrap();
        let within = |k: &mut crate::core::testkit::Kit, answers| {
            k.core
                .next_turn_delivery_within(&b, |_| BodyBudget {
                    bytes: 2_000,
                    answers,
                })
                .unwrap()
        };
        let lazy = within(&mut k, true);
        let answer = lazy.delivery.messages.last().unwrap();
        assert_eq!(answer.body, "the answer");
        assert!(!lazy.unread.contains(&answer.message_id));
        assert!(
            lazy.unread.len() >= 15,
            "the notes past the budget stay unread"
        );
        let without_route = within(&mut k, false);
        assert!(
            without_route
                .unread
                .contains(&without_route.delivery.messages[20].message_id)
        );
    }

    fn offer_events(k: &mut crate::core::testkit::Kit) -> Vec<(String, bool)> {
        k.core
            .store
            .read(|c| {
                let mut stmt = c.prepare(
                    "SELECT json_extract(payload, '$.messageId'), json_extract(payload, '$.repeat')
                     FROM events WHERE type = 'message.offer_succeeded' ORDER BY sequence",
                )?;
                Ok(stmt
                    .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
                    .collect::<rusqlite::Result<Vec<_>>>()?)
            })
            .unwrap()
    }

    #[test]
    fn one_commit_offers_queued_repeats_due_and_skips_what_changed_meanwhile() {
        let mut k = kit();
        let a = k.attach("alice");
        let b = k.attach("bob");
        let live = send(&mut k, &a, &["bob"], MessageKind::Question, "live");
        k.core
            .commit_offers(&b, std::slice::from_ref(&live), "live-socket")
            .unwrap();
        k.clock.advance_ms(REPEAT_AFTER_MS);
        k.core.heartbeat(&b).unwrap();
        let one = send(&mut k, &a, &["bob"], MessageKind::Note, "one");
        let read = send(&mut k, &a, &["bob"], MessageKind::Note, "read meanwhile");
        let two = send(&mut k, &a, &["bob"], MessageKind::Note, "two");
        // Retrieved between the projection and the commit: no step back, no event.
        k.core.read_message(&b, &read).unwrap();
        let before = k.count("SELECT count(*) FROM events");
        let ids = [
            two.clone(),
            live.clone(),
            read.clone(),
            one.clone(),
            two.clone(),
        ];
        let changed = k.core.commit_offers(&b, &ids, NEXT_TURN).unwrap();
        assert_eq!(changed, vec![two.clone(), live.clone(), one.clone()]);
        assert_eq!(k.count("SELECT count(*) FROM events"), before + 3);
        let payload: String = k
            .core
            .store
            .read(|c| {
                Ok(c.query_row(
                    "SELECT payload FROM events WHERE type = 'message.offer_succeeded'
                     ORDER BY sequence DESC LIMIT 1",
                    [],
                    |r| r.get(0),
                )?)
            })
            .unwrap();
        assert_eq!(
            payload,
            json!({
                "messageId": one.as_str(),
                "recipientParticipantId": "bob",
                "targetSessionId": b.session.as_str(),
                "targetGeneration": b.generation.as_str(),
                "transport": NEXT_TURN,
                "adapterId": "test",
                "clientVersion": null,
                "repeat": false,
            })
            .to_string(),
            "the payload's text as the event always had it"
        );
        let events = offer_events(&mut k);
        assert_eq!(
            events[1..],
            [
                (two.to_string(), false),
                (live.to_string(), true),
                (one.to_string(), false),
            ],
            "each offer its own event, in the order given"
        );
        let state = |k: &mut crate::core::testkit::Kit, id: &MessageId| -> String {
            k.core
                .store
                .read(|c| {
                    Ok(c.query_row(
                        "SELECT state || ' ' || coalesce(offer_transport, '-') || ' '
                           || (offer_repeated_at IS NOT NULL)
                         FROM receipts WHERE message_id = ?1",
                        params![id.as_str()],
                        |r| r.get(0),
                    )?)
                })
                .unwrap()
        };
        assert_eq!(state(&mut k, &one), "offered next-turn 0");
        assert_eq!(state(&mut k, &two), "offered next-turn 0");
        assert_eq!(state(&mut k, &live), "offered live-socket 1");
        assert_eq!(state(&mut k, &read), "retrieved - 0");
        // A foreign id anywhere in the list refuses the whole commit and changes nothing.
        k.attach("carol");
        let carols = send(&mut k, &a, &["carol"], MessageKind::Note, "carol's");
        let three = send(&mut k, &a, &["bob"], MessageKind::Note, "three");
        let err = k
            .core
            .commit_offers(&b, &[three.clone(), carols], NEXT_TURN)
            .unwrap_err();
        assert_eq!(err.code, ErrorCode::NotAddressed);
        assert_eq!(state(&mut k, &three), "queued - 0");
        assert_eq!(offer_events(&mut k).len(), 4);
    }

    /// The turn's delivery read with `present` as given, in one read transaction.
    fn lazy_with(
        k: &mut crate::core::testkit::Kit,
        owner: &Owner,
        bytes: usize,
        present: Option<Present>,
    ) -> LazyDelivery {
        let ports = &k.core.ports;
        let now = ports.now();
        k.core
            .store
            .read(|c| {
                let me = check_owner(c, owner)?;
                let present = match present {
                    Some(p) => p,
                    None => Present::read(c, &me.participant_id, NEXT_TURN)?,
                };
                let budget = |_: &[ParticipantId]| BodyBudget {
                    bytes,
                    answers: false,
                };
                lazy_delivery(c, ports, now, owner, &me.participant_id, budget, present)
            })
            .unwrap()
    }

    fn present_of(k: &mut crate::core::testkit::Kit, owner: &Owner) -> Present {
        k.core
            .store
            .read(|c| Present::read(c, &check_owner(c, owner)?.participant_id, NEXT_TURN))
            .unwrap()
    }

    /// Each turn, as read with the checks, is the turn read as if every rare thing were
    /// there, for every participant and several budgets.
    fn assert_reads_as_if_present(k: &mut crate::core::testkit::Kit, owners: &[&Owner]) {
        for owner in owners {
            for bytes in [0, 700, 3_000, 40_000] {
                let checked = lazy_with(k, owner, bytes, None);
                assert_eq!(checked, lazy_with(k, owner, bytes, Some(Present::ALL)));
                let peers = k.core.live_peers(owner).unwrap();
                assert_eq!(checked.peers, peers, "the peers live_peers reads");
                assert_eq!(checked.delivery.peer_count, peers.len());
            }
        }
    }

    #[test]
    fn what_a_turn_leaves_out_when_absent_it_reads_as_if_present() {
        use crate::core::decisions::{DecisionAction, DecisionChange};
        use crate::core::model::Obligation;
        let mut k = kit();
        let a = k.attach("alice");
        let b = k.attach("bob");
        let carol = k.attach("carol");
        for i in 0..6 {
            send(&mut k, &a, &["bob"], MessageKind::Note, &format!("n{i}"));
        }
        assert_eq!(
            present_of(&mut k, &a),
            Present {
                decision_links: false,
                obligations_sent: false,
                live_offers: false,
            }
        );
        assert_reads_as_if_present(&mut k, &[&a, &b]);

        // A note offered live to bob: due a repeat 15 minutes later, once.
        let live = send(&mut k, &a, &["bob"], MessageKind::Note, "live");
        k.core
            .commit_offers(&b, std::slice::from_ref(&live), "live-socket")
            .unwrap();
        assert!(present_of(&mut k, &b).live_offers);
        assert!(!present_of(&mut k, &a).live_offers);
        assert_reads_as_if_present(&mut k, &[&a, &b]);
        k.clock.advance_ms(REPEAT_AFTER_MS);
        k.core.heartbeat(&a).unwrap();
        k.core.heartbeat(&b).unwrap();
        let bobs = lazy_with(&mut k, &b, 40_000, None);
        assert_eq!(bobs.delivery.repeats.len(), 1, "the live offer is due");
        assert_reads_as_if_present(&mut k, &[&a, &b]);
        k.core
            .commit_offers(&b, std::slice::from_ref(&live), NEXT_TURN)
            .unwrap();
        assert!(!present_of(&mut k, &b).live_offers, "repeated once only");
        assert_reads_as_if_present(&mut k, &[&a, &b]);

        // Bob asks carol, who then goes offline: bob's turn lists her as unavailable.
        send(&mut k, &b, &["carol"], MessageKind::Question, "for carol");
        k.clock.advance_ms(24 * 60 * 60 * 1000);
        k.core.heartbeat(&a).unwrap();
        k.core.heartbeat(&b).unwrap();
        assert!(present_of(&mut k, &b).obligations_sent);
        assert!(!present_of(&mut k, &a).obligations_sent);
        let bobs = lazy_with(&mut k, &b, 3_000, None);
        assert!(
            bobs.delivery
                .attention
                .iter()
                .any(|i| i.kind == acc_sdk::context::AttentionKind::RecipientUnavailable),
            "{:?}",
            bobs.delivery.attention
        );
        assert_reads_as_if_present(&mut k, &[&a, &b]);

        // A decision replaced by another: only the head is queued for bob.
        let first = k
            .core
            .send(
                &a,
                SendMessage {
                    to: vec!["bob".into()],
                    kind: MessageKind::Decision,
                    obligation: Some(Obligation::Acknowledge),
                    subject: "first".into(),
                    body: "first".into(),
                    client_message_id: None,
                },
            )
            .unwrap()
            .message
            .message_id;
        assert!(!present_of(&mut k, &b).decision_links);
        let second = k
            .core
            .send_with_change(
                &a,
                SendMessage {
                    to: vec!["bob".into()],
                    kind: MessageKind::Decision,
                    obligation: Some(Obligation::Acknowledge),
                    subject: "second".into(),
                    body: "second".into(),
                    client_message_id: None,
                },
                Some(DecisionChange::new(DecisionAction::Replace, vec![first.clone()]).unwrap()),
            )
            .unwrap()
            .message
            .message_id;
        assert!(present_of(&mut k, &b).decision_links);
        let bobs = lazy_with(&mut k, &b, 40_000, None);
        let ids: Vec<&str> = bobs
            .delivery
            .messages
            .iter()
            .map(|m| m.message_id.as_str())
            .collect();
        assert!(ids.contains(&second.as_str()) && !ids.contains(&first.as_str()));
        assert!(
            !bobs
                .delivery
                .attention
                .iter()
                .any(|i| i.source_id == first.as_str()),
            "a replaced decision is owed no acknowledgement"
        );
        assert_reads_as_if_present(&mut k, &[&a, &b, &carol]);
        // The withheld turn reads the same page's ids and the same rest.
        let held = k.core.withheld_turn_delivery(&b).unwrap();
        let lazy = lazy_with(&mut k, &b, 40_000, Some(Present::ALL));
        let lazy_ids: Vec<String> = lazy
            .delivery
            .messages
            .iter()
            .map(|m| m.message_id.clone())
            .collect();
        let held_ids: Vec<String> = held.queued.iter().map(|m| m.to_string()).collect();
        assert_eq!(held_ids, lazy_ids);
        assert_eq!(held.peers, lazy.peers);
    }
}
