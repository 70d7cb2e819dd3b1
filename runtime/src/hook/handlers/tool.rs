//! `beforeTool`: the write guard.
//!
//! A write is denied when another session's live *guarded* claim covers one of its targets,
//! whatever the client's evidence says: a deny in a shape the client ignores is harmless,
//! while a missing deny loses work. Advisory claims, the session's own claims and the claims
//! it inherits from ended sessions of its participant never deny. Every deny is recorded for
//! the claim's owner ([`super::super::deny_events`]), and a shell call asserting a person's
//! authority is refused ([`super::super::authority_guard`]).
//! The verdict itself, including what cannot be judged, is [`super::super::verdict`]'s.

use super::super::answer::Answer;
use super::super::authority_guard;
use super::super::bound::Bound;
use super::super::call::Call;
use super::super::deny_events;
use super::super::failure::Failure;
use super::super::fingerprints;
use super::super::verdict;
use super::{confine, lifecycle};
use crate::core::Core;
use crate::ids::SessionId;
use crate::store::guard_snapshot::{self, SnapshotText};
use acc_sdk::adapter::OwnerLine;
use acc_sdk::event::{Targets, ToolClass};
use acc_sdk::outcome::HookOutcome;
use acc_sdk::peer_text::escape_hidden;
use std::path::Path;
use std::time::{Duration, Instant};

/// The stderr note for a write-capable call whose targets could not be read, allowed because
/// no peer holds a guarded claim in the workspace.
pub const UNGUARDED_NOTE: &str =
    "acc: this tool call's write targets could not be read; it was allowed unguarded";

/// The guard's own budget: what the invocation has left, minus time to answer. A verdict
/// that cannot be reached in it is a deny (while guarded claims exist), never a timeout
/// that fails open.
fn guard_until(call: &Call) -> Instant {
    Instant::now() + call.deadline.remaining().saturating_sub(ANSWER_RESERVE)
}

/// Time kept back from the guard for writing the answer.
const ANSWER_RESERVE: Duration = Duration::from_millis(500);

pub fn before_tool(call: &Call, core: &mut Core) -> Result<Answer, Failure> {
    let bound = Bound::for_event(core, call.event)?;
    let tool = call.event.tool.as_ref();
    if let Some(reason) = authority_guard::deny_reason(call) {
        return Ok(Answer::of(
            call.adapter
                .behaviour()
                .deny_outcome(call.event, &escape_hidden(reason)),
        ));
    }
    let Some(bound) = bound else {
        return unattached(call, core);
    };
    let mut answer = Answer::silent();
    // A child session is judged as its family's root (its parent's claims are its own), and
    // a refusal names the child that tried.
    let actor = &bound.binding.session_id;
    let root = if bound.is_child() {
        core.session_root(actor)?
    } else {
        actor.clone()
    };
    let me = &root;
    let mut confined: Option<Option<HookOutcome>> = None;
    if let Some(targets) = tool.map(|t| &t.targets) {
        let unreadable = matches!(targets, Targets::Unreadable { .. });
        // A command acc cannot read runs confined where the kernel can keep peers' claimed
        // paths read-only for it; only where it cannot is it refused by the target rules.
        if unreadable {
            confined = Some(confine::confine(call, core, me)?);
        }
        if !matches!(confined, Some(Some(_))) {
            let cwd = Path::new(&call.event.cwd);
            let mut denial = verdict::judge_call(core, me, cwd, targets, guard_until(call))?;
            // A refusal only of what a program acc cannot bound may write (`chmod`, `tar x`)
            // runs confined instead, where the kernel can keep the claims read-only for it.
            if denial.is_some()
                && let Targets::Named { paths, .. } = targets
                && verdict::judge_call(
                    core,
                    me,
                    cwd,
                    &Targets::Paths(paths.clone()),
                    guard_until(call),
                )?
                .is_none()
            {
                let attempt = confine::confine(call, core, me)?;
                if attempt.is_some() {
                    denial = None;
                }
                confined = Some(attempt);
            }
            if let Some(denial) = denial {
                deny_events::record(call, core, Some(actor), &deny_events::of_denial(&denial));
                // Decided: a heartbeat write now could only delay the deny.
                let outcome = call
                    .adapter
                    .behaviour()
                    .deny_outcome(call.event, &escape_hidden(&denial.reason));
                return Ok(Answer::of(outcome));
            }
            if unreadable {
                answer.notes.push(UNGUARDED_NOTE.to_string());
            }
        }
    }
    // Not denied: where the client can rewrite the call, the kernel keeps peers' claimed
    // paths read-only for whatever it runs, readable targets or not.
    let confined = match confined {
        Some(done) => done,
        None => confine::confine(call, core, me)?,
    };
    if let Some(outcome) = &confined {
        answer = Answer::of(outcome.clone());
    }
    match tool.filter(|t| t.class == ToolClass::Shell) {
        // Nothing it can write is left to watch once its targets are judged.
        Some(t) if t.writes_only_targets => {
            let key = fingerprints::record_key(call.event);
            save_fingerprints(call, &key, me.as_str(), Vec::new(), Vec::new(), None);
        }
        Some(_) => remember_claimed_files(call, core, &bound, me),
        None => {}
    }
    call.deadline.check()?;
    if !bound.is_live() {
        return Ok(answer);
    }
    lifecycle::refresh_if_due(call, core, &bound)?;
    // The rewrite is the whole answer: an owner line would replace it.
    if let Some(tool) = tool.filter(|_| confined.is_none()) {
        let owner = bound.owner();
        let line = owner_line_outcome(
            call,
            &tool.name,
            owner.session.as_str(),
            owner.generation.as_str(),
        );
        if let Some(outcome) = line {
            answer.outcome = outcome;
        }
    }
    Ok(answer)
}

