//! The write guard's fast path: an allow proved from the published guarded-claims snapshot
//! ([`crate::store::guard_snapshot`], vouched for by [`crate::store::guard_token`]) without
//! opening the store. Opening SQLite costs most of a guard's time (its schema is parsed per
//! connection), and almost every tool call is an allow.
//!
//! It answers only when everything the store path would read is in the snapshot and the
//! answer is an allow: the conversation's own binding to a live, parentless session; no
//! live claim of another session acting as the same participant (inherited or a peer's:
//! only the store can tell); at most [`FAST_TARGETS`] readable targets, none covered by a
//! peer's guarded claim, judged by the same [`verdict::judge_paths`] as the fallback; no
//! heartbeat due ([`beat_marker`]). A shell call the client lets acc rewrite is rewritten
//! to run confined from the same snapshot's claims ([`super::handlers::confine`]). A deny
//! the snapshot proves answers the same way, its event kept for the claim's owner in the
//! spool beside the store ([`crate::core::refusal_spool`]), unless the store is shared, a
//! target is only named by a program acc cannot bound (the store path may run it confined)
//! or the spool takes no line now; a due heartbeat is written after either answer. Anything else (an unreadable
//! command; a missing or stale token, or a snapshot that is not the file the token sealed;
//! a store marked tampered) returns `None`, and the store path answers exactly as before.
//! A fast answer writes nothing to the store; its shell calls are fingerprinted from the
//! same snapshot as the store path's.

use super::answer::Answer;
use super::authority_guard;
use super::beat_marker;
use super::bound_workspace;
use super::call::Call;
use super::deny_events;
use super::fingerprints::{self, SnapshotWatch, Watched};
use super::guard_fallback;
use super::handlers::confine;
use super::handlers::tool::{owner_line_outcome, save_fingerprints};
use super::targets;
use super::verdict::{self, Denial, Guarded};
use crate::core::bindings::binding_key;
use crate::core::refusal_spool;
use crate::core::resources::spellings_overlap;
use crate::ids::SessionId;
use crate::paths;
use crate::store::guard_snapshot::{SealedFile, SnapshotText};
use crate::store::shared_listener;
use crate::store::tamper;
use acc_sdk::event::{Targets, ToolClass};
use acc_sdk::peer_text::escape_hidden;
use std::path::Path;
use std::time::Instant;

/// Calls naming more targets than this go to the store path, which judges large calls
/// within the whole budget (the fast path must never spend the time the store path needs).
pub const FAST_TARGETS: usize = 32;

/// A call that needs every claim (more targets than the index is used for, a shell call
/// watching every claim) scans the snapshot only below this size (some thousands of
/// claims); above it the store's claim index answers. A rewrite scans it at any size: it
/// needs every claim on either path, and the snapshot's lines cost less than the store's
/// rows.
pub const FAST_SNAPSHOT_BYTES: usize = 512 * 1024;

