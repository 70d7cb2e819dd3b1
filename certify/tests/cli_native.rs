//! `acc-certify native` on `fixtures/sdk/valid-native` (minimum 2.1.0, knownBad 2.1.5 and
//! 2.2.0..=2.2.3) with the probe and handshake answers in `fixtures/sdk/native-inputs/`.

use std::path::PathBuf;

use assert_cmd::Command;
use serde_json::{Value, json};

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

fn native(version: &str, extra: &[&str]) -> (i32, Value) {
    let mut args = vec![
        "native",
        "--adapter",
        "fixtures/sdk/valid-native",
        "--client-version",
        version,
        "--json",
    ];
    args.extend(extra);
    let (code, out, _) = certify(&args);
    (code, serde_json::from_str(&out).unwrap())
}

#[test]
fn the_static_rule() {
    let cases = [
        ("2.1.0", json!(true), json!(null)),
        ("2.9.0", json!(true), json!(null)),
        ("2.0.9", json!(false), json!("below_minimum_version")),
        ("2.1.5", json!(false), json!("known_bad_version")),
        ("2.2.1-beta.1", json!(false), json!("known_bad_version")),
        ("2.2.4", json!(true), json!(null)),
        ("unknown", json!(false), json!("version_unavailable")),
    ];
    for (version, eligible, reason) in cases {
        let (code, v) = native(version, &[]);
        assert_eq!(code, 0);
        let d = &v["data"];
        assert_eq!(
            (d["eligible"].clone(), d["reasonCode"].clone()),
            (eligible, reason),
            "{version}"
        );
        assert_eq!(d["minimumVersion"], "2.1.0");
        assert_eq!(d["protocolContract"], "example-inbox-v1");
    }
    insta::assert_json_snapshot!("native_static_below", native("2.0.9", &[]).1);
}

#[test]
fn with_a_probe() {
    let (code, v) = native(
        "2.0.0",
        &["--probe", "fixtures/sdk/native-inputs/probe-ok.json"],
    );
    assert_eq!(code, 0);
    // The probe's own version (2.1.7) serves.
    insta::assert_json_snapshot!("native_probe_ok", v);
    let (_, v) = native(
        "2.1.7",
        &[
            "--probe",
            "fixtures/sdk/native-inputs/probe-other-protocol.json",
        ],
    );
    assert_eq!(
        (
            v["data"]["eligible"].clone(),
            v["data"]["reasonCode"].clone()
        ),
        (json!(false), json!("protocol_mismatch"))
    );
    let (code, v) = native(
        "2.1.7",
        &["--probe", "fixtures/sdk/native-inputs/probe-malformed.json"],
    );
    assert_eq!(code, 1);
    assert_eq!(
        v["error"]["details"]["problems"][0]["code"],
        "probe_malformed"
    );
    assert_eq!(
        v["error"]["details"]["problems"][0]["file"],
        "fixtures/sdk/native-inputs/probe-malformed.json"
    );
}

#[test]
fn with_a_handshake() {
    let (code, v) = native(
        "2.1.7",
        &[
            "--handshake",
            "fixtures/sdk/native-inputs/handshake-ok.json",
        ],
    );
    assert_eq!(code, 0);
    assert_eq!(v["data"]["ok"], true);
    let (_, v) = native(
        "2.1.7",
        &[
            "--handshake",
            "fixtures/sdk/native-inputs/handshake-refused.json",
        ],
    );
    insta::assert_json_snapshot!("native_handshake_refused", v);
}

#[test]
fn human_output_and_input_errors() {
    let (code, out, _) = certify(&[
        "native",
        "--adapter",
        "fixtures/sdk/valid-native",
        "--client-version",
        "2.1.7",
        "--handshake",
        "fixtures/sdk/native-inputs/handshake-ok.json",
    ]);
    assert_eq!(code, 0);
    insta::assert_snapshot!(out);
    let (code, _, err) = certify(&[
        "native",
        "--adapter",
        "fixtures/sdk/valid-native",
        "--client-version",
        "2.1.7",
        "--probe",
        "fixtures/sdk/nothing.json",
    ]);
    assert_eq!(code, 2);
    assert!(
        err.starts_with("acc-certify: cannot read fixtures/sdk/nothing.json"),
        "{err}"
    );
    let (code, _, _) = certify(&[
        "native",
        "--adapter",
        "fixtures/sdk/valid-native",
        "--client-version",
        "2.1.7",
        "--probe",
        "a.json",
        "--handshake",
        "b.json",
    ]);
    assert_eq!(code, 2, "--probe and --handshake conflict");
    // An adapter without a contract is unsupported, never an error.
    let (code, out, _) = certify(&[
        "native",
        "--adapter",
        "fixtures/sdk/valid-basic",
        "--client-version",
        "1.0.0",
        "--json",
    ]);
    assert_eq!(code, 0);
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        v["data"],
        json!({"eligible": false, "reasonCode": "native_delivery_unsupported", "minimumVersion": null, "protocolContract": null, "modes": []})
    );
}
