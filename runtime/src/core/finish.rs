//! Finish: one transaction records a handoff, releases every claim of the session and
//! closes it. Idempotent through `clientMessageId`: a retry after a lost answer returns the
//! original handoff even though the session is closed by then.

use super::claims::{self, ReleaseOutcome, release_in_tx};
use super::messages::{
    DeliveryResult, MessageRecord, NewMessage, check_retry, client_message_id, content_digest,
    record_in_tx, resolve_recipients,
};
use super::model::{HandoffStatus, MessageKind, Obligation};
use super::sessions::{self, check_owner, close_in_tx};
use super::{Core, Owner};
use crate::error::{AccError, Result};
use crate::ids::SessionId;
use crate::text;
use serde::Serialize;
use serde_json::json;

/// Most entries one handoff list may carry.
pub const MAX_LIST_ITEMS: usize = 50;

#[derive(Debug, Clone, PartialEq)]
pub struct FinishRequest {
    /// What the session set out to do; the handoff's subject.
    pub goal: String,
    pub status: HandoffStatus,
    /// One recipient (participant id or client name); `None` records a room handoff.
    pub to: Option<String>,
    pub completed: Vec<String>,
    pub remaining: Vec<String>,
    pub blockers: Vec<String>,
    pub verification: Vec<String>,
    pub client_message_id: Option<String>,
}

