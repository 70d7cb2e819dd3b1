//! Child sessions (issue 16, `lifecycle.childSessions`): a subagent becomes a session linked
//! to its parent's, acting as the parent's participant; its writes are judged as its family's
//! (its parent's claims are its own, a peer's refuse it) and a refusal names the child. Without
//! the grant a subagent acts as its parent conversation, as before.

mod hook_support;

use acc_runtime::core::model::SessionState;
use acc_runtime::ids::{EventSeq, SessionId};
use acc_sdk::capabilities::Capability;
use acc_sdk::define::Adapter;
use hook_support::*;
use serde_json::Value;

const PARENT: &str = "conv";
const CHILD: &str = "conv/subagent/a1";

fn granted() -> Adapter {
    adapter_with(&[
        Capability::NextTurn,
        Capability::BeforeWrite,
        Capability::SessionEnd,
        Capability::ChildSessions,
    ])
}

fn child_payload(event: &str, sb: &Sandbox) -> Value {
    let mut p = payload(event, CHILD, &sb.ws());
    p["parent_session_id"] = PARENT.into();
    p
}

fn child_write(sb: &Sandbox, adapter: fn() -> Adapter, path: &str) -> HookRun {
    let mut p = write_payload(CHILD, &sb.ws(), &[path]);
    p["parent_session_id"] = PARENT.into();
    hook(sb.settings(adapter, &[]), &p)
}

/// A parent conversation holding a guarded claim on `own/**`, and a peer holding one on
/// `src/**`, with a file under each.
fn room(adapter: fn() -> Adapter) -> (Sandbox, acc_runtime::Owner, acc_runtime::Owner) {
    let sb = Sandbox::new();
    let run = hook(
        sb.settings(adapter, &[]),
        &payload("sessionStart", PARENT, &sb.ws()),
    );
    assert_eq!(run.code, 0, "{run:?}");
    let parent = bound_owner(&mut sb.core(), PARENT);
    let peer = attach(&mut sb.core(), "peer", true);
    claim(&mut sb.core(), &parent, "file:own/**", true);
    claim(&mut sb.core(), &peer, "file:src/**", true);
    (sb, parent, peer)
}

fn state(sb: &Sandbox, id: &SessionId) -> SessionState {
    sb.core().session(id).unwrap().unwrap().state
}

/// The `cause` of the `session.closed` event of `id`, read from the store's event log.
fn closed_cause(sb: &Sandbox, id: &SessionId) -> Option<String> {
    let store = sb.core().store_path().to_path_buf();
    let conn = rusqlite::Connection::open(store).unwrap();
    conn.query_row(
        "SELECT json_extract(payload, '$.cause') FROM events
         WHERE type = 'session.closed' AND json_extract(payload, '$.sessionId') = ?1",
        [id.as_str()],
        |r| r.get(0),
    )
    .ok()
}

#[test]
fn a_subagent_is_a_child_session_guarded_as_its_family_and_named_in_refusals() {
    let (sb, parent, _peer) = room(granted);
    let run = hook(sb.settings(granted, &[]), &child_payload("childStart", &sb));
    assert_eq!((run.code, run.stdout.as_str()), (0, ""), "{run:?}");
    let child = bound_owner(&mut sb.core(), CHILD);
    assert_ne!(child.session, parent.session);
    let rec = sb.core().session(&child.session).unwrap().unwrap();
    let parent_rec = sb.core().session(&parent.session).unwrap().unwrap();
    assert_eq!(
        rec.parent_session_id.as_deref(),
        Some(parent.session.as_str())
    );
    assert_eq!(rec.participant_id, parent_rec.participant_id);
    assert_eq!(rec.state, SessionState::Open);

    // A peer's claim refuses the child, and the refusal names the child.
    let denied = child_write(&sb, granted, "src/a.rs");
    assert_eq!(denied.code, 2, "{denied:?}");
    let refused = sb.core().refused_writes(None, EventSeq(0)).unwrap();
    assert_eq!(refused.total, 1);
    assert_eq!(refused.listed[0].by_session_id, child.session.as_str());
    assert_eq!(refused.listed[0].target, "file:src/a.rs");
    // Its parent's claim is its own.
    let allowed = child_write(&sb, granted, "own/b.rs");
    assert_eq!(allowed.code, 0, "{allowed:?}");

    // A subagent's turn is not a conversation of its own: no identity lines, no delivery.
    let turn = hook(sb.settings(granted, &[]), &child_payload("beforeTurn", &sb));
    assert_eq!((turn.code, turn.stdout.as_str()), (0, ""), "{turn:?}");
    // A second start signal keeps the one child.
    hook(sb.settings(granted, &[]), &child_payload("childStart", &sb));
    assert_eq!(bound_owner(&mut sb.core(), CHILD), child);

    let end = hook(sb.settings(granted, &[]), &child_payload("childEnd", &sb));
    assert_eq!(end.code, 0, "{end:?}");
    assert_eq!(state(&sb, &child.session), SessionState::Closed);
    assert_eq!(
        closed_cause(&sb, &child.session).as_deref(),
        Some("child_end")
    );
    assert_eq!(state(&sb, &parent.session), SessionState::Open);
}

