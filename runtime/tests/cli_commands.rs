//! Every `acc` command, run as a process in a temporary data home and workspace, in human
//! mode and in `--json` mode. The transcripts are pinned with insta snapshots (ids and
//! temporary paths redacted, time fixed through the test-only clock).

mod common;

use common::transcript::Transcript;
use common::{Run, Sandbox};

impl Transcript<'_> {
    fn record(&mut self, owner: Option<&(String, String)>, args: &[&str]) -> Run {
        let who = owner.map(|o| self.red.apply(&o.0));
        self.run(who.as_deref(), owner, args)
    }

    fn attach(&mut self, participant: &str, extra: &[&str]) -> (String, String) {
        let mut args = vec!["attach", "--participant", participant];
        args.extend_from_slice(extra);
        let r = self.record(None, &args);
        assert_eq!(r.code, 0);
        if self.json {
            let v = r.json();
            (
                v["data"]["sessionId"].as_str().unwrap().to_string(),
                v["data"]["generation"].as_str().unwrap().to_string(),
            )
        } else {
            let mut p = r.stdout.split_whitespace();
            (p.next().unwrap().to_string(), p.next().unwrap().to_string())
        }
    }
}

/// Reads (never recorded): the ids later commands need.
fn first_inbox_id(sb: &Sandbox, owner: &(String, String)) -> String {
    let v = sb.run_as(owner, &["inbox", "--json"]).json();
    v["data"]["items"][0]["messageId"]
        .as_str()
        .unwrap()
        .to_string()
}

fn first_claim_of(sb: &Sandbox, participant: &str) -> String {
    let v = sb.run(&["status", "--json"]).json();
    let claims = v["data"]["claims"].as_array().unwrap();
    claims
        .iter()
        .find(|c| c["ownerParticipantId"] == participant)
        .unwrap()["claimId"]
        .as_str()
        .unwrap()
        .to_string()
}

fn scenario(json: bool) -> String {
    let sb = Sandbox::new();
    let mut t = Transcript::new(&sb, json);
    t.record(None, &["version"]);
    t.record(None, &["status"]);
    assert!(
        sb.store_files().is_empty(),
        "status never creates the store"
    );
    t.record(None, &["config", "validate"]);
    let alice = t.attach("alice", &["--enforcement", "guarded"]);
    let bob = t.attach("bob", &["--harness", "codex", "--enforcement", "guarded"]);
    t.record(Some(&alice), &["heartbeat"]);
    t.record(
        Some(&alice),
        &[
            "work",
            "--summary",
            "refactor the parser",
            "--hint",
            "file:src/parser/**",
        ],
    );
    let r = t.record(
        Some(&alice),
        &[
            "claim",
            "--resource",
            "file:src/**",
            "--enforcement",
            "guarded",
        ],
    );
    assert_eq!(r.code, 0);
    let r = t.record(
        Some(&bob),
        &["claim", "--resource", "file:./src//a/../lib.rs"],
    );
    assert_eq!(r.code, 5);
    t.record(
        Some(&bob),
        &[
            "claim",
            "--resource",
            "file:docs/**",
            "--reason",
            "docs pass",
        ],
    );
    t.record(
        Some(&bob),
        &["claim", "--resource", "file:docs/**", "--lease", "600"],
    );
    t.record(
        Some(&bob),
        &[
            "message",
            "--to",
            "alice",
            "--type",
            "question",
            "--subject",
            "may I edit src/lib.rs?",
            "--body",
            "only the error type",
        ],
    );
    t.record(
        Some(&alice),
        &[
            "message",
            "--subject",
            "parser frozen",
            "--body",
            "until the refactor lands",
        ],
    );
    t.record(
        Some(&alice),
        &[
            "request",
            "--to",
            "codex",
            "--title",
            "review the parser",
            "--detail",
            "src/parser/**",
        ],
    );
    t.record(Some(&alice), &["inbox"]);
    let question = first_inbox_id(&sb, &alice);
    t.record(Some(&alice), &["inbox", "--message", &question]);
    let r = t.record(Some(&alice), &["ack", "--message", &question]);
    assert_eq!(r.code, 5);
    t.record(
        Some(&alice),
        &["reply", "--message", &question, "--body", "yes, go ahead"],
    );
    let room_note = first_inbox_id(&sb, &bob);
    t.record(Some(&bob), &["ack", "--message", &room_note]);
    t.record(Some(&bob), &["sync", "--scope", "full"]);
    t.record(
        Some(&bob),
        &["sync", "--cursor", "0000000000000010", "--limit", "3"],
    );
    t.record(Some(&alice), &["status"]);
    t.record(Some(&bob), &["release", "--resource", "file:docs/**"]);
    let alices = first_claim_of(&sb, "alice");
    // Only a person asserts an authority: typed at a terminal.
    sb.terminal.set(true);
    t.record(
        Some(&bob),
        &[
            "release",
            "--claim",
            &alices,
            "--authority",
            "human",
            "--reason",
            "alice is away",
        ],
    );
    sb.terminal.set(false);
    t.record(Some(&alice), &["work", "--clear"]);
    t.record(
        Some(&bob),
        &[
            "finish",
            "--goal",
            "error type",
            "--status",
            "partial",
            "--to",
            "alice",
            "--completed",
            "renamed variants",
            "--remaining",
            "docs",
        ],
    );
    t.record(Some(&alice), &["detach", "--reason", "done for today"]);
    t.record(None, &["prune"]);
    t.record(None, &["prune", "--apply", "--class", "intents"]);
    t.record(None, &["config", "init", "--yes"]);
    t.record(None, &["config", "validate"]);
    t.record(None, &["status", "--all"]);
    t.text
}

