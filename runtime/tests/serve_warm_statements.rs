//! What a warm connection brings to the served turn (issue 30, eighth round): its compiled
//! statements. Each checkout configures the connection again as a fresh open does; that
//! must not expire the statements it compiled for earlier requests (a served turn compiled
//! every one of them again, 1.8 M instructions), and it must still leave foreign keys
//! enforced, as on a fresh open.
//!
//! Warm connections are enabled for this test binary only, as in `store_warm.rs`.

#[path = "store_warm_support/mod.rs"]
mod store_warm_support;
use store_warm_support::{genesis, ws};

use acc_runtime::store::{OpenMode, Store, warm};
use rusqlite::StatementStatus;
use std::path::Path;

/// A text no code of the store compiles (the open's own workspace check is cached under
/// `SELECT value FROM meta WHERE key = 'workspace_id'`), so its first run here is its first.
const QUERY: &str = "SELECT value FROM meta WHERE key = 'workspace_id' AND value IS NOT NULL";

fn open(path: &Path) -> Store {
    warm::enable();
    Store::open(path, &ws(), OpenMode::ReadWrite, genesis).unwrap()
}

/// The store at `path` opened on a kept connection (round `round` of a test).
fn warm_checkout(path: &Path, round: u32) -> Store {
    let before = warm::reuses(path);
    let s = open(path);
    assert_eq!(
        warm::reuses(path),
        before + 1,
        "round {round}: a warm checkout"
    );
    s
}

/// Runs [`QUERY`] through the connection's statement cache; how often SQLite compiled that
/// statement again since it was first compiled, and whether it was already cached.
fn run_cached(store: &mut Store) -> (i32, bool) {
    store
        .read(|c| {
            let c = c.as_sqlite().expect("a store file is SQLite");
            let cached = c.prepare_cached(QUERY)?;
            // A statement fresh from the compiler has run no step at all.
            let had_run = cached.get_status(StatementStatus::VmStep) > 0;
            drop(cached);
            let mut s = c.prepare_cached(QUERY)?;
            let id: String = s.query_row([], |r| r.get(0))?;
            assert_eq!(id, "ws1");
            Ok((s.get_status(StatementStatus::RePrepare), had_run))
        })
        .unwrap()
}

fn foreign_keys(store: &mut Store) -> i64 {
    store
        .read(|c| Ok(c.query_row("PRAGMA foreign_keys", [], |r| r.get(0))?))
        .unwrap()
}

#[test]
fn a_checkout_keeps_the_statements_compiled_and_foreign_keys_enforced() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("acc.db");
    let mut s = open(&path);
    assert_eq!(foreign_keys(&mut s), 1);
    assert_eq!(run_cached(&mut s), (0, false));
    drop(s);
    for round in 1..=3 {
        let mut s = warm_checkout(&path, round);
        // The statement compiled by the first user is still cached, and it was not
        // compiled again by the checkout's configuration.
        assert_eq!(run_cached(&mut s), (0, true), "round {round}");
        assert_eq!(foreign_keys(&mut s), 1, "round {round}");
        drop(s);
    }
}

/// A row that breaks a foreign key is refused on a warm connection as on a fresh one: the
/// checkout's configuration leaves enforcement on.
#[test]
fn a_warm_connection_refuses_a_broken_foreign_key() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("acc.db");
    drop(open(&path));
    for round in 0..2 {
        let mut s = warm_checkout(&path, round);
        let refused = s.write(|c| {
            c.execute(
                "INSERT INTO receipts (receipt_id, message_seq, message_id, \
                 recipient_participant_id, state, updated_at) \
                 VALUES ('r', 4242, 'm', 'p', 'queued', 1)",
                [],
            )?;
            Ok(())
        });
        let e = refused.expect_err("no message 4242: the receipt breaks its foreign key");
        assert!(e.message.contains("FOREIGN KEY"), "{}", e.message);
        drop(s);
    }
}
