//! The write guard's fast path: an allow or a deny answered from the published
//! guarded-claims snapshot without opening the store, and everything else (a snapshot no longer
//! vouched for, a session the snapshot cannot judge alone) answered by the store as before.
//!
//! The store is made unreadable in place (same file, garbage bytes) to tell the two paths
//! apart by outcome: the fast path answers silently, the store path can then only answer
//! from the snapshot fallback, which says so on stderr.

mod hook_support;

use acc_runtime::Owner;
use acc_runtime::store::guard_token;
use hook_support::*;
use std::path::PathBuf;

fn start(sb: &Sandbox, conv: &str) -> Owner {
    let run = hook(
        sb.settings(certified, &[]),
        &payload("sessionStart", conv, &sb.ws()),
    );
    assert_eq!(run.code, 0, "{run:?}");
    bound_owner(&mut sb.core(), conv)
}

fn write(sb: &Sandbox, conv: &str, paths: &[&str]) -> HookRun {
    hook(
        sb.settings(certified, &[]),
        &write_payload(conv, &sb.ws(), paths),
    )
}

fn store_file(sb: &Sandbox) -> PathBuf {
    sb.core().store_path().to_path_buf()
}

/// Overwrites the store in place with bytes SQLite cannot read; returns what to restore.
fn break_store(store: &PathBuf) -> Vec<u8> {
    let bytes = std::fs::read(store).unwrap();
    for suffix in ["-wal", "-shm"] {
        assert!(
            !PathBuf::from(format!("{}{suffix}", store.display())).exists(),
            "the store was closed cleanly"
        );
    }
    std::fs::write(store, vec![b'x'; bytes.len()]).unwrap();
    bytes
}

const STORE_NOTE: &str = "the guard answered from its guarded-claims snapshot";

#[test]
fn an_allow_is_answered_from_the_published_snapshot_without_the_store() {
    let sb = Sandbox::new();
    start(&sb, "me");
    let mut core = sb.core();
    let peer = attach(&mut core, "peer", true);
    claim(&mut core, &peer, "file:src/**", true);
    drop(core);
    let store = store_file(&sb);
    let saved = break_store(&store);

    let allowed = write(&sb, "me", &["docs/notes.md"]);
    assert_silent_allow(&allowed);
    // A covered write is refused from the snapshot too, the store unread (no fallback
    // note), its event kept in the spool beside the store.
    let refused = format!(
        "file:src/lib.rs is claimed by peer (session {})",
        peer.session
    );
    let denied = write(&sb, "me", &["src/lib.rs"]);
    assert_eq!((denied.code, &denied.stderr), (2, &refused), "{denied:?}");
    assert!(!denied.stderr.contains(STORE_NOTE), "{denied:?}");

    std::fs::write(&store, saved).unwrap();
    let denied = write(&sb, "me", &["src/lib.rs"]);
    assert_eq!(denied.stderr, refused);
    // The next open of the store takes both in: the owner is told of each.
    let status = sb.core().status(None, false).unwrap();
    assert_eq!(
        status.refused_writes.total, 2,
        "{:?}",
        status.refused_writes
    );
}

#[test]
fn a_claim_published_after_the_last_call_is_enforced_at_once() {
    let sb = Sandbox::new();
    start(&sb, "me");
    let peer = attach(&mut sb.core(), "peer", true);
    assert_eq!(write(&sb, "me", &["docs/a.md"]).code, 0);
    claim(&mut sb.core(), &peer, "file:docs/**", true);
    let run = write(&sb, "me", &["docs/a.md"]);
    assert_eq!(run.code, 2, "{run:?}");
    // Released: allowed again, from the snapshot.
    let mut core = sb.core();
    let claims = core.live_claims().unwrap();
    core.release_claim(&peer, &claims[0].claim_id).unwrap();
    drop(core);
    let store = store_file(&sb);
    let saved = break_store(&store);
    let run = write(&sb, "me", &["docs/a.md"]);
    assert_eq!((run.code, run.stderr.as_str()), (0, ""), "{run:?}");
    std::fs::write(&store, saved).unwrap();
}

