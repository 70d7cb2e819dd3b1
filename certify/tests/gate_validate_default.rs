//! `acc-certify validate` with no `--adapter`: every shipped adapter under the repository
//! root, where every file under an adapter's `fixtures/` must be referenced. The gate runs
//! the same validation as `cert.validate`.

#[path = "gate_support/mod.rs"]
mod support;

use support::{certify, certify_in, copy_root};

#[test]
fn by_default_every_shipped_adapter_is_validated() {
    let run = certify(&["validate"]);
    assert_eq!(run.code, 0, "{}", run.stdout);
    let ids: Vec<String> = acc_runtime::registry::all()
        .iter()
        .map(|a| a.id().to_owned())
        .collect();
    let expected: String = ids
        .iter()
        .map(|id| format!("adapters/{id}: valid ({id})\n"))
        .collect::<String>()
        + "9 adapters valid\n";
    assert_eq!(run.stdout, expected);
    let run = certify(&["validate", "--json"]);
    let v = run.json();
    assert_eq!(v["data"]["adapters"].as_array().unwrap().len(), ids.len());
}

#[test]
fn an_unreferenced_fixture_fails_naming_it() {
    let root = copy_root();
    let stray = root
        .path()
        .join("adapters/codex/fixtures/captures/stray.json");
    std::fs::write(&stray, "{}").unwrap();
    let run = certify_in(
        root.path(),
        &["validate", "--root", root.path().to_str().unwrap()],
        &[],
    );
    assert_eq!(run.code, 1, "{}", run.stdout);
    let line = run
        .stdout
        .lines()
        .find(|l| l.ends_with("[unreferenced_fixture]"))
        .unwrap_or_else(|| panic!("{}", run.stdout));
    assert_eq!(
        line,
        "adapters/codex/fixtures/captures/stray.json: unreferenced certification fixture: fixtures/captures/stray.json (no evidence row or provenance record names it) [unreferenced_fixture]"
    );
    assert!(
        run.stdout.ends_with("1 problem in 1 adapter\n"),
        "{}",
        run.stdout
    );

    // From inside the repository, the root is found by walking up.
    let run = certify_in(&root.path().join("adapters/codex/src"), &["validate"], &[]);
    assert_eq!(run.code, 1);
    assert!(run.stdout.contains("stray.json"), "{}", run.stdout);
}

#[test]
fn without_a_repository_it_could_not_run() {
    let empty = tempfile::tempdir().unwrap();
    let run = certify_in(empty.path(), &["validate"], &[]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr
            .starts_with("acc-certify: no acc repository at or above "),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.ends_with("[certify.no-repository]\n"),
        "{}",
        run.stderr
    );
    let run = certify_in(empty.path(), &["validate", "--root", ".", "--json"], &[]);
    assert_eq!(run.code, 2);
    assert!(
        run.json()["error"]["message"]
            .as_str()
            .unwrap()
            .contains("has no adapters/ directory")
    );
}
