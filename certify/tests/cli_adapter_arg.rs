//! `--adapter` reads the same way in every subcommand that takes it: a shipped adapter's id
//! and that adapter's directory give the same answer, and a value that is neither is refused
//! naming the shipped ids and what a directory must hold.

#[path = "gate_support/mod.rs"]
mod support;

use serde_json::Value;
use support::{certify, certify_in, repo};

/// Each subcommand's arguments besides `--adapter`.
const COMMANDS: [(&str, &[&str]); 5] = [
    ("validate", &[]),
    (
        "explain",
        &["--client-version", "0.171.0", "--platform", "linux-x64"],
    ),
    ("native", &["--client-version", "0.171.0"]),
    ("diff-install", &[]),
    ("wire", &[]),
];

fn run(command: &str, adapter: &str, rest: &[&str]) -> support::Run {
    let mut args = vec![command, "--adapter", adapter];
    args.extend_from_slice(rest);
    args.push("--json");
    certify(&args)
}

/// The envelope's data with the directory as given removed (validate echoes it).
fn data(run: &support::Run) -> Value {
    let mut v = run.json();
    assert_eq!(v["ok"], true, "{}", run.stdout);
    if let Some(adapters) = v["data"]["adapters"].as_array_mut() {
        for a in adapters {
            a.as_object_mut().unwrap().remove("dir");
        }
    }
    v["data"].take()
}

#[test]
fn an_id_and_its_directory_give_the_same_answer_in_every_subcommand() {
    for (command, rest) in COMMANDS {
        let by_id = run(command, "codex", rest);
        assert_eq!(by_id.code, 0, "{command} codex: {}", by_id.stdout);
        let by_dir = run(command, "adapters/codex", rest);
        assert_eq!(
            by_dir.code, 0,
            "{command} adapters/codex: {}",
            by_dir.stdout
        );
        let absolute = repo().join("adapters/codex");
        let by_abs = run(command, absolute.to_str().unwrap(), rest);
        assert_eq!(by_abs.code, 0, "{command} {}", absolute.display());
        let expected = data(&by_id);
        assert_eq!(data(&by_dir), expected, "{command}");
        assert_eq!(data(&by_abs), expected, "{command}");
    }
}

#[test]
fn an_id_is_found_under_root_from_anywhere() {
    let elsewhere = tempfile::tempdir().unwrap();
    let root = repo();
    let root = root.to_str().unwrap();
    let run = certify_in(
        elsewhere.path(),
        &["validate", "--adapter", "gemini-cli", "--root", root],
        &[],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stdout.contains("valid (gemini-cli)"), "{}", run.stdout);
    let run = certify_in(
        elsewhere.path(),
        &["explain", "--adapter", "codex", "--client-version", "1.0.0"],
        &[],
    );
    assert_eq!(run.code, 2);
    let run = certify_in(
        elsewhere.path(),
        &[
            "explain",
            "--adapter",
            "codex",
            "--client-version",
            "1.0.0",
            "--platform",
            "linux-x64",
        ],
        &[],
    );
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.contains("no acc repository") && run.stderr.contains("--root"),
        "an id outside a checkout says how to find the repository: {}",
        run.stderr
    );
}

#[test]
fn a_wrong_value_is_refused_in_every_subcommand_naming_ids_and_the_directory_form() {
    let ids: Vec<String> = acc_runtime::registry::all()
        .iter()
        .map(|a| a.id().to_owned())
        .collect();
    for (command, rest) in COMMANDS {
        let mut args = vec![command, "--adapter", "banana"];
        args.extend_from_slice(rest);
        let human = certify(&args);
        assert_eq!(human.code, 2, "{command}: {}", human.stdout);
        assert!(
            human
                .stderr
                .starts_with("acc-certify: no shipped adapter is called \"banana\"; use one of "),
            "{command}: {}",
            human.stderr
        );
        for id in &ids {
            assert!(
                human.stderr.contains(id.as_str()),
                "{command}: {}",
                human.stderr
            );
        }
        assert!(
            human.stderr.contains("certification.json"),
            "{command}: {}",
            human.stderr
        );
        let json = run(command, "banana", rest);
        assert_eq!(json.code, 2);
        assert_eq!(
            json.json()["error"]["details"]["code"],
            "certify.unknown-adapter",
            "{command}"
        );

        let missing = run(command, "adapters/banana", rest);
        assert_eq!(missing.code, 2);
        let v = missing.json();
        assert_eq!(v["error"]["details"]["code"], "certify.unknown-adapter");
        let message = v["error"]["message"].as_str().unwrap();
        assert!(
            message.starts_with("adapter directory adapters/banana does not exist"),
            "{command}: {message}"
        );

        let not_adapter = run(command, "fixtures/homes", rest);
        assert_eq!(not_adapter.code, 2, "{command}");
        let v = not_adapter.json();
        assert_eq!(
            v["error"]["details"]["code"], "certify.not-an-adapter-dir",
            "{command}"
        );
        let message = v["error"]["message"].as_str().unwrap();
        assert!(
            message.starts_with("fixtures/homes holds neither certification.json nor adapter.json"),
            "{command}: {message}"
        );
    }
}

#[test]
fn commands_that_run_an_adapters_code_refuse_a_directory_of_an_adapter_not_shipped() {
    for command in ["diff-install", "wire"] {
        let run = run(command, "fixtures/sdk/valid-basic", &[]);
        assert_eq!(run.code, 2, "{command}: {}", run.stdout);
        let v = run.json();
        assert_eq!(v["error"]["details"]["code"], "certify.not-shipped");
        let message = v["error"]["message"].as_str().unwrap();
        assert!(
            message.starts_with("fixtures/sdk/valid-basic holds the adapter ")
                && message.contains("claude-code, codex"),
            "{command}: {message}"
        );
    }
}

#[test]
fn every_help_text_says_both_forms() {
    for (command, _) in COMMANDS {
        let run = certify(&[command, "--help"]);
        assert_eq!(run.code, 0);
        assert!(
            run.stdout.contains("--adapter <ID|DIR>"),
            "{command}: {}",
            run.stdout
        );
        assert!(
            run.stdout.contains("shipped adapter's id")
                && run.stdout.contains("holding certification.json"),
            "{command}: {}",
            run.stdout
        );
    }
}
