//! `cert.evidence.replay`: every evidence row is re-derived from its raw capture. The row's
//! fixture names its bundle (`captures/<client>-<version>-<platform>/<scenario>/`) and the
//! sha256 of that bundle's `observations.json`; the bytes must still hash to it, and judging
//! them again must give the row's result. A hand-edited row, fixture or bundle fails here,
//! named by file and row.

use std::path::{Component, Path};

use acc_conformance::Outcome;
use acc_conformance::check::Problems;
use acc_sdk::certification::Certification;
use acc_sdk::certification::digest::sha256_hex;
use acc_sdk::error::CERTIFICATION_FILE;
use serde_json::Value;

use crate::record::judge::{OBSERVATIONS_FILE, judge_bundle};

/// The stable id this check reports under.
pub const REPLAY_CHECK: &str = "cert.evidence.replay";

/// A repository-relative path that stays inside the repository.
fn inside(rel: &str) -> bool {
    let path = Path::new(rel);
    !rel.is_empty() && path.components().all(|c| matches!(c, Component::Normal(_)))
}

/// Checks that `fixture`'s bundle reference is intact; returns the bundle path.
fn check_bundle_digest(
    root: &Path,
    reference: &Value,
    what: &str,
    problems: &mut Problems,
) -> Option<String> {
    let bundle = reference.get("bundle").and_then(Value::as_str);
    let digest = reference.get("observationsSha256").and_then(Value::as_str);
    let (Some(bundle), Some(digest)) = (bundle, digest) else {
        problems.push(format!(
            "{what} names no raw bundle and observations sha256: it is not a capture acc-certify record wrote, and evidence is never written by hand"
        ));
        return None;
    };
    if !inside(bundle) {
        problems.push(format!(
            "{what} names the bundle {bundle:?}, which is not a path inside the repository"
        ));
        return None;
    }
    let file = format!("{bundle}/{OBSERVATIONS_FILE}");
    match std::fs::read(root.join(&file)) {
        Err(e) => {
            problems.push(format!("{file} (named by {what}) cannot be read: {e}"));
            None
        }
        Ok(bytes) if sha256_hex(&bytes) != digest => {
            problems.push(format!(
                "{file} hashes to {} but {what} records {digest}: the raw capture changed after it was recorded",
                sha256_hex(&bytes)
            ));
            None
        }
        Ok(_) => Some(bundle.to_owned()),
    }
}

