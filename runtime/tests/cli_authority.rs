//! An authority is not self-asserted (issue 11 §2): `acc release --claim <peer's claim>
//! --authority human` works for a person at a terminal, and is refused with
//! `authority_needs_person` (exit 5, the claim untouched) for a caller without a terminal
//! or one that runs under the client process of a hooked conversation, even on a
//! terminal it made itself.

mod common;

use acc_runtime::core::bindings::binding_key;
use acc_runtime::workspace::{self, pin};
use common::Sandbox;

/// The claim ids in the room.
fn claims(sb: &Sandbox) -> Vec<String> {
    let v = sb.run(&["status", "--json"]).json();
    v["data"]["claims"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["claimId"].as_str().unwrap().to_string())
        .collect()
}

/// Alice holds a guarded claim; returns bob (who will try to force it) and the claim id.
fn held_by_alice(sb: &Sandbox) -> ((String, String), String) {
    let alice = sb.attach("alice", &[]);
    let bob = sb.attach("bob", &[]);
    sb.claim_guarded(&alice, "file:src/**");
    let held = claims(sb);
    assert_eq!(held.len(), 1);
    (bob, held[0].clone())
}

fn force(sb: &Sandbox, bob: &(String, String), claim: &str) -> common::Run {
    sb.run_as(
        bob,
        &[
            "release",
            "--claim",
            claim,
            "--authority",
            "human",
            "--json",
        ],
    )
}

fn assert_refused(r: &common::Run, why: &str) {
    assert_eq!(r.code, 5, "{} {}", r.stdout, r.stderr);
    let v: serde_json::Value = serde_json::from_str(r.stdout.trim()).unwrap();
    assert_eq!(v["error"]["details"]["reason"], "authority_needs_person");
    assert_eq!(v["error"]["details"]["why"], why);
    let message = v["error"]["message"].as_str().unwrap();
    assert!(message.contains("ask the user"), "{message}");
}

#[test]
fn without_a_terminal_an_authority_is_refused_and_the_claim_stays() {
    let sb = Sandbox::new();
    let (bob, claim) = held_by_alice(&sb);
    let r = force(&sb, &bob, &claim);
    assert_refused(&r, "noTerminal");
    assert_eq!(claims(&sb), vec![claim]);
}

#[test]
fn a_person_at_a_terminal_may_release_a_peers_claim() {
    let sb = Sandbox::new();
    let (bob, claim) = held_by_alice(&sb);
    sb.terminal.set(true);
    let r = force(&sb, &bob, &claim);
    sb.terminal.set(false);
    assert_eq!(r.code, 0, "{}", r.stdout);
    assert!(claims(&sb).is_empty());
}

#[test]
fn under_a_hooked_client_even_a_terminal_is_refused() {
    let sb = Sandbox::new();
    let (bob, claim) = held_by_alice(&sb);
    sb.hooked_client_is_this_test();
    sb.terminal.set(true);
    let r = force(&sb, &bob, &claim);
    sb.terminal.set(false);
    // The terminal merges stderr into stdout; --json keeps stdout one envelope.
    assert_refused(&r, "underHookedClient");
    assert_eq!(claims(&sb), vec![claim]);
}

#[test]
fn a_client_hooked_in_another_workspace_is_known_by_its_pin() {
    let sb = Sandbox::new();
    let (bob, claim) = held_by_alice(&sb);
    // The agent's conversation is bound elsewhere; only its pin under the data home says
    // which process its client is.
    let other = tempfile::tempdir().unwrap();
    let ws = workspace::discover(other.path(), &acc_runtime::env::Env::new()).unwrap();
    pin::write(
        &sb.data_path(),
        &binding_key("elsewhere"),
        &ws,
        &pin::PinFacts {
            client_pid: Some(std::process::id()),
            session_id: None,
        },
    )
    .unwrap();
    sb.terminal.set(true);
    let r = force(&sb, &bob, &claim);
    sb.terminal.set(false);
    assert_refused(&r, "underHookedClient");
    assert_eq!(claims(&sb), vec![claim]);
}
