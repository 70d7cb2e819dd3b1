//! `cert.evidence.replay`: every evidence row is re-derived from its raw capture. The row's
//! fixture names its bundle (`captures/<client>-<version>-<platform>/<scenario>/`) and the
//! sha256 of that bundle's `observations.json`; the bytes must still hash to it. From those
//! observations the replay rebuilds exactly what `acc-certify record` would have written (the
//! fixture, the evidence rows and the provenance record, see [`crate::record::recording`])
//! and compares the committed files with it field by field. A hand-edited row, record,
//! fixture or bundle fails here, named by file, index and field.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Component, Path};

use acc_conformance::Outcome;
use acc_sdk::certification::Certification;
use acc_sdk::certification::digest::sha256_hex;
use acc_sdk::error::CERTIFICATION_FILE;
use serde_json::Value;

use crate::clients::Client;
use crate::record::kit::observations::Observations;
use crate::record::kit::tuple::certification_name;
use crate::record::kit::tuple::{PROVENANCE_PATH, Tuple};
use crate::record::output::bundle::{OBSERVATIONS_FILE, read_observations};
use crate::record::output::evidence::{EvidenceInput, provenance_record, rows};
use crate::record::output::fixture::{ControlRef, FixtureInput, fixture_value};
use crate::record::scenario::Scenario;
use crate::record::scenarios::judge;
use crate::record::scenarios::solo_control::judge_control;

/// The stable id this check reports under.
pub const REPLAY_CHECK: &str = "cert.evidence.replay";

/// What every mismatch tells the reader to do.
const FIX: &str = "re-record it with acc-certify record, since evidence is never edited by hand";

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
    problems: &mut Findings,
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

/// One thing the replay found wrong: about one evidence row (by index in
/// `certification.json`), or about a fixture, bundle or provenance record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReplayFinding {
    pub row: Option<usize>,
    pub text: String,
}

/// Everything the replay of one adapter found, in the order found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Findings {
    pub found: Vec<ReplayFinding>,
}

impl Findings {
    fn push(&mut self, text: impl Into<String>) {
        self.found.push(ReplayFinding {
            row: None,
            text: text.into(),
        });
    }

    fn row(&mut self, row: usize, text: impl Into<String>) {
        self.found.push(ReplayFinding {
            row: Some(row),
            text: text.into(),
        });
    }
}

/// One place where a committed value and the re-derived one differ.
#[derive(Debug, Clone, PartialEq)]
struct Difference {
    /// `version`, `claims[0].outcome.kind`, ...
    field: String,
    committed: Option<Value>,
    derived: Option<Value>,
}

/// Every leaf where `committed` and `derived` differ. Objects are compared key by key and
/// arrays of the same length item by item, so the field named is the one that changed.
fn differences(
    field: &str,
    committed: Option<&Value>,
    derived: Option<&Value>,
    out: &mut Vec<Difference>,
) {
    let join = |key: &str| {
        if field.is_empty() {
            key.to_owned()
        } else {
            format!("{field}.{key}")
        }
    };
    match (committed, derived) {
        (Some(Value::Object(a)), Some(Value::Object(b))) => {
            let keys: BTreeSet<&String> = a.keys().chain(b.keys()).collect();
            for key in keys {
                differences(&join(key), a.get(key), b.get(key), out);
            }
        }
        (Some(Value::Array(a)), Some(Value::Array(b))) if a.len() == b.len() => {
            for (i, (x, y)) in a.iter().zip(b).enumerate() {
                differences(&format!("{field}[{i}]"), Some(x), Some(y), out);
            }
        }
        (a, b) if a != b => out.push(Difference {
            field: if field.is_empty() {
                "the whole value".to_owned()
            } else {
                field.to_owned()
            },
            committed: a.cloned(),
            derived: b.cloned(),
        }),
        _ => {}
    }
}

/// A value as a problem line shows it: compact JSON, cut short when long.
fn show(value: Option<&Value>) -> String {
    const MAX: usize = 120;
    let Some(value) = value else {
        return "absent".to_owned();
    };
    let text = value.to_string();
    if text.chars().count() <= MAX {
        text
    } else {
        let cut: String = text.chars().take(MAX).collect();
        format!("{cut}...")
    }
}

