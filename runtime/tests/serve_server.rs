//! The server's side of a served `acc`: the command line parsed against a tree built once
//! answers every argv as a fresh process does (values, usage errors, help, exit codes), and
//! requests from several directories and sessions in a row on the same long-lived workers
//! each answer as their own local run.

mod common;
mod serve_support;

use common::Sandbox;
use serve_support::*;
use std::process::Command;

/// `acc <args>` in the sandbox's workspace as `owner`, served or not.
fn acc(sb: &Sandbox, owner: &(String, String), args: &[&str], serve: bool) -> common::Run {
    let mut c = Command::new(common::acc_bin());
    c.env_clear()
        .env("ACC_DATA_HOME", sb.data_path())
        .env("ACC_TEST_CLOCK", "2030-01-01T00:00:00.000Z")
        .env("ACC_SESSION", &owner.0)
        .env("ACC_GENERATION", &owner.1)
        .current_dir(sb.ws_path())
        .args(args);
    if serve {
        c.env("ACC_SERVE", "1");
    }
    common::Run::from(c.output().unwrap())
}

/// Command lines good and bad for the served commands: each the server parses with its
/// kept tree, several times over, in any order.
const ARGVS: &[&[&str]] = &[
    &["claim", "--bogus"],
    &["claim"],
    &["claim", "--json"],
    &["claim", "--help"],
    &["claim", "-h"],
    &["--json", "claim", "--help"],
    &["claim", "--resource"],
    &["claim", "--resource", "--json"],
    &["claim", "--resource", "file:a.rs", "--mode", "sideways"],
    &["claim", "--resource", "file:a.rs", "--session", "s"],
    &["claim", "--resource", "file:a.rs", "--ttl", "soon"],
    &["status", "--bogus"],
    &["status", "--json", "--all", "--all"],
    &["heartbeat", "--generation", "1"],
    &["heartbeat", "extra"],
    &["status", "--help"],
    &["heartbeat", "--help"],
    &["claim", "--resource", "file:a.rs", "--json"],
    &["claim", "--resource", "file:a.rs"],
    &["status"],
    &["status", "--json"],
    &["heartbeat", "--json"],
    &["claim", "--bogus", "--json"],
];

/// Each command line of [`ARGVS`], twice over, in a fresh sandbox: what each printed and
/// its exit code, redacted (ids differ between sandboxes).
fn transcript(serve: bool) -> (String, Vec<i32>) {
    let sb = Sandbox::new();
    let alice = sb.attach("alice", &[]);
    let server = serve.then(|| Server::start(&sb.data_path(), &[]));
    let mut r = common::Redactor::new(&sb);
    let mut t = String::new();
    let mut codes = Vec::new();
    for pass in 0..2 {
        for args in ARGVS {
            let run = acc(&sb, &alice, args, serve);
            t += &format!(
                "pass {pass}: acc {args:?}\nexit {}\n{}\n{}\n",
                run.code,
                r.apply(&run.stdout),
                r.apply(&run.stderr)
            );
            codes.push(run.code);
        }
    }
    if server.is_some() {
        assert_eq!(
            served(&sb.data_path()),
            Some(2 * ARGVS.len() as u64),
            "every one was served"
        );
    }
    (t, codes)
}

#[test]
fn every_command_line_answers_as_a_local_run() {
    let (local, codes) = transcript(false);
    let (served, _) = transcript(true);
    for (l, s) in local.split("pass ").zip(served.split("pass ")) {
        assert_eq!(s, l);
    }
    assert_eq!(served, local);
    // The list holds each kind of answer: usage errors, help pages, granted claims.
    assert!(codes.contains(&0) && codes.contains(&2), "{codes:?}");
    assert!(local.contains("Usage: acc claim"));
    assert!(local.contains("\"renewed\":true"));
}

/// The program's name is the client's: a served `acc` started under another name prints
/// the usage a local one under that name prints, whichever name the server saw first.
#[test]
fn the_program_name_is_each_clients_own() {
    let sb = Sandbox::new();
    let alice = sb.attach("alice", &[]);
    let dir = tempfile::tempdir().unwrap();
    let renamed = dir.path().join("acc-renamed");
    std::os::unix::fs::symlink(common::acc_bin(), &renamed).unwrap();
    let run = |exe: &std::path::Path, serve: bool| {
        let mut c = Command::new(exe);
        c.env_clear()
            .env("ACC_DATA_HOME", sb.data_path())
            .env("ACC_SESSION", &alice.0)
            .env("ACC_GENERATION", &alice.1)
            .current_dir(sb.ws_path())
            .args(["claim", "--bogus-flag"]);
        if serve {
            c.env("ACC_SERVE", "1");
        }
        common::Run::from(c.output().unwrap())
    };
    let local_plain = run(&common::acc_bin(), false);
    let local_renamed = run(&renamed, false);
    let _server = Server::start(&sb.data_path(), &[]);
    for _ in 0..2 {
        for (exe, local) in [
            (common::acc_bin(), &local_plain),
            (renamed.clone(), &local_renamed),
        ] {
            let served_run = run(&exe, true);
            assert_eq!(
                (served_run.code, &served_run.stdout, &served_run.stderr),
                (local.code, &local.stdout, &local.stderr),
                "{}",
                exe.display()
            );
        }
    }
}

/// Two workspaces, alternated on the same workers: each request sees its own directory
/// (`acc status` without `--cwd` finds the workspace from the client's directory).
#[test]
fn requests_alternating_between_workspaces_each_see_their_own() {
    let a = Sandbox::new();
    let b = Sandbox::new();
    let alice = a.attach("alice", &[]);
    // One data home serves both: bob's sandbox uses alice's data home.
    let data = a.data_path();
    let bob_in_a = {
        let mut c = Command::new(common::acc_bin());
        c.env_clear()
            .env("ACC_DATA_HOME", &data)
            .env("ACC_TEST_CLOCK", "2030-01-01T00:00:00.000Z")
            .current_dir(b.ws_path())
            .args(["attach", "--participant", "bob"]);
        let out = common::Run::from(c.output().unwrap());
        assert_eq!(out.code, 0, "{}", out.stderr);
        let mut f = out.stdout.split_whitespace();
        (f.next().unwrap().to_string(), f.next().unwrap().to_string())
    };
    let _server = Server::start(&data, &[]);
    let status = |ws: &std::path::Path, owner: &(String, String), serve: bool| {
        let mut c = Command::new(common::acc_bin());
        c.env_clear()
            .env("ACC_DATA_HOME", &data)
            .env("ACC_TEST_CLOCK", "2030-01-01T00:00:00.000Z")
            .env("ACC_SESSION", &owner.0)
            .env("ACC_GENERATION", &owner.1)
            .current_dir(ws)
            .args(["status", "--json"]);
        if serve {
            c.env("ACC_SERVE", "1");
        }
        common::Run::from(c.output().unwrap())
    };
    for _ in 0..3 {
        for (ws, owner) in [(a.ws_path(), &alice), (b.ws_path(), &bob_in_a)] {
            let local = status(&ws, owner, false);
            let served_run = status(&ws, owner, true);
            assert_eq!(local.code, 0, "{}", local.stderr);
            assert_eq!(
                (served_run.code, &served_run.stdout, &served_run.stderr),
                (local.code, &local.stdout, &local.stderr)
            );
        }
    }
    assert_eq!(served(&data), Some(6));
}
