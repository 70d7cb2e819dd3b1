//! The claims lock (`store::claim_lock`): a claim the proof cannot refuse takes the turn to
//! go to the store; a claim that finds another claim's turn in progress waits for it and
//! judges from what it published, without opening SQLite. What it publishes is trusted only
//! as any proof is: a proof forged or copied back during the wait, or a claim released
//! meanwhile, and the store judges. A lock file that is not acc's (a symlink, a fifo) or a
//! holder that never lets go only sends claims to the store.

mod common;

use acc_runtime::core::claims::ClaimRequest;
use acc_runtime::core::resources::Resource;
use acc_runtime::ids::{Generation, SessionId};
use acc_runtime::{Core, Owner};
use common::Sandbox;
use std::io::{Seek, Write};
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::time::Duration;

const RESOURCE: &str = "file:src/x.rs";

fn store_dir(sb: &Sandbox) -> PathBuf {
    sb.db_path().parent().unwrap().to_path_buf()
}

fn lock_path(sb: &Sandbox) -> PathBuf {
    store_dir(sb).join("claims.lock")
}

/// Writes `bytes` over `path` in place (same inode).
fn overwrite(path: &Path, bytes: &[u8]) {
    let mut f = std::fs::OpenOptions::new().write(true).open(path).unwrap();
    f.set_len(0).unwrap();
    f.rewind().unwrap();
    f.write_all(bytes).unwrap();
}

/// The claims lock held by this test, as a claim on the store path holds it.
fn hold(sb: &Sandbox) -> std::fs::File {
    let f = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(lock_path(sb))
        .expect("an earlier claim created the lock file");
    // SAFETY: flock on a descriptor this test owns.
    assert_eq!(unsafe { libc::flock(f.as_raw_fd(), libc::LOCK_EX) }, 0);
    f
}

fn owner(o: &(String, String)) -> Owner {
    Owner::new(
        SessionId::parse(&o.0).unwrap(),
        Generation::parse(&o.1).unwrap(),
    )
}

/// A claim written through the library, which takes no claims lock: another claim's turn
/// while the test holds the lock.
fn claim_in_turn(core: &mut Core, o: &(String, String), resource: &str) {
    core.claim(
        &owner(o),
        ClaimRequest::new(Resource::parse(resource).unwrap()),
    )
    .unwrap();
}

