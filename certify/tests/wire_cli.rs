//! `acc-certify wire`: every hook command a shipped adapter's install wrote is executed and
//! reported; a hook runtime that fails makes it exit 1, a missing one exit 2.

#[path = "gate_support/mod.rs"]
mod support;

use std::os::unix::fs::PermissionsExt;

use serde_json::Value;
use support::{certify, certify_in, repo};

#[test]
fn every_command_of_codex_runs_and_exits_zero() {
    let run = certify(&["wire", "--adapter", "codex"]);
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    assert!(
        !run.stdout.contains("/tmp"),
        "paths are redacted: {}",
        run.stdout
    );
    insta::assert_snapshot!("wire_codex", run.stdout);
}

#[test]
fn every_shipped_adapter_is_wired_and_runs() {
    for adapter in acc_runtime::registry::all() {
        let run = certify(&["wire", "--adapter", adapter.id(), "--json"]);
        assert_eq!(run.code, 0, "{}: {}", adapter.id(), run.stdout);
        let v = run.json();
        let commands = v["data"]["commands"].as_array().unwrap();
        assert!(commands.len() >= 3, "{}: {commands:?}", adapter.id());
        let first = &commands[0];
        // Copilot CLI runs its sessionStart hook alongside the first prompt's, so acc opens
        // the session on the prompt (adapters/copilot/src/install.rs).
        let opening = if adapter.id() == "copilot" {
            "beforeTurn"
        } else {
            "sessionStart"
        };
        assert_eq!(
            first["kind"],
            opening,
            "{}: the hook that opens the session runs first",
            adapter.id()
        );
        for c in commands {
            assert_eq!(c["exitCode"], 0, "{}: {c}", adapter.id());
            assert_eq!(c["failedOpen"], Value::Null, "{}: {c}", adapter.id());
            assert!(
                c["command"]
                    .as_str()
                    .unwrap()
                    .starts_with("\"<bin>/acc-hook\" --data-home \"<data>\" "),
                "{c}"
            );
        }
    }
}

#[test]
fn a_hook_runtime_that_fails_makes_wire_exit_one() {
    let dir = tempfile::tempdir().unwrap();
    let fake = dir.path().join("acc-hook");
    std::fs::write(
        &fake,
        "#!/bin/sh\ncat >/dev/null\necho 'acc-hook: broken build' >&2\nexit 7\n",
    )
    .unwrap();
    std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
    let run = certify_in(
        &repo(),
        &["wire", "--adapter", "gemini-cli"],
        &[("ACC_HOOK_EXECUTABLE", fake.to_str().unwrap())],
    );
    assert_eq!(run.code, 1, "{}", run.stdout);
    let stdout = support::redact(&run.stdout, dir.path(), "<fake>");
    assert!(stdout.contains("FAIL  SessionStart"), "{stdout}");
    assert!(
        stdout.contains("stderr: acc-hook: broken build"),
        "{stdout}"
    );
    insta::assert_snapshot!("wire_failing_runtime", stdout);
}

#[test]
fn unknown_adapters_and_a_missing_runtime_mean_it_could_not_run() {
    let run = certify(&["wire", "--adapter", "nope"]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.starts_with(
            "acc-certify: no shipped adapter is called \"nope\"; use one of antigravity, "
        ),
        "{}",
        run.stderr
    );
    let run = certify_in(
        &repo(),
        &["wire", "--adapter", "codex"],
        &[("ACC_HOOK_EXECUTABLE", "/nonexistent/acc-hook")],
    );
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.contains("build it: cargo build -p acc-runtime"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.ends_with("[certify.hook-missing]\n"),
        "{}",
        run.stderr
    );
}