#[test]
fn a_change_committed_without_its_publication_sends_the_guard_to_the_store() {
    let sb = Sandbox::new();
    start(&sb, "me");
    let peer = attach(&mut sb.core(), "peer", true);
    assert_eq!(write(&sb, "me", &["docs/a.md"]).code, 0);
    let store = store_file(&sb);
    let (token, snapshot) = (
        guard_token::path_for(&store),
        acc_runtime::store::guard_snapshot::path_for(&store),
    );
    let unclaimed = std::fs::read(&snapshot).unwrap();
    claim(&mut sb.core(), &peer, "file:docs/**", true);
    let published = std::fs::read(&token).unwrap();
    // A writer that withdrew the token, committed its claim and died before publishing:
    // the snapshot beside the store still shows no claim.
    std::fs::write(&snapshot, &unclaimed).unwrap();
    std::fs::remove_file(&token).unwrap();
    let run = write(&sb, "me", &["docs/a.md"]);
    assert_eq!(run.code, 2, "{run:?}");
    // A token of another publication than the snapshot's vouches for nothing either.
    std::fs::write(&snapshot, &unclaimed).unwrap();
    std::fs::write(&token, &published).unwrap();
    let run = write(&sb, "me", &["docs/a.md"]);
    assert_eq!(run.code, 2, "{run:?}");
}

#[test]
fn a_store_moved_aside_is_never_answered_for_from_its_old_snapshot() {
    let sb = Sandbox::new();
    start(&sb, "me");
    assert_eq!(write(&sb, "me", &["docs/a.md"]).code, 0);
    let store = store_file(&sb);
    // The same bytes under a new inode: the token names the old file.
    let bytes = std::fs::read(&store).unwrap();
    std::fs::rename(&store, store.with_file_name("aside.db")).unwrap();
    std::fs::write(&store, vec![b'x'; bytes.len()]).unwrap();
    let run = write(&sb, "me", &["docs/a.md"]);
    assert!(
        run.stderr.contains("acc"),
        "the store path answered: {run:?}"
    );
}

#[test]
fn a_sibling_of_the_same_participant_and_a_closed_session_are_judged_by_the_store() {
    let sb = Sandbox::new();
    let me = start(&sb, "me");
    let participant = sb
        .core()
        .session(&me.session)
        .unwrap()
        .unwrap()
        .participant_id
        .to_string();
    assert_eq!(write(&sb, "me", &["docs/a.md"]).code, 0);
    // A live session under the same name holds a guarded claim: a peer's while it lives,
    // which only the store can tell from an ended session's inherited claim.
    let sibling = attach(&mut sb.core(), &participant, true);
    claim(&mut sb.core(), &sibling, "file:docs/**", true);
    let store = store_file(&sb);
    let saved = break_store(&store);
    let run = write(&sb, "me", &["README.md"]);
    assert!(run.stderr.contains(STORE_NOTE), "{run:?}");
    std::fs::write(&store, saved).unwrap();
    let run = write(&sb, "me", &["docs/a.md"]);
    assert_eq!(run.code, 2, "{run:?}");

    // A closed session's binding is not live: the store path answers (no owner line).
    let end = hook(
        sb.settings(certified, &[]),
        &payload("sessionEnd", "me", &sb.ws()),
    );
    assert_eq!(end.code, 0, "{end:?}");
    let saved = break_store(&store);
    let run = write(&sb, "me", &["README.md"]);
    assert!(run.stderr.contains(STORE_NOTE), "{run:?}");
    std::fs::write(&store, saved).unwrap();
}

#[test]
fn a_publication_that_fails_leaves_no_token_and_the_next_write_publishes() {
    let sb = Sandbox::new();
    let me = start(&sb, "me");
    let store = store_file(&sb);
    let snapshot = acc_runtime::store::guard_snapshot::path_for(&store);
    std::fs::remove_file(&snapshot).unwrap();
    // Nothing can be renamed over a directory.
    std::fs::create_dir(&snapshot).unwrap();
    claim(&mut sb.core(), &me, "file:docs/**", true);
    assert!(!guard_token::path_for(&store).exists());
    std::fs::remove_dir(&snapshot).unwrap();
    sb.core().heartbeat(&me).unwrap();
    let tag = guard_token::read(&store)
        .expect("published at the next write")
        .tag;
    let text = std::fs::read_to_string(&snapshot).unwrap();
    let parsed = acc_runtime::store::guard_snapshot::SnapshotText::parse(&text).unwrap();
    assert_eq!(parsed.tag, tag);
    assert_eq!(parsed.claims().count(), 1);
}

