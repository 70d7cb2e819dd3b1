//! `acc-certify validate` on the hand-made adapter directories under `fixtures/sdk/`.

use std::path::PathBuf;

use assert_cmd::Command;
use serde_json::Value;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn certify(args: &[&str]) -> (i32, String, String) {
    let out = Command::cargo_bin("acc-certify")
        .unwrap()
        .current_dir(repo())
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap(),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

#[test]
fn valid_directories_exit_zero() {
    let (code, out, err) = certify(&[
        "validate",
        "--adapter",
        "fixtures/sdk/valid-basic",
        "--adapter",
        "fixtures/sdk/valid-native",
    ]);
    assert_eq!((code, err.as_str()), (0, ""));
    insta::assert_snapshot!(out);
}

#[test]
fn each_broken_directory_reports_its_one_rule() {
    let cases = [
        ("broken-digest", "digest_mismatch"),
        ("broken-duplicate-tuple", "duplicate_tuple"),
        ("broken-evidence-version", "evidence_inexact_version"),
        ("broken-missing-evidence", "capability_requires_evidence"),
        (
            "broken-native-minimum-by-platform",
            "native_minimum_by_platform",
        ),
        ("broken-product-evidence", "product_evidence_digest"),
        ("broken-provenance-identity", "provenance_identity_differs"),
        ("broken-unknown-capability", "unknown_capability"),
        ("broken-unreferenced", "unreferenced_fixture"),
    ];
    let mut all = String::new();
    for (dir, code) in cases {
        let path = format!("fixtures/sdk/{dir}");
        let (exit, out, _) = certify(&["validate", "--adapter", &path]);
        assert_eq!(exit, 1, "{dir}");
        let problem_lines: Vec<&str> = out.lines().filter(|l| l.ends_with(']')).collect();
        assert_eq!(problem_lines.len(), 1, "{dir}: {out}");
        assert!(
            problem_lines[0].starts_with(&format!("{path}/")),
            "names the file: {}",
            problem_lines[0]
        );
        assert!(
            problem_lines[0].ends_with(&format!("[{code}]")),
            "{dir}: {}",
            problem_lines[0]
        );
        all.push_str(&out);
    }
    insta::assert_snapshot!(all);
}

#[test]
fn json_output_is_one_envelope() {
    let (code, out, _) = certify(&[
        "validate",
        "--adapter",
        "fixtures/sdk/valid-basic",
        "--json",
    ]);
    assert_eq!(code, 0);
    let v: Value = serde_json::from_str(&out).unwrap();
    insta::assert_json_snapshot!("validate_json_valid", v);

    let (code, out, _) = certify(&[
        "validate",
        "--adapter",
        "fixtures/sdk/broken-digest",
        "--adapter",
        "fixtures/sdk/valid-basic",
        "--json",
    ]);
    assert_eq!(code, 1);
    assert_eq!(out.lines().count(), 1);
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["ok"], false);
    assert_eq!(v["error"]["code"], 1);
    insta::assert_json_snapshot!("validate_json_invalid", v);
}

#[test]
fn a_missing_directory_means_it_could_not_run() {
    let (code, out, err) = certify(&["validate", "--adapter", "fixtures/sdk/no-such-adapter"]);
    assert_eq!((code, out.as_str()), (2, ""));
    assert!(
        err.starts_with("acc-certify: adapter directory fixtures/sdk/no-such-adapter does not exist; --adapter takes an adapter directory (one holding certification.json) or a shipped adapter's id: antigravity, "),
        "{err}"
    );
    assert!(err.ends_with(" [certify.unknown-adapter]\n"), "{err}");
    let (code, out, _) = certify(&[
        "validate",
        "--adapter",
        "fixtures/sdk/no-such-adapter",
        "--json",
    ]);
    assert_eq!(code, 2);
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        (v["ok"].clone(), v["error"]["code"].clone()),
        (Value::Bool(false), Value::from(2))
    );
}

#[test]
fn usage_errors_exit_two_and_help_works_everywhere() {
    let (code, _, err) = certify(&["validate", "--adapter"]);
    assert_eq!(code, 2);
    assert!(err.contains("--adapter <ID|DIR>"), "{err}");
    let (code, out, _) = certify(&["validate", "--bogus", "--json"]);
    assert_eq!(code, 2);
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["error"]["code"], 2);
    assert_eq!(certify(&["frobnicate"]).0, 2);
    for args in [
        &["--help"][..],
        &["validate", "--help"],
        &["explain", "--help"],
        &["native", "--help"],
        &["record", "--help"],
        &["diff-install", "--help"],
        &["wire", "--help"],
        &["gate", "--help"],
        &["matrix", "--help"],
    ] {
        let (code, out, _) = certify(args);
        assert_eq!(code, 0, "{args:?}");
        assert!(out.contains("Usage: acc-certify"), "{args:?}: {out}");
    }
    let (_, help, _) = certify(&["--help"]);
    insta::assert_snapshot!(help);
}
