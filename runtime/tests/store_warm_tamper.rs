//! A store changed behind acc's back between two warm uses (issue 30, sixth round): the
//! core's tamper check runs on a warm connection as on a fresh one, and finds the same.
//! Its own test binary: it enables warm connections for the whole process.

mod hook_support;

use acc_runtime::store::tamper::{self, TamperKind};
use acc_runtime::store::warm;
use hook_support::*;

/// A sandbox whose store holds a peer's guarded claim, its connection kept warm.
fn warm_store_with_a_guarded_claim() -> (Sandbox, std::path::PathBuf) {
    warm::enable();
    let sb = Sandbox::new();
    let store = {
        let mut core = sb.core();
        let peer = attach(&mut core, "peer", true);
        claim(&mut core, &peer, "file:src/**", true);
        core.store_path().to_path_buf()
    };
    assert_eq!(warm::idle(&store), 1);
    (sb, store)
}

#[test]
fn claims_deleted_by_another_program_are_found_by_a_warm_open() {
    let (sb, store) = warm_store_with_a_guarded_claim();
    assert!(!tamper::marked(&store));
    // A script's own connection: its close cannot checkpoint while the warm connection
    // holds the file, so acc.db is unchanged and the warm connection is taken.
    let c = rusqlite::Connection::open(&store).unwrap();
    assert_eq!(c.execute("DELETE FROM claims", []).unwrap(), 1);
    drop(c);
    let before = warm::reuses(&store);
    drop(sb.core());
    assert_eq!(
        warm::reuses(&store),
        before + 1,
        "judged by the warm connection"
    );
    let marker = tamper::read(&store).expect("the deletion was found");
    assert_eq!(marker.kind, TamperKind::ClaimsDeleted);
    assert!(
        marker.detail.contains("1 guarded claim(s) gone"),
        "{}",
        marker.detail
    );
}

#[test]
fn a_store_removed_between_two_warm_uses_is_marked_missing() {
    let (sb, store) = warm_store_with_a_guarded_claim();
    std::fs::remove_file(&store).unwrap();
    drop(sb.core());
    let marker = tamper::read(&store).expect("the removal was found");
    assert_eq!(marker.kind, TamperKind::StoreMissing);
    assert_eq!(
        warm::idle(&store),
        1,
        "only the new store's connection is kept"
    );
}
