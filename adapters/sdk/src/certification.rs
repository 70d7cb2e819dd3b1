//! `certification.json`: the evidence rows that back every capability, and the checks
//! CERTIFICATION.md §1 puts on them.
//!
//! Pure validation works on parsed JSON ([`Certification::from_value`],
//! [`provenance::ProvenanceFile::from_value`], [`selection::check_selection`]); the
//! directory-level [`validate_adapter_dir`] adds what needs the files themselves: raw-byte
//! digests, native captures and fixtures nobody references.

pub mod compile;
pub mod digest;
mod directory;
mod lazy;
pub mod lexical;
pub mod native_capture;
pub mod provenance;
pub mod selection;
pub mod table;

pub use directory::validate_adapter_dir;
pub use lazy::LazyCertification;
pub use table::{EvidenceEntry, EvidenceRows, EvidenceTable, RowFacts};

use std::collections::HashSet;

use serde::Serialize;
use serde_json::Value;

use crate::error::{CERTIFICATION_FILE, Problem, ProblemCode};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum EvidenceResult {
    Pass,
    Fail,
}

impl EvidenceResult {
    pub fn parse(text: &str) -> Option<Self> {
        match text {
            "pass" => Some(Self::Pass),
            "fail" => Some(Self::Fail),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Pass => "pass",
            Self::Fail => "fail",
        }
    }
}

/// One capture's verdict on one capability of one client build on one platform.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct EvidenceRow {
    pub client: String,
    pub version: String,
    pub platform: String,
    pub observed_at: String,
    /// `group.name`; within a defined adapter always one of the fourteen.
    pub capability: String,
    pub fixture: String,
    pub provenance: String,
    pub provenance_id: String,
    pub idle_behavior: String,
    pub busy_behavior: String,
    pub authority_level: String,
    pub limitations: Vec<String>,
    pub result: EvidenceResult,
}

impl EvidenceRow {
    pub fn passed(&self) -> bool {
        self.result == EvidenceResult::Pass
    }
}

/// A validated `certification.json`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Certification {
    pub evidence: Vec<EvidenceRow>,
}

/// The entry keys, all required; the first eleven are text checked in this order.
const TEXT_KEYS: [&str; 11] = [
    "client",
    "version",
    "platform",
    "observedAt",
    "capability",
    "fixture",
    "provenance",
    "provenanceId",
    "idleBehavior",
    "busyBehavior",
    "authorityLevel",
];
const OTHER_KEYS: [&str; 2] = ["limitations", "result"];

fn problem(code: ProblemCode, field: impl Into<String>, message: impl Into<String>) -> Problem {
    Problem::new(code, CERTIFICATION_FILE, field, message)
}

impl Certification {
    /// Validates the file in the order of CERTIFICATION.md §1.1-1.2, reporting every
    /// problem: each entry's checks run in order, then tuple uniqueness.
    pub fn from_value(value: &Value) -> Result<Certification, Vec<Problem>> {
        let Some(top) = value.as_object() else {
            return Err(vec![problem(
                ProblemCode::CertificationNotObject,
                "",
                "an adapter must declare certification evidence",
            )]);
        };
        let mut problems: Vec<Problem> = top
            .keys()
            .filter(|k| k.as_str() != "evidence")
            .map(|k| {
                problem(
                    ProblemCode::CertificationUnknownField,
                    k.as_str(),
                    format!("unknown certification field {k}"),
                )
            })
            .collect();
        let Some(entries) = top.get("evidence").and_then(Value::as_array) else {
            problems.push(problem(
                ProblemCode::EvidenceNotArray,
                "evidence",
                "certification.evidence must be an array",
            ));
            return Err(problems);
        };
        let mut evidence = Vec::new();
        for (i, entry) in entries.iter().enumerate() {
            match read_entry(i, entry) {
                Ok(row) => evidence.push(row),
                Err(p) => problems.extend(p),
            }
        }
        let mut seen = HashSet::new();
        for (i, entry) in entries.iter().enumerate() {
            // A structured tuple, so no separator byte inside a value can make two collide.
            let tuple: Option<Vec<&str>> = ["client", "version", "platform", "capability"]
                .iter()
                .map(|k| entry.get(*k).and_then(Value::as_str))
                .collect();
            if let Some(tuple) = tuple
                && !seen.insert(tuple)
            {
                problems.push(problem(
                    ProblemCode::DuplicateTuple,
                    format!("evidence[{i}]"),
                    format!("duplicate certification tuple at evidence {i}"),
                ));
            }
        }
        if problems.is_empty() {
            Ok(Certification { evidence })
        } else {
            Err(problems)
        }
    }

