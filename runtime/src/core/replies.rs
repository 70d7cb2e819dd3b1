//! Reply (an answer plus the acknowledgement of the original, in one transaction) and ack
//! (refused while a reply is owed).

use super::inbox::not_addressed;
use super::messages::{
    self, DeliveryResult, MessageRecord, NewMessage, check_retry, client_message_id,
    content_digest, record_in_tx,
};
use super::model::{MessageKind, Obligation, ReceiptState};
use super::receipts::{self, ReceiptRecord};
use super::sessions::check_owner_for_write;
use super::{Core, Owner};
use crate::error::{AccError, ErrorCode, Result};
use crate::ids::MessageId;
use crate::text::{self, LINE_MAX};
use serde::Serialize;
use serde_json::json;

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ReplyOutcome {
    pub message: MessageRecord,
    pub delivery: Vec<DeliveryResult>,
    /// The owner's receipt of the original message, now acknowledged.
    pub receipt: ReceiptRecord,
    pub duplicate: bool,
}

fn re_subject(original: &str) -> String {
    let s = if original.starts_with("Re: ") {
        original.to_string()
    } else {
        format!("Re: {original}")
    };
    s.chars().take(LINE_MAX).collect()
}

impl Core {
    /// Answers a message addressed to the owner: records an `answer` to the original sender
    /// (same thread, subject `Re: …` unless given) and acknowledges the owner's receipt.
    pub fn reply(
        &mut self,
        owner: &Owner,
        original: &MessageId,
        body: &str,
        subject: Option<&str>,
        client_message_id_in: Option<&str>,
    ) -> Result<ReplyOutcome> {
        text::check_peer_prose("body", body)?;
        if let Some(s) = subject {
            text::check_peer_line("subject", s)?;
        }
        let ports = &self.ports;
        let cmid = client_message_id(ports, client_message_id_in)?;
        let digest = content_digest(&json!(["answer", original.as_str(), subject, body]));
        let now = ports.now();
        self.store.write(|tx| {
            let me = check_owner_for_write(tx, owner, now)?;
            let orig = messages::load_required(tx, original)?;
            let receipt = receipts::load(tx, original, &me.participant_id)?
                .ok_or_else(|| not_addressed(original, &me.participant_id))?;
            if let Some(done) = check_retry(tx, &me.participant_id, &cmid, &digest)? {
                return Ok(ReplyOutcome {
                    message: done.message,
                    delivery: done.delivery,
                    receipt: receipt.record(),
                    duplicate: true,
                });
            }
            let sent = record_in_tx(
                tx,
                ports,
                now,
                &me,
                NewMessage {
                    kind: MessageKind::Answer,
                    obligation: Obligation::None,
                    to: vec![orig.record.from_participant_id.clone()],
                    subject: subject
                        .map(str::to_string)
                        .unwrap_or_else(|| re_subject(&orig.record.subject)),
                    body: body.to_string(),
                    thread: Some(orig.record.thread_id.clone()),
                    in_reply_to: Some(original.clone()),
                    handoff: None,
                    client_message_id: cmid.clone(),
                    digest: digest.clone(),
                },
            )?;
            receipts::advance(
                tx,
                ports,
                now,
                &owner.session,
                &receipt,
                ReceiptState::Acknowledged,
            )?;
            let receipt =
                receipts::load(tx, original, &me.participant_id)?.expect("the receipt exists");
            Ok(ReplyOutcome {
                message: sent.message,
                delivery: sent.delivery,
                receipt: receipt.record(),
                duplicate: false,
            })
        })
    }

