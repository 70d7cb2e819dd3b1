//! One handler per normalised event kind, each answering through the adapter.
//!
//! | kind | handler |
//! |---|---|
//! | `sessionStart` | [`start`]: probe, open or resume, bind; startup context only when granted |
//! | `beforeTurn` | [`turn::before_turn`]: next-turn delivery within the context budget |
//! | `turnEnd` | [`turn::turn_end`]: hold the turn open only for an unshown peer body |
//! | `beforeTool` | [`tool::before_tool`]: the write guard, and [`confine`] for shell calls |
//! | `sessionEnd`, `heartbeat` | [`lifecycle`] |
//! | `afterTool` | [`after_tool`]: claimed files a shell call changed anyway, then [`safe_point`] delivery |
//! | `childStart`, `childEnd` | [`child`]: a subagent as a child session, where granted |
//! | `other` | a heartbeat at most |

pub mod after_tool;
pub mod child;
pub mod confine;
pub mod lifecycle;
pub mod native;
pub mod project;
pub mod reply_routes;
pub mod safe_point;
pub mod start;
pub mod tool;
pub mod turn;

use super::answer::Answer;
use super::call::Call;
use super::certify_read;
use super::failure::Failure;
use super::guard_fallback;
use super::guard_fast;
use super::self_guard;
use super::tamper_guard;
use crate::core::Core;
use crate::store::OpenMode;
use acc_sdk::event::EventKind;
use acc_sdk::peer_text::escape_hidden;

/// A handler's answer, and the core it used (the runner commits offers through it).
pub struct Handled {
    pub answer: Answer,
    pub core: Option<Core>,
}

/// Only session starts and turns may create the store: a guard or a heartbeat without a
/// store has no binding, so it has nothing to do. A post-tool hook writes only when its
/// guard left fingerprints to compare (the store existed then).
fn open_mode(call: &Call) -> OpenMode {
    match call.event.kind {
        EventKind::SessionStart | EventKind::BeforeTurn => OpenMode::ReadWrite,
        EventKind::AfterTool
            if super::fingerprints::pending(
                &call.data_home,
                &super::fingerprints::record_key(call.event),
            ) =>
        {
            OpenMode::ReadWrite
        }
        _ => OpenMode::ReadOnly,
    }
}

/// Runs the handler of the event's kind: [`without_store`], else [`with_store`].
pub fn handle(call: &Call) -> Result<Handled, Failure> {
    match without_store(call) {
        Some(answer) => Ok(Handled { answer, core: None }),
        None => with_store(call),
    }
}

/// The answer of a tool call acc's own-file rules or the published snapshot settle without
/// the store: reads of small files and looks at paths, no lock waited for (the runner
/// answers it before any thread starts). `None` for everything else.
pub fn without_store(call: &Call) -> Option<Answer> {
    if call.beat_only || call.event.kind != EventKind::BeforeTool {
        return None;
    }
    // acc's own files and commands first, without the store: a store an agent removed
    // must not be what decides whether it may remove it.
    if let Some(reason) = self_guard::deny_reason(call) {
        let outcome = call.adapter.behaviour().deny_outcome(call.event, &reason);
        return Some(Answer::of(outcome));
    }
    // The recorder's read refusal (`ACC_CERTIFY_DENY_READ`, set only in
    // `acc-certify record`'s sandbox) is answered here, once, so that the guard below
    // never carries it.
    if let Some(reason) = certify_read::deny_reason(call) {
        let outcome = call
            .adapter
            .behaviour()
            .deny_outcome(call.event, &escape_hidden(reason));
        return Some(Answer::of(outcome));
    }
    // An allow or a deny the published snapshot proves needs no store.
    guard_fast::before_tool(call)
}

/// Runs the handler of the event's kind once [`without_store`] answered `None`.
pub fn with_store(call: &Call) -> Result<Handled, Failure> {
    if call.beat_only {
        let mut core = call.open_core(open_mode(call))?;
        let answer = lifecycle::heartbeat(call, &mut core)?;
        return Ok(Handled {
            answer,
            core: Some(core),
        });
    }
    if call.event.kind == EventKind::BeforeTool {
        // The guard must answer even when the store cannot be read in time. A store found
        // removed, replaced or robbed of claims (by this call's open or an earlier one):
        // what it last guarded is refused whatever the store now says or fails with.
        let answer = guard_fallback::raced(call);
        if let Some(answer) = tamper_guard::before_tool(call) {
            return Ok(Handled { answer, core: None });
        }
        return Ok(Handled {
            answer: answer?,
            core: None,
        });
    }
    let mut core = call.open_core(open_mode(call))?;
    call.deadline.check()?;
    let mut answer = match call.event.kind {
        EventKind::SessionStart => start::session_start(call, &mut core)?,
        EventKind::BeforeTurn => turn::before_turn(call, &mut core)?,
        EventKind::TurnEnd => turn::turn_end(call, &mut core)?,
        EventKind::BeforeTool => tool::before_tool(call, &mut core)?,
        EventKind::SessionEnd => lifecycle::session_end(call, &mut core)?,
        EventKind::Heartbeat => lifecycle::heartbeat(call, &mut core)?,
        EventKind::AfterTool => after_tool::after_tool(call, &mut core)?,
        EventKind::ChildStart => child::child_start(call, &mut core)?,
        EventKind::ChildEnd => child::child_end(call, &mut core)?,
        EventKind::Other => lifecycle::touch(call, &mut core)?,
    };
    answer.notes.append(&mut call.faults.borrow_mut());
    Ok(Handled {
        answer,
        core: Some(core),
    })
}