/// One problem line per difference between `committed` and `derived`.
fn report_differences(
    what: &str,
    bundle: &str,
    committed: &Value,
    derived: &Value,
    problems: &mut Findings,
) {
    let mut found = Vec::new();
    differences("", Some(committed), Some(derived), &mut found);
    for d in found {
        problems.push(format!(
            "{what} {} is {} but the capture {bundle} gives {}: {FIX}",
            d.field,
            show(d.committed.as_ref()),
            show(d.derived.as_ref())
        ));
    }
}

/// What the capture behind one fixture gives, exactly as `acc-certify record` writes it.
struct Derived {
    bundle: String,
    rows: Vec<Value>,
    record: Value,
}

/// Everything the replay of one adapter reads once and shares between its rows.
struct Replay<'a> {
    root: &'a Path,
    id: &'a str,
    client: Client,
    /// The client's certification name from `adapter.json`, when it can be read.
    certification_name: Option<String>,
}

impl Replay<'_> {
    /// Re-derives the fixture `fixture_rel` (relative to the adapter directory) from its
    /// bundle, compares the committed fixture with it, and returns the rows and provenance
    /// record the recorder would have written with it.
    fn derive(&self, fixture_rel: &str, problems: &mut Findings) -> Option<Derived> {
        let fixture_file = format!("adapters/{}/{fixture_rel}", self.id);
        let raw = inside(fixture_rel)
            .then(|| std::fs::read(self.root.join(&fixture_file)).ok())
            .flatten();
        let Some(raw) = raw else {
            problems.push(format!(
                "{fixture_file} is missing: evidence rows must point at a fixture acc-certify record wrote"
            ));
            return None;
        };
        let Ok(fixture) = serde_json::from_slice::<Value>(&raw) else {
            problems.push(format!(
                "{fixture_file} is not JSON: it is not a capture acc-certify record wrote; {FIX}"
            ));
            return None;
        };
        let bundle = check_bundle_digest(self.root, &fixture, &fixture_file, problems)?;
        let obs = match read_observations(&self.root.join(&bundle)) {
            Ok(obs) => obs,
            Err(e) => {
                problems.push(format!(
                    "{fixture_file}: its bundle {bundle} cannot be judged again: {e}"
                ));
                return None;
            }
        };
        let observations_file = format!("{bundle}/{OBSERVATIONS_FILE}");
        if obs.adapter != self.id {
            problems.push(format!(
                "{observations_file} is a capture of the {} adapter, but adapters/{}/{fixture_rel} uses it: a capture is evidence only for the adapter it was recorded with; {FIX}",
                obs.adapter, self.id
            ));
            return None;
        }
        if let Some(name) = &self.certification_name
            && obs.client != *name
        {
            problems.push(format!(
                "{observations_file} is a capture of the client {:?}, but adapters/{}/adapter.json names the client {name:?}; {FIX}",
                obs.client, self.id
            ));
        }
        let tuple = Tuple {
            adapter: obs.adapter.clone(),
            client: obs.client.clone(),
            version: obs.version.clone(),
            platform: obs.platform.clone(),
        };
        let Some(observed_at) = fixture.get("observedAt").and_then(Value::as_str) else {
            problems.push(format!(
                "{fixture_file} records no observedAt date: it is not a capture acc-certify record wrote; {FIX}"
            ));
            return None;
        };
        let verdicts = judge(obs.scenario, &obs);
        let control = match fixture.get("control").filter(|c| !c.is_null()) {
            None => None,
            Some(reference) => {
                Some(self.control(reference, &fixture_file, &tuple, &obs, problems)?)
            }
        };
        let bundle_path = tuple.bundle_path(obs.scenario);
        let observations_sha256 = fixture
            .get("observationsSha256")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let mut derived = fixture_value(&FixtureInput {
            tuple: &tuple,
            observed_at,
            scenario: obs.scenario,
            observations: &obs,
            verdicts: &verdicts,
            control: control.as_ref(),
            bundle: &bundle_path,
            observations_sha256,
        });
        // The recorder's own version is not evidence: an older acc-certify wrote it.
        if let (Some(recorder), Some(slot)) = (fixture.get("recorder"), derived.get_mut("recorder"))
            && recorder.is_string()
        {
            *slot = recorder.clone();
        }
        report_differences(&fixture_file, &bundle, &fixture, &derived, problems);
        let input = EvidenceInput {
            client: self.client,
            tuple: &tuple,
            observed_at,
            scenario: obs.scenario,
            verdicts: &verdicts,
        };
        Some(Derived {
            rows: rows(&input),
            record: provenance_record(&input, &sha256_hex(&raw), &obs),
            bundle,
        })
    }

    /// The solo control a `next-turn` fixture references, judged again from its own bundle.
    fn control(
        &self,
        reference: &Value,
        fixture_file: &str,
        tuple: &Tuple,
        obs: &Observations,
        problems: &mut Findings,
    ) -> Option<ControlRef> {
        let what = format!("the solo control of {fixture_file}");
        let bundle = check_bundle_digest(self.root, reference, &what, problems)?;
        let control = match read_observations(&self.root.join(&bundle)) {
            Ok(control) => control,
            Err(e) => {
                problems.push(format!(
                    "{what}: its bundle {bundle} cannot be judged again: {e}"
                ));
                return None;
            }
        };
        if obs.control.as_deref() != Some(&control) {
            problems.push(format!(
                "{}/{OBSERVATIONS_FILE} was judged with a solo control other than {bundle}/{OBSERVATIONS_FILE}: the two bundles are not one recording; {FIX}",
                tuple.bundle_path(obs.scenario)
            ));
        }
        Some(ControlRef {
            verdict: judge_control(&control),
            bundle: tuple.bundle_path(Scenario::SoloControl),
            observations_sha256: reference
                .get("observationsSha256")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned(),
        })
    }
}

