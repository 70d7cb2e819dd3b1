//! Messages: durable, threaded, idempotent through `clientMessageId`. A send is one
//! transaction: the message, one `queued` receipt per recipient, the links of a decision
//! change, and `message.recorded`. Delivery happens only after the commit, so a crash never
//! leaves a message without its receipts.

use super::decisions::{self, DecisionChange, DecisionStatus, ResolvedChange};
use super::events::{self, EventType};
use super::model::{MessageKind, Obligation, Presence};
use super::receipts;
use super::sessions::{self, SessionRow, check_owner_for_write};
use super::{Core, Owner, Ports};
use crate::clock::to_iso;
use crate::error::{AccError, ErrorCode, Result};
use crate::ids::{IdKind, MessageId, ParticipantId, SessionId, ThreadId, check_portable_id};
use crate::store::engine::{Connection, params};
use crate::text;
use base64::Engine;
use serde::Serialize;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

/// Most recipients one message may name.
pub const MAX_RECIPIENTS: usize = 64;

/// A message to send through the generic path (note, question, request, decision).
#[derive(Debug, Clone, PartialEq)]
pub struct SendMessage {
    /// Participant ids or client names; empty for a room message.
    pub to: Vec<String>,
    pub kind: MessageKind,
    /// Defaults from the kind; only a decision may choose (`none` or `acknowledge`).
    pub obligation: Option<Obligation>,
    pub subject: String,
    pub body: String,
    pub client_message_id: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MessageRecord {
    pub message_id: MessageId,
    pub thread_id: ThreadId,
    pub client_message_id: String,
    pub from_participant_id: ParticipantId,
    pub from_session_id: SessionId,
    /// Empty for a room message.
    pub to_participant_ids: Vec<ParticipantId>,
    pub kind: MessageKind,
    pub obligation: Obligation,
    pub subject: String,
    pub body: String,
    pub in_reply_to: Option<MessageId>,
    pub handoff: Option<Value>,
    pub sent_at: String,
    /// Only on a decision that replaces or withdraws earlier decisions.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub decision_change: Option<DecisionChange>,
    /// Only on decisions: where this one stands now (derived at read time, never stored).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub decision_status: Option<DecisionStatus>,
}

/// What happened to one recipient's copy at send time.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DeliveryResult {
    pub recipient_participant_id: ParticipantId,
    pub outcome: String,
    pub transport: String,
    pub error_code: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SendOutcome {
    pub message: MessageRecord,
    pub delivery: Vec<DeliveryResult>,
    /// True when this was an equal retry of an earlier send (nothing new was written).
    pub duplicate: bool,
}

#[derive(Debug, Clone)]
pub(crate) struct MessageRow {
    pub seq: i64,
    pub record: MessageRecord,
    pub digest: String,
}

const MESSAGE_SELECT: &str = "SELECT seq, message_id, thread_id, client_message_id,
    from_participant_id, from_session_id, to_participant_ids, kind, obligation, subject, body,
    in_reply_to, handoff, content_digest, sent_at FROM messages";

pub(crate) fn from_row(r: &crate::store::engine::Row<'_>) -> Result<MessageRow> {
    let to: String = r.get(6)?;
    let to: Vec<String> = serde_json::from_str(&to).unwrap_or_default();
    let handoff: Option<String> = r.get(12)?;
    Ok(MessageRow {
        seq: r.get(0)?,
        record: MessageRecord {
            message_id: MessageId::from_store(r.get(1)?),
            thread_id: ThreadId::from_store(r.get(2)?),
            client_message_id: r.get(3)?,
            from_participant_id: ParticipantId::from_store(r.get(4)?),
            from_session_id: SessionId::from_store(r.get(5)?),
            to_participant_ids: to.into_iter().map(ParticipantId::from_store).collect(),
            kind: MessageKind::from_store(&r.get::<_, String>(7)?)?,
            obligation: Obligation::from_store(&r.get::<_, String>(8)?)?,
            subject: r.get(9)?,
            body: r.get(10)?,
            in_reply_to: r.get::<_, Option<String>>(11)?.map(MessageId::from_store),
            handoff: handoff.and_then(|h| serde_json::from_str(&h).ok()),
            sent_at: to_iso(r.get(14)?),
            decision_change: None,
            decision_status: None,
        },
        digest: r.get(13)?,
    })
}

/// A decision's change and derived status, filled in wherever a message is loaded so that
/// every surface that shows a decision shows where it stands.
fn with_decision(conn: &Connection, mut row: MessageRow) -> Result<MessageRow> {
    if row.record.kind == MessageKind::Decision {
        row.record.decision_change = decisions::change_of(conn, row.seq)?;
        row.record.decision_status = decisions::statuses(conn, &[row.seq])?.remove(&row.seq);
    }
    Ok(row)
}

/// One message as stored, without the derived decision fields.
pub(crate) fn load_row(conn: &Connection, id: &str) -> Result<Option<MessageRow>> {
    let sql = format!("{MESSAGE_SELECT} WHERE message_id = ?1");
    let mut stmt = conn.prepare_cached(&sql)?;
    let mut rows = stmt.query(params![id])?;
    match rows.next()? {
        Some(r) => Ok(Some(from_row(&r)?)),
        None => Ok(None),
    }
}

/// One message, with a decision's change and status.
pub(crate) fn load(conn: &Connection, id: &str) -> Result<Option<MessageRow>> {
    load_row(conn, id)?
        .map(|row| with_decision(conn, row))
        .transpose()
}

pub(crate) fn load_required(conn: &Connection, id: &MessageId) -> Result<MessageRow> {
    load(conn, id.as_str())?.ok_or_else(|| {
        AccError::new(ErrorCode::NotFound, format!("message {id} does not exist"))
            .with("messageId", id.as_str())
    })
}

fn find_by_client_id(
    conn: &Connection,
    from: &ParticipantId,
    cmid: &str,
) -> Result<Option<MessageRow>> {
    let sql = format!("{MESSAGE_SELECT} WHERE from_participant_id = ?1 AND client_message_id = ?2");
    let mut stmt = conn.prepare_cached(&sql)?;
    let mut rows = stmt.query(params![from.as_str(), cmid])?;
    let row = match rows.next()? {
        Some(r) => from_row(&r)?,
        None => return Ok(None),
    };
    Ok(Some(with_decision(conn, row)?))
}

/// A digest of what the sender asked for, so an equal retry is recognised and a changed
/// one refused.
pub(crate) fn content_digest(parts: &Value) -> String {
    let digest = Sha256::digest(parts.to_string().as_bytes());
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(digest)
}

/// An earlier send with the same client message id: the original when equal, else conflict.
pub(crate) fn check_retry(
    conn: &Connection,
    from: &ParticipantId,
    cmid: &str,
    digest: &str,
) -> Result<Option<SendOutcome>> {
    let Some(existing) = find_by_client_id(conn, from, cmid)? else {
        return Ok(None);
    };
    if existing.digest != digest {
        return Err(AccError::new(
            ErrorCode::ClientMessageConflict,
            format!(
                "client message id {cmid} was already used for message {} with different content",
                existing.record.message_id
            ),
        )
        .with("clientMessageId", cmid)
        .with("messageId", existing.record.message_id.as_str()));
    }
    let delivery = receipts::of_message(conn, existing.seq)?
        .into_iter()
        .map(|r| queued_result(r.recipient))
        .collect();
    Ok(Some(SendOutcome {
        message: existing.record,
        delivery,
        duplicate: true,
    }))
}

fn queued_result(recipient: ParticipantId) -> DeliveryResult {
    DeliveryResult {
        recipient_participant_id: recipient,
        outcome: "queued".into(),
        transport: "durable".into(),
        error_code: None,
    }
}

/// Resolves recipient names: a known participant id, else a client name that exactly one
/// other live participant uses. A name never seen here is refused rather than queued (a typo
/// would otherwise wait forever): a data error listing the participants here now and the
/// others known. Ambiguous client names and duplicates are usage errors.
fn unknown_recipient(
    name: &str,
    sender: &SessionRow,
    live: &[SessionRow],
    conn: &Connection,
) -> Result<AccError> {
    let mut here: Vec<&str> = live
        .iter()
        .map(|s| s.participant_id.as_str())
        .filter(|p| *p != sender.participant_id.as_str())
        .collect();
    here.sort_unstable();
    here.dedup();
    let known = sessions::known_participants(conn)?;
    let away: Vec<&str> = known
        .iter()
        .map(String::as_str)
        .filter(|p| !here.contains(p) && *p != sender.participant_id.as_str())
        .collect();
    let list = |l: &[&str]| {
        if l.is_empty() {
            "none".to_string()
        } else {
            l.join(", ")
        }
    };
    Ok(AccError::new(
        ErrorCode::UnknownParticipant,
        format!(
            "no participant or live client named {name:?}; participants here: {}; known but not here: {}. \
             A message is queued only for a participant that has been in this workspace: start its \
             session first (a hooked client's session takes the client's name)",
            list(&here),
            list(&away)
        ),
    )
    .with("recipient", name)
    .with("participantsHere", here)
    .with("knownParticipants", known))
}

pub(crate) fn resolve_recipients(
    conn: &Connection,
    ports: &Ports,
    now: i64,
    sender: &SessionRow,
    names: &[String],
) -> Result<Vec<ParticipantId>> {
    if names.len() > MAX_RECIPIENTS {
        return Err(AccError::usage(format!(
            "a message names at most {MAX_RECIPIENTS} recipients"
        )));
    }
    let mut out: Vec<ParticipantId> = Vec::new();
    let mut live: Option<Vec<SessionRow>> = None;
    for name in names {
        check_portable_id("recipient", name)?;
        let resolved = if sessions::participant_exists(conn, name)? {
            ParticipantId::from_store(name.clone())
        } else {
            let live = match &mut live {
                Some(l) => l,
                None => live.insert(
                    sessions::load_all(conn, true)?
                        .into_iter()
                        .filter(|s| s.presence(ports, now) != Presence::Offline)
                        .collect(),
                ),
            };
            let mut matches: Vec<&ParticipantId> = live
                .iter()
                .filter(|s| s.participant_id != sender.participant_id)
                .filter(|s| s.client_name.as_deref() == Some(name.as_str()) || s.harness == *name)
                .map(|s| &s.participant_id)
                .collect();
            matches.sort();
            matches.dedup();
            match matches.as_slice() {
                [one] => (*one).clone(),
                [] => return Err(unknown_recipient(name, sender, live, conn)?),
                many => {
                    let ids: Vec<&str> = many.iter().map(|p| p.as_str()).collect();
                    return Err(AccError::new(
                        ErrorCode::AmbiguousRecipient,
                        format!(
                            "client name {name:?} matches several live participants: {}; name one",
                            ids.join(", ")
                        ),
                    )
                    .with("recipient", name.as_str())
                    .with("candidates", ids));
                }
            }
        };
        if out.contains(&resolved) {
            return Err(AccError::new(
                ErrorCode::DuplicateRecipient,
                format!("recipient {resolved} is named more than once"),
            )
            .with("recipient", resolved.as_str()));
        }
        out.push(resolved);
    }
    Ok(out)
}

/// Every other participant with an open session now: the receivers of a room message.
pub(crate) fn room_recipients(
    conn: &Connection,
    sender: &ParticipantId,
) -> Result<Vec<ParticipantId>> {
    let mut stmt = conn.prepare_cached(
        "SELECT DISTINCT participant_id FROM sessions
         WHERE state = 'open' AND participant_id <> ?1 ORDER BY participant_id",
    )?;
    let ids = stmt
        .query_map(params![sender.as_str()], |r| r.get::<_, String>(0))?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(ids.into_iter().map(ParticipantId::from_store).collect())
}

/// A resolved message ready to be written.
pub(crate) struct NewMessage {
    pub kind: MessageKind,
    pub obligation: Obligation,
    /// Empty for a room message.
    pub to: Vec<ParticipantId>,
    pub subject: String,
    pub body: String,
    pub thread: Option<ThreadId>,
    pub in_reply_to: Option<MessageId>,
    pub handoff: Option<Value>,
    pub client_message_id: String,
    pub digest: String,
}

/// Writes the message, its receipts and `message.recorded` inside the caller's transaction.
pub(crate) fn record_in_tx(
    tx: &Connection,
    ports: &Ports,
    now: i64,
    sender: &SessionRow,
    msg: NewMessage,
) -> Result<SendOutcome> {
    record_change_in_tx(tx, ports, now, sender, msg, None)
}

/// [`record_in_tx`] for a decision that may carry a change: its links are written in the
/// same transaction, before the event that announces them.
fn record_change_in_tx(
    tx: &Connection,
    ports: &Ports,
    now: i64,
    sender: &SessionRow,
    msg: NewMessage,
    change: Option<&ResolvedChange>,
) -> Result<SendOutcome> {
    let id = MessageId::from_store(ports.ids.next(IdKind::Message));
    let thread = msg.thread.unwrap_or_else(|| ThreadId::of_root(&id));
    let recipients = if msg.to.is_empty() {
        room_recipients(tx, &sender.participant_id)?
    } else {
        msg.to.clone()
    };
    let to_json: Vec<&str> = msg.to.iter().map(|p| p.as_str()).collect();
    tx.prepare_cached(
        "INSERT INTO messages (message_id, thread_id, client_message_id, from_participant_id,
            from_session_id, to_participant_ids, kind, obligation, subject, body, in_reply_to,
            handoff, content_digest, sent_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)",
    )?
    .execute(params![
        id.as_str(),
        thread.as_str(),
        msg.client_message_id,
        sender.participant_id.as_str(),
        sender.session_id.as_str(),
        serde_json::to_string(&to_json).expect("strings serialise"),
        msg.kind.as_str(),
        msg.obligation.as_str(),
        msg.subject,
        msg.body,
        msg.in_reply_to.as_ref().map(|m| m.as_str()),
        msg.handoff.as_ref().map(Value::to_string),
        msg.digest,
        now
    ])?;
    let seq = tx.last_insert_rowid();
    for r in &recipients {
        receipts::insert_queued(tx, seq, &id, r, now)?;
    }
    let mut payload = json!({
        "messageId": id.as_str(),
        "threadId": thread.as_str(),
        "kind": msg.kind.as_str(),
        "recipientParticipantIds": recipients.iter().map(|p| p.as_str()).collect::<Vec<_>>(),
    });
    if let Some(change) = change {
        decisions::write_links(tx, seq, change)?;
        payload["decisionChange"] = json!(change.change);
    }
    events::append(
        tx,
        ports.ids.as_ref(),
        now,
        Some(&sender.session_id),
        EventType::MessageRecorded,
        payload,
    )?;
    let row = load(tx, id.as_str())?.expect("the message was just written");
    Ok(SendOutcome {
        message: row.record,
        delivery: recipients.into_iter().map(queued_result).collect(),
        duplicate: false,
    })
}

