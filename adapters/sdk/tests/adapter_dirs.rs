//! `validate_adapter_dir` on copies of the hand-made directories under `fixtures/sdk/`,
//! each copy broken in one way the shipped broken directories do not cover.

use std::fs;
use std::path::{Path, PathBuf};

use acc_sdk::certification::digest::sha256_hex;
use acc_sdk::certification::validate_adapter_dir;
use acc_sdk::error::ProblemCode;
use serde_json::{Value, json};

fn fixture_dir(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/sdk")
        .join(name)
}

fn copy_tree(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for entry in fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            fs::copy(entry.path(), target).unwrap();
        }
    }
}

fn copy_of(name: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    copy_tree(&fixture_dir(name), dir.path());
    dir
}

fn read(dir: &Path, rel: &str) -> Value {
    serde_json::from_slice(&fs::read(dir.join(rel)).unwrap()).unwrap()
}

fn write(dir: &Path, rel: &str, value: &Value) {
    fs::write(dir.join(rel), serde_json::to_vec_pretty(value).unwrap()).unwrap();
}

/// Rewrites a provenance record field, keeping every digest true.
fn edit_provenance(dir: &Path, f: impl FnOnce(&mut Value)) {
    let mut p = read(dir, "fixtures/certification-provenance.json");
    f(&mut p);
    write(dir, "fixtures/certification-provenance.json", &p);
}

/// Rewrites a fixture and re-records its digest in every record that names it.
fn rewrite_fixture(dir: &Path, rel: &str, f: impl FnOnce(&mut Value)) {
    let mut v = read(dir, rel);
    f(&mut v);
    write(dir, rel, &v);
    let digest = sha256_hex(&fs::read(dir.join(rel)).unwrap());
    edit_provenance(dir, |p| {
        for rec in p["captures"].as_array_mut().unwrap() {
            if rec["fixture"] == rel {
                rec["sha256"] = json!(digest);
            }
            if rec["productEvidence"]["fixture"] == rel {
                rec["productEvidence"]["sha256"] = json!(digest);
            }
        }
    });
}

fn codes(dir: &Path) -> Vec<(ProblemCode, String, String)> {
    validate_adapter_dir(dir)
        .into_iter()
        .map(|p| (p.code, p.file, p.field))
        .collect()
}

#[test]
fn the_valid_directories_have_no_problems() {
    assert_eq!(codes(&fixture_dir("valid-basic")), vec![]);
    assert_eq!(codes(&fixture_dir("valid-native")), vec![]);
}

#[test]
fn a_historical_fixture_is_checked_byte_for_byte() {
    let dir = copy_of("valid-native");
    fs::write(
        dir.path()
            .join("fixtures/delivery/example-2.0.5-replaced.json"),
        b"{}\r\n",
    )
    .unwrap();
    assert_eq!(
        codes(dir.path()),
        vec![(
            ProblemCode::ProductEvidenceDigest,
            "fixtures/certification-provenance.json".into(),
            "captures[1].historicalFixtures[0].sha256".into()
        )]
    );
}

#[test]
fn product_evidence_is_parsed_only_after_its_digest_matches() {
    let dir = copy_of("valid-native");
    let rel = "fixtures/delivery/example-2.1.0-product-evidence.json";
    fs::write(dir.path().join(rel), b"not json").unwrap();
    let digest = sha256_hex(b"not json");
    edit_provenance(dir.path(), |p| {
        p["captures"][1]["productEvidence"]["sha256"] = json!(digest)
    });
    assert_eq!(
        codes(dir.path()),
        vec![(
            ProblemCode::ProductEvidenceNotJson,
            "fixtures/certification-provenance.json".into(),
            "captures[1].productEvidence.fixture".into()
        )]
    );
}