/// The answer for this call when the snapshot proves an allow; `None` sends the call to the
/// store path.
pub fn before_tool(call: &Call) -> Option<Answer> {
    let event = call.event;
    let tool = event.tool.as_ref()?;
    // A path a program acc cannot bound names is judged as a target like any other: any
    // claim covering one sends the call to the store path, which words its refusal.
    let all: Vec<String>;
    let paths: &[String] = match &tool.targets {
        Targets::Paths(paths) if paths.len() <= FAST_TARGETS => paths,
        Targets::Named { paths, named } if paths.len() + named.len() <= FAST_TARGETS => {
            all = paths
                .iter()
                .cloned()
                .chain(named.iter().map(|n| n.path.clone()))
                .collect();
            &all
        }
        Targets::None => &[],
        Targets::Paths(_) | Targets::Named { .. } | Targets::Unreadable { .. } => return None,
    };
    // A subagent acts under its own binding or its parent's: the store path decides which.
    if event.parent_session_id.is_some() || authority_guard::deny_reason(call).is_some() {
        return None;
    }
    let rewrites = tool.class == ToolClass::Shell && would_rewrite(call);
    let key = binding_key(&event.session_id);
    let now = call.settings.ports.now();
    // A due heartbeat is written after the answer by a process of its own, where one can
    // be started; otherwise the store path writes it before answering.
    let beat_due = !beat_marker::fresh(&call.data_home, &key, now);
    if beat_due && call.settings.beat_exe.is_none() {
        return None;
    }
    let cwd = Path::new(&event.cwd);
    let pinned = bound_workspace::resolve(
        &call.data_home,
        &event.session_id,
        cwd,
        call.settings.env.env(),
    )
    .ok()
    .filter(|r| r.pinned)?;
    let ws = &pinned.workspace;
    let store = paths::store_file(&call.data_home, &ws.id);
    // A store acc found removed, replaced or robbed of claims is judged by the store path,
    // which enforces what the marker kept.
    if tamper::marked(&store) {
        return None;
    }
    // Only a snapshot the token seals: not edited, replaced or copied back since. Read a
    // block at a time: its header, the binding, the claims that can overlap the targets.
    let (token, mut sealed) = SealedFile::open(&store)?;
    // A shared store's snapshot only while this host's listener vouches it is current.
    let shared = shared_listener::is_shared_tag(&token.tag);
    if shared && !shared_listener::leased(&store, &token.tag) {
        return None;
    }
    if sealed.workspace_id != ws.id.as_str() {
        return None;
    }
    let binding = sealed.binding(&key)??;
    let session = binding
        .session
        .as_ref()
        .filter(|s| binding.is_live() && s.parent_session_id.is_none())?;
    // A live claim of another session acting as the same participant (inherited or a
    // peer's): only the store can tell which.
    if session.others_until_ms > now {
        return None;
    }
    let me = binding.session_id.as_str();
    let roots = verdict::roots_of_workspace(ws);
    let until = Instant::now() + call.deadline.remaining() / 4;
    let resolved = targets::resolve_all(cwd, &roots, paths, until).ok()?;
    // As the store's claim index would: for a few targets, only the claims overlapping one
    // of them (spellings are canonical, so comparing them compares paths).
    let lookups = verdict::lookups(&resolved);
    let shell = tool.class == ToolClass::Shell;
    // A shell call's fingerprints watch every peer claim (what `make` writes is unknown),
    // unless it can write nothing but the targets judged here (`cat … | grep …`).
    let watch = shell && !tool.writes_only_targets;
    let mut records = Vec::new();
    let mut watched = Vec::new();
    // What a rewritten call keeps read-only: every peer's claim.
    let mut peers = Vec::new();
    let text = match lookups.as_ref().filter(|_| !watch && !rewrites) {
        // Looked up: what is read does not grow with the claims.
        Some(lookups) => {
            let mut seen = std::collections::HashSet::new();
            for lookup in lookups {
                for claim in sealed.claims_overlapping(lookup.as_str())? {
                    if claim.expires_at_ms <= now
                        || claim.owner_session_id == me
                        || !spellings_overlap(lookup.as_str(), &claim.resource)
                        || !seen.insert(claim.claim_id.clone())
                    {
                        continue;
                    }
                    records.push(guard_fallback::record_of(&claim, now));
                }
            }
            None
        }
        // Every claim can decide, be watched or be kept read-only: scanned, while the
        // snapshot is small enough that the scan costs less than the store's index.
        None => {
            // A rewrite needs every claim on either path: the snapshot's lines cost less
            // than the store's rows, at any size.
            if sealed.len() > FAST_SNAPSHOT_BYTES && !rewrites {
                return None;
            }
            let text = sealed.into_text()?;
            let snapshot = SnapshotText::parse(&text)?;
            for line in snapshot.claims() {
                let line = line?;
                if line.expires_at_ms <= now || line.owner_session_id == me {
                    continue;
                }
                if line.owner_participant_id == session.participant_id {
                    return None;
                }
                let candidate = lookups.as_ref().is_none_or(|lookups| {
                    lookups
                        .iter()
                        .any(|l| spellings_overlap(l.as_str(), &line.resource))
                });
                if candidate {
                    records.push(guard_fallback::record_of(&line.owned(), now));
                }
                if rewrites {
                    peers.push(confine::peer_of(&line));
                }
                if watch {
                    watched.extend(Watched::of_line(line));
                }
            }
            Some(text)
        }
    };
    let guarded = Guarded::of_records(records);
    if let Some(denial) = verdict::judge_resolved(&guarded, &roots, &resolved, until) {
        // A refusal only of what a program acc cannot bound names may run confined
        // instead; a shared store's events are the server's: both are the store path's. A
        // due heartbeat is written after the answer, as an allow's is (the store path's
        // deny writes none, so every deny of a conversation that only retried its refused
        // write took the store path and left the heartbeat due).
        let spoolable = matches!(tool.targets, Targets::Paths(_)) && !shared;
        let beat = beat_due.then_some(key.as_str());
        return spoolable
            .then(|| deny(call, &store, me, &denial, pinned.notes, beat))
            .flatten();
    }
    let confined = if rewrites {
        let me = SessionId::from_store(me.to_owned());
        confine::confine_with(call, &ws.id, roots.all(), &me, &peers).ok()?
    } else {
        None
    };
    let mut answer = Answer::silent();
    answer.notes = pinned.notes;
    if shell {
        let watch = SnapshotWatch {
            participant: session.participant_id.clone(),
            now_ms: now,
        };
        save_fingerprints(
            call,
            &fingerprints::record_key(event),
            me,
            watched,
            roots.all().to_vec(),
            text.as_deref().map(|text| (text, watch)),
        );
    }
    // The rewrite is the whole answer: an owner line would replace it.
    if let Some(outcome) = confined {
        answer.outcome = outcome;
    } else if let Some(outcome) = owner_line_outcome(call, &tool.name, me, &binding.generation) {
        answer.outcome = outcome;
    }
    answer.notes.append(&mut call.faults.borrow_mut());
    if beat_due {
        answer.deferred_beat = Some(serde_json::to_vec(call.payload).ok()?);
        // The calls that follow stay on this path while that process writes it.
        beat_marker::mark(&call.data_home, &key, now);
    }
    Some(answer)
}