/// The obligation a generic send gets, or a usage error for a combination the model forbids.
fn obligation_for(kind: MessageKind, asked: Option<Obligation>, room: bool) -> Result<Obligation> {
    let fixed = match kind {
        MessageKind::Note => Obligation::None,
        MessageKind::Question | MessageKind::Request => Obligation::Reply,
        MessageKind::Decision => {
            let o = asked.unwrap_or(Obligation::None);
            if o == Obligation::Reply {
                return Err(AccError::usage(
                    "a decision's obligation is none or acknowledge",
                ));
            }
            if room && o != Obligation::None {
                return Err(AccError::usage(
                    "a decision to the whole room must have obligation none",
                ));
            }
            return Ok(o);
        }
        MessageKind::Answer | MessageKind::Handoff => {
            return Err(AccError::usage(format!(
                "a {kind} is sent with {}, not as a plain message",
                if kind == MessageKind::Answer {
                    "reply"
                } else {
                    "finish"
                }
            )));
        }
    };
    match asked {
        Some(o) if o != fixed => Err(AccError::usage(format!(
            "a {kind} always has obligation {fixed}"
        ))),
        _ => Ok(fixed),
    }
}

/// Validates a client message id, or generates one.
pub(crate) fn client_message_id(ports: &Ports, given: Option<&str>) -> Result<String> {
    match given {
        Some(c) => {
            check_portable_id("client message id", c)?;
            Ok(c.to_string())
        }
        None => Ok(ports.ids.next(IdKind::ClientMessage)),
    }
}

