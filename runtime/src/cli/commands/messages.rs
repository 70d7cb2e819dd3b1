//! message, request, inbox, reply, ack, finish.

use crate::cli::args::{AckArgs, FinishArgs, InboxArgs, MessageArgs, ReplyArgs, RequestArgs};
use crate::cli::context::Invocation;
use crate::cli::output::Output;
use crate::cli::owner;
use crate::core::finish::FinishRequest;
use crate::core::messages::SendMessage;
use crate::core::model::{HandoffStatus, MessageKind, Obligation};
use crate::error::Result;
use crate::ids::MessageId;
use crate::store::OpenMode;
use crate::text::{self, escape_for_line};
use serde_json::json;

pub fn message(inv: &Invocation<'_>, a: MessageArgs) -> Result<Output> {
    let owner = owner::required(&a.owner, inv.env)?;
    let kind = MessageKind::parse(&a.kind)?;
    let obligation = a.obligation.as_deref().map(Obligation::parse).transpose()?;
    let mut core = inv.open(OpenMode::ReadOnly)?;
    let out = core.send(
        &owner,
        SendMessage {
            to: a.to,
            kind,
            obligation,
            subject: a.subject,
            body: a.body,
            client_message_id: a.client_message_id,
        },
    )?;
    Ok(Output::new(
        format!("recorded {}", out.message.message_id),
        json!({
            "message": { "messageId": out.message.message_id, "clientMessageId": out.message.client_message_id },
            "delivery": out.delivery,
            "duplicate": out.duplicate,
        }),
    ))
}

pub fn request(inv: &Invocation<'_>, a: RequestArgs) -> Result<Output> {
    let owner = owner::required(&a.owner, inv.env)?;
    let mut core = inv.open(OpenMode::ReadOnly)?;
    let out = core.request(
        &owner,
        &a.to,
        &a.title,
        a.detail.as_deref(),
        a.client_message_id.as_deref(),
    )?;
    Ok(Output::new(
        format!("recorded {}", out.message.message_id),
        json!({
            "message": { "messageId": out.message.message_id, "clientMessageId": out.message.client_message_id },
            "delivery": out.delivery,
            "duplicate": out.duplicate,
        }),
    ))
}

pub fn inbox(inv: &Invocation<'_>, a: InboxArgs) -> Result<Output> {
    let owner = owner::required(&a.owner, inv.env)?;
    let exact = a.message.as_deref().map(MessageId::parse).transpose()?;
    let cursor = a.cursor.as_deref().map(MessageId::parse).transpose()?;
    let mut core = inv.open(OpenMode::ReadOnly)?;
    if let Some(id) = exact {
        let read = core.read_message(&owner, &id)?;
        let m = &read.message;
        let line = format!(
            "{} {} from {}: {} | {}",
            m.message_id,
            m.kind,
            m.from_participant_id,
            escape_for_line(&m.subject),
            escape_for_line(&m.body)
        );
        return Ok(Output::new(line, read));
    }
    let page = core.inbox(&owner, cursor.as_ref(), a.limit)?;
    let mut line = format!("{} unresolved message(s)", page.items.len());
    if let Some(first) = page.items.first() {
        line.push_str(&format!(
            "; oldest {} {} from {}: {}",
            first.message_id,
            first.kind,
            first.from_participant_id,
            escape_for_line(&first.subject)
        ));
    }
    if let Some(next) = &page.next_cursor {
        line.push_str(&format!("; more after {next}"));
    }
    Ok(Output::new(line, page))
}

pub fn reply(inv: &Invocation<'_>, a: ReplyArgs) -> Result<Output> {
    let owner = owner::required(&a.owner, inv.env)?;
    let original = MessageId::parse(&a.message)?;
    let mut core = inv.open(OpenMode::ReadOnly)?;
    let out = core.reply(
        &owner,
        &original,
        &a.body,
        a.subject.as_deref(),
        a.client_message_id.as_deref(),
    )?;
    Ok(Output::new(
        format!(
            "recorded {}; acknowledged {}",
            out.message.message_id, original
        ),
        json!({
            "message": { "messageId": out.message.message_id, "clientMessageId": out.message.client_message_id },
            "delivery": out.delivery,
            "receipt": out.receipt,
            "duplicate": out.duplicate,
        }),
    ))
}

pub fn ack(inv: &Invocation<'_>, a: AckArgs) -> Result<Output> {
    let owner = owner::required(&a.owner, inv.env)?;
    let id = MessageId::parse(&a.message)?;
    let mut core = inv.open(OpenMode::ReadOnly)?;
    let receipt = core.ack(&owner, &id)?;
    Ok(Output::new(
        format!("acknowledged {id}"),
        json!({ "receipt": receipt }),
    ))
}

pub fn finish(inv: &Invocation<'_>, a: FinishArgs) -> Result<Output> {
    let owner = owner::required(&a.owner, inv.env)?;
    let status = HandoffStatus::parse(&a.status)?;
    text::check_line("goal", &a.goal)?;
    let mut core = inv.open(OpenMode::ReadOnly)?;
    let out = core.finish(
        &owner,
        FinishRequest {
            goal: a.goal,
            status,
            to: a.to,
            completed: a.completed,
            remaining: a.remaining,
            blockers: a.blockers,
            verification: a.verification,
            client_message_id: a.client_message_id,
        },
    )?;
    Ok(Output::new(
        format!(
            "finished {}; handoff {}; released {} claim(s)",
            out.session_id,
            out.message.message_id,
            out.released.len()
        ),
        json!({
            "sessionId": out.session_id,
            "message": { "messageId": out.message.message_id, "clientMessageId": out.message.client_message_id },
            "delivery": out.delivery,
            "released": out.released,
            "duplicate": out.duplicate,
        }),
    ))
}
