//! attach, heartbeat, detach.

use crate::cli::args::{AttachArgs, DetachArgs, HeartbeatArgs};
use crate::cli::context::Invocation;
use crate::cli::output::Output;
use crate::cli::owner;
use crate::core::model::Enforcement;
use crate::core::sessions::OpenSession;
use crate::error::Result;
use crate::ids::{ParticipantId, SessionId};
use crate::store::OpenMode;
use crate::text;
use serde_json::json;

pub fn attach(inv: &Invocation<'_>, a: AttachArgs) -> Result<Output> {
    // Everything is validated before the store is opened: attach is the one command that
    // creates it, and bad input must leave the data home untouched.
    let participant = ParticipantId::parse(&a.participant)?;
    let enforcement = Enforcement::parse(&a.enforcement)?;
    let parent = a.parent.as_deref().map(SessionId::parse).transpose()?;
    text::check_peer_line("harness", &a.harness)?;
    if let Some(name) = &a.display_name {
        text::check_peer_line("display name", name)?;
    }
    let mut req = OpenSession::new(participant, &a.harness, a.cadence);
    req.enforcement = enforcement;
    req.parent_session = parent;
    req.pid = a.pid;
    req.display_name = a.display_name;
    let ws = inv.workspace()?;
    req.checkout_root = Some(ws.checkout_root().display().to_string());
    req.branch = ws.branch().map(str::to_string);
    if a.cadence == 0 {
        return Err(crate::error::AccError::usage(
            "--cadence must be at least 1 ms",
        ));
    }
    let mut core = inv.open(OpenMode::ReadWrite)?;
    let s = core.open_session(req)?;
    Ok(Output::new(
        format!("{} {}", s.session_id, s.generation),
        json!({ "sessionId": s.session_id, "generation": s.generation, "session": s }),
    ))
}

pub fn heartbeat(inv: &Invocation<'_>, a: HeartbeatArgs) -> Result<Output> {
    let owner = owner::required(&a.owner, inv.env)?;
    let mut core = inv.open(OpenMode::ReadOnly)?;
    let at = core.heartbeat(&owner)?;
    Ok(Output::new(
        at.clone(),
        json!({ "sessionId": owner.session, "heartbeatAt": at }),
    ))
}

pub fn detach(inv: &Invocation<'_>, a: DetachArgs) -> Result<Output> {
    let owner = owner::required(&a.owner, inv.env)?;
    let mut core = inv.open(OpenMode::ReadOnly)?;
    let s = core.close_session(&owner, a.reason.as_deref())?;
    Ok(Output::new(
        format!("closed {}", s.session_id),
        json!({ "sessionId": s.session_id, "state": s.state, "closedAt": s.closed_at }),
    ))
}