#[test]
fn a_parent_that_ends_takes_its_children_with_it() {
    let (sb, parent, peer) = room(granted);
    hook(sb.settings(granted, &[]), &child_payload("childStart", &sb));
    let child = bound_owner(&mut sb.core(), CHILD);
    // A subagent's own end signal is never its parent's.
    let mut stray = child_payload("sessionEnd", &sb);
    stray["session_id"] = "conv/subagent/never-started".into();
    hook(sb.settings(granted, &[]), &stray);
    assert_eq!(state(&sb, &parent.session), SessionState::Open);

    let end = hook(
        sb.settings(granted, &[]),
        &payload("sessionEnd", PARENT, &sb.ws()),
    );
    assert_eq!(end.code, 0, "{end:?}");
    assert_eq!(state(&sb, &parent.session), SessionState::Closed);
    assert_eq!(state(&sb, &child.session), SessionState::Closed);
    assert_eq!(
        closed_cause(&sb, &child.session).as_deref(),
        Some("parent_closed")
    );
    assert_eq!(state(&sb, &peer.session), SessionState::Open);
}

#[test]
fn without_the_grant_a_subagent_acts_as_its_parent() {
    let (sb, parent, _peer) = room(certified);
    let sessions_before = sb.core().status(None, false).unwrap().sessions.len();
    for event in ["childStart", "sessionStart", "beforeTurn"] {
        let run = hook(sb.settings(certified, &[]), &child_payload(event, &sb));
        assert_eq!((run.code, run.stdout.as_str()), (0, ""), "{event}: {run:?}");
    }
    assert_eq!(
        sb.core().status(None, false).unwrap().sessions.len(),
        sessions_before,
        "no child session, no session of its own"
    );
    let denied = child_write(&sb, certified, "src/a.rs");
    assert_eq!(denied.code, 2, "{denied:?}");
    let refused = sb.core().refused_writes(None, EventSeq(0)).unwrap();
    assert_eq!(refused.listed[0].by_session_id, parent.session.as_str());
    assert_eq!(child_write(&sb, certified, "own/b.rs").code, 0);
    hook(sb.settings(certified, &[]), &child_payload("childEnd", &sb));
    assert_eq!(state(&sb, &parent.session), SessionState::Open);
}

#[test]
fn a_recorder_may_grant_child_sessions_for_its_sandbox() {
    let (sb, parent, _peer) = room(certified);
    let env = [("ACC_CERTIFY_CANDIDATES", "lifecycle.childSessions")];
    hook(
        sb.settings(certified, &env),
        &child_payload("childStart", &sb),
    );
    let child = bound_owner(&mut sb.core(), CHILD);
    let rec = sb.core().session(&child.session).unwrap().unwrap();
    assert_eq!(
        rec.parent_session_id.as_deref(),
        Some(parent.session.as_str())
    );
}

#[test]
fn a_subagent_never_started_is_guarded_as_its_parent_and_in_its_workspace() {
    let (sb, parent, _peer) = room(granted);
    // No child start seen; the subagent's cwd is somewhere else entirely.
    let elsewhere = tempfile::tempdir().unwrap();
    let target = sb.ws().join("src/a.rs");
    let mut p = write_payload(CHILD, elsewhere.path(), &[target.to_str().unwrap()]);
    p["parent_session_id"] = PARENT.into();
    let denied = hook(sb.settings(granted, &[]), &p);
    assert_eq!(denied.code, 2, "{denied:?}");
    let refused = sb.core().refused_writes(None, EventSeq(0)).unwrap();
    assert_eq!(refused.listed[0].by_session_id, parent.session.as_str());
}

#[test]
fn a_subagent_named_alone_after_its_start_acts_as_the_child_in_its_parents_workspace() {
    // Grok: the start names the parent, every later hook inside the subagent only the child.
    let (sb, parent, _peer) = room(granted);
    hook(sb.settings(granted, &[]), &child_payload("childStart", &sb));
    let child = bound_owner(&mut sb.core(), CHILD);
    let elsewhere = tempfile::tempdir().unwrap();
    for event in ["sessionStart", "beforeTurn"] {
        let run = hook(
            sb.settings(granted, &[]),
            &payload(event, CHILD, elsewhere.path()),
        );
        assert_eq!(
            (run.code, run.stdout.as_str()),
            (0, ""),
            "a child shows no identity lines: {event}: {run:?}"
        );
    }
    let write_alone = |path: &std::path::Path| {
        hook(
            sb.settings(granted, &[]),
            &write_payload(CHILD, elsewhere.path(), &[path.to_str().unwrap()]),
        )
    };
    let denied = write_alone(&sb.ws().join("src/a.rs"));
    assert_eq!(denied.code, 2, "{denied:?}");
    let refused = sb.core().refused_writes(None, EventSeq(0)).unwrap();
    assert_eq!(refused.listed[0].by_session_id, child.session.as_str());
    assert_eq!(write_alone(&sb.ws().join("own/b.rs")).code, 0);

    let end = hook(
        sb.settings(granted, &[]),
        &payload("childEnd", CHILD, elsewhere.path()),
    );
    assert_eq!(end.code, 0, "{end:?}");
    assert_eq!(state(&sb, &child.session), SessionState::Closed);
    assert_eq!(
        closed_cause(&sb, &child.session).as_deref(),
        Some("child_end")
    );
    assert_eq!(state(&sb, &parent.session), SessionState::Open);
}
