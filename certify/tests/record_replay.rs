//! The committed evidence re-judged: every row a recording wrote must follow from its raw
//! bundle's observations, judged again now, and every digest must still hold.

use std::fs;
use std::path::{Path, PathBuf};

use acc_certify::record::scenarios::judge_bundle;
use acc_sdk::certification::Certification;
use acc_sdk::certification::digest::sha256_hex;
use serde_json::Value;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Every fixture `record` wrote, as (adapter dir, fixture path relative to it).
fn recorded_fixtures() -> Vec<(PathBuf, String)> {
    let mut out = Vec::new();
    for adapter in fs::read_dir(repo().join("adapters")).unwrap().flatten() {
        let captures = adapter.path().join("fixtures/captures");
        for entry in walkdir::WalkDir::new(&captures).into_iter().flatten() {
            if entry.file_type().is_file() {
                let rel = entry.path().strip_prefix(adapter.path()).unwrap();
                out.push((adapter.path(), rel.display().to_string()));
            }
        }
    }
    out.sort();
    out
}

#[test]
fn every_recorded_row_follows_from_its_bundle_judged_again() {
    let fixtures = recorded_fixtures();
    assert!(
        !fixtures.is_empty(),
        "the repository carries no recorded evidence"
    );
    for (adapter, rel) in &fixtures {
        let fixture: Value = serde_json::from_slice(&fs::read(adapter.join(rel)).unwrap()).unwrap();
        let bundle = repo().join(fixture["bundle"].as_str().unwrap());
        let observations = fs::read(bundle.join("observations.json"))
            .unwrap_or_else(|e| panic!("{rel}: bundle {}: {e}", bundle.display()));
        assert_eq!(
            fixture["observationsSha256"],
            sha256_hex(&observations),
            "{rel}: the bundle's observations changed since the fixture was written"
        );
        let verdicts = judge_bundle(&bundle).unwrap();
        let recorded: Vec<(String, String)> = fixture["verdicts"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| {
                (
                    v["capability"].as_str().unwrap().to_owned(),
                    v["result"].as_str().unwrap().to_owned(),
                )
            })
            .collect();
        let now: Vec<(String, String)> = verdicts
            .iter()
            .map(|v| (v.capability.key().to_owned(), v.result.as_str().to_owned()))
            .collect();
        assert_eq!(recorded, now, "{rel}");
        let certification =
            Certification::from_bytes(&fs::read(adapter.join("certification.json")).unwrap())
                .unwrap();
        for (capability, result) in &now {
            let row = certification
                .evidence
                .iter()
                .find(|r| r.fixture == *rel && r.capability == *capability)
                .unwrap_or_else(|| panic!("{rel}: no row for {capability}"));
            assert_eq!(row.result.as_str(), result, "{rel} {capability}");
        }
    }
}