#[test]
fn product_evidence_must_match_the_capture() {
    let dir = copy_of("valid-native");
    rewrite_fixture(
        dir.path(),
        "fixtures/delivery/example-2.1.0-product-evidence.json",
        |v| v["failedCount"] = json!(2),
    );
    let problems = validate_adapter_dir(dir.path());
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert_eq!(problems[0].code, ProblemCode::NativeCaptureInvalid);
    assert_eq!(
        problems[0].message,
        "product evidence failedCount does not match the capture"
    );
}

#[test]
fn a_missing_fixture_is_reported_once() {
    let dir = copy_of("valid-basic");
    fs::remove_file(dir.path().join("fixtures/hooks/next-turn-1.2.0.json")).unwrap();
    let found = codes(dir.path());
    assert_eq!(
        found,
        vec![(
            ProblemCode::FixtureMissing,
            "fixtures/certification-provenance.json".into(),
            "captures[4].fixture".into()
        )]
    );
}

#[test]
fn a_fixture_that_is_not_json() {
    let dir = copy_of("valid-basic");
    fs::write(dir.path().join("fixtures/hooks/next-turn-1.2.0.json"), b"{").unwrap();
    let digest = sha256_hex(b"{");
    edit_provenance(dir.path(), |p| p["captures"][4]["sha256"] = json!(digest));
    assert_eq!(
        codes(dir.path()),
        vec![(
            ProblemCode::FixtureNotJson,
            "certification.json".into(),
            "evidence[4].fixture".into()
        )]
    );
}

#[test]
fn a_fixture_carrying_a_result_must_agree_with_its_row() {
    let dir = copy_of("valid-native");
    rewrite_fixture(dir.path(), "fixtures/delivery/example-2.0.0.json", |v| {
        v["observedAt"] = json!("2026-11-21")
    });
    assert_eq!(
        codes(dir.path()),
        vec![(
            ProblemCode::FixtureDiffers,
            "fixtures/delivery/example-2.0.0.json".into(),
            "observedAt".into()
        )]
    );
}

#[test]
fn a_native_capture_is_validated() {
    let dir = copy_of("valid-native");
    rewrite_fixture(dir.path(), "fixtures/delivery/example-2.1.0.json", |v| {
        v["launchMode"] = json!("teleport")
    });
    let problems = validate_adapter_dir(dir.path());
    assert!(
        problems
            .iter()
            .all(|p| p.code == ProblemCode::NativeCaptureInvalid),
        "{problems:?}"
    );
    assert!(problems.iter().any(|p| p.field == "launchMode"));
}

#[test]
fn a_transport_capture_never_certifies() {
    let dir = copy_of("valid-native");
    rewrite_fixture(dir.path(), "fixtures/delivery/example-2.1.0.json", |v| {
        v["capability"] = json!("native_delivery_transport")
    });
    assert_eq!(
        codes(dir.path()),
        vec![(
            ProblemCode::TransportCaptureCertifies,
            "certification.json".into(),
            "evidence[1].result".into()
        )]
    );
}

#[test]
fn a_row_must_select_exactly_one_record() {
    let dir = copy_of("valid-basic");
    edit_provenance(dir.path(), |p| {
        p["captures"][0]["id"] = json!("renamed-record")
    });
    assert_eq!(
        codes(dir.path()),
        vec![(
            ProblemCode::ProvenanceNotSelected,
            "certification.json".into(),
            "evidence[0].provenanceId".into()
        )]
    );
}

#[test]
fn missing_files_are_reported_by_name() {
    let dir = copy_of("valid-basic");
    fs::remove_file(dir.path().join("fixtures/certification-provenance.json")).unwrap();
    let problems = validate_adapter_dir(dir.path());
    assert_eq!(problems[0].code, ProblemCode::FileMissing);
    assert_eq!(
        problems[0].message,
        "certification provenance is missing: fixtures/certification-provenance.json"
    );
    let empty = tempfile::tempdir().unwrap();
    let found: Vec<ProblemCode> = validate_adapter_dir(empty.path())
        .into_iter()
        .map(|p| p.code)
        .collect();
    assert_eq!(
        found,
        vec![ProblemCode::FileMissing, ProblemCode::FileMissing]
    );
}
