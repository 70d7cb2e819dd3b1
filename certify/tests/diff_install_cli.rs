//! `acc-certify diff-install`: plan against install in a sandbox home; each difference is
//! printed and makes it exit 1.

#[path = "gate_support/mod.rs"]
mod support;

use support::{certify, repo};

#[test]
fn every_shipped_adapter_installs_exactly_its_plan() {
    for adapter in acc_runtime::registry::all() {
        let run = certify(&["diff-install", "--adapter", adapter.id(), "--json"]);
        assert_eq!(run.code, 0, "{}: {}", adapter.id(), run.stdout);
        let v = run.json();
        assert_eq!(v["data"]["differences"].as_array().unwrap().len(), 0);
        assert_eq!(
            v["data"]["home"],
            format!("fixtures/homes/{}", adapter.id())
        );
        let planned = v["data"]["planned"].as_array().unwrap();
        assert!(!planned.is_empty());
        for p in planned {
            assert!(
                p["reported"] == "created" || p["reported"] == "edited",
                "{}: {p}",
                adapter.id()
            );
        }
    }
}

#[test]
fn human_output_lists_the_plan() {
    let run = certify(&["diff-install", "--adapter", "kimi-code"]);
    assert_eq!(run.code, 0);
    insta::assert_snapshot!("diff_install_kimi_code", run.stdout);
}

#[test]
fn a_home_that_already_holds_the_wiring_shows_the_plan_drifting_from_the_install() {
    // Install once into a home, then use that home as the fixture: the skill is already
    // there byte for byte, so the plan promises a write that does not happen. (The hooks
    // file is rewritten: the sandbox pins another data home into its commands.)
    let home = tempfile::tempdir().unwrap();
    let data = tempfile::tempdir().unwrap();
    acc_conformance::sandbox::copy_tree(&repo().join("fixtures/homes/codex"), home.path()).unwrap();
    let acc = support::hook_bin().parent().unwrap().join("acc");
    let out = std::process::Command::new(&acc)
        .args(["install", "--adapter", "codex"])
        .env_clear()
        .env("HOME", home.path())
        .env("ACC_DATA_HOME", data.path())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let run = certify(&[
        "diff-install",
        "--adapter",
        "codex",
        "--home-fixture",
        home.path().to_str().unwrap(),
    ]);
    assert_eq!(run.code, 1, "{}", run.stdout);
    let stdout = support::redact(&run.stdout, home.path(), "<fixture>");
    assert!(
        stdout.contains(
            "difference: <home>/.codex/skills/acc is in the plan but install reported it unchanged"
        ),
        "{stdout}"
    );
    insta::assert_snapshot!("diff_install_already_installed", stdout);
}

#[test]
fn a_missing_home_fixture_or_adapter_means_it_could_not_run() {
    let run = certify(&[
        "diff-install",
        "--adapter",
        "codex",
        "--home-fixture",
        "/nonexistent/home",
    ]);
    assert_eq!(run.code, 2);
    assert_eq!(
        run.stderr,
        "acc-certify: --home-fixture /nonexistent/home is not a directory [certify.io]\n"
    );
    let run = certify(&["diff-install", "--adapter", "nope", "--json"]);
    assert_eq!(run.code, 2);
    assert_eq!(
        run.json()["error"]["details"]["code"],
        "certify.unknown-adapter"
    );
}