/// The raw JSON of `rel` in the adapter directory, or the problem reading it.
fn read_value(dir: &Path, file: &str, rel: &str) -> Result<Value, String> {
    let bytes = std::fs::read(dir.join(rel)).map_err(|e| format!("{file} cannot be read: {e}"))?;
    serde_json::from_slice(&bytes).map_err(|e| format!("{file} is not JSON: {e}"))
}

fn text<'a>(value: &'a Value, key: &str) -> &'a str {
    value.get(key).and_then(Value::as_str).unwrap_or("?")
}

/// Replays every evidence row of the adapter in `root/adapters/<id>`.
pub fn replay_evidence(root: &Path, id: &str) -> Outcome {
    replay(root, id).0
}

/// The replay's outcome and, when it failed on what it found, every finding (empty when it
/// could not start: the failure then says why).
pub fn replay(root: &Path, id: &str) -> (Outcome, Vec<ReplayFinding>) {
    let outcome = |o: Outcome| (o, Vec::new());
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
            return outcome(Outcome::fail(
                Some(cert_file.clone()),
                format!("{cert_file} cannot be read as evidence: {e}"),
            ));
        }
    };
    if certification.evidence.is_empty() {
        return outcome(Outcome::not_applicable(format!(
            "{cert_file} holds no evidence row"
        )));
    }
    let committed_rows: Vec<Value> = match read_value(&dir, &cert_file, CERTIFICATION_FILE) {
        Ok(v) => v
            .get("evidence")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default(),
        Err(e) => return outcome(Outcome::fail(Some(cert_file), e)),
    };
    let client = match id.parse::<Client>() {
        Ok(client) => client,
        Err(_) => {
            return outcome(Outcome::fail(
                Some(cert_file.clone()),
                format!(
                    "{cert_file} holds evidence rows, but acc-certify record cannot record the {id} adapter, so no row of it can come from a capture; remove the rows (evidence is never written by hand)"
                ),
            ));
        }
    };
    let mut problems = Findings::default();
    let prov_file = format!("adapters/{id}/{PROVENANCE_PATH}");
    let records: Vec<Value> = match read_value(&dir, &prov_file, PROVENANCE_PATH) {
        Ok(v) => v
            .get("captures")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default(),
        Err(e) => {
            problems.push(e);
            Vec::new()
        }
    };
    let replay = Replay {
        root,
        id,
        client,
        certification_name: certification_name(&dir).ok(),
    };
    let mut derived: BTreeMap<String, Option<Derived>> = BTreeMap::new();
    let mut records_checked: BTreeSet<(usize, String)> = BTreeSet::new();
    for (i, row) in committed_rows.iter().enumerate() {
        let capability = text(row, "capability");
        let label = format!(
            "{cert_file} evidence[{i}] ({capability}, {} {} on {})",
            text(row, "client"),
            text(row, "version"),
            text(row, "platform")
        );
        let fixture_rel = text(row, "fixture").to_owned();
        let entry = derived
            .entry(fixture_rel.clone())
            .or_insert_with(|| replay.derive(&fixture_rel, &mut problems));
        let Some(capture) = entry else {
            continue;
        };
        let bundle = &capture.bundle;
        let Some(expected) = capture
            .rows
            .iter()
            .find(|r| r.get("capability").and_then(Value::as_str) == Some(capability))
        else {
            problems.row(
                i,
                format!(
                "{label}: judging {bundle} again gives no verdict on {capability}: the row does not come from that capture; {FIX}"
            ),
);
            continue;
        };
        let mut found = Vec::new();
        differences("", Some(row), Some(expected), &mut found);
        for d in found {
            if d.field == "result" {
                problems.row(
                    i,
                    format!(
                    "{label} says {} but judging {bundle}/{OBSERVATIONS_FILE} again gives {}: {FIX}",
                    d.committed.as_ref().and_then(Value::as_str).unwrap_or("nothing"),
                    d.derived.as_ref().and_then(Value::as_str).unwrap_or("nothing"),
                ),
);
            } else {
                problems.row(
                    i,
                    format!(
                        "{label}: its {} is {} but the capture {bundle} gives {}: {FIX}",
                        d.field,
                        show(d.committed.as_ref()),
                        show(d.derived.as_ref())
                    ),
                );
            }
        }
        let provenance_id = text(row, "provenanceId");
        let Some((j, record)) = records
            .iter()
            .enumerate()
            .find(|(_, r)| r.get("id").and_then(Value::as_str) == Some(provenance_id))
        else {
            problems.row(
                i,
                format!(
                "{label}: its provenanceId {provenance_id:?} names no record in {prov_file}; {FIX}"
            ),
);
            continue;
        };
        if records_checked.insert((j, fixture_rel.clone())) {
            report_differences(
                &format!("{prov_file} captures[{j}] ({provenance_id})"),
                bundle,
                record,
                &capture.record,
                &mut problems,
            );
        }
    }
    if problems.found.is_empty() {
        return (Outcome::Pass, Vec::new());
    }
    let lines: Vec<&str> = problems.found.iter().map(|f| f.text.as_str()).collect();
    (
        Outcome::fail(Some(cert_file), lines.join("; ")),
        problems.found,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use std::path::PathBuf;

    /// A repository whose adapter `id` has one evidence row for `client`.
    fn root_with_row(id: &str, client: &str) -> tempfile::TempDir {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("adapters").join(id);
        std::fs::create_dir_all(dir.join("fixtures")).unwrap();
        let row = json!({
            "client": client, "version": "1.0.0", "platform": "linux-x64",
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
        root
    }

    fn root_with_fixture(fixture: &Value) -> tempfile::TempDir {
        let root = root_with_row("codex", "codex-cli");
        std::fs::write(
            root.path().join("adapters/codex/fixtures/capture.json"),
            fixture.to_string(),
        )
        .unwrap();
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
        let message = failure(replay_evidence(root.path(), "codex"));
        assert!(
            message.contains("adapters/codex/fixtures/capture.json names no raw bundle"),
            "{message}"
        );
    }

    #[test]
    fn a_bundle_outside_the_repository_or_missing_is_refused() {
        let root =
            root_with_fixture(&json!({"bundle": "../elsewhere", "observationsSha256": "00"}));
        let message = failure(replay_evidence(root.path(), "codex"));
        assert!(
            message.contains("not a path inside the repository"),
            "{message}"
        );
        let root = root_with_fixture(
            &json!({"bundle": "captures/x-1.0.0-linux-x64/lifecycle", "observationsSha256": "00"}),
        );
        let message = failure(replay_evidence(root.path(), "codex"));
        assert!(
            message.contains("captures/x-1.0.0-linux-x64/lifecycle/observations.json (named by adapters/codex/fixtures/capture.json) cannot be read"),
            "{message}"
        );
    }

    #[test]
    fn rows_of_an_adapter_record_cannot_record_are_refused() {
        let root = root_with_row("antigravity", "antigravity");
        let message = failure(replay_evidence(root.path(), "antigravity"));
        assert!(
            message.contains("acc-certify record cannot record the antigravity adapter"),
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

    #[test]
    fn differences_name_the_leaf_that_changed() {
        let mut found = Vec::new();
        differences(
            "",
            Some(&json!({"a": 1, "b": {"c": [1, 2]}, "d": [1], "only": true})),
            Some(&json!({"a": 1, "b": {"c": [1, 3]}, "d": [1, 2]})),
            &mut found,
        );
        let fields: Vec<&str> = found.iter().map(|d| d.field.as_str()).collect();
        assert_eq!(fields, ["b.c[1]", "d", "only"]);
        assert_eq!(found[2].derived, None);
        assert_eq!(show(None), "absent");
        assert!(show(Some(&json!("x".repeat(500)))).ends_with("..."));
    }

    // The shipped Claude Code evidence and its raw bundles, copied into a scratch root.
    const ADAPTER: &str = "claude-code";
    const CERT: &str = "adapters/claude-code/certification.json";
    const PROV: &str = "adapters/claude-code/fixtures/certification-provenance.json";

    fn repo() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
    }

    struct Shipped {
        root: tempfile::TempDir,
        /// `captures/<client>-<version>-<platform>`, the bundles every row comes from.
        captures: String,
        first: Value,
    }

    fn shipped() -> Shipped {
        let root = tempfile::tempdir().unwrap();
        let adapter = format!("adapters/{ADAPTER}");
        let cert: Value =
            serde_json::from_slice(&std::fs::read(repo().join(CERT)).unwrap()).unwrap();
        let first = cert["evidence"][0].clone();
        let captures = format!(
            "captures/{}-{}-{}",
            first["client"].as_str().unwrap(),
            first["version"].as_str().unwrap(),
            first["platform"].as_str().unwrap()
        );
        for part in [&adapter, &captures] {
            let to = root.path().join(part);
            std::fs::create_dir_all(&to).unwrap();
            acc_conformance::sandbox::copy_tree(&repo().join(part), &to).unwrap();
        }
        Shipped {
            root,
            captures,
            first,
        }
    }

    impl Shipped {
        fn edit(&self, rel: &str, change: impl FnOnce(&mut Value)) {
            let path = self.root.path().join(rel);
            let mut value: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
            change(&mut value);
            std::fs::write(&path, serde_json::to_vec_pretty(&value).unwrap()).unwrap();
        }

        fn replay(&self) -> Outcome {
            replay_evidence(self.root.path(), ADAPTER)
        }

        fn records(&self) -> Vec<Value> {
            let path = self.root.path().join(PROV);
            let prov: Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
            prov["captures"].as_array().unwrap().clone()
        }
    }

    fn assert_names(message: &str, parts: &[&str]) {
        for part in parts {
            assert!(message.contains(part), "{part:?} missing from: {message}");
        }
    }

    #[test]
    fn the_shipped_evidence_replays_as_recorded() {
        let shipped = shipped();
        assert_eq!(shipped.replay(), Outcome::Pass);
    }

    /// Sets `key` to `value` in every row and every provenance record, as a careful hand
    /// edit would, and returns the replay's failure.
    fn edited_everywhere(key: &str, value: &str) -> (Shipped, String) {
        let shipped = shipped();
        assert_ne!(shipped.first[key], value, "the edit must change {key}");
        for (file, array) in [(CERT, "evidence"), (PROV, "captures")] {
            shipped.edit(file, |v| {
                for item in v[array].as_array_mut().unwrap() {
                    item[key] = Value::from(value);
                }
            });
        }
        let message = failure(shipped.replay());
        (shipped, message)
    }

    #[test]
    fn a_consistently_edited_version_platform_or_date_fails() {
        for (key, value) in [
            ("version", "2.1.331"),
            ("version", "0.0.1"),
            ("platform", "darwin-arm64"),
            ("observedAt", "2025-01-31"),
        ] {
            let (shipped, message) = edited_everywhere(key, value);
            let committed = shipped.first[key].to_string();
            assert_names(
                &message,
                &[
                    &format!("{CERT} evidence[0] ("),
                    &format!(
                        ": its {key} is \"{value}\" but the capture {}/",
                        shipped.captures
                    ),
                    &format!(" gives {committed}: "),
                    &format!("{PROV} captures[0] ("),
                    &format!(
                        ") {key} is \"{value}\" but the capture {}/",
                        shipped.captures
                    ),
                    "re-record it with acc-certify record",
                ],
            );
        }
    }

    #[test]
    fn a_fabricated_row_reusing_a_real_fixture_fails() {
        let shipped = shipped();
        let row = shipped.first.clone();
        let version = row["version"].as_str().unwrap().to_owned();
        let id = row["provenanceId"].as_str().unwrap().to_owned();
        let fake_id = id.replace(&version.replace('.', "-"), "2-1-400");
        assert_ne!(fake_id, id);
        let mut record = shipped
            .records()
            .into_iter()
            .find(|r| r["id"] == id.as_str())
            .unwrap();
        record["id"] = Value::from(fake_id.as_str());
        record["version"] = Value::from("2.1.400");
        let mut fake = row.clone();
        fake["version"] = Value::from("2.1.400");
        fake["provenanceId"] = Value::from(fake_id.as_str());
        let mut index = 0;
        shipped.edit(CERT, |v| {
            let rows = v["evidence"].as_array_mut().unwrap();
            rows.push(fake);
            index = rows.len() - 1;
        });
        let mut record_index = 0;
        shipped.edit(PROV, |v| {
            let records = v["captures"].as_array_mut().unwrap();
            records.push(record);
            record_index = records.len() - 1;
        });
        let message = failure(shipped.replay());
        assert_names(
            &message,
            &[
                &format!("{CERT} evidence[{index}] ("),
                &format!(
                    ": its version is \"2.1.400\" but the capture {}/",
                    shipped.captures
                ),
                &format!(": its provenanceId is \"{fake_id}\" but the capture"),
                &format!("{PROV} captures[{record_index}] ({fake_id}) version is \"2.1.400\""),
                &format!("{PROV} captures[{record_index}] ({fake_id}) id is \"{fake_id}\""),
            ],
        );
        // The genuine rows are not blamed.
        assert!(
            !message.contains(&format!("{CERT} evidence[0] (")),
            "{message}"
        );
    }

    #[test]
    fn a_hand_edited_provenance_event_tool_or_claim_kind_fails() {
        for field in ["event", "tool", "claims[0].outcome.kind"] {
            let shipped = shipped();
            let (index, record) = shipped
                .records()
                .into_iter()
                .enumerate()
                .find(|(_, r)| r["tool"].is_string())
                .expect("a guard record names the tool");
            let id = record["id"].as_str().unwrap().to_owned();
            let committed = match field {
                "event" => record["event"].clone(),
                "tool" => record["tool"].clone(),
                _ => record["claims"][0]["outcome"]["kind"].clone(),
            };
            shipped.edit(PROV, |v| {
                let r = &mut v["captures"][index];
                let slot = match field {
                    "event" => &mut r["event"],
                    "tool" => &mut r["tool"],
                    _ => &mut r["claims"][0]["outcome"]["kind"],
                };
                *slot = Value::from("Edited");
            });
            let message = failure(shipped.replay());
            assert_names(
                &message,
                &[
                    &format!("{PROV} captures[{index}] ({id}) {field} is \"Edited\""),
                    &format!(" gives {committed}: "),
                    "re-record it with acc-certify record",
                ],
            );
            assert!(
                !message.contains("certification.json evidence["),
                "{message}"
            );
        }
    }

    #[test]
    fn a_hand_edited_fixture_with_its_digest_updated_fails() {
        let shipped = shipped();
        let fixture_rel = shipped.first["fixture"].as_str().unwrap().to_owned();
        let fixture_file = format!("adapters/{ADAPTER}/{fixture_rel}");
        shipped.edit(&fixture_file, |v| {
            v["verdicts"][0]["reasons"][0] = Value::from("trust me");
            v["scenario"] = Value::from("guard-write");
        });
        let digest = sha256_hex(&std::fs::read(shipped.root.path().join(&fixture_file)).unwrap());
        let id = shipped.first["provenanceId"].as_str().unwrap().to_owned();
        shipped.edit(PROV, |v| {
            for r in v["captures"].as_array_mut().unwrap() {
                if r["id"] == id.as_str() {
                    r["sha256"] = Value::from(digest.as_str());
                }
            }
        });
        let message = failure(shipped.replay());
        assert_names(
            &message,
            &[
                &format!("{fixture_file} verdicts[0].reasons[0] is \"trust me\""),
                &format!("{fixture_file} scenario is \"guard-write\""),
            ],
        );
    }

    #[test]
    fn a_row_whose_result_was_flipped_says_what_judging_gives() {
        let shipped = shipped();
        shipped.edit(CERT, |v| v["evidence"][0]["result"] = Value::from("fail"));
        let message = failure(shipped.replay());
        assert_names(
            &message,
            &[
                &format!("{CERT} evidence[0] ("),
                "says fail but judging",
                "again gives pass",
            ],
        );
    }
}