#[test]
fn a_claim_that_held_for_the_whole_call_is_never_allowed_while_it_changes_under_the_guard() {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
    let sb = Arc::new(Sandbox::new());
    start(&sb, "me");
    let peer = attach(&mut sb.core(), "peer", true);
    // Even: stable (0 mod 4 released, 2 mod 4 claimed); odd: a change in flight.
    let epoch = Arc::new(AtomicU64::new(0));
    let done = Arc::new(AtomicBool::new(false));
    let writer = {
        let (sb, epoch, done) = (sb.clone(), epoch.clone(), done.clone());
        std::thread::spawn(move || {
            let mut core = sb.core();
            for _ in 0..40 {
                epoch.fetch_add(1, Ordering::SeqCst);
                claim(&mut core, &peer, "file:docs/**", true);
                epoch.fetch_add(1, Ordering::SeqCst);
                std::thread::sleep(std::time::Duration::from_millis(15));
                epoch.fetch_add(1, Ordering::SeqCst);
                let id = core.live_claims().unwrap()[0].claim_id.clone();
                core.release_claim(&peer, &id).unwrap();
                epoch.fetch_add(1, Ordering::SeqCst);
                std::thread::sleep(std::time::Duration::from_millis(15));
            }
            done.store(true, Ordering::SeqCst);
        })
    };
    let (mut held, mut free) = (0, 0);
    while !done.load(Ordering::SeqCst) {
        let before = epoch.load(Ordering::SeqCst);
        let run = write(&sb, "me", &["docs/a.md"]);
        let after = epoch.load(Ordering::SeqCst);
        if before != after || before % 2 == 1 {
            continue;
        }
        if before % 4 == 2 {
            held += 1;
            assert_eq!(
                run.code, 2,
                "allowed while the claim held throughout: {run:?}"
            );
        } else {
            free += 1;
            assert_eq!(run.code, 0, "refused while no claim existed: {run:?}");
        }
    }
    writer.join().unwrap();
    assert!(
        held > 5 && free > 5,
        "too few calls judged: {held} held, {free} free"
    );
}

/// One call resolves every target through directories it looked at once (a symlinked
/// directory, `..` taken in a link's target, relative spellings): the snapshot's answers
/// are the ones `realpath` gives each target alone.
#[cfg(unix)]
#[test]
fn targets_through_symlinked_directories_are_judged_as_their_real_paths_from_the_snapshot() {
    use std::os::unix::fs::symlink;
    let sb = Sandbox::new();
    start(&sb, "me");
    let ws = sb.ws();
    std::fs::create_dir_all(ws.join("src/inner")).unwrap();
    std::fs::create_dir_all(ws.join("docs")).unwrap();
    symlink(ws.join("src/inner"), ws.join("shortcut")).unwrap();
    symlink("docs", ws.join("d")).unwrap();
    let mut core = sb.core();
    let peer = attach(&mut core, "peer", true);
    claim(&mut core, &peer, "file:src/**", true);
    drop(core);
    let store = store_file(&sb);
    let saved = break_store(&store);
    let refused = |path: &str| format!("{path} is claimed by peer (session {})", peer.session);

    let allowed = write(&sb, "me", &["d/a.md", "docs/../d/b.md", "./d/./c.md", "d"]);
    assert_eq!(
        (allowed.code, allowed.stderr.as_str()),
        (0, ""),
        "{allowed:?}"
    );
    // The second target goes through the link the first one's directory shares.
    let denied = write(&sb, "me", &["d/a.md", "shortcut/c.rs"]);
    assert_eq!(
        (denied.code, denied.stderr.as_str()),
        (2, refused("file:src/inner/c.rs").as_str()),
        "{denied:?}"
    );
    // `..` after a link is its target's parent, not the link's: `src`, claimed.
    for spelling in [
        "shortcut/../y.rs",
        "d/../shortcut/../y.rs",
        "shortcut/./../y.rs",
    ] {
        let denied = write(&sb, "me", &["d/x.md", spelling]);
        assert_eq!(
            (denied.code, denied.stderr.as_str()),
            (2, refused("file:src/y.rs").as_str()),
            "{spelling}: {denied:?}"
        );
    }
    std::fs::write(&store, saved).unwrap();
}
