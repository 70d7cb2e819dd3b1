//! The evidence writer: deterministic bytes, tuples replaced on re-record, history kept, and
//! a result the SDK validates (digests included).

mod record_support;

use std::fs;

use acc_certify::record::output::writer::{merge_records, merge_rows};
use acc_certify::record::recording::{persist_bundles, persist_evidence};
use acc_sdk::certification::Certification;
use acc_sdk::certification::digest::sha256_hex;
use acc_sdk::certification::validate_adapter_dir;
use record_support::{recording, repo, snapshot_tree};
use serde_json::{Value, json};

fn record_into(root: &std::path::Path, adapter: &std::path::Path, version: &str, pass: bool) {
    let recording = recording(version, pass, "2026-12-02");
    let items = persist_bundles(&recording, root).unwrap();
    persist_evidence(adapter, &items).unwrap();
}

fn rows(adapter: &std::path::Path) -> Certification {
    Certification::from_bytes(&fs::read(adapter.join("certification.json")).unwrap()).unwrap()
}

#[test]
fn the_same_recording_written_twice_gives_the_same_bytes() {
    let (one, adapter_one) = repo();
    let (two, adapter_two) = repo();
    record_into(one.path(), &adapter_one, "2.1.332", true);
    record_into(two.path(), &adapter_two, "2.1.332", true);
    let first = snapshot_tree(one.path());
    assert_eq!(first, snapshot_tree(two.path()));
    // Writing it again over itself changes nothing either.
    record_into(one.path(), &adapter_one, "2.1.332", true);
    assert_eq!(first, snapshot_tree(one.path()));
    let names: Vec<&str> = first.iter().map(|(p, _)| p.as_str()).collect();
    assert!(names.contains(
        &"adapters/claude-code/fixtures/captures/next-turn/claude-code-2.1.332-linux-x64.json"
    ));
    assert!(
        names.contains(&"captures/claude-code-2.1.332-linux-x64/solo-control/observations.json")
    );
    // The control is a bundle but no fixture: it backs no row of its own.
    assert!(
        !names
            .iter()
            .any(|n| n.contains("fixtures/captures/solo-control"))
    );
}

#[test]
fn the_written_directory_validates_and_every_digest_is_of_the_raw_bytes() {
    let (root, adapter) = repo();
    record_into(root.path(), &adapter, "2.1.332", true);
    assert_eq!(validate_adapter_dir(&adapter), Vec::new());
    let certification = rows(&adapter);
    assert_eq!(certification.evidence.len(), 14);
    assert!(certification.evidence.iter().all(|r| r.passed()));
    let provenance: Value = serde_json::from_slice(
        &fs::read(adapter.join("fixtures/certification-provenance.json")).unwrap(),
    )
    .unwrap();
    let records = provenance["captures"].as_array().unwrap();
    assert_eq!(records.len(), 12, "one record per capability scenario");
    for record in records {
        let fixture = fs::read(adapter.join(record["fixture"].as_str().unwrap())).unwrap();
        assert_eq!(record["sha256"], sha256_hex(&fixture));
        let fixture: Value = serde_json::from_slice(&fixture).unwrap();
        let bundle = root.path().join(fixture["bundle"].as_str().unwrap());
        let observations = fs::read(bundle.join("observations.json")).unwrap();
        assert_eq!(fixture["observationsSha256"], sha256_hex(&observations));
    }
    // Files are canonical: sorted keys, two spaces, a trailing newline.
    let text = fs::read_to_string(adapter.join("certification.json")).unwrap();
    assert!(text.starts_with("{\n  \"evidence\": [\n    {\n      \"authorityLevel\""));
    assert!(text.ends_with("}\n"));
}

#[test]
fn a_changed_fixture_byte_is_caught_by_validation() {
    let (root, adapter) = repo();
    record_into(root.path(), &adapter, "2.1.332", true);
    let fixture = adapter.join("fixtures/captures/guard-write/claude-code-2.1.332-linux-x64.json");
    let text = fs::read_to_string(&fixture).unwrap();
    // Still valid JSON, one byte different.
    fs::write(&fixture, text.replacen("\"linux-x64\"", "\"linux-x65\"", 1)).unwrap();
    let problems = validate_adapter_dir(&adapter);
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(
        problems[0].message.contains("digest differs"),
        "{}",
        problems[0].message
    );
}

#[test]
fn a_re_record_replaces_its_tuple_and_keeps_other_versions() {
    let (root, adapter) = repo();
    record_into(root.path(), &adapter, "2.1.332", true);
    record_into(root.path(), &adapter, "2.1.340", true);
    // 2.1.332 regresses on a second recording: its rows are replaced, 2.1.340 stays.
    record_into(root.path(), &adapter, "2.1.332", false);
    assert_eq!(validate_adapter_dir(&adapter), Vec::new());
    let certification = rows(&adapter);
    assert_eq!(certification.evidence.len(), 28);
    let by_version = |v: &str| -> Vec<bool> {
        certification
            .evidence
            .iter()
            .filter(|r| r.version == v)
            .map(|r| r.passed())
            .collect()
    };
    assert_eq!(by_version("2.1.340"), [true; 14]);
    assert_eq!(by_version("2.1.332"), [false; 14]);
    let fail = certification
        .evidence
        .iter()
        .find(|r| r.version == "2.1.332" && r.capability == "guards.beforeWrite")
        .unwrap();
    assert_eq!(
        (
            fail.idle_behavior.as_str(),
            fail.busy_behavior.as_str(),
            fail.authority_level.as_str()
        ),
        ("unobserved", "unobserved", "none")
    );
    assert!(
        fail.limitations
            .iter()
            .any(|l| l.contains("src/x was created")),
        "the reason is a limitation: {:?}",
        fail.limitations
    );
    // Older version first.
    let versions: Vec<&str> = certification
        .evidence
        .iter()
        .map(|r| r.version.as_str())
        .collect();
    assert_eq!(&versions[..6], ["2.1.332"; 6]);
}

#[test]
fn merging_replaces_only_the_same_tuple_and_sorts() {
    let row = |version: &str, capability: &str, result: &str| json!({"client": "c", "version": version, "platform": "linux-x64", "capability": capability, "result": result});
    let existing = [
        row("0.10.0", "guards.beforeWrite", "pass"),
        row("0.9.0", "guards.beforeWrite", "pass"),
        row("0.9.0", "guards.beforeShell", "pass"),
    ];
    let merged = merge_rows(&existing, &[row("0.9.0", "guards.beforeWrite", "fail")]);
    assert_eq!(
        merged,
        [
            row("0.9.0", "guards.beforeShell", "pass"),
            row("0.9.0", "guards.beforeWrite", "fail"),
            row("0.10.0", "guards.beforeWrite", "pass"),
        ]
    );
    let records = merge_records(
        &[json!({"id": "b", "n": 1}), json!({"id": "a", "n": 1})],
        &[json!({"id": "b", "n": 2})],
    );
    assert_eq!(
        records,
        [json!({"id": "a", "n": 1}), json!({"id": "b", "n": 2})]
    );
}

#[test]
fn a_malformed_certification_is_refused_before_anything_is_written() {
    let (root, adapter) = repo();
    fs::write(adapter.join("certification.json"), "{oops").unwrap();
    let recording = recording("2.1.332", true, "2026-12-02");
    let items = persist_bundles(&recording, root.path()).unwrap();
    let err = persist_evidence(&adapter, &items).unwrap_err();
    assert!(err.to_string().contains("certification.json"), "{err}");
    assert!(!adapter.join("fixtures/captures").exists());
}
