//! status, sync, work.

use crate::cli::args::{StatusArgs, SyncArgs, WatchArgs, WorkArgs};
use crate::cli::context::Invocation;
use crate::cli::output::Output;
use crate::cli::owner;
use crate::cli::workspace_faults;
use crate::core::events::EventType;
use crate::core::intents::PublishIntent;
use crate::core::model::{IntentMode, IntentState, Presence, SyncScope};
use crate::core::status::{OwnerSession, StatusReport};
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
    let (mut core, faults) = workspace_faults::open_for_status(inv).map_err(with_tamper(inv))?;
    let mut report = core.status(owner.as_ref(), a.all)?;
    report.workspace_faults = faults;
    if let Some(p) = &participant {
        report.sessions.retain(|s| &s.participant_id == p);
    }
    let text = render_status(&report);
    Ok(Output::new(text, report))
}

/// A store that cannot be opened because it belongs to another workspace: the error says
/// too what acc found and kept when it was swapped in ([`crate::store::tamper`]).
fn with_tamper<'a>(inv: &'a Invocation<'_>) -> impl FnOnce(AccError) -> AccError + 'a {
    move |e| {
        if e.code != ErrorCode::StoreForeign {
            return e;
        }
        let Some(marker) = e
            .details
            .get("file")
            .and_then(|f| f.as_str())
            .and_then(|f| crate::store::tamper::read(std::path::Path::new(f)))
        else {
            return e;
        };
        let now = inv
            .ports()
            .map(|p| p.now())
            .unwrap_or(marker.detected_at_ms);
        let summary = marker.summary(now);
        let mut e = e;
        e.message = format!("{}; STORE TAMPERED: {summary}", e.message);
        e.with("storeTampered", summary)
    }
}

/// How many names or claims the one human line lists before counting the rest.
const SHOWN_IN_LINE: usize = 5;

/// The one human line: who is live, by the participant id `--to` takes (and, on a store
/// several hosts share, the host each session runs on); each live claim with its owner
/// participant, marked when its session has ended; the protection.
fn render_status(report: &StatusReport) -> String {
    let mut live: Vec<String> = Vec::new();
    for s in &report.sessions {
        let name = match &s.host {
            Some(host) => format!("{} on {host}", s.participant_id),
            None => s.participant_id.to_string(),
        };
        if s.presence != Presence::Offline && !live.contains(&name) {
            live.push(name);
        }
    }
    let claims: Vec<String> = report
        .claims
        .iter()
        .map(|c| {
            let ended = match c.owner_session {
                OwnerSession::Live => "",
                OwnerSession::Ended => " (session ended)",
            };
            format!(
                "{} by {}{ended}",
                c.claim.resource, c.claim.owner_participant_id
            )
        })
        .collect();
    let mut line = format!(
        "{} live{}; {} claim(s){}; protection {}",
        report.counts.live_sessions,
        listed(&live),
        report.counts.live_claims,
        listed(&claims),
        report.protection
    );
    if let Some(tampered) = &report.store_tampered {
        line.push_str(&format!("; STORE TAMPERED: {tampered}"));
    }
    for fault in &report.workspace_faults {
        line.push_str(&format!("; workspace fault: {fault}"));
    }
    if !report.refused_writes.is_empty() {
        line.push_str(&format!(
            "; {} refused write(s) into guarded claims",
            report.refused_writes.total
        ));
    }
    if report.takeovers.held > 0 {
        line.push_str(&format!(
            "; {} HELD takeover(s) of live sessions: `acc takeover list`",
            report.takeovers.held
        ));
    }
    let told = report.takeovers.total - report.takeovers.held;
    if told > 0 {
        line.push_str(&format!("; {told} takeover(s) told: `acc takeover list`"));
    }
    if !report.detected_writes.is_empty() {
        line.push_str(&format!(
            "; {} change(s) under guarded claims while a peer's shell call ran",
            report.detected_writes.total
        ));
    }
    line
}

/// `: a, b, c` (with `, +N more` past [`SHOWN_IN_LINE`]), or nothing for an empty list.
fn listed(items: &[String]) -> String {
    if items.is_empty() {
        return String::new();
    }
    let mut out = format!(
        ": {}",
        items
            .iter()
            .take(SHOWN_IN_LINE)
            .cloned()
            .collect::<Vec<_>>()
            .join(", ")
    );
    if items.len() > SHOWN_IN_LINE {
        out.push_str(&format!(", +{} more", items.len() - SHOWN_IN_LINE));
    }
    out
}

/// `acc watch`: the live view, or one frame with `--once`. `--json` never reaches here (the
/// command layer refuses it first).
pub fn watch(inv: &Invocation<'_>, a: WatchArgs) -> Result<Output> {
    if a.once {
        let (w, h) = crate::watch::DEFAULT_SIZE;
        let frame = crate::watch::once(inv, (a.width.unwrap_or(w), a.height.unwrap_or(h)))?;
        return Ok(Output::new(frame.trim_end_matches('\n'), ()));
    }
    crate::watch::interactive(inv)?;
    Ok(Output::silent(()))
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