    /// Acknowledges a message addressed to the owner. Refused (exit 5) while the message
    /// still needs a reply; repeating an acknowledgement is a no-op.
    pub fn ack(&mut self, owner: &Owner, id: &MessageId) -> Result<ReceiptRecord> {
        let ports = &self.ports;
        let now = ports.now();
        self.store.write(|tx| {
            let me = check_owner_for_write(tx, owner, now)?;
            let msg = messages::load_required(tx, id)?;
            let receipt = receipts::load(tx, id, &me.participant_id)?
                .ok_or_else(|| not_addressed(id, &me.participant_id))?;
            if receipt.state == ReceiptState::Acknowledged {
                return Ok(receipt.record());
            }
            if msg.record.obligation == Obligation::Reply {
                return Err(AccError::new(
                    ErrorCode::ReplyRequired,
                    format!(
                        "{id} is a {} that needs a reply; answer it with acc reply",
                        msg.record.kind
                    ),
                )
                .with("messageId", id.as_str()));
            }
            receipts::advance(
                tx,
                ports,
                now,
                &owner.session,
                &receipt,
                ReceiptState::Acknowledged,
            )?;
            Ok(receipts::load(tx, id, &me.participant_id)?
                .expect("the receipt exists")
                .record())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::messages::SendMessage;
    use crate::core::testkit::kit;

    fn question(to: &str) -> SendMessage {
        SendMessage {
            to: vec![to.into()],
            kind: MessageKind::Question,
            obligation: None,
            subject: "which port?".into(),
            body: "?".into(),
            client_message_id: None,
        }
    }

    #[test]
    fn reply_answers_in_thread_and_acknowledges() {
        let mut k = kit();
        let a = k.attach("alice");
        let b = k.attach("bob");
        let q = k.core.send(&a, question("bob")).unwrap().message;
        let e = k.core.ack(&b, &q.message_id).unwrap_err();
        assert_eq!(e.code, ErrorCode::ReplyRequired);
        assert_eq!(e.exit_code(), 5);
        let r = k.core.reply(&b, &q.message_id, "8080", None, None).unwrap();
        assert_eq!(r.message.kind, MessageKind::Answer);
        assert_eq!(r.message.subject, "Re: which port?");
        assert_eq!(r.message.thread_id, q.thread_id);
        assert_eq!(r.message.in_reply_to.as_ref(), Some(&q.message_id));
        assert_eq!(r.message.to_participant_ids[0].as_str(), "alice");
        assert_eq!(r.receipt.state, ReceiptState::Acknowledged);
        // Ack after the reply is an idempotent no-op.
        assert_eq!(
            k.core.ack(&b, &q.message_id).unwrap().state,
            ReceiptState::Acknowledged
        );
        // Alice got the answer in her inbox.
        let inbox = k.core.inbox(&a, None, None).unwrap();
        assert_eq!(inbox.items[0].kind, MessageKind::Answer);
    }

    #[test]
    fn ack_of_a_note_and_of_a_foreign_message() {
        let mut k = kit();
        let a = k.attach("alice");
        let b = k.attach("bob");
        let c = k.attach("carol");
        let n = k
            .core
            .send(
                &a,
                SendMessage {
                    kind: MessageKind::Note,
                    subject: "fyi".into(),
                    ..question("bob")
                },
            )
            .unwrap()
            .message;
        assert_eq!(
            k.core.ack(&b, &n.message_id).unwrap().state,
            ReceiptState::Acknowledged
        );
        assert_eq!(
            k.core.ack(&c, &n.message_id).unwrap_err().code,
            ErrorCode::NotAddressed
        );
        assert_eq!(
            k.core
                .reply(&c, &n.message_id, "x", None, None)
                .unwrap_err()
                .code,
            ErrorCode::NotAddressed
        );
        let missing = MessageId::parse("message_missing").unwrap();
        assert_eq!(
            k.core.ack(&b, &missing).unwrap_err().code,
            ErrorCode::NotFound
        );
    }

    #[test]
    fn reply_retries_are_idempotent() {
        let mut k = kit();
        let a = k.attach("alice");
        let b = k.attach("bob");
        let q = k.core.send(&a, question("bob")).unwrap().message;
        let one = k
            .core
            .reply(&b, &q.message_id, "yes", None, Some("r1"))
            .unwrap();
        let two = k
            .core
            .reply(&b, &q.message_id, "yes", None, Some("r1"))
            .unwrap();
        assert!(two.duplicate);
        assert_eq!(one.message.message_id, two.message.message_id);
        assert_eq!(
            k.core
                .reply(&b, &q.message_id, "no", None, Some("r1"))
                .unwrap_err()
                .code,
            ErrorCode::ClientMessageConflict
        );
    }
}