#[test]
fn every_command_in_human_mode() {
    insta::assert_snapshot!("human_transcript", scenario(false));
}

#[test]
fn every_command_in_json_mode() {
    insta::assert_snapshot!("json_transcript", scenario(true));
}

#[test]
fn help_is_available_for_every_command() {
    let sb = Sandbox::new();
    for cmd in [
        "attach",
        "heartbeat",
        "detach",
        "status",
        "sync",
        "work",
        "claim",
        "release",
        "message",
        "request",
        "inbox",
        "reply",
        "ack",
        "finish",
        "prune",
        "config",
        "version",
    ] {
        let r = sb.run(&[cmd, "--help"]);
        assert_eq!(r.code, 0, "{cmd}");
        assert!(r.stdout.contains("Examples:"), "{cmd} --help has examples");
        assert!(r.stdout.contains("Usage: acc"), "{cmd}");
    }
    for cmd in ["init", "validate"] {
        let r = sb.run(&["config", cmd, "--help"]);
        assert_eq!(r.code, 0);
        assert!(r.stdout.contains("Examples:"));
    }
    insta::assert_snapshot!("claim_help", sb.run(&["claim", "--help"]).stdout);
    let r = sb.run(&["claim", "--help", "--json"]);
    assert_eq!(r.code, 0);
    insta::assert_snapshot!("claim_help_json", r.stdout);
}

#[test]
fn owner_can_come_from_flags_and_pairs_are_enforced() {
    let sb = Sandbox::new();
    let (s, g) = sb.attach("alice", &[]);
    let r = sb.run(&["heartbeat", "--session", &s, "--generation", &g]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let r = sb.run(&["heartbeat", "--session", &s]);
    assert_eq!(r.code, 2);
    let r = sb.run(&["heartbeat"]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("ACC_SESSION"), "{}", r.stderr);
    let r = sb.run(&[
        "heartbeat",
        "--session",
        &s,
        "--generation",
        "generation_stale0000000000000",
    ]);
    assert_eq!(r.code, 5, "{}", r.stderr);
    let r = sb.run_as(&(s.clone(), g.clone()), &["detach"]);
    assert_eq!(r.code, 0);
    let r = sb.run_as(&(s, g), &["heartbeat"]);
    assert_eq!(r.code, 5);
    assert!(r.stderr.contains("closed"), "{}", r.stderr);
}

#[test]
fn a_data_home_inside_the_workspace_is_refused() {
    let sb = Sandbox::new();
    let inside = sb.ws_path().join(".acc-data");
    let r = sb
        .cmd(&["attach", "--participant", "alice"])
        .env("ACC_DATA_HOME", &inside)
        .output()
        .unwrap();
    assert_eq!(r.status.code(), Some(2));
    assert!(!inside.exists(), "nothing written inside the workspace");
    let err = String::from_utf8(r.stderr).unwrap();
    assert!(err.contains("inside the workspace root"), "{err}");
}

#[test]
fn clients_are_addressed_by_name_only_when_unambiguous() {
    let sb = Sandbox::new();
    let a = sb.attach("alice", &[]);
    sb.attach("codex-1", &["--harness", "codex"]);
    let r = sb.run_as(
        &a,
        &["message", "--to", "codex", "--subject", "hi", "--body", ""],
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    sb.attach("codex-2", &["--harness", "codex"]);
    let r = sb.run_as(
        &a,
        &["message", "--to", "codex", "--subject", "hi", "--body", ""],
    );
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("codex-1, codex-2"), "{}", r.stderr);
}

#[test]
fn a_later_session_releases_and_status_names_the_claim_its_ended_session_left() {
    let sb = Sandbox::new();
    let bob = sb.attach("bob", &[]);
    let first = sb.attach("alice", &[]);
    let r = sb.run_as(
        &first,
        &[
            "claim",
            "--resource",
            "file:src/**",
            "--enforcement",
            "guarded",
        ],
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(sb.run_as(&first, &["detach"]).code, 0);
    // The claim outlives its session, and status says whose it is and that the session ended.
    let human = sb.run(&["status"]);
    assert_eq!(
        human.stdout.trim_end(),
        "1 live: bob; 1 claim(s): file:src/** by alice (session ended); protection advisory"
    );
    let v = sb.run(&["status", "--json"]).json();
    assert_eq!(v["data"]["claims"][0]["ownerParticipantId"], "alice");
    assert_eq!(v["data"]["claims"][0]["ownerSession"], "ended");
    // Another participant still cannot release it.
    let r = sb.run_as(&bob, &["release", "--resource", "file:src/**"]);
    assert_eq!(r.code, 4, "{}", r.stderr);
    // Alice's next session can.
    let second = sb.attach("alice", &[]);
    let r = sb.run_as(&second, &["release", "--resource", "file:src/**"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.starts_with("released claim_"), "{}", r.stdout);
    let v = sb.run(&["status", "--json"]).json();
    assert_eq!(v["data"]["claims"], serde_json::json!([]));
}
