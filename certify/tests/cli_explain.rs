//! `acc-certify explain` on `fixtures/sdk/valid-basic`: a variant, a regression at 1.4.0
//! and a later pass on another platform at 1.6.0.

use std::path::PathBuf;

use assert_cmd::Command;
use serde_json::Value;

fn certify(args: &[&str]) -> (i32, String, String) {
    let repo = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let out = Command::cargo_bin("acc-certify")
        .unwrap()
        .current_dir(repo)
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap(),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

fn explain_json(version: &str, platform: &str, client: Option<&str>) -> Value {
    let mut args = vec![
        "explain",
        "--adapter",
        "fixtures/sdk/valid-basic",
        "--client-version",
        version,
        "--platform",
        platform,
        "--json",
    ];
    if let Some(c) = client {
        args.extend(["--client", c]);
    }
    let (code, out, err) = certify(&args);
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["ok"], true);
    v
}

fn verdict(v: &Value, cap: &str) -> (bool, Value, Value) {
    let c = &v["data"]["capabilities"][cap];
    (
        c["granted"].as_bool().unwrap(),
        c["reason"].clone(),
        c["version"].clone(),
    )
}

#[test]
fn all_fourteen_are_keyed_by_group_and_name() {
    let v = explain_json("1.5.0", "linux-x64", None);
    let caps = v["data"]["capabilities"].as_object().unwrap();
    assert_eq!(caps.len(), 14);
    for (key, c) in caps {
        assert!(key.contains('.'), "{key}");
        assert_eq!(
            c.as_object().unwrap().keys().collect::<Vec<_>>(),
            vec!["granted", "reason", "version"]
        );
    }
    insta::assert_json_snapshot!("explain_1_5_0_linux", v);
}

#[test]
fn verdicts_follow_the_evidence() {
    use serde_json::json;
    type Case<'a> = (
        &'a str,
        &'a str,
        Option<&'a str>,
        &'a str,
        (bool, Value, Value),
    );
    let cases: Vec<Case> = vec![
        (
            "1.5.0",
            "linux-x64",
            None,
            "guards.beforeWrite",
            (false, json!("recorded-failure"), json!("1.4.0")),
        ),
        (
            "1.3.9",
            "linux-x64",
            None,
            "guards.beforeWrite",
            (true, json!(null), json!("1.0.0")),
        ),
        // Linux prefers its own rows: the darwin pass at 1.6.0 does not undo the linux loss.
        (
            "1.6.0",
            "linux-x64",
            None,
            "guards.beforeWrite",
            (false, json!("recorded-failure"), json!("1.4.0")),
        ),
        (
            "1.6.0",
            "darwin-arm64",
            None,
            "guards.beforeWrite",
            (true, json!(null), json!("1.6.0")),
        ),
        // Below darwin's own row, darwin has nothing in reach, so every platform's rows count.
        (
            "1.5.0",
            "darwin-arm64",
            None,
            "guards.beforeWrite",
            (false, json!("recorded-failure"), json!("1.4.0")),
        ),
        (
            "0.9.0",
            "linux-x64",
            None,
            "lifecycle.sessionStart",
            (false, json!("older-than-evidence"), json!("1.0.0")),
        ),
        (
            "1.6.0-rc.1",
            "darwin-arm64",
            None,
            "guards.beforeWrite",
            (true, json!(null), json!("1.6.0")),
        ),
        (
            "unknown",
            "linux-x64",
            None,
            "delivery.nextTurn",
            (true, json!(null), json!("1.2.0")),
        ),
        (
            "1.5.0",
            "linux-x64",
            None,
            "guards.beforeRead",
            (false, json!("undeclared"), json!(null)),
        ),
        (
            "2.1.0",
            "darwin-arm64",
            Some("example-desktop"),
            "delivery.nextTurn",
            (true, json!(null), json!("2.0.0")),
        ),
        (
            "1.9.0",
            "darwin-arm64",
            Some("example-desktop"),
            "delivery.nextTurn",
            (false, json!("older-than-evidence"), json!("2.0.0")),
        ),
        (
            "2.1.0",
            "darwin-arm64",
            Some("example-desktop"),
            "guards.beforeWrite",
            (false, json!("unobserved"), json!(null)),
        ),
    ];
    for (version, platform, client, cap, want) in cases {
        let v = explain_json(version, platform, client);
        assert_eq!(
            verdict(&v, cap),
            want,
            "{version} {platform} {client:?} {cap}"
        );
    }
}

#[test]
fn human_output_is_a_table() {
    let (code, out, _) = certify(&[
        "explain",
        "--adapter",
        "fixtures/sdk/valid-basic",
        "--client-version",
        "1.5.0",
        "--platform",
        "linux-x64",
    ]);
    assert_eq!(code, 0);
    insta::assert_snapshot!(out);
}

