//! attach, heartbeat, detach.

use crate::cli::args::{AttachArgs, DetachArgs, HeartbeatArgs};
use crate::cli::context::Invocation;
use crate::cli::output::Output;
use crate::cli::owner;
use crate::cli::takeover;
use crate::core::model::Enforcement;
use crate::core::sessions::OpenSession;
use crate::core::takeovers::{TakeoverKind, TakeoverRequest};
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
    // Attaching under the name of a live agent, from outside its client (an agent under a
    // hooked client was refused before), is a takeover: told, and the new session held.
    let data_home = crate::paths::data_home(inv.env)?;
    let mut outside = None;
    for live in core.live_sessions_of(&req.participant_id)? {
        if let Some(out) = takeover::outside(&mut core, &data_home, &live)? {
            outside = Some((live, out));
            break;
        }
    }
    let s = core.open_session(req)?;
    let mut data = json!({ "sessionId": s.session_id, "generation": s.generation, "session": s });
    let mut human = format!("{} {}", s.session_id, s.generation);
    if let Some((live, out)) = outside {
        let t = core.record_takeover(
            Some(&s.session_id),
            &TakeoverRequest {
                kind: TakeoverKind::AttachLive,
                owner_session_id: live,
                claim_id: None,
                taker_session_id: Some(s.session_id.clone()),
                command: "attach".into(),
                process: out.process,
                held: true,
                authority: None,
                reason: None,
            },
        )?;
        // The first line stays `<session> <generation>` for scripts that read it.
        human.push('\n');
        human.push_str(&takeover::held_line(&t, out.client_pid));
        data["takeover"] = serde_json::to_value(&t).unwrap_or_default();
    }
    Ok(Output::new(human, data))
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
    if let Some(reason) = &a.reason {
        text::check_peer_line("reason", reason)?;
    }
    let mut core = inv.open(OpenMode::ReadOnly)?;
    // A live agent's session detached with its credentials from outside its client waits
    // for its owner or a person (core::takeovers).
    core.check_owner(&owner)?;
    let data_home = crate::paths::data_home(inv.env)?;
    if let Some(out) = takeover::outside(&mut core, &data_home, &owner.session)? {
        let t = core.record_takeover(
            None,
            &TakeoverRequest {
                kind: TakeoverKind::Detach,
                owner_session_id: owner.session.clone(),
                claim_id: None,
                taker_session_id: None,
                command: "detach".into(),
                process: out.process,
                held: true,
                authority: None,
                reason: a.reason.clone(),
            },
        )?;
        return Ok(super::claims::held(&t, out.client_pid));
    }
    let s = core.close_session(&owner, a.reason.as_deref())?;
    Ok(Output::new(
        format!("closed {}", s.session_id),
        json!({ "sessionId": s.session_id, "state": s.state, "closedAt": s.closed_at }),
    ))
}