impl Core {
    /// Sends a note, question, request or decision. Addressed to participant ids or client
    /// names, or to the room when `to` is empty (receipts for every other participant with an
    /// open session now). An equal retry with the same `client_message_id` returns the
    /// original; a changed one is a conflict.
    pub fn send(&mut self, owner: &Owner, req: SendMessage) -> Result<SendOutcome> {
        self.send_with_change(owner, req, None)
    }

    /// [`Core::send`] for a decision that may replace or withdraw earlier decisions. The
    /// targets must exist and be decisions (data error otherwise) that the sender's
    /// participant sent or received, or room decisions (a conflict otherwise). Changing a
    /// decision that was already replaced or withdrawn is recorded, and the group then
    /// reports itself conflicted (see [`decisions`]); the outcome's message carries its
    /// status so the sender sees that at once.
    pub fn send_with_change(
        &mut self,
        owner: &Owner,
        req: SendMessage,
        change: Option<DecisionChange>,
    ) -> Result<SendOutcome> {
        if change.is_some() && req.kind != MessageKind::Decision {
            return Err(AccError::usage(format!(
                "only a decision can supersede or withdraw decisions; this message is a {}",
                req.kind
            )));
        }
        let room = req.to.is_empty();
        if room && matches!(req.kind, MessageKind::Question | MessageKind::Request) {
            return Err(AccError::usage(format!(
                "a {} must be addressed with --to",
                req.kind
            )));
        }
        let obligation = obligation_for(req.kind, req.obligation, room)?;
        text::check_peer_line("subject", &req.subject)?;
        text::check_peer_prose("body", &req.body)?;
        let ports = &self.ports;
        let cmid = client_message_id(ports, req.client_message_id.as_deref())?;
        let mut parts = json!([
            req.kind.as_str(),
            obligation.as_str(),
            req.to,
            req.subject,
            req.body
        ]);
        // Appended only when present, so digests of every other message stay as they were.
        if let (Some(c), Some(list)) = (&change, parts.as_array_mut()) {
            list.push(json!(c));
        }
        let digest = content_digest(&parts);
        let now = ports.now();
        self.store.write(|tx| {
            let sender = check_owner_for_write(tx, owner, now)?;
            if let Some(original) = check_retry(tx, &sender.participant_id, &cmid, &digest)? {
                return Ok(original);
            }
            let to = resolve_recipients(tx, ports, now, &sender, &req.to)?;
            let change = change
                .clone()
                .map(|c| decisions::resolve(tx, &sender.participant_id, c))
                .transpose()?;
            record_change_in_tx(
                tx,
                ports,
                now,
                &sender,
                NewMessage {
                    kind: req.kind,
                    obligation,
                    to,
                    subject: req.subject.clone(),
                    body: req.body.clone(),
                    thread: None,
                    in_reply_to: None,
                    handoff: None,
                    client_message_id: cmid.clone(),
                    digest: digest.clone(),
                },
                change.as_ref(),
            )
        })
    }