fn spawn_claim(sb: &Sandbox, o: &(String, String), resource: &str) -> Child {
    sb.cmd(&["claim", "--resource", resource])
        .env("ACC_SESSION", &o.0)
        .env("ACC_GENERATION", &o.1)
        .env("ACC_BENCH_CLAIM_PATH", "1")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// Starts `b`'s claim of RESOURCE while the test holds the lock, and checks it is waiting.
fn waiting_claim(sb: &Sandbox, b: &(String, String)) -> (std::fs::File, Child) {
    let lock = hold(sb);
    let mut child = spawn_claim(sb, b, RESOURCE);
    std::thread::sleep(Duration::from_millis(150));
    assert!(
        child.try_wait().unwrap().is_none(),
        "the claim waits for the turn in progress"
    );
    (lock, child)
}

fn finish(child: Child) -> common::Run {
    common::Run::from(child.wait_with_output().unwrap())
}

/// Two participants on the real clock; alice holds another resource, so a proof is
/// published and the lock file exists, and RESOURCE is free.
fn sandbox() -> (Sandbox, (String, String), (String, String)) {
    let sb = Sandbox::with_real_clock();
    let a = sb.attach("alice", &[]);
    let b = sb.attach("bob", &[]);
    sb.run_as(&a, &["claim", "--resource", "file:elsewhere.rs"])
        .ok();
    assert!(
        lock_path(&sb).is_file(),
        "a claim on the store path created the lock"
    );
    (sb, a, b)
}

#[test]
fn a_claim_that_waited_for_the_turn_is_refused_from_its_publication() {
    let (sb, a, b) = sandbox();
    let (lock, child) = waiting_claim(&sb, &b);
    let mut core = sb.core();
    claim_in_turn(&mut core, &a, RESOURCE);
    drop(core);
    // The store's bytes zeroed in place while the turn ends: a claim that opened SQLite
    // now would fail.
    let db = sb.db_path();
    let saved = std::fs::read(&db).unwrap();
    overwrite(&db, &vec![0u8; saved.len()]);
    drop(lock);
    let waited = finish(child);
    overwrite(&db, &saved);
    assert_eq!(waited.code, 5, "{}", waited.stderr);
    let (path, refusal) = waited.stderr.split_once('\n').unwrap();
    assert_eq!(path, "acc claim path: proof-after-turn");
    // The store path's bytes: the token removed, the store answers.
    std::fs::remove_file(store_dir(&sb).join("guard-token")).unwrap();
    let store = sb.run_as(&b, &["claim", "--resource", RESOURCE]);
    assert_eq!((store.code, store.stderr.as_str()), (5, refusal));
}

#[test]
fn a_proof_forged_during_the_wait_refuses_nothing() {
    let (sb, _a, b) = sandbox();
    let (lock, child) = waiting_claim(&sb, &b);
    // alice's claim moved onto RESOURCE in the proof, edited in place.
    let proof = store_dir(&sb).join("claims-proof.tsv");
    let text = std::fs::read_to_string(&proof).unwrap();
    overwrite(
        &proof,
        text.replace("file:elsewhere.rs", RESOURCE).as_bytes(),
    );
    drop(lock);
    let r = finish(child);
    assert_eq!(r.code, 0, "granted by the store: {}", r.stderr);
    assert_eq!(r.stdout.trim(), format!("claimed {RESOURCE}"));
}

#[test]
fn a_proof_copied_back_after_a_release_during_the_wait_refuses_nothing() {
    let (sb, a, b) = sandbox();
    let (lock, child) = waiting_claim(&sb, &b);
    let dir = store_dir(&sb);
    let mut core = sb.core();
    claim_in_turn(&mut core, &a, RESOURCE);
    let saved_proof = std::fs::read(dir.join("claims-proof.tsv")).unwrap();
    let saved_token = std::fs::read(dir.join("guard-token")).unwrap();
    core.release_resource(&owner(&a), &Resource::parse(RESOURCE).unwrap())
        .unwrap();
    drop(core);
    // The proof that showed alice's claim, with its token, put back after the release.
    std::fs::write(dir.join("claims-proof.tsv"), saved_proof).unwrap();
    std::fs::write(dir.join("guard-token"), saved_token).unwrap();
    drop(lock);
    let r = finish(child);
    assert_eq!(r.code, 0, "granted by the store: {}", r.stderr);
}

#[test]
fn a_release_during_the_wait_is_judged_from_the_new_proof() {
    // Two store writes happen inside the waiting claim's wait; a host too loaded to end
    // them within it sends the claim to the store without the lock (`store-timed-out`),
    // which says nothing about the proof, so that attempt is run again.
    for attempt in 1..=3 {
        let (sb, a, b) = sandbox();
        let mut core = sb.core();
        let (lock, child) = waiting_claim(&sb, &b);
        claim_in_turn(&mut core, &a, RESOURCE);
        core.release_resource(&owner(&a), &Resource::parse(RESOURCE).unwrap())
            .unwrap();
        drop(core);
        drop(lock);
        let r = finish(child);
        assert_eq!(r.code, 0, "{}", r.stderr);
        if r.stderr.contains("store-timed-out") && attempt < 3 {
            continue;
        }
        assert!(
            r.stderr.contains("store-no-conflict"),
            "the new proof shows no conflict: {}",
            r.stderr
        );
        return;
    }
}

#[test]
fn a_holder_that_never_lets_go_sends_claims_to_the_store() {
    let (sb, a, b) = sandbox();
    let _lock = hold(&sb);
    let r = finish(spawn_claim(&sb, &b, RESOURCE));
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stderr.contains("store-timed-out"), "{}", r.stderr);
    // And the store refuses what it must, lock or not.
    let r = finish(spawn_claim(&sb, &a, RESOURCE));
    assert_eq!(r.code, 5, "{}", r.stderr);
}

#[test]
fn a_lock_file_replaced_by_a_symlink_or_a_fifo_only_sends_claims_to_the_store() {
    let (sb, a, b) = sandbox();
    let lock = lock_path(&sb);
    let target = sb.tmp.path().join("elsewhere.lock");
    std::fs::remove_file(&lock).unwrap();
    std::os::unix::fs::symlink(&target, &lock).unwrap();
    let r = finish(spawn_claim(&sb, &b, RESOURCE));
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(!target.exists(), "the symlink was not followed");
    let r = finish(spawn_claim(&sb, &a, RESOURCE));
    assert_eq!(r.code, 5, "{}", r.stderr);

    std::fs::remove_file(&lock).unwrap();
    let name = std::ffi::CString::new(lock.to_str().unwrap()).unwrap();
    // SAFETY: a NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(name.as_ptr(), 0o600) }, 0);
    let r = finish(spawn_claim(&sb, &b, "file:src/y.rs"));
    assert_eq!(r.code, 0, "a fifo neither blocks nor locks: {}", r.stderr);
    assert!(r.stderr.contains("store-no-conflict"), "{}", r.stderr);
}