/// Replays every evidence row of the adapter in `root/adapters/<id>`.
pub fn replay_evidence(root: &Path, id: &str) -> Outcome {
    let dir = root.join("adapters").join(id);
    let cert_file = format!("adapters/{id}/{CERTIFICATION_FILE}");
    let certification = match std::fs::read(dir.join(CERTIFICATION_FILE))
        .map_err(|e| e.to_string())
        .and_then(|b| {
            Certification::from_bytes(&b).map_err(|problems| {
                let lines: Vec<String> = problems.iter().map(|p| p.message.clone()).collect();
                lines.join("; ")
            })
        }) {
        Ok(c) => c,
        Err(e) => {
            return Outcome::fail(
                Some(cert_file.clone()),
                format!("{cert_file} cannot be read as evidence: {e}"),
            );
        }
    };
    if certification.evidence.is_empty() {
        return Outcome::not_applicable(format!("{cert_file} holds no evidence row"));
    }
    let mut problems = Problems::new(Some(cert_file.clone()));
    for (i, row) in certification.evidence.iter().enumerate() {
        let label = format!(
            "{cert_file} evidence[{i}] ({}, {} {} on {})",
            row.capability, row.client, row.version, row.platform
        );
        let fixture_file = format!("adapters/{id}/{}", row.fixture);
        let fixture: Value = match std::fs::read(dir.join(&row.fixture))
            .ok()
            .and_then(|b| serde_json::from_slice(&b).ok())
        {
            Some(v) => v,
            None => {
                problems.push(format!(
                    "{label}: its fixture {fixture_file} is missing or not JSON"
                ));
                continue;
            }
        };
        let Some(bundle) = check_bundle_digest(root, &fixture, &fixture_file, &mut problems) else {
            continue;
        };
        if let Some(control) = fixture.get("control").filter(|c| !c.is_null()) {
            check_bundle_digest(
                root,
                control,
                &format!("the solo control of {fixture_file}"),
                &mut problems,
            );
        }
        let verdicts = match judge_bundle(&root.join(&bundle)) {
            Ok(v) => v,
            Err(e) => {
                problems.push(format!("{label}: {bundle} cannot be judged again: {e}"));
                continue;
            }
        };
        let Some(verdict) = verdicts
            .iter()
            .find(|v| v.capability.key() == row.capability)
        else {
            problems.push(format!(
                "{label}: judging {bundle} again gives no verdict on {}: the row does not come from that capture",
                row.capability
            ));
            continue;
        };
        if verdict.result != row.result {
            problems.push(format!(
                "{label} says {} but judging {bundle}/{OBSERVATIONS_FILE} again gives {}: evidence is never edited by hand; re-record it with acc-certify record",
                row.result.as_str(),
                verdict.result.as_str()
            ));
        }
        let recorded = fixture
            .get("verdicts")
            .and_then(Value::as_array)
            .and_then(|vs| {
                vs.iter()
                    .find(|v| v.get("capability").and_then(Value::as_str) == Some(&row.capability))
            })
            .and_then(|v| v.get("result"))
            .and_then(Value::as_str);
        if recorded != Some(verdict.result.as_str()) {
            problems.push(format!(
                "{fixture_file} records {} on {} but judging {bundle} again gives {}",
                recorded.unwrap_or("no verdict"),
                row.capability,
                verdict.result.as_str()
            ));
        }
    }
    problems.into_outcome()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn root_with_fixture(fixture: &Value) -> tempfile::TempDir {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("adapters/x");
        std::fs::create_dir_all(dir.join("fixtures")).unwrap();
        let row = json!({
            "client": "x-cli", "version": "1.0.0", "platform": "linux-x64",
            "observedAt": "2026-12-02", "capability": "lifecycle.sessionStart",
            "fixture": "fixtures/capture.json", "provenance": "fixtures/certification-provenance.json",
            "provenanceId": "p", "idleBehavior": "observed", "busyBehavior": "unobserved",
            "authorityLevel": "advisory", "limitations": [], "result": "pass"
        });
        std::fs::write(
            dir.join(CERTIFICATION_FILE),
            json!({"evidence": [row]}).to_string(),
        )
        .unwrap();
        std::fs::write(dir.join("fixtures/capture.json"), fixture.to_string()).unwrap();
        root
    }

    fn failure(outcome: Outcome) -> String {
        match outcome {
            Outcome::Fail(f) => f.message,
            other => panic!("expected a failure, got {other:?}"),
        }
    }

    #[test]
    fn a_fixture_without_a_bundle_is_not_evidence() {
        let root = root_with_fixture(&json!({"verdicts": []}));
        let message = failure(replay_evidence(root.path(), "x"));
        assert!(
            message.contains("adapters/x/fixtures/capture.json names no raw bundle"),
            "{message}"
        );
    }

    #[test]
    fn a_bundle_outside_the_repository_or_missing_is_refused() {
        let root =
            root_with_fixture(&json!({"bundle": "../elsewhere", "observationsSha256": "00"}));
        let message = failure(replay_evidence(root.path(), "x"));
        assert!(
            message.contains("not a path inside the repository"),
            "{message}"
        );
        let root = root_with_fixture(
            &json!({"bundle": "captures/x-1.0.0-linux-x64/lifecycle", "observationsSha256": "00"}),
        );
        let message = failure(replay_evidence(root.path(), "x"));
        assert!(
            message.contains("captures/x-1.0.0-linux-x64/lifecycle/observations.json (named by adapters/x/fixtures/capture.json) cannot be read"),
            "{message}"
        );
    }

    #[test]
    fn no_rows_is_not_applicable() {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("adapters/y");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join(CERTIFICATION_FILE), "{\"evidence\": []}").unwrap();
        assert!(matches!(
            replay_evidence(root.path(), "y"),
            Outcome::NotApplicable(_)
        ));
        assert!(inside("captures/a/b") && !inside("/abs") && !inside("a/../b") && !inside(""));
    }
}
