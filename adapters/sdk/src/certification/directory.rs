//! Validation of an adapter directory as shipped: the declaration, then every file it
//! references, byte for byte, then every fixture nobody references.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::digest::sha256_hex;
use super::native_capture::{
    NATIVE_DELIVERY, NATIVE_DELIVERY_TRANSPORT, ProductEvidence, check_native_capture,
};
use super::provenance::ProvenanceFile;
use super::selection::check_selection;
use super::{Certification, EvidenceRow};
use crate::define::Declaration;
use crate::error::{CERTIFICATION_FILE, MANIFEST_FILE, PROVENANCE_FILE, Problem, ProblemCode};

/// Reads a file of the adapter directory, or says why it could not.
fn read(dir: &Path, rel: &str) -> Result<Vec<u8>, Problem> {
    fs::read(dir.join(rel)).map_err(|e| {
        if e.kind() == std::io::ErrorKind::NotFound {
            Problem::new(
                ProblemCode::FileMissing,
                rel,
                "",
                format!("{rel} is missing"),
            )
        } else {
            Problem::new(
                ProblemCode::FileUnreadable,
                rel,
                "",
                format!("{rel} cannot be read: {e}"),
            )
        }
    })
}

fn read_json(dir: &Path, rel: &str) -> Result<(Vec<u8>, Value), Problem> {
    let bytes = read(dir, rel)?;
    let value = crate::manifest::parse_json(rel, &bytes)?;
    Ok((bytes, value))
}

/// Every problem with the adapter in `dir`: `adapter.json` and `certification.json` as
/// `define_adapter` checks them (minus the behaviour's methods), the provenance records and
/// their selection, raw-byte digests of every hashed file, native captures, and fixtures
/// that nothing references. Empty means valid.
pub fn validate_adapter_dir(dir: &Path) -> Vec<Problem> {
    let mut problems = Vec::new();
    let manifest = read_json(dir, MANIFEST_FILE)
        .map_err(|p| problems.push(p))
        .ok();
    let certification = read_json(dir, CERTIFICATION_FILE)
        .map_err(|p| problems.push(p))
        .ok();
    match (&manifest, &certification) {
        (Some((_, m)), Some((_, c))) => {
            if let Err(p) = Declaration::check(m, c, None) {
                problems.extend(p);
            }
        }
        (Some((_, m)), None) => {
            if let Err(p) = crate::manifest::Manifest::from_value(m) {
                problems.extend(p);
            }
        }
        _ => {}
    }
    let rows = certification
        .and_then(|(_, c)| Certification::from_value(&c).ok())
        .unwrap_or_default();
    let mut files = Files {
        dir,
        problems,
        missing: BTreeSet::new(),
        referenced: BTreeSet::new(),
    };
    files.check_references(&rows);
    files.check_unreferenced();
    files.problems
}

struct Files<'a> {
    dir: &'a Path,
    problems: Vec<Problem>,
    /// Paths already reported missing, so a file named twice is reported once.
    missing: BTreeSet<String>,
    referenced: BTreeSet<String>,
}

