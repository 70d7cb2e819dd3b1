//! A claim another session's live claim conflicts with is refused from the claims proof
//! beside the store (`store::claims_proof`), without opening SQLite, with the bytes the
//! store path says; anything the proof does not prove (a forged, copied-back or stale
//! proof, a replaced store, a claim run out or released since, an inheritable claim) is
//! judged by the store, which grants.

mod common;

use common::{Redactor, Sandbox};
use std::io::{Seek, Write};
use std::path::{Path, PathBuf};

const RESOURCE: &str = "file:src/x.rs";

fn store_dir(sb: &Sandbox) -> PathBuf {
    sb.db_path().parent().unwrap().to_path_buf()
}

fn proof(sb: &Sandbox) -> PathBuf {
    store_dir(sb).join("claims-proof.tsv")
}

fn token(sb: &Sandbox) -> PathBuf {
    store_dir(sb).join("guard-token")
}

/// Writes `bytes` over `path` in place (same inode: the store keeps its identity).
fn overwrite(path: &Path, bytes: &[u8]) {
    let mut f = std::fs::OpenOptions::new().write(true).open(path).unwrap();
    f.set_len(0).unwrap();
    f.rewind().unwrap();
    f.write_all(bytes).unwrap();
}

/// Runs `f` with the store's bytes zeroed in place (same inode) and puts them back: a claim
/// that opened SQLite meanwhile would fail.
fn with_store_zeroed<T>(sb: &Sandbox, f: impl FnOnce() -> T) -> T {
    let db = sb.db_path();
    let saved = std::fs::read(&db).unwrap();
    overwrite(&db, &vec![0u8; saved.len()]);
    let out = f();
    overwrite(&db, &saved);
    out
}

fn claim(sb: &Sandbox, owner: &(String, String), extra: &[&str]) -> common::Run {
    let mut args = vec!["claim", "--resource", RESOURCE];
    args.extend_from_slice(extra);
    sb.run_as(owner, &args)
}

/// Two participants; `a` holds RESOURCE.
fn held() -> (Sandbox, (String, String), (String, String)) {
    let sb = Sandbox::new();
    let a = sb.attach("alice", &[]);
    let b = sb.attach("bob", &[]);
    claim(&sb, &a, &[]).ok();
    assert!(
        proof(&sb).exists(),
        "the claim's publication wrote the proof"
    );
    (sb, a, b)
}

#[test]
fn a_proven_conflict_is_refused_without_the_store_in_the_store_paths_bytes() {
    let (sb, _a, b) = held();
    let mut red = Redactor::new(&sb);
    for extra in [&[][..], &["--json"][..], &["--mode", "shared"][..]] {
        let fast = claim(&sb, &b, extra);
        assert_eq!(fast.code, 5, "{}", fast.stderr);
        // The store's bytes replaced in place: a refusal that opened SQLite would fail.
        let blind = with_store_zeroed(&sb, || claim(&sb, &b, extra));
        assert_eq!(
            (blind.code, &blind.stdout, &blind.stderr),
            (fast.code, &fast.stdout, &fast.stderr),
            "answered from the proof"
        );
        // Without the token the store path answers: the same bytes.
        std::fs::remove_file(token(&sb)).unwrap();
        let store = claim(&sb, &b, extra);
        assert_eq!(
            (store.code, &store.stdout, &store.stderr),
            (fast.code, &fast.stdout, &fast.stderr),
            "{extra:?}"
        );
        // A write publishes the token again (the refusal wrote nothing).
        sb.run_as(&b, &["claim", "--resource", "file:other.rs"])
            .ok();
        assert!(token(&sb).exists());
        insta::assert_snapshot!(
            format!("claim_conflict{}", extra.join("_")),
            format!(
                "exit {}\n--- stdout\n{}--- stderr\n{}",
                fast.code,
                red.apply(&fast.stdout),
                red.apply(&fast.stderr)
            )
        );
    }
}