    /// Records a work request: a `request` message (obligation reply) with the title as
    /// subject and the detail as body.
    pub fn request(
        &mut self,
        owner: &Owner,
        to: &str,
        title: &str,
        detail: Option<&str>,
        client_message_id: Option<&str>,
    ) -> Result<SendOutcome> {
        self.send(
            owner,
            SendMessage {
                to: vec![to.to_string()],
                kind: MessageKind::Request,
                obligation: None,
                subject: title.to_string(),
                body: detail.unwrap_or_default().to_string(),
                client_message_id: client_message_id.map(str::to_string),
            },
        )
    }

    /// One message by id (no receipt changes).
    pub fn message(&mut self, id: &MessageId) -> Result<Option<MessageRecord>> {
        self.store
            .read(|c| Ok(load(c, id.as_str())?.map(|m| m.record)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::testkit::kit;
    use crate::ids::ParticipantId;

    pub(crate) fn note(to: &[&str], subject: &str) -> SendMessage {
        SendMessage {
            to: to.iter().map(|s| s.to_string()).collect(),
            kind: MessageKind::Note,
            obligation: None,
            subject: subject.into(),
            body: "body".into(),
            client_message_id: None,
        }
    }

    #[test]
    fn send_writes_message_receipts_and_event_together() {
        let mut k = kit();
        let a = k.attach("alice");
        k.attach("bob");
        k.attach("carol");
        let out = k.core.send(&a, note(&["bob", "carol"], "hi")).unwrap();
        assert_eq!(out.delivery.len(), 2);
        assert_eq!(out.delivery[0].outcome, "queued");
        assert_eq!(
            out.message.thread_id.as_str(),
            out.message.message_id.as_str()
        );
        assert_eq!(
            k.count("SELECT count(*) FROM receipts WHERE state = 'queued'"),
            2
        );
        assert_eq!(
            k.count("SELECT count(*) FROM events WHERE type = 'message.recorded'"),
            1
        );
    }

    #[test]
    fn room_messages_reach_every_other_open_participant() {
        let mut k = kit();
        let a = k.attach("alice");
        k.attach("bob");
        let c = k.attach("carol");
        k.core.close_session(&c, None).unwrap();
        let out = k.core.send(&a, note(&[], "all")).unwrap();
        let to: Vec<&str> = out
            .delivery
            .iter()
            .map(|d| d.recipient_participant_id.as_str())
            .collect();
        assert_eq!(to, vec!["bob"]);
        assert!(out.message.to_participant_ids.is_empty());
        let mut q = note(&[], "q?");
        q.kind = MessageKind::Question;
        assert_eq!(k.core.send(&a, q).unwrap_err().exit_code(), 2);
    }

    #[test]
    fn client_message_id_makes_retries_idempotent() {
        let mut k = kit();
        let a = k.attach("alice");
        k.attach("bob");
        let mut m = note(&["bob"], "once");
        m.client_message_id = Some("c1".into());
        let first = k.core.send(&a, m.clone()).unwrap();
        let again = k.core.send(&a, m.clone()).unwrap();
        assert!(again.duplicate);
        assert_eq!(again.message.message_id, first.message.message_id);
        assert_eq!(k.count("SELECT count(*) FROM messages"), 1);
        m.body = "changed".into();
        assert_eq!(
            k.core.send(&a, m).unwrap_err().code,
            ErrorCode::ClientMessageConflict
        );
    }

    #[test]
    fn addressing_by_client_name() {
        let mut k = kit();
        let a = k.attach("alice");
        let mut req = crate::core::sessions::OpenSession::new(
            ParticipantId::parse("codex-1").unwrap(),
            "hook",
            60_000,
        );
        req.extensions.insert(
            "client".into(),
            json!({"name": "codex", "version": "0.171.0"}),
        );
        k.core.open_session(req.clone()).unwrap();
        let out = k.core.send(&a, note(&["codex"], "x")).unwrap();
        assert_eq!(out.delivery[0].recipient_participant_id.as_str(), "codex-1");
        req.participant_id = ParticipantId::parse("codex-2").unwrap();
        k.core.open_session(req).unwrap();
        let e = k.core.send(&a, note(&["codex"], "x")).unwrap_err();
        assert_eq!(e.code, ErrorCode::AmbiguousRecipient);
        assert!(e.message.contains("codex-1, codex-2"), "{}", e.message);
        let e = k.core.send(&a, note(&["nobody"], "x")).unwrap_err();
        assert_eq!(e.code, ErrorCode::UnknownParticipant);
        assert_eq!(e.exit_code(), 4);
        assert!(
            e.message
                .contains("participants here: codex-1, codex-2; known but not here: none"),
            "{}",
            e.message
        );
        assert_eq!(e.details["participantsHere"], json!(["codex-1", "codex-2"]));
        let e = k
            .core
            .send(&a, note(&["codex-1", "codex-1"], "x"))
            .unwrap_err();
        assert_eq!(e.code, ErrorCode::DuplicateRecipient);
    }

    #[test]
    fn obligations_follow_the_kind() {
        let mut k = kit();
        let a = k.attach("alice");
        k.attach("bob");
        let out = k
            .core
            .request(&a, "bob", "do it", Some("details"), None)
            .unwrap();
        assert_eq!(out.message.kind, MessageKind::Request);
        assert_eq!(out.message.obligation, Obligation::Reply);
        assert_eq!(out.message.subject, "do it");
        let mut bad = note(&["bob"], "x");
        bad.obligation = Some(Obligation::Reply);
        assert_eq!(k.core.send(&a, bad).unwrap_err().exit_code(), 2);
        let mut d = note(&[], "decided");
        d.kind = MessageKind::Decision;
        d.obligation = Some(Obligation::Acknowledge);
        assert_eq!(k.core.send(&a, d.clone()).unwrap_err().exit_code(), 2);
        d.to = vec!["bob".into()];
        assert_eq!(
            k.core.send(&a, d).unwrap().message.obligation,
            Obligation::Acknowledge
        );
        let mut ans = note(&["bob"], "x");
        ans.kind = MessageKind::Answer;
        assert_eq!(k.core.send(&a, ans).unwrap_err().exit_code(), 2);
    }

    #[test]
    fn text_rules_write_nothing() {
        let mut k = kit();
        let a = k.attach("alice");
        k.attach("bob");
        let before = k.count("SELECT count(*) FROM events");
        for m in [
            note(&["bob"], &"s".repeat(501)),
            note(&["bob"], "bell\u{7}"),
            note(&["bob"], ""),
            SendMessage {
                body: "x".repeat(4001),
                ..note(&["bob"], "ok")
            },
        ] {
            assert_eq!(k.core.send(&a, m).unwrap_err().exit_code(), 2);
        }
        assert_eq!(k.count("SELECT count(*) FROM events"), before);
        assert_eq!(k.count("SELECT count(*) FROM messages"), 0);
    }
}
