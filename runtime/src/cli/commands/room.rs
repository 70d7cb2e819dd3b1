//! status, sync, work.

use crate::cli::args::{StatusArgs, SyncArgs, WorkArgs};
use crate::cli::context::Invocation;
use crate::cli::workspace_faults;
use crate::cli::output::Output;
use crate::cli::owner;
use crate::core::events::EventType;
use crate::core::intents::PublishIntent;
use crate::core::model::{IntentMode, IntentState, SyncScope};
use crate::core::sync::SyncRequest;
use crate::error::{AccError, ErrorCode, Result};
use crate::ids::{EventSeq, ParticipantId};
use crate::store::OpenMode;
use serde_json::json;

pub fn status(inv: &Invocation<'_>, a: StatusArgs) -> Result<Output> {
    let owner = owner::optional(&a.owner, inv.env)?;
    let participant = a
        .participant
        .as_deref()
        .map(ParticipantId::parse)
        .transpose()?;
    let (mut core, faults) = workspace_faults::open_for_status(inv)?;
    let mut report = core.status(owner.as_ref(), a.all)?;
    report.workspace_faults = faults;
    if let Some(p) = &participant {
        report.sessions.retain(|s| &s.participant_id == p);
    }
    let mut line = format!(
        "{} live; {} claim(s); protection {}",
        report.counts.live_sessions, report.counts.live_claims, report.protection
    );
    for fault in &report.workspace_faults {
        line.push_str(&format!("; workspace fault: {fault}"));
    }
    if !report.refused_writes.is_empty() {
        line.push_str(&format!(
            "; {} refused write(s) into guarded claims",
            report.refused_writes.total
        ));
    }
    Ok(Output::new(line, report))
}

pub fn sync(inv: &Invocation<'_>, a: SyncArgs) -> Result<Output> {
    let owner = owner::optional(&a.owner, inv.env)?;
    let cursor = a.cursor.as_deref().map(EventSeq::parse).transpose()?;
    let scope = SyncScope::parse(&a.scope)?;
    let types = a
        .types
        .iter()
        .map(|t| {
            EventType::parse(t).ok_or_else(|| {
                AccError::new(
                    ErrorCode::InvalidArgument,
                    format!("event type {t:?} is unknown"),
                )
            })
        })
        .collect::<Result<Vec<_>>>()?;
    let mut core = inv.open(OpenMode::ReadOnly)?;
    let r = core.sync(
        owner.as_ref(),
        SyncRequest {
            cursor,
            scope,
            limit: a.limit,
            types,
        },
    )?;
    if r.solo {
        return Ok(Output::silent(r));
    }
    let line = format!(
        "{} attention; {} session(s); cursor {}",
        r.attention.len(),
        r.roster.len(),
        r.cursor
    );
    Ok(Output::new(line, r))
}

pub fn work(inv: &Invocation<'_>, a: WorkArgs) -> Result<Output> {
    let owner = owner::required(&a.owner, inv.env)?;
    let mode = IntentMode::parse(&a.mode)?;
    let state = IntentState::parse(&a.state)?;
    let mut core = inv.open(OpenMode::ReadOnly)?;
    if a.clear {
        let cleared = core.clear_intent(&owner)?;
        return Ok(Output::new("intent cleared", json!({ "intent": cleared })));
    }
    let summary = a.summary.unwrap_or_default();
    let hints = a
        .hints
        .iter()
        .map(|h| inv.resource(&core, h))
        .collect::<Result<Vec<_>>>()?;
    let intent = core.publish_intent(
        &owner,
        PublishIntent {
            summary,
            mode,
            state,
            hints,
        },
    )?;
    Ok(Output::new(
        format!("intent: {}", intent.summary),
        json!({ "intent": intent }),
    ))
}