#[test]
fn a_claim_during_a_write_waits_for_its_publication_and_refuses_from_it() {
    let (sb, _a, b) = held();
    let fast = claim(&sb, &b, &[]);
    assert_eq!(fast.code, 5, "{}", fast.stderr);
    // The token withdrawn, as a writer does before it commits; its publication comes a few
    // milliseconds after the claim started.
    let aside = store_dir(&sb).join("guard-token.aside");
    std::fs::rename(token(&sb), &aside).unwrap();
    let waited = with_store_zeroed(&sb, || {
        let published = {
            let token = token(&sb);
            std::thread::spawn(move || {
                std::thread::sleep(std::time::Duration::from_millis(3));
                std::fs::rename(&aside, &token).unwrap();
            })
        };
        let waited = claim(&sb, &b, &[]);
        published.join().unwrap();
        waited
    });
    // The store's bytes were zeroes throughout: a claim that had opened SQLite would fail.
    assert_eq!(
        (waited.code, &waited.stdout, &waited.stderr),
        (fast.code, &fast.stdout, &fast.stderr),
        "answered from what the write published"
    );
    // A writer that died after withdrawing: no token comes, the store answers (and grants a
    // claim nobody holds), after the wait.
    std::fs::remove_file(token(&sb)).unwrap();
    let store = claim(&sb, &b, &[]);
    assert_eq!(
        (store.code, &store.stdout, &store.stderr),
        (fast.code, &fast.stdout, &fast.stderr)
    );
    let free = sb.run_as(&b, &["claim", "--resource", "file:free.rs"]);
    assert_eq!(free.code, 0, "{}", free.stderr);
    assert!(token(&sb).exists(), "the grant published again");
}

#[test]
fn a_proven_refusal_writes_nothing() {
    let (sb, _a, b) = held();
    // Every process closed: the WAL is checkpointed into acc.db.
    let before = sb.store_bytes();
    let files_before = sb.store_files();
    let r = claim(&sb, &b, &[]);
    assert_eq!(r.code, 5, "{}", r.stderr);
    assert_eq!(sb.store_bytes(), before);
    assert_eq!(sb.store_files(), files_before);
}

/// `b`'s claim of RESOURCE is granted: the store judged it.
fn granted(sb: &Sandbox, b: &(String, String)) {
    let r = claim(sb, b, &[]);
    assert_eq!(r.code, 0, "granted by the store: {}", r.stderr);
    assert_eq!(r.stdout.trim(), format!("claimed {RESOURCE}"));
}

#[test]
fn a_forged_proof_refuses_nothing() {
    let sb = Sandbox::new();
    let a = sb.attach("alice", &[]);
    let b = sb.attach("bob", &[]);
    sb.run_as(&a, &["claim", "--resource", "file:elsewhere.rs"])
        .ok();
    // alice's claim moved onto RESOURCE in the proof, edited in place.
    let text = std::fs::read_to_string(proof(&sb)).unwrap();
    assert!(text.contains("file:elsewhere.rs"), "{text}");
    overwrite(
        &proof(&sb),
        text.replace("file:elsewhere.rs", RESOURCE).as_bytes(),
    );
    granted(&sb, &b);
}

#[test]
fn a_proof_copied_back_with_its_token_refuses_nothing() {
    let (sb, a, b) = held();
    let saved_proof = std::fs::read(proof(&sb)).unwrap();
    let saved_token = std::fs::read(token(&sb)).unwrap();
    sb.run_as(&a, &["release", "--resource", RESOURCE]).ok();
    std::fs::write(proof(&sb), saved_proof).unwrap();
    std::fs::write(token(&sb), saved_token).unwrap();
    granted(&sb, &b);
}

#[test]
fn a_store_replaced_by_another_file_is_not_answered_for_from_the_old_proof() {
    let sb = Sandbox::new();
    let a = sb.attach("alice", &[]);
    let b = sb.attach("bob", &[]);
    sb.run_as(&a, &["claim", "--resource", "file:elsewhere.rs"])
        .ok();
    let earlier = sb.store_bytes();
    claim(&sb, &a, &[]).ok();
    // The store before alice's claim, as a new file (the old one kept aside, so its inode
    // is not reused); the proof and token stay.
    let db = sb.db_path();
    std::fs::rename(&db, db.with_file_name("aside.db")).unwrap();
    std::fs::write(&db, earlier).unwrap();
    granted(&sb, &b);
}

