//! The loud path (issue 24 §2): an `acc` command that reaches a live agent session from a
//! process outside that session's client (an agent's process that left its client's tree
//! with `setsid -f`, or a person's shell, which acc cannot tell apart) is recorded with the
//! caller's process chain, told to the owner and shown in status; a release or detach is
//! held until the owner, from its own client, or a person confirms. Judged by outcome: the
//! claim is still held, the session still open, until a confirmation carries it out.

mod common;

use common::{Run, Sandbox};

fn status(sb: &Sandbox) -> serde_json::Value {
    sb.run(&["status", "--json", "--all"]).json()["data"].clone()
}

fn claim_ids(sb: &Sandbox) -> Vec<String> {
    status(sb)["claims"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["claimId"].as_str().unwrap().to_string())
        .collect()
}

fn session_state(sb: &Sandbox, session: &str) -> String {
    status(sb)["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["sessionId"] == session)
        .map(|s| s["state"].as_str().unwrap().to_string())
        .unwrap_or_default()
}

fn ok(r: &Run) -> serde_json::Value {
    assert_eq!(r.code, 0, "{} {}", r.stdout, r.stderr);
    r.json()["data"].clone()
}

fn held_seq(data: &serde_json::Value) -> u64 {
    assert_eq!(data["state"], "held", "{data}");
    data["takeover"]["number"].as_u64().unwrap()
}

/// A process that stands for another client, alive until dropped.
struct OtherClient(std::process::Child);

impl OtherClient {
    fn start() -> OtherClient {
        OtherClient(
            std::process::Command::new("sleep")
                .arg("600")
                .spawn()
                .unwrap(),
        )
    }

    fn pid(&self) -> u32 {
        self.0.id()
    }

    fn end(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

impl Drop for OtherClient {
    fn drop(&mut self) {
        self.end();
    }
}

#[test]
fn an_escaped_process_with_the_owner_s_credentials_is_held_told_and_settled_by_the_owner() {
    let sb = Sandbox::new();
    let alice = sb.attach("alice", &["--enforcement", "guarded"]);
    // Alice's conversation runs in this test process: what the test runs directly is
    // alice's agent; what it starts with `setsid -f` has left alice's client.
    sb.bind_client(&alice, std::process::id());
    sb.claim_guarded(&alice, "file:src/**");
    let claim = claim_ids(&sb)[0].clone();

    let release = sb.run_escaped(Some(&alice), &["release", "--claim", &claim, "--json"]);
    let release_seq = held_seq(&ok(&release));
    let detach = sb.run_escaped(Some(&alice), &["detach", "--json"]);
    let detach_seq = held_seq(&ok(&detach));
    assert_eq!(claim_ids(&sb), vec![claim.clone()], "the claim stays held");
    assert_eq!(session_state(&sb, &alice.0), "open");

    // Status shows both, with the processes that asked: not this test, which is alice's client.
    let takeovers = status(&sb)["takeovers"].clone();
    assert_eq!(takeovers["held"], 2, "{takeovers}");
    let chain = takeovers["listed"][0]["process"].as_array().unwrap();
    assert!(!chain.is_empty(), "{takeovers}");
    assert!(
        chain
            .iter()
            .all(|p| p["pid"].as_u64() != Some(u64::from(std::process::id()))),
        "{takeovers}"
    );
    let line = sb.run(&["status"]).stdout;
    assert!(line.contains("2 HELD takeover(s)"), "{line}");

    // The owner's next turn is told (the hook's notice text, from the same store).
    let mut core = sb.core();
    let owner = acc_runtime::Owner::new(
        acc_runtime::ids::SessionId::parse(&alice.0).unwrap(),
        acc_runtime::ids::Generation::parse(&alice.1).unwrap(),
    );
    let notices = core.unshown_write_notices(&owner).unwrap();
    let text = acc_runtime::hook::deny_events::notices_text(&notices);
    assert!(text.contains("release of your claim"), "{text}");
    assert!(
        text.contains(&format!("acc takeover refuse {release_seq}")),
        "{text}"
    );
    drop(core);

    // The escaped process cannot settle what it asked, with or without the credentials.
    let self_confirm = sb.run_escaped(
        Some(&alice),
        &["takeover", "confirm", &release_seq.to_string(), "--json"],
    );
    assert_eq!(self_confirm.code, 5, "{}", self_confirm.stdout);
    let no_person = sb.run_escaped(
        None,
        &["takeover", "confirm", &release_seq.to_string(), "--json"],
    );
    assert_eq!(no_person.code, 5, "{}", no_person.stdout);
    assert_eq!(claim_ids(&sb), vec![claim.clone()]);

    // The owner, from inside its client, refuses the detach and confirms the release.
    let refused = sb.run_as(
        &alice,
        &["takeover", "refuse", &detach_seq.to_string(), "--json"],
    );
    assert_eq!(ok(&refused)["takeover"]["state"], "refused");
    assert_eq!(session_state(&sb, &alice.0), "open");
    let confirmed = sb.run_as(
        &alice,
        &["takeover", "confirm", &release_seq.to_string(), "--json"],
    );
    assert_eq!(ok(&confirmed)["takeover"]["state"], "confirmed");
    assert!(claim_ids(&sb).is_empty(), "the confirmed release happened");
    let again = sb.run_as(
        &alice,
        &["takeover", "confirm", &release_seq.to_string(), "--json"],
    );
    assert_eq!(again.code, 5, "{}", again.stdout);
}

#[test]
fn other_commands_from_an_escaped_process_are_done_and_told() {
    let sb = Sandbox::new();
    let alice = sb.attach("alice", &[]);
    let _bob = sb.attach("bob", &[]);
    sb.bind_client(&alice, std::process::id());
    let sent = sb.run_escaped(
        Some(&alice),
        &[
            "message",
            "--to",
            "bob",
            "--subject",
            "hi",
            "--body",
            "b",
            "--json",
        ],
    );
    assert_eq!(sent.code, 0, "{} {}", sent.stdout, sent.stderr);
    let takeovers = status(&sb)["takeovers"].clone();
    assert_eq!(takeovers["total"], 1, "{takeovers}");
    assert_eq!(takeovers["held"], 0, "{takeovers}");
    assert_eq!(takeovers["listed"][0]["kind"], "actedAs");
    assert_eq!(takeovers["listed"][0]["command"], "message");
    // Run by alice's own agent (inside its client), nothing is recorded.
    let own = sb.run_as(
        &alice,
        &[
            "message",
            "--to",
            "bob",
            "--subject",
            "again",
            "--body",
            "b",
        ],
    );
    assert_eq!(own.code, 0, "{}", own.stderr);
    assert_eq!(status(&sb)["takeovers"]["total"], 1);
}

#[test]
fn a_person_s_forced_release_waits_while_the_owner_is_live_and_is_told_when_it_is_not() {
    let sb = Sandbox::new();
    let alice = sb.attach("alice", &["--enforcement", "guarded"]);
    let mut client = OtherClient::start();
    sb.bind_client(&alice, client.pid());
    sb.claim_guarded(&alice, "file:src/**");
    let claim = claim_ids(&sb)[0].clone();

    sb.terminal.set(true);
    let forced = sb.run(&[
        "release",
        "--claim",
        &claim,
        "--authority",
        "human",
        "--reason",
        "stuck",
    ]);
    assert_eq!(forced.code, 0, "{}", forced.stdout);
    assert!(forced.stdout.contains("held takeover"), "{}", forced.stdout);
    sb.terminal.set(false);
    assert_eq!(
        claim_ids(&sb),
        vec![claim.clone()],
        "held while alice is live"
    );
    // (The test's own `claim` with alice's credentials, from outside her client, was told
    // too: an `actedAs`.)
    let seq = forced_releases(&sb)[0]["number"].as_u64().unwrap();

    // Without a terminal nobody is shown to be a person.
    let quiet = sb.run(&["takeover", "confirm", &seq.to_string(), "--json"]);
    assert_eq!(quiet.code, 5, "{}", quiet.stdout);
    sb.terminal.set(true);
    let confirmed = sb.run(&["takeover", "confirm", &seq.to_string()]);
    sb.terminal.set(false);
    assert_eq!(confirmed.code, 0, "{}", confirmed.stdout);
    assert!(claim_ids(&sb).is_empty());

    // With alice's client gone the release happens at once, and is still told.
    sb.claim_guarded(&alice, "file:docs/**");
    let docs = claim_ids(&sb)[0].clone();
    client.end();
    sb.terminal.set(true);
    let at_once = sb.run(&["release", "--claim", &docs, "--authority", "human"]);
    sb.terminal.set(false);
    assert_eq!(at_once.code, 0, "{}", at_once.stdout);
    assert!(claim_ids(&sb).is_empty(), "released at once");
    let forced = forced_releases(&sb);
    assert_eq!(forced.len(), 2, "{forced:?}");
    assert_eq!(forced[0]["state"], "confirmed", "{forced:?}");
    assert_eq!(forced[1]["state"], "done", "{forced:?}");
}

fn forced_releases(sb: &Sandbox) -> Vec<serde_json::Value> {
    status(sb)["takeovers"]["listed"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["kind"] == "forcedRelease")
        .cloned()
        .collect()
}

#[test]
fn a_session_attached_under_a_live_agent_s_name_claims_nothing_until_confirmed() {
    let sb = Sandbox::new();
    let alice = sb.attach("alice", &[]);
    let client = OtherClient::start();
    sb.bind_client(&alice, client.pid());

    let taken = sb.run(&["attach", "--participant", "alice", "--json"]);
    let data = ok(&taken);
    let taker = (
        data["sessionId"].as_str().unwrap().to_string(),
        data["generation"].as_str().unwrap().to_string(),
    );
    let seq = data["takeover"]["number"].as_u64().unwrap();
    assert_eq!(data["takeover"]["state"], "held");

    let claim = sb.run_as(&taker, &["claim", "--resource", "file:src/**", "--json"]);
    assert_eq!(claim.code, 5, "{}", claim.stdout);
    assert!(claim.stdout.contains("takeover_held"), "{}", claim.stdout);
    assert!(claim_ids(&sb).is_empty());

    sb.terminal.set(true);
    let confirmed = sb.run(&["takeover", "confirm", &seq.to_string()]);
    sb.terminal.set(false);
    assert_eq!(confirmed.code, 0, "{}", confirmed.stdout);
    let claim = sb.run_as(&taker, &["claim", "--resource", "file:src/**"]);
    assert_eq!(claim.code, 0, "{}", claim.stderr);
    assert_eq!(claim_ids(&sb).len(), 1);
}
