//! `acc` served (`ACC_SERVE=1`) and local: the same output, exit codes and store for a
//! granted and a refused claim (with `--json` too), and the rule that an agent acts only as
//! itself judges the client, not the server.

mod common;
mod serve_support;

use common::{Redactor, Sandbox};
use serve_support::*;

/// Two participants claim the same file, plain and `--json`; what each printed, redacted.
fn claims(serve: bool, server_env: &[(&str, &str)]) -> (String, serde_json::Value) {
    let sb = Sandbox::new();
    let alice = sb.attach("alice", &[]);
    let bob = sb.attach("bob", &[]);
    let server = serve.then(|| Server::start(&sb.data_path(), server_env));
    let mut r = Redactor::new(&sb);
    let mut t = String::new();
    let mut claim = |owner: &(String, String), resource: &str, json: bool| {
        let mut c = sb.cmd(&["claim", "--resource", resource]);
        if json {
            c.arg("--json");
        }
        c.env("ACC_SESSION", &owner.0)
            .env("ACC_GENERATION", &owner.1);
        if serve {
            c.env("ACC_SERVE", "1");
        }
        let out = c.output().unwrap();
        let run = common::Run::from(out);
        t += &format!(
            "exit {}\n{}\n{}\n",
            run.code,
            r.apply(&run.stdout),
            r.apply(&run.stderr)
        );
        run.code
    };
    assert_eq!(claim(&alice, "file:src/a.rs", false), 0);
    assert_eq!(claim(&bob, "file:src/a.rs", false), 5);
    assert_eq!(claim(&alice, "file:src/b.rs", true), 0);
    assert_eq!(claim(&bob, "file:src/b.rs", true), 5);
    if let Some(server) = &server {
        assert_eq!(served(&sb.data_path()), Some(4), "every claim was served");
        assert_eq!(lock_pid(&sb.data_path()), Some(server.pid()));
    }
    let status = sb.run(&["status", "--json"]).json();
    let claims: Vec<_> = status["data"]["claims"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (c["resource"].clone(), c["ownerParticipantId"].clone()))
        .collect();
    (t, serde_json::json!(claims))
}

#[test]
fn a_served_claim_answers_and_writes_as_a_local_one() {
    let (local, local_claims) = claims(false, &[]);
    let (served, served_claims) = claims(true, &[]);
    assert_eq!(served, local);
    assert_eq!(served_claims, local_claims);
    assert_eq!(
        local_claims,
        serde_json::json!([["file:src/a.rs", "alice"], ["file:src/b.rs", "alice"]])
    );
}

/// A server started by hand with another data home, clock and home answers as a local run
/// with the request's environment: it takes nothing of its own.
#[test]
fn a_server_with_another_environment_answers_from_the_request() {
    let other = tempfile::tempdir().unwrap();
    let other = other.path().display().to_string();
    let (local, local_claims) = claims(false, &[]);
    let (served, served_claims) = claims(
        true,
        &[
            ("ACC_DATA_HOME", other.as_str()),
            ("HOME", other.as_str()),
            ("ACC_TEST_CLOCK", "2031-01-01T00:00:00.000Z"),
        ],
    );
    assert_eq!(served, local);
    assert_eq!(served_claims, local_claims);
    assert!(std::fs::read_dir(&other).unwrap().next().is_none());
}

/// This test process is a hooked client: a served `acc` it starts is that client's agent,
/// and may not act as another session, though the server itself runs under no client (it
/// is not this test's descendant).
#[test]
fn a_served_agent_still_acts_only_as_itself() {
    let sb = Sandbox::new();
    let alice = sb.attach("alice", &[]);
    let agent = sb.hooked_client_is_this_test();
    let server = Detached::start(&sb.data_path(), &[]);
    let run = |owner: &(String, String), serve: bool| {
        let mut c = sb.cmd(&["claim", "--resource", "file:src/x.rs", "--json"]);
        c.env("ACC_SESSION", &owner.0)
            .env("ACC_GENERATION", &owner.1);
        if serve {
            c.env("ACC_SERVE", "1");
        }
        common::Run::from(c.output().unwrap())
    };
    let local = run(&alice, false);
    let served_run = run(&alice, true);
    assert_ne!(local.code, 0);
    assert!(local.stdout.contains("notYourSession"), "{}", local.stdout);
    assert_eq!(
        (served_run.code, &served_run.stdout, &served_run.stderr),
        (local.code, &local.stdout, &local.stderr)
    );
    assert_eq!(served(&sb.data_path()), Some(1));
    assert_eq!(run(&agent, true).code, 0, "its own session may claim");
    let status = sb.run(&["status", "--json"]).json();
    let claims = status["data"]["claims"].as_array().unwrap();
    assert_eq!(claims.len(), 1);
    assert_eq!(claims[0]["ownerParticipantId"], "agent");
    drop(server);
}

/// Commands that are not served run by themselves, with the server there or not.
#[test]
fn only_the_listed_commands_are_served() {
    let sb = Sandbox::new();
    let alice = sb.attach("alice", &[]);
    let _server = Server::start(&sb.data_path(), &[]);
    let mut c = sb.cmd(&["release", "--resource", "file:none", "--json"]);
    c.env("ACC_SESSION", &alice.0)
        .env("ACC_GENERATION", &alice.1)
        .env("ACC_SERVE", "1");
    let _ = c.output().unwrap();
    let mut c = sb.cmd(&["status", "--json"]);
    c.env("ACC_SERVE", "1");
    let status = common::Run::from(c.output().unwrap());
    assert_eq!(status.code, 0, "{}", status.stderr);
    assert_eq!(served(&sb.data_path()), Some(1), "status only");
}