#[test]
fn a_claim_run_out_since_the_proof_refuses_nothing() {
    let sb = Sandbox::new();
    let a = sb.attach("alice", &[]);
    let b = sb.attach("bob", &[]);
    claim(&sb, &a, &["--lease", "60"]).ok();
    let later = "2026-12-02T12:01:01.000Z";
    let r = common::Run::from(
        sb.cmd(&["claim", "--resource", RESOURCE])
            .env("ACC_TEST_CLOCK", later)
            .env("ACC_SESSION", &b.0)
            .env("ACC_GENERATION", &b.1)
            .output()
            .unwrap(),
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
}

#[test]
fn a_released_claim_refuses_nothing() {
    let (sb, a, b) = held();
    sb.run_as(&a, &["release", "--resource", RESOURCE]).ok();
    granted(&sb, &b);
}

#[test]
fn an_ended_sessions_claim_is_adopted_through_the_store() {
    let sb = Sandbox::new();
    let a = sb.attach("alice", &[]);
    claim(&sb, &a, &[]).ok();
    sb.run_as(&a, &["detach"]).ok();
    let a2 = sb.attach("alice", &[]);
    let r = claim(&sb, &a2, &[]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.starts_with("adopted"), "{}", r.stdout);
}

#[test]
fn shared_claims_do_not_conflict() {
    let sb = Sandbox::new();
    let a = sb.attach("alice", &[]);
    let b = sb.attach("bob", &[]);
    claim(&sb, &a, &["--mode", "shared"]).ok();
    let r = claim(&sb, &b, &["--mode", "shared"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
}

#[test]
fn wrong_credentials_are_refused_by_the_store_not_as_a_conflict() {
    let (sb, _a, b) = held();
    let wrong = (b.0.clone(), "generation_AAAAAAAAAAAAAAAAAAAAAA".to_string());
    let r = claim(&sb, &wrong, &[]);
    assert_ne!(r.code, 0);
    assert!(
        r.stderr.contains("was reopened since generation") && !r.stderr.contains("conflicts"),
        "{}",
        r.stderr
    );
}

#[test]
fn a_stale_holder_is_named_by_the_store_path() {
    let (sb, _a, b) = held();
    // Hours later, within the lease: alice's presence is no longer provably online.
    let later = "2026-12-02T12:20:00.000Z";
    let run = |sb: &Sandbox| {
        common::Run::from(
            sb.cmd(&["claim", "--resource", RESOURCE])
                .env("ACC_TEST_CLOCK", later)
                .env("ACC_SESSION", &b.0)
                .env("ACC_GENERATION", &b.1)
                .output()
                .unwrap(),
        )
    };
    let with_proof = run(&sb);
    std::fs::remove_file(token(&sb)).unwrap();
    let store = run(&sb);
    assert_eq!(with_proof.code, 5, "{}", with_proof.stderr);
    assert_eq!(
        (&with_proof.stdout, &with_proof.stderr),
        (&store.stdout, &store.stderr)
    );
}

#[test]
fn a_peers_unusual_spelling_is_shown_escaped_on_both_paths() {
    let sb = Sandbox::new();
    let a = sb.attach("alice", &[]);
    let b = sb.attach("bob", &[]);
    let odd = "file:docs/\"acc\"`says`\u{200b}hi";
    sb.run_as(&a, &["claim", "--resource", odd]).ok();
    let args = ["claim", "--resource", odd];
    let fast = sb.run_as(&b, &args);
    let blind = with_store_zeroed(&sb, || sb.run_as(&b, &args));
    std::fs::remove_file(token(&sb)).unwrap();
    let store = sb.run_as(&b, &args);
    for r in [&fast, &blind] {
        assert_eq!(
            (r.code, &r.stdout, &r.stderr),
            (store.code, &store.stdout, &store.stderr)
        );
    }
    assert_eq!(store.code, 5, "{}", store.stderr);
    assert!(
        store.stderr.contains(
            r#"conflicts with "file:docs/\"acc\"`says`\u200bhi" held exclusive by alice"#
        ),
        "{}",
        store.stderr
    );
}
