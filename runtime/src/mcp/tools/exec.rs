//! Runs a validated call against the core as the server's session. Each result has the shape
//! of the matching `acc <command> --json` data, so one reader serves both surfaces.

use super::input::{
    AckArgs, ClaimArgs, FinishArgs, InboxArgs, Input, MessageArgs, ReleaseArgs, ReplyArgs,
    RequestArgs, SyncArgs, WorkArgs,
};
use crate::core::claims::ClaimRequest;
use crate::core::decisions::{DecisionAction, DecisionChange};
use crate::core::events::EventType;
use crate::core::finish::FinishRequest;
use crate::core::intents::PublishIntent;
use crate::core::messages::{MessageRecord, SendMessage};
use crate::core::model::{
    ClaimMode, Enforcement, HandoffStatus, IntentMode, IntentState, MessageKind, Obligation,
    SyncScope,
};
use crate::core::resources::Resource;
use crate::core::sync::{DEFAULT_LIMIT, SyncRequest};
use crate::core::{Core, Owner};
use crate::error::{AccError, ErrorCode, Result};
use crate::ids::{ClaimId, EventSeq, MessageId};
use serde::Serialize;
use serde_json::{Value, json};

/// What a successful call did to the server's session.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SessionEffect {
    Kept,
    /// `finish` closed it.
    Closed,
    /// A retried `finish` returned the original handoff and left this session open.
    RetriedFinish,
}

/// What a successful call returns: its result object and its effect on the session.
pub struct Done {
    pub value: Value,
    pub effect: SessionEffect,
    /// A message this call committed, and whether it was a retry: the server offers it
    /// live afterwards.
    pub sent: Option<(MessageRecord, bool)>,
}

fn done(value: Value) -> Done {
    Done {
        value,
        effect: SessionEffect::Kept,
        sent: None,
    }
}

fn done_sent(value: Value, m: &MessageRecord, duplicate: bool) -> Done {
    Done {
        sent: Some((m.clone(), duplicate)),
        ..done(value)
    }
}

/// Serialises a core result. The core's results are plain data; the error arm exists so a
/// surprise becomes a tool error rather than a crash of the server.
fn to_value<T: Serialize>(t: &T) -> Result<Value> {
    serde_json::to_value(t).map_err(|e| {
        AccError::new(
            ErrorCode::StoreIo,
            format!("could not serialise a result: {e}"),
        )
    })
}

fn resource(core: &Core, raw: &str) -> Result<Resource> {
    Ok(Resource::parse(raw)?.resolve_against(core.workspace().checkout_root()))
}

fn sent(message: &crate::core::messages::MessageRecord) -> Value {
    json!({ "messageId": message.message_id, "clientMessageId": message.client_message_id })
}

/// `sent`, plus a decision's change and derived status.
fn sent_decision(message: &crate::core::messages::MessageRecord) -> Result<Value> {
    let mut v = sent(message);
    if let Some(c) = &message.decision_change {
        v["decisionChange"] = to_value(c)?;
    }
    if let Some(st) = &message.decision_status {
        v["decisionStatus"] = to_value(st)?;
    }
    Ok(v)
}

/// `supersedes` or `withdraws` as a checked change (the input check refused both at once).
fn decision_change(a: &MessageArgs) -> Result<Option<DecisionChange>> {
    let (action, raw) = match (&a.supersedes, &a.withdraws) {
        (None, None) => return Ok(None),
        (Some(ids), None) => (DecisionAction::Replace, ids),
        (None, Some(ids)) => (DecisionAction::Withdraw, ids),
        (Some(_), Some(_)) => {
            return Err(AccError::usage("pass supersedes or withdraws, not both"));
        }
    };
    let ids = raw
        .iter()
        .map(|id| MessageId::parse(id))
        .collect::<Result<Vec<_>>>()?;
    DecisionChange::new(action, ids).map(Some)
}