/// A version that cannot be read is judged as `unknown` (it reaches every row), and the
/// answer says so instead of passing it off as a judgement on that version.
#[test]
fn an_unreadable_version_says_it_reaches_every_row() {
    let banana = explain_json("banana", "linux-x64", None);
    let unknown = explain_json("unknown", "linux-x64", None);
    let read = explain_json("1.0.0", "linux-x64", None);
    assert_eq!(
        banana["data"]["capabilities"], unknown["data"]["capabilities"],
        "judged exactly as unknown"
    );
    assert_ne!(
        banana["data"]["capabilities"], read["data"]["capabilities"],
        "an old readable version reaches fewer rows on this fixture"
    );
    assert_eq!(banana["data"]["versionReading"], "unreadable");
    assert_eq!(
        banana["data"]["versionNote"],
        "the client version \"banana\" could not be read as a version (X.Y.Z, optionally with -pre or +build), so it is judged as unknown and reaches every evidence row (each capability is decided by its newest row)"
    );
    assert_eq!(unknown["data"]["versionReading"], "unknown");
    assert!(
        unknown["data"]["versionNote"]
            .as_str()
            .unwrap()
            .contains("reaches every evidence row")
    );
    assert_eq!(read["data"]["versionReading"], "read");
    assert_eq!(read["data"]["versionNote"], Value::Null);

    let (code, out, _) = certify(&[
        "explain",
        "--adapter",
        "fixtures/sdk/valid-basic",
        "--client-version",
        "banana",
        "--platform",
        "linux-x64",
    ]);
    assert_eq!(code, 0);
    insta::assert_snapshot!("explain_unreadable_version", out);
}

#[test]
fn bad_inputs() {
    let (code, _, err) = certify(&[
        "explain",
        "--adapter",
        "fixtures/sdk/valid-basic",
        "--client-version",
        "1.0.0",
        "--platform",
        "linux",
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("--platform linux is not a platform"), "{err}");
    let (code, out, _) = certify(&[
        "explain",
        "--adapter",
        "fixtures/sdk/broken-unknown-capability",
        "--client-version",
        "1.0.0",
        "--platform",
        "linux-x64",
    ]);
    assert_eq!(code, 1);
    assert!(out.contains("[unknown_capability]"), "{out}");
    let (code, _, _) = certify(&[
        "explain",
        "--adapter",
        "fixtures/sdk/valid-basic",
        "--platform",
        "linux-x64",
    ]);
    assert_eq!(code, 2, "--client-version is required");
}

/// A directory `acc-certify validate` refuses is refused by `explain` and `native` too,
/// with the same problem lines, instead of granting capabilities on untrusted evidence.
#[test]
fn an_invalid_directory_grants_nothing() {
    for (dir, code) in [
        ("broken-digest", "[digest_mismatch]"),
        (
            "broken-provenance-identity",
            "[provenance_identity_differs]",
        ),
        ("broken-product-evidence", "[product_evidence_digest]"),
        ("broken-missing-evidence", "[capability_requires_evidence]"),
    ] {
        let adapter = format!("fixtures/sdk/{dir}");
        let (_, validate_out, _) = certify(&["validate", "--adapter", &adapter]);
        let problem_lines: Vec<&str> = validate_out
            .lines()
            .filter(|l| l.starts_with(&format!("{adapter}/")))
            .collect();
        assert!(
            !problem_lines.is_empty() && problem_lines.iter().any(|l| l.ends_with(code)),
            "{validate_out}"
        );
        let explain = [
            "explain",
            "--adapter",
            &adapter,
            "--client-version",
            "1.6.0",
            "--platform",
            "linux-x64",
        ];
        let (status, out, err) = certify(&explain);
        assert_eq!(status, 1, "{dir}: {out}{err}");
        assert!(!out.contains("granted"), "{dir}: {out}");
        for line in &problem_lines {
            assert!(out.contains(line), "{dir}: {line:?} missing from {out}");
        }
        let (status, out, _) = certify(&[&explain[..], &["--json"]].concat());
        assert_eq!(status, 1, "{dir}");
        let v: Value = serde_json::from_str(&out).unwrap();
        assert_eq!(v["ok"], false);
        assert!(v.get("data").is_none(), "{out}");
        assert_eq!(
            v["error"]["details"]["problems"].as_array().unwrap().len(),
            problem_lines.len(),
            "{out}"
        );
        let (status, out, _) =
            certify(&["native", "--adapter", &adapter, "--client-version", "2.1.0"]);
        assert_eq!(status, 1, "{dir}: {out}");
        for line in &problem_lines {
            assert!(out.contains(line), "{dir}: {line:?} missing from {out}");
        }
    }
}