/// The deny the snapshot proves, its event kept in the spool beside the store
/// ([`refusal_spool`]) for the next process that opens it; `None` (the store path, which
/// records it there) when the spool takes no line now.
/// `notes` are the workspace binding's (a broken config, a takeover attempt), said with the
/// deny as with an allow. `beat_due` names the binding whose heartbeat is due: written after
/// the answer by the process the runner starts, as for an allow.
fn deny(
    call: &Call,
    store: &Path,
    me: &str,
    denial: &Denial,
    notes: Vec<String>,
    beat_due: Option<&str>,
) -> Option<Answer> {
    let by = SessionId::from_store(me.to_owned());
    let now = call.settings.ports.now();
    let deferred_beat = match beat_due {
        Some(_) => Some(serde_json::to_vec(call.payload).ok()?),
        None => None,
    };
    refusal_spool::append(store, now, &by, &deny_events::of_denial(denial)).ok()?;
    let outcome = call
        .adapter
        .behaviour()
        .deny_outcome(call.event, &escape_hidden(&denial.reason));
    let mut answer = Answer::of(outcome);
    answer.notes = notes;
    answer.notes.append(&mut call.faults.borrow_mut());
    if let Some(key) = beat_due {
        answer.deferred_beat = deferred_beat;
        beat_marker::mark(&call.data_home, key, now);
    }
    Some(answer)
}

/// Whether the client may have this shell call rewritten to run confined.
fn would_rewrite(call: &Call) -> bool {
    let mut asked = false;
    let _ = call
        .adapter
        .behaviour()
        .rewrite_shell_outcome(call.event, call.payload, &mut |_| {
            asked = true;
            None
        });
    asked
}
