//! A granted claim copies its WAL into `acc.db` itself, after it lets go of the claims' turn
//! and before its close (issue 30, the claim race's eleventh round). What that must keep:
//! after racing claims the store at rest is `acc.db` alone, holding every claim printed as
//! `claimed`; a claim killed at any moment (before, during or after its write, its
//! publication or its checkpoint) leaves a store that opens, judges the next claims and
//! keeps every claim another process printed.

mod common;

use common::Sandbox;
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::time::Duration;

const RACERS: usize = 6;
const ROUNDS: usize = 15;

fn spawn_claim(sb: &Sandbox, o: &(String, String), resource: &str) -> Child {
    sb.cmd(&["claim", "--resource", resource])
        .env("ACC_SESSION", &o.0)
        .env("ACC_GENERATION", &o.1)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

fn beside(db: &Path, suffix: &str) -> PathBuf {
    let mut p = db.as_os_str().to_owned();
    p.push(suffix);
    PathBuf::from(p)
}

/// The resources of the live claims `acc.db` holds when read alone (a copy without its
/// WAL, as a store at rest is), one entry per claim.
fn claims_in_db_alone(db: &Path) -> Vec<String> {
    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().join("alone.db");
    std::fs::copy(db, &copy).unwrap();
    let c = rusqlite::Connection::open(&copy).unwrap();
    let ok: String = c
        .query_row("PRAGMA integrity_check", [], |r| r.get(0))
        .unwrap();
    assert_eq!(ok, "ok");
    let mut st = c
        .prepare("SELECT resource FROM claims ORDER BY resource")
        .unwrap();
    st.query_map([], |r| r.get(0))
        .unwrap()
        .map(|r| r.unwrap())
        .collect()
}

/// The resources of the live claims the store holds, read as any process reads it (WAL
/// included).
fn claims_in_store(db: &Path) -> Vec<String> {
    let c = rusqlite::Connection::open(db).unwrap();
    let mut st = c.prepare("SELECT resource FROM claims").unwrap();
    st.query_map([], |r| r.get(0))
        .unwrap()
        .map(|r| r.unwrap())
        .collect()
}

#[test]
fn after_a_race_acc_db_alone_holds_every_claim_and_no_wal_is_left() {
    let sb = Sandbox::with_real_clock();
    let owners: Vec<_> = (0..RACERS)
        .map(|i| sb.attach(&format!("racer-{i}"), &[]))
        .collect();
    let mut printed = Vec::new();
    for round in 0..ROUNDS {
        let resource = format!("file:race/{round}.rs");
        let children: Vec<_> = owners
            .iter()
            .map(|o| spawn_claim(&sb, o, &resource))
            .collect();
        for child in children {
            let r = common::Run::from(child.wait_with_output().unwrap());
            match r.code {
                0 => printed.push(r.stdout.trim().to_string()),
                5 => assert!(r.stderr.contains("conflicts with"), "{}", r.stderr),
                other => panic!("round {round}: exit {other}: {}", r.stderr),
            }
        }
    }
    let expected: Vec<String> = (0..ROUNDS)
        .map(|round| format!("claimed file:race/{round}.rs"))
        .collect();
    printed.sort();
    let mut sorted = expected.clone();
    sorted.sort();
    assert_eq!(printed, sorted, "one winner a round");
    let db = sb.db_path();
    assert!(
        !beside(&db, "-wal").exists(),
        "the last close deleted the WAL"
    );
    assert!(!beside(&db, "-shm").exists());
    let mut held = claims_in_db_alone(&db);
    held.sort();
    let mut want: Vec<String> = (0..ROUNDS).map(|r| format!("file:race/{r}.rs")).collect();
    want.sort();
    assert_eq!(held, want);
}

#[test]
fn a_claim_killed_at_any_moment_leaves_a_store_that_opens_and_keeps_every_printed_claim() {
    let sb = Sandbox::with_real_clock();
    let killed = sb.attach("killed", &[]);
    let other = sb.attach("other", &[]);
    // A first claim creates the claims lock, the proof and the snapshot.
    assert_eq!(
        sb.run_as(&other, &["claim", "--resource", "file:warm.rs"])
            .code,
        0
    );
    let mut printed = vec!["file:warm.rs".to_string()];
    for step in 0..40u64 {
        let resource = format!("file:killed/{step}.rs");
        let mut child = spawn_claim(&sb, &killed, &resource);
        // Spread over a claim's life on this host (start, open, write, publication,
        // checkpoint, close), a little later each time.
        std::thread::sleep(Duration::from_micros(step * 500));
        let _ = child.kill();
        let r = common::Run::from(child.wait_with_output().unwrap());
        if r.stdout.trim() == format!("claimed {resource}") {
            printed.push(resource.clone());
        }
        // The store opens and judges: another session's claim of the same resource is
        // refused when the killed claim committed, granted otherwise, and one claim of the
        // resource is held after it either way.
        let next = sb.run_as(&other, &["claim", "--resource", &resource]);
        match next.code {
            0 => printed.push(resource.clone()),
            5 => assert!(next.stderr.contains("conflicts with"), "{}", next.stderr),
            code => panic!("step {step}: exit {code}: {}", next.stderr),
        }
        // Read with the WAL: a claim killed after its publication and before its checkpoint
        // is in the WAL, and a refusal from its proof opens no connection to copy it.
        let held = claims_in_store(&sb.db_path());
        assert_eq!(
            held.iter().filter(|h| **h == resource).count(),
            1,
            "step {step}: {held:?}"
        );
    }
    let status = sb.run(&["status", "--json"]);
    assert_eq!(status.code, 0, "{}", status.stderr);
    let db = sb.db_path();
    assert!(
        !beside(&db, "-wal").exists(),
        "the last close deleted the WAL"
    );
    let held = claims_in_db_alone(&db);
    for resource in &printed {
        assert!(
            held.contains(resource),
            "{resource} was printed as claimed and is not in acc.db: {held:?}"
        );
    }
}