/// The identity line an allowed tool call carries where the adapter injects one.
pub(crate) fn owner_line_outcome(
    call: &Call,
    tool_name: &str,
    session_id: &str,
    generation: &str,
) -> Option<HookOutcome> {
    let line = OwnerLine {
        session_id: session_id.to_string(),
        generation: generation.to_string(),
        cwd: call.event.cwd.clone(),
    };
    let mut outcome = call
        .adapter
        .behaviour()
        .inject_tool_owner_outcome(&line, tool_name)?;
    // Identity only: it may add context, never turn the allow into a deny.
    outcome.exit_code = 0;
    Some(outcome)
}

/// A conversation acc has no session for (its start hook never ran, failed, or was installed
/// after it began; a subagent thread acc cannot place): it owns nothing, so every guarded
/// claim in the workspace is a peer's, and a write into one is refused like anyone's. It is
/// not confined or fingerprinted (there is no session to tell), and the refusal is recorded
/// for the claim's owner as an unattached conversation's.
fn unattached(call: &Call, core: &mut Core) -> Result<Answer, Failure> {
    let Some(targets) = call.event.tool.as_ref().map(|t| &t.targets) else {
        return Ok(Answer::silent());
    };
    let nobody = SessionId::from_store(String::new());
    let cwd = Path::new(&call.event.cwd);
    let Some(denial) = verdict::judge_call(core, &nobody, cwd, targets, guard_until(call))? else {
        return Ok(Answer::silent());
    };
    deny_events::record(call, core, None, &deny_events::of_denial(&denial));
    let reason = format!(
        "{} (acc has no session for this conversation: restart the client so its session-start hook runs, or ask the user)",
        denial.reason
    );
    Ok(Answer::of(
        call.adapter
            .behaviour()
            .deny_outcome(call.event, &escape_hidden(&reason)),
    ))
}

/// The most the fingerprints before a shell call may take of the hook's budget.
const FINGERPRINT_BUDGET: Duration = Duration::from_secs(1);

/// Before an allowed shell call: fingerprints of the files under peers' guarded claims, kept
/// for the post-tool hook, which tells whether the call changed them anyway. Best effort: a
/// failure is a stderr note, never a deny.
fn remember_claimed_files(call: &Call, core: &mut Core, bound: &Bound, me: &SessionId) {
    let key = fingerprints::record_key(call.event);
    let snapshot = snapshot_text(core);
    let now_ms = call.settings.ports.now();
    let from_snapshot =
        snapshot
            .as_deref()
            .zip(bound.session.as_ref())
            .and_then(|(text, session)| {
                let watch = fingerprints::SnapshotWatch {
                    participant: session.participant_id.as_str().to_string(),
                    now_ms,
                };
                let watched = fingerprints::watched_from_snapshot(
                    &SnapshotText::parse(text)?,
                    me.as_str(),
                    &watch.participant,
                    now_ms,
                )?;
                Some((watched, (text, watch)))
            });
    let (watched, source) = match from_snapshot {
        Some((watched, source)) => (watched, Some(source)),
        None => match core.guarded_file_claim_keys(me) {
            Ok(claims) => (fingerprints::watched(&claims), None),
            Err(e) => {
                call.report(format!(
                    "acc: claimed files were not fingerprinted before this call ({})",
                    e.code.as_str()
                ));
                return;
            }
        },
    };
    let roots = verdict::roots_of(core).all().to_vec();
    save_fingerprints(call, &key, me.as_str(), watched, roots, source);
}

/// Fingerprints `watched` in `roots` for the post-tool hook of the conversation with
/// `key` (acc session `me`), or drops an earlier record when nothing is watched.
pub(crate) fn save_fingerprints(
    call: &Call,
    key: &str,
    me: &str,
    watched: Vec<fingerprints::Watched>,
    roots: Vec<std::path::PathBuf>,
    source: Option<(&str, fingerprints::SnapshotWatch)>,
) {
    if watched.is_empty() {
        let _ = std::fs::remove_file(fingerprints::record_path(&call.data_home, key));
        return;
    }
    let until = Instant::now() + FINGERPRINT_BUDGET.min(call.deadline.remaining() / 4);
    let mut prints = fingerprints::take(roots, watched, until);
    prints.session_id = Some(me.to_string());
    if let Err(e) = fingerprints::save(&call.data_home, key, &prints, source) {
        call.report(format!(
            "acc: claimed files were not fingerprinted before this call ({e})"
        ));
    }
}

/// The guarded-claims snapshot's text when the token vouches for it (an edited snapshot
/// must not choose what is watched) and it is of the store's current claims version (one
/// row read instead of every claim's); `None` sends the caller to the store.
fn snapshot_text(core: &mut Core) -> Option<String> {
    let (_, text) = guard_snapshot::vouched_text(core.store_path())?;
    let version = SnapshotText::parse(&text)?.claims_version;
    (core.claims_version().ok()? == version).then_some(text)
}