/// Runs `input` as `owner` on `core`.
pub fn run(core: &mut Core, owner: &Owner, input: Input) -> Result<Done> {
    match input {
        Input::Status => Ok(done(to_value(&core.status(Some(owner), false)?)?)),
        Input::Sync(a) => sync(core, owner, a),
        Input::Work(a) => work(core, owner, a),
        Input::Claim(a) => claim(core, owner, a),
        Input::Release(a) => release(core, owner, a),
        Input::Message(a) => message(core, owner, a),
        Input::Request(a) => request(core, owner, a),
        Input::Inbox(a) => inbox(core, owner, a),
        Input::Reply(a) => reply(core, owner, a),
        Input::Ack(a) => ack(core, owner, a),
        Input::Finish(a) => finish(core, owner, a),
    }
}

fn sync(core: &mut Core, owner: &Owner, a: SyncArgs) -> Result<Done> {
    let cursor = a.cursor.as_deref().map(EventSeq::parse).transpose()?;
    let scope = SyncScope::parse(a.scope.as_deref().unwrap_or("delta"))?;
    let types = match a.kind.as_deref() {
        Some(k) => vec![
            EventType::parse(k)
                .ok_or_else(|| AccError::usage(format!("event type {k:?} is unknown")))?,
        ],
        None => Vec::new(),
    };
    let r = core.sync(
        Some(owner),
        SyncRequest {
            cursor,
            scope,
            limit: a.limit.unwrap_or(DEFAULT_LIMIT),
            types,
        },
    )?;
    Ok(done(to_value(&r)?))
}

fn work(core: &mut Core, owner: &Owner, a: WorkArgs) -> Result<Done> {
    if a.clear == Some(true) {
        let cleared = core.clear_intent(owner)?;
        return Ok(done(json!({ "intent": to_value(&cleared)? })));
    }
    let mode = IntentMode::parse(a.mode.as_deref().unwrap_or("edit"))?;
    let state = IntentState::parse(a.state.as_deref().unwrap_or("active"))?;
    let hints = a
        .resource_hints
        .unwrap_or_default()
        .iter()
        .map(|h| resource(core, h))
        .collect::<Result<Vec<_>>>()?;
    let intent = core.publish_intent(
        owner,
        PublishIntent {
            summary: a.summary.unwrap_or_default(),
            mode,
            state,
            hints,
        },
    )?;
    Ok(done(json!({ "intent": to_value(&intent)? })))
}

fn claim(core: &mut Core, owner: &Owner, a: ClaimArgs) -> Result<Done> {
    let mode = a.mode.as_deref().map(ClaimMode::parse).transpose()?;
    let req = match (a.action.as_str(), a.resource, a.claim_id) {
        ("renew", _, Some(id)) => {
            let id = ClaimId::parse(&id)?;
            let held = core
                .live_claims()?
                .into_iter()
                .find(|c| c.claim_id == id)
                .ok_or_else(|| {
                    AccError::new(
                        ErrorCode::NotFound,
                        format!("claim {id} is not live; acquire the resource again"),
                    )
                    .with("claimId", id.as_str())
                })?;
            if held.owner_session_id != owner.session {
                return Err(AccError::new(
                    ErrorCode::NotClaimOwner,
                    format!(
                        "claim {id} belongs to session {}; only its owner renews it",
                        held.owner_session_id
                    ),
                )
                .with("claimId", id.as_str())
                .with("ownerSessionId", held.owner_session_id.as_str()));
            }
            ClaimRequest {
                resource: held.resource,
                mode: mode.unwrap_or(held.mode),
                enforcement: held.enforcement,
                reason: a.reason,
                lease_seconds: a.lease_seconds,
            }
        }
        (_, Some(raw), _) => ClaimRequest {
            resource: resource(core, &raw)?,
            mode: mode.unwrap_or(ClaimMode::Exclusive),
            // A tier-1 session guards nothing, so its claims never pretend to.
            enforcement: Enforcement::Advisory,
            reason: a.reason,
            lease_seconds: a.lease_seconds,
        },
        _ => {
            return Err(AccError::usage(
                "acquire needs resource; renew needs claimId",
            ));
        }
    };
    Ok(done(to_value(&core.claim(owner, req)?)?))
}