    /// Parses `certification.json` bytes.
    pub fn from_bytes(bytes: &[u8]) -> Result<Certification, Vec<Problem>> {
        let value = crate::manifest::parse_json(CERTIFICATION_FILE, bytes).map_err(|p| vec![p])?;
        Self::from_value(&value)
    }

    /// Rows of `client` for `capability` (`group.name`).
    pub fn rows<'a>(
        &'a self,
        client: &'a str,
        capability: &'a str,
    ) -> impl Iterator<Item = &'a EvidenceRow> + 'a {
        self.evidence
            .iter()
            .filter(move |r| r.client == client && r.capability == capability)
    }
}

fn read_entry(i: usize, entry: &Value) -> Result<EvidenceRow, Vec<Problem>> {
    let base = format!("evidence[{i}]");
    let at = |key: &str| format!("{base}.{key}");
    let Some(obj) = entry.as_object() else {
        return Err(vec![problem(
            ProblemCode::EvidenceNotObject,
            base.clone(),
            format!("certification evidence {i} must be an object"),
        )]);
    };
    let mut problems: Vec<Problem> = obj
        .keys()
        .filter(|k| !TEXT_KEYS.contains(&k.as_str()) && !OTHER_KEYS.contains(&k.as_str()))
        .map(|k| {
            problem(
                ProblemCode::EvidenceUnknownField,
                at(k),
                format!("unknown certification evidence field {k}"),
            )
        })
        .collect();

    let text = |key: &str| {
        obj.get(key)
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty() && s.trim() == *s)
    };
    for key in TEXT_KEYS {
        if text(key).is_none() {
            problems.push(problem(
                ProblemCode::EvidenceMissingText,
                at(key),
                format!("certification evidence {i} must declare {key}"),
            ));
        }
    }
    for key in ["fixture", "provenance"] {
        if let Some(path) = text(key)
            && !lexical::is_package_local_json(path)
        {
            problems.push(problem(
                ProblemCode::EvidencePathNotLocal,
                at(key),
                format!("certification evidence {i} {key} must be package-local JSON"),
            ));
        }
    }
    if let Some(v) = text("version")
        && !crate::version::is_exact_version(v)
    {
        problems.push(problem(
            ProblemCode::EvidenceInexactVersion,
            at("version"),
            format!("certification evidence {i} version must be an exact client version"),
        ));
    }
    if let Some(p) = text("platform")
        && !lexical::is_evidence_platform(p)
    {
        problems.push(problem(
            ProblemCode::EvidenceInexactPlatform,
            at("platform"),
            format!("certification evidence {i} platform must be an exact supported platform"),
        ));
    }
    if let Some(t) = text("observedAt")
        && !lexical::is_observed_at(t)
    {
        problems.push(problem(
            ProblemCode::EvidenceInexactObservedAt,
            at("observedAt"),
            format!("certification evidence {i} observedAt must be an exact ISO date or timestamp"),
        ));
    }
    let result = obj
        .get("result")
        .and_then(Value::as_str)
        .and_then(EvidenceResult::parse);
    if result.is_none() {
        problems.push(problem(
            ProblemCode::EvidenceInvalidResult,
            at("result"),
            format!("certification evidence {i} result must be pass or fail"),
        ));
    }
    let limitations = lexical::text_list(obj.get("limitations"));
    if limitations.is_none() {
        problems.push(problem(
            ProblemCode::EvidenceInvalidLimitations,
            at("limitations"),
            format!("certification evidence {i} limitations must be an array of text"),
        ));
    }
    if !problems.is_empty() {
        return Err(problems);
    }
    let get = |key: &str| text(key).unwrap_or_default().to_owned();
    Ok(EvidenceRow {
        client: get("client"),
        version: get("version"),
        platform: get("platform"),
        observed_at: get("observedAt"),
        capability: get("capability"),
        fixture: get("fixture"),
        provenance: get("provenance"),
        provenance_id: get("provenanceId"),
        idle_behavior: get("idleBehavior"),
        busy_behavior: get("busyBehavior"),
        authority_level: get("authorityLevel"),
        limitations: limitations.unwrap_or_default(),
        result: result.unwrap_or(EvidenceResult::Fail),
    })
}

#[cfg(test)]
mod tests;