impl Files<'_> {
    fn fixture_bytes(&mut self, rel: &str, file: &str, field: &str) -> Option<Vec<u8>> {
        self.referenced.insert(rel.to_owned());
        match fs::read(self.dir.join(rel)) {
            Ok(bytes) => Some(bytes),
            Err(e) => {
                if self.missing.insert(rel.to_owned()) {
                    let message = if e.kind() == std::io::ErrorKind::NotFound {
                        format!("certification fixture is missing: {rel}")
                    } else {
                        format!("certification fixture {rel} cannot be read: {e}")
                    };
                    self.problems.push(Problem::new(
                        ProblemCode::FixtureMissing,
                        file,
                        field,
                        message,
                    ));
                }
                None
            }
        }
    }

    fn check_references(&mut self, certification: &Certification) {
        let mut provenance_paths: BTreeSet<String> = certification
            .evidence
            .iter()
            .map(|r| r.provenance.clone())
            .collect();
        if self.dir.join(PROVENANCE_FILE).is_file() {
            provenance_paths.insert(PROVENANCE_FILE.to_owned());
        }
        let mut provenance = BTreeMap::new();
        for path in provenance_paths {
            self.referenced.insert(path.clone());
            match read_json(self.dir, &path) {
                Ok((_, value)) => match ProvenanceFile::from_value(&path, &value) {
                    Ok(file) => {
                        provenance.insert(path, file);
                    }
                    Err(p) => self.problems.extend(p),
                },
                Err(mut p) if p.code == ProblemCode::FileMissing => {
                    p.message = format!("certification provenance is missing: {path}");
                    self.problems.push(p);
                }
                Err(p) => self.problems.push(p),
            }
        }
        self.problems
            .extend(check_selection(certification, &provenance));
        let product = self.check_records(&provenance);
        for (i, row) in certification.evidence.iter().enumerate() {
            let field = format!("evidence[{i}].fixture");
            let Some(bytes) = self.fixture_bytes(&row.fixture, CERTIFICATION_FILE, &field) else {
                continue;
            };
            let Ok(fixture) = serde_json::from_slice::<Value>(&bytes) else {
                self.problems.push(Problem::new(
                    ProblemCode::FixtureNotJson,
                    CERTIFICATION_FILE,
                    field,
                    format!("certification fixture {} is not valid JSON", row.fixture),
                ));
                continue;
            };
            self.check_fixture_against_row(i, row, &fixture);
            let declared = provenance
                .get(&row.provenance)
                .and_then(|f| f.select(&row.provenance_id).next())
                .and_then(|r| r.product_evidence.as_ref());
            let selected_product = match declared {
                None => ProductEvidence::Absent,
                Some(p) => product
                    .get(&p.fixture)
                    .map_or(ProductEvidence::Unusable, ProductEvidence::Parsed),
            };
            match fixture.get("capability").and_then(Value::as_str) {
                Some(NATIVE_DELIVERY) => self.problems.extend(check_native_capture(&row.fixture, &fixture, selected_product)),
                Some(NATIVE_DELIVERY_TRANSPORT) if row.passed() => self.problems.push(Problem::new(
                    ProblemCode::TransportCaptureCertifies,
                    CERTIFICATION_FILE,
                    format!("evidence[{i}].result"),
                    format!("certification evidence {i} passes on a transport capture, which never certifies the installed product route"),
                )),
                _ => {}
            }
        }
    }

    /// Each record's fixture digest, then its product evidence and historical fixtures:
    /// digest first, and only then JSON. Returns the parsed product evidence by path.
    fn check_records(
        &mut self,
        provenance: &BTreeMap<String, ProvenanceFile>,
    ) -> BTreeMap<String, Value> {
        let mut product = BTreeMap::new();
        for (path, file) in provenance {
            for (i, record) in file.captures.iter().enumerate() {
                let field = format!("captures[{i}]");
                if let Some(bytes) =
                    self.fixture_bytes(&record.fixture, path, &format!("{field}.fixture"))
                {
                    let actual = sha256_hex(&bytes);
                    if actual != record.sha256 {
                        self.problems.push(Problem::new(
                            ProblemCode::DigestMismatch,
                            path.as_str(),
                            format!("{field}.sha256"),
                            format!("{} digest differs: provenance records {}, its bytes hash to {actual}", record.fixture, record.sha256),
                        ));
                    }
                }
                for (label, hashed) in record.hashed_files() {
                    let sub = if label == "productEvidence" {
                        format!("{field}.productEvidence")
                    } else {
                        format!(
                            "{field}.historicalFixtures[{}]",
                            label.rsplit(' ').next().unwrap_or("0")
                        )
                    };
                    let Some(bytes) =
                        self.fixture_bytes(&hashed.fixture, path, &format!("{sub}.fixture"))
                    else {
                        continue;
                    };
                    if sha256_hex(&bytes) != hashed.sha256 {
                        self.problems.push(Problem::new(
                            ProblemCode::ProductEvidenceDigest,
                            path.as_str(),
                            format!("{sub}.sha256"),
                            format!("{label} digest differs: {}", hashed.fixture),
                        ));
                        continue;
                    }
                    match serde_json::from_slice::<Value>(&bytes) {
                        Ok(value) => {
                            product.insert(hashed.fixture.clone(), value);
                        }
                        Err(_) => self.problems.push(Problem::new(
                            ProblemCode::ProductEvidenceNotJson,
                            path.as_str(),
                            format!("{sub}.fixture"),
                            format!("{label} is not valid JSON: {}", hashed.fixture),
                        )),
                    }
                }
            }
        }
        product
    }

    /// A fixture that carries its own `result` must agree with the row on everything it
    /// repeats.
    fn check_fixture_against_row(&mut self, i: usize, row: &EvidenceRow, fixture: &Value) {
        if fixture.get("result").is_none() {
            return;
        }
        let limitations: Value = row
            .limitations
            .iter()
            .map(|l| Value::from(l.as_str()))
            .collect();
        let pairs: [(&str, Value); 8] = [
            ("result", row.result.as_str().into()),
            ("client", row.client.as_str().into()),
            ("version", row.version.as_str().into()),
            ("platform", row.platform.as_str().into()),
            ("observedAt", row.observed_at.as_str().into()),
            ("idle", row.idle_behavior.as_str().into()),
            ("busy", row.busy_behavior.as_str().into()),
            ("limitations", limitations),
        ];
        for (key, want) in pairs {
            if let Some(got) = fixture.get(key)
                && got != &want
            {
                self.problems.push(Problem::new(
                    ProblemCode::FixtureDiffers,
                    row.fixture.as_str(),
                    key,
                    format!("fixture {key} differs from certification evidence {i}"),
                ));
            }
        }
    }

    fn check_unreferenced(&mut self) {
        let mut found = Vec::new();
        collect_files(&self.dir.join("fixtures"), &mut found);
        let mut rels: Vec<String> = found
            .iter()
            .filter_map(|p| p.strip_prefix(self.dir).ok())
            .map(|p| {
                p.components()
                    .map(|c| c.as_os_str().to_string_lossy().into_owned())
                    .collect::<Vec<_>>()
                    .join("/")
            })
            .collect();
        rels.sort();
        for rel in rels {
            if rel != PROVENANCE_FILE && !self.referenced.contains(&rel) {
                self.problems.push(Problem::new(
                    ProblemCode::UnreferencedFixture,
                    rel.as_str(),
                    "",
                    format!("unreferenced certification fixture: {rel} (no evidence row or provenance record names it)"),
                ));
            }
        }
    }
}

fn collect_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        match entry.file_type() {
            Ok(t) if t.is_dir() => collect_files(&path, out),
            Ok(_) => out.push(path),
            Err(_) => {}
        }
    }
}