impl FinishRequest {
    pub fn new(goal: &str, status: HandoffStatus) -> Self {
        FinishRequest {
            goal: goal.to_string(),
            status,
            to: None,
            completed: Vec::new(),
            remaining: Vec::new(),
            blockers: Vec::new(),
            verification: Vec::new(),
            client_message_id: None,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FinishOutcome {
    pub session_id: SessionId,
    pub message: MessageRecord,
    pub delivery: Vec<DeliveryResult>,
    pub released: Vec<ReleaseOutcome>,
    pub duplicate: bool,
}

fn render_body(req: &FinishRequest) -> String {
    let mut body = format!("status: {}", req.status);
    for (title, items) in [
        ("completed", &req.completed),
        ("remaining", &req.remaining),
        ("blockers", &req.blockers),
        ("verification", &req.verification),
    ] {
        if !items.is_empty() {
            body.push_str(&format!("\n{title}:"));
            for item in items {
                body.push_str(&format!("\n- {item}"));
            }
        }
    }
    body
}

fn validate(req: &FinishRequest) -> Result<()> {
    text::check_peer_line("goal", &req.goal)?;
    for (field, items) in [
        ("completed", &req.completed),
        ("remaining", &req.remaining),
        ("blocker", &req.blockers),
        ("verification", &req.verification),
    ] {
        if items.len() > MAX_LIST_ITEMS {
            return Err(AccError::usage(format!(
                "at most {MAX_LIST_ITEMS} {field} entries"
            )));
        }
        for item in items {
            text::check_peer_line(field, item)?;
        }
    }
    Ok(())
}

impl Core {
    /// Records a handoff (acknowledge if addressed, none as a room record), releases all of
    /// the session's claims and closes it (`session.closed{cause:"finish"}`), atomically.
    pub fn finish(&mut self, owner: &Owner, req: FinishRequest) -> Result<FinishOutcome> {
        validate(&req)?;
        let body = render_body(&req);
        text::check_prose("handoff", &body)?;
        let ports = &self.ports;
        let cmid = client_message_id(ports, req.client_message_id.as_deref())?;
        let handoff = json!({
            "status": req.status.as_str(),
            "completed": req.completed,
            "remaining": req.remaining,
            "blockers": req.blockers,
            "verification": req.verification,
        });
        let digest = content_digest(&json!(["handoff", req.goal, req.to, handoff]));
        let now = ports.now();
        self.store.write(|tx| {
            // A retry after the session closed must still find its original handoff.
            if req.client_message_id.is_some()
                && let Some(row) = sessions::load(tx, owner.session.as_str())?
                && row.generation == owner.generation
                && let Some(done) = check_retry(tx, &row.participant_id, &cmid, &digest)?
            {
                return Ok(FinishOutcome {
                    session_id: owner.session.clone(),
                    message: done.message,
                    delivery: done.delivery,
                    released: Vec::new(),
                    duplicate: true,
                });
            }
            let me = check_owner(tx, owner)?;
            let to = match &req.to {
                Some(name) => resolve_recipients(tx, ports, now, &me, std::slice::from_ref(name))?,
                None => Vec::new(),
            };
            let obligation = if to.is_empty() {
                Obligation::None
            } else {
                Obligation::Acknowledge
            };
            let sent = record_in_tx(
                tx,
                ports,
                now,
                &me,
                NewMessage {
                    kind: MessageKind::Handoff,
                    obligation,
                    to,
                    subject: req.goal.clone(),
                    body: body.clone(),
                    thread: None,
                    in_reply_to: None,
                    handoff: Some(handoff.clone()),
                    client_message_id: cmid.clone(),
                    digest: digest.clone(),
                },
            )?;
            let mut released = Vec::new();
            for claim in claims::of_session(tx, &owner.session)? {
                released.push(release_in_tx(tx, ports, now, Some(&owner.session), &claim)?);
            }
            close_in_tx(tx, ports, now, &me, "finish", None)?;
            Ok(FinishOutcome {
                session_id: owner.session.clone(),
                message: sent.message,
                delivery: sent.delivery,
                released,
                duplicate: false,
            })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::claims::ClaimRequest;
    use crate::core::model::SessionState;
    use crate::core::resources::Resource;
    use crate::core::testkit::kit;
    use crate::error::ErrorCode;

    #[test]
    fn finish_hands_off_releases_and_closes_atomically() {
        let mut k = kit();
        let a = k.attach("alice");
        let b = k.attach("bob");
        k.core
            .claim(
                &a,
                ClaimRequest::new(Resource::parse("file:src/**").unwrap()),
            )
            .unwrap();
        k.core
            .claim(&a, ClaimRequest::new(Resource::parse("doc:plan").unwrap()))
            .unwrap();
        let mut req = FinishRequest::new("ship the parser", HandoffStatus::Partial);
        req.to = Some("bob".into());
        req.completed = vec!["lexer".into()];
        req.remaining = vec!["errors".into()];
        req.client_message_id = Some("fin-1".into());
        let out = k.core.finish(&a, req.clone()).unwrap();
        assert_eq!(out.released.len(), 2);
        assert_eq!(out.message.kind, MessageKind::Handoff);
        assert_eq!(out.message.obligation, Obligation::Acknowledge);
        assert_eq!(
            out.message.body,
            "status: partial\ncompleted:\n- lexer\nremaining:\n- errors"
        );
        assert_eq!(out.message.handoff.as_ref().unwrap()["status"], "partial");
        assert_eq!(k.count("SELECT count(*) FROM claims"), 0);
        let s = k.core.session(&a.session).unwrap().unwrap();
        assert_eq!(s.state, SessionState::Closed);
        // Bob must acknowledge the handoff.
        let inbox = k.core.inbox(&b, None, None).unwrap();
        assert_eq!(inbox.items[0].kind, MessageKind::Handoff);
        // A retry returns the original without another write.
        let events = k.count("SELECT count(*) FROM events");
        let again = k.core.finish(&a, req.clone()).unwrap();
        assert!(again.duplicate);
        assert_eq!(again.message.message_id, out.message.message_id);
        assert_eq!(k.count("SELECT count(*) FROM events"), events);
        // Without the id, a closed session is a conflict.
        req.client_message_id = None;
        assert_eq!(
            k.core.finish(&a, req).unwrap_err().code,
            ErrorCode::SessionClosed
        );
    }

    #[test]
    fn room_handoff_has_no_obligation_and_a_failed_finish_changes_nothing() {
        let mut k = kit();
        let a = k.attach("alice");
        k.attach("bob");
        k.core
            .claim(&a, ClaimRequest::new(Resource::parse("file:x").unwrap()))
            .unwrap();
        let mut req = FinishRequest::new("done", HandoffStatus::Complete);
        req.to = Some("nobody".into());
        assert_eq!(k.core.finish(&a, req.clone()).unwrap_err().exit_code(), 4);
        assert_eq!(k.count("SELECT count(*) FROM claims"), 1);
        assert_eq!(
            k.count("SELECT count(*) FROM sessions WHERE state = 'open'"),
            2
        );
        req.to = None;
        let out = k.core.finish(&a, req).unwrap();
        assert_eq!(out.message.obligation, Obligation::None);
        assert_eq!(out.delivery.len(), 1);
    }
}