fn release(core: &mut Core, owner: &Owner, a: ReleaseArgs) -> Result<Done> {
    let id = ClaimId::parse(&a.claim_id)?;
    Ok(done(to_value(&core.release_claim(owner, &id)?)?))
}

fn message(core: &mut Core, owner: &Owner, a: MessageArgs) -> Result<Done> {
    let kind = MessageKind::parse(a.kind.as_deref().unwrap_or("note"))?;
    let obligation = a.obligation.as_deref().map(Obligation::parse).transpose()?;
    let change = decision_change(&a)?;
    let out = core.send_with_change(
        owner,
        SendMessage {
            to: a.to,
            kind,
            obligation,
            subject: a.subject,
            body: a.body,
            client_message_id: a.client_message_id,
        },
        change,
    )?;
    Ok(done_sent(
        json!({
            "message": sent_decision(&out.message)?,
            "delivery": to_value(&out.delivery)?,
            "duplicate": out.duplicate,
        }),
        &out.message,
        out.duplicate,
    ))
}

fn request(core: &mut Core, owner: &Owner, a: RequestArgs) -> Result<Done> {
    let out = core.request(
        owner,
        &a.to_participant_id,
        &a.title,
        a.detail.as_deref(),
        a.client_message_id.as_deref(),
    )?;
    Ok(done_sent(
        json!({
            "message": sent(&out.message),
            "delivery": to_value(&out.delivery)?,
            "duplicate": out.duplicate,
        }),
        &out.message,
        out.duplicate,
    ))
}

fn inbox(core: &mut Core, owner: &Owner, a: InboxArgs) -> Result<Done> {
    if let Some(id) = a.message_id {
        let id = MessageId::parse(&id)?;
        return Ok(done(to_value(&core.read_message(owner, &id)?)?));
    }
    let cursor = a.cursor.as_deref().map(MessageId::parse).transpose()?;
    Ok(done(to_value(&core.inbox(
        owner,
        cursor.as_ref(),
        a.limit,
    )?)?))
}

fn reply(core: &mut Core, owner: &Owner, a: ReplyArgs) -> Result<Done> {
    let original = MessageId::parse(&a.message_id)?;
    let out = core.reply(
        owner,
        &original,
        &a.body,
        a.subject.as_deref(),
        a.client_message_id.as_deref(),
    )?;
    Ok(done_sent(
        json!({
            "message": sent(&out.message),
            "delivery": to_value(&out.delivery)?,
            "receipt": to_value(&out.receipt)?,
            "duplicate": out.duplicate,
        }),
        &out.message,
        out.duplicate,
    ))
}

fn ack(core: &mut Core, owner: &Owner, a: AckArgs) -> Result<Done> {
    let id = MessageId::parse(&a.message_id)?;
    let receipt = core.ack(owner, &id)?;
    Ok(done(json!({ "receipt": to_value(&receipt)? })))
}

fn finish(core: &mut Core, owner: &Owner, a: FinishArgs) -> Result<Done> {
    let status = HandoffStatus::parse(a.status.as_deref().unwrap_or("complete"))?;
    let out = core.finish(
        owner,
        FinishRequest {
            goal: a.goal,
            status,
            to: a.to_participant_id,
            completed: a.completed,
            remaining: a.remaining,
            blockers: a.blockers,
            verification: Vec::new(),
            client_message_id: a.client_message_id,
        },
    )?;
    Ok(Done {
        value: json!({
            "sessionId": out.session_id,
            "message": sent(&out.message),
            "delivery": to_value(&out.delivery)?,
            "released": to_value(&out.released)?,
            "duplicate": out.duplicate,
        }),
        effect: if out.duplicate {
            SessionEffect::RetriedFinish
        } else {
            SessionEffect::Closed
        },
        sent: Some((out.message.clone(), out.duplicate)),
    })
}
