//! message, request, inbox, reply, ack, finish.

use crate::cli::args::{AckArgs, FinishArgs, InboxArgs, MessageArgs, ReplyArgs, RequestArgs};
use crate::cli::context::Invocation;
use crate::cli::output::Output;
use crate::cli::owner;
use crate::core::decisions::{DecisionAction, DecisionChange, DecisionStatus};
use crate::core::finish::FinishRequest;
use crate::core::messages::{MessageRecord, SendMessage};
use crate::core::model::{HandoffStatus, MessageKind, Obligation};
use crate::error::{AccError, Result};
use crate::ids::MessageId;
use crate::store::OpenMode;
use crate::text;
use acc_sdk::peer_text::display;
use serde_json::json;

use crate::core::Core;
use crate::core::Owner;
use crate::live::router::{LiveResult, human_summary, offer_committed};

/// After the durable commit: offer the message live (see [`offer_committed`]).
fn live(
    inv: &Invocation<'_>,
    core: &mut Core,
    owner: &Owner,
    m: &MessageRecord,
    duplicate: bool,
) -> Vec<LiveResult> {
    offer_committed(inv.env, core, owner, m, duplicate)
}

/// Appends the live delivery clause to the sender's line.
fn with_live(mut line: String, results: &[LiveResult]) -> String {
    if let Some(summary) = human_summary(results) {
        line.push_str("; ");
        line.push_str(&summary);
    }
    line
}

/// The `--supersedes` or `--withdraws` ids as a checked change; clap already refuses both.
fn decision_change(a: &MessageArgs) -> Result<Option<DecisionChange>> {
    let (action, raw) = match (a.supersedes.is_empty(), a.withdraws.is_empty()) {
        (true, true) => return Ok(None),
        (false, true) => (DecisionAction::Replace, &a.supersedes),
        (true, false) => (DecisionAction::Withdraw, &a.withdraws),
        (false, false) => {
            return Err(AccError::usage(
                "pass --supersedes or --withdraws, not both",
            ));
        }
    };
    let ids = raw
        .iter()
        .map(|id| MessageId::parse(id))
        .collect::<Result<Vec<_>>>()?;
    DecisionChange::new(action, ids).map(Some)
}

/// The kind as one human word, with a decision's standing: `decision [superseded; …]`.
fn kind_label(kind: MessageKind, status: Option<&DecisionStatus>) -> String {
    match status {
        Some(st) => format!("{kind} [{}]", st.label()),
        None => kind.to_string(),
    }
}

/// `{messageId, clientMessageId}`, plus a decision's change and status.
fn sent_json(m: &MessageRecord) -> serde_json::Value {
    let mut v = json!({ "messageId": m.message_id, "clientMessageId": m.client_message_id });
    if let Some(c) = &m.decision_change {
        v["decisionChange"] = json!(c);
    }
    if let Some(st) = &m.decision_status {
        v["decisionStatus"] = json!(st);
    }
    v
}

pub fn message(inv: &Invocation<'_>, a: MessageArgs) -> Result<Output> {
    let owner = owner::required(&a.owner, inv.env)?;
    let kind = MessageKind::parse(&a.kind)?;
    let obligation = a.obligation.as_deref().map(Obligation::parse).transpose()?;
    let change = decision_change(&a)?;
    let mut core = inv.open(OpenMode::ReadOnly)?;
    let out = core.send_with_change(
        &owner,
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
    let m = &out.message;
    let mut line = format!("recorded {}", m.message_id);
    if let Some(c) = &m.decision_change {
        let ids: Vec<&str> = c.message_ids().iter().map(MessageId::as_str).collect();
        line.push_str(&format!("; {} {}", c.action().field(), ids.join(", ")));
    }
    if let Some(st) = m.decision_status.as_ref().filter(|st| st.conflicted) {
        line.push_str(&format!(
            "; decision group {} is conflicted: {} heads",
            st.group_id, st.head_count
        ));
    }
    let live = live(inv, &mut core, &owner, m, out.duplicate);
    Ok(Output::new(
        with_live(line, &live),
        json!({
            "message": sent_json(m),
            "delivery": out.delivery,
            "live": live,
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
    let live = live(inv, &mut core, &owner, &out.message, out.duplicate);
    Ok(Output::new(
        with_live(format!("recorded {}", out.message.message_id), &live),
        json!({
            "message": { "messageId": out.message.message_id, "clientMessageId": out.message.client_message_id },
            "delivery": out.delivery,
            "live": live,
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
            kind_label(m.kind, m.decision_status.as_ref()),
            m.from_participant_id,
            display(&m.subject),
            display(&m.body)
        );
        return Ok(Output::new(line, read));
    }
    let page = core.inbox(&owner, cursor.as_ref(), a.limit)?;
    let mut line = format!("{} unresolved message(s)", page.items.len());
    if let Some(first) = page.items.first() {
        line.push_str(&format!(
            "; oldest {} {} from {}: {}",
            first.message_id,
            kind_label(first.kind, first.decision_status.as_ref()),
            first.from_participant_id,
            display(&first.subject)
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
    let live = live(inv, &mut core, &owner, &out.message, out.duplicate);
    Ok(Output::new(
        with_live(
            format!(
                "recorded {}; acknowledged {}",
                out.message.message_id, original
            ),
            &live,
        ),
        json!({
            "message": { "messageId": out.message.message_id, "clientMessageId": out.message.client_message_id },
            "delivery": out.delivery,
            "live": live,
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
    text::check_peer_line("goal", &a.goal)?;
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
    let live = live(inv, &mut core, &owner, &out.message, out.duplicate);
    Ok(Output::new(
        with_live(
            format!(
                "finished {}; handoff {}; released {} claim(s)",
                out.session_id,
                out.message.message_id,
                out.released.len()
            ),
            &live,
        ),
        json!({
            "sessionId": out.session_id,
            "message": { "messageId": out.message.message_id, "clientMessageId": out.message.client_message_id },
            "delivery": out.delivery,
            "live": live,
            "released": out.released,
            "duplicate": out.duplicate,
        }),
    ))
}
