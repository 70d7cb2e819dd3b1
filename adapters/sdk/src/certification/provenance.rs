//! `fixtures/certification-provenance.json`: one record per capture, naming its fixture and
//! the fixture's raw-byte digest, the claims the capture supports, and optionally the
//! product evidence and earlier captures kept hashed beside it.

use std::collections::HashMap;

use serde::Serialize;
use serde_json::{Map, Value};

use super::EvidenceResult;
use super::lexical::{is_package_local_json, is_sha256_hex, text_list};
use crate::error::{Problem, ProblemCode};
use crate::text_forms::is_lower_alnum;

/// `^[a-z0-9][a-z0-9-]+$`
fn is_record_id(text: &str) -> bool {
    let bytes = text.as_bytes();
    bytes.len() >= 2
        && is_lower_alnum(bytes[0])
        && bytes[1..].iter().all(|&b| is_lower_alnum(b) || b == b'-')
}

/// The outcome kind of a failed native capture, which carries nothing else.
pub const NATIVE_CAPTURE_FAILED: &str = "native-capture-failed";

/// A file kept by digest: `{fixture, sha256}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct HashedFixture {
    pub fixture: String,
    pub sha256: String,
}

/// What a capture showed for one capability.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "shape", rename_all = "camelCase")]
pub enum ClaimOutcome {
    /// A passing (or fully described failing) outcome repeating the evidence row's values.
    Observed {
        kind: String,
        idle: String,
        busy: String,
        authority: String,
        limitations: Vec<String>,
    },
    /// `{kind: "native-capture-failed"}`.
    NativeCaptureFailed,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Claim {
    /// May name capabilities outside the fourteen; those never reach certification.json.
    pub capability: String,
    pub result: EvidenceResult,
    pub outcome: ClaimOutcome,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ProvenanceRecord {
    pub id: String,
    pub client: String,
    pub version: String,
    pub platform: String,
    pub observed_at: String,
    pub fixture: String,
    pub sha256: String,
    pub event: Option<String>,
    pub tool: Option<String>,
    pub claims: Vec<Claim>,
    pub product_evidence: Option<HashedFixture>,
    pub historical_fixtures: Vec<HashedFixture>,
}

impl ProvenanceRecord {
    /// The identity keys an evidence row must repeat exactly.
    pub fn identity(&self, key: &str) -> Option<&str> {
        Some(match key {
            "client" => &self.client,
            "version" => &self.version,
            "platform" => &self.platform,
            "observedAt" => &self.observed_at,
            "fixture" => &self.fixture,
            _ => return None,
        })
    }

    /// Every file this record references by digest: its fixture, product evidence and
    /// historical fixtures.
    pub fn hashed_files(&self) -> Vec<(String, &HashedFixture)> {
        let mut out = Vec::new();
        if let Some(p) = &self.product_evidence {
            out.push(("productEvidence".to_owned(), p));
        }
        for (n, h) in self.historical_fixtures.iter().enumerate() {
            out.push((format!("historicalFixtures {n}"), h));
        }
        out
    }
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ProvenanceFile {
    pub schema_version: u64,
    pub captures: Vec<ProvenanceRecord>,
}

const RECORD_REQUIRED: [&str; 10] = [
    "id",
    "client",
    "version",
    "platform",
    "observedAt",
    "fixture",
    "sha256",
    "event",
    "tool",
    "claims",
];
const RECORD_OPTIONAL: [&str; 2] = ["productEvidence", "historicalFixtures"];
const OBSERVED_OUTCOME: [&str; 5] = ["kind", "idle", "busy", "authority", "limitations"];

struct Reader<'a> {
    file: &'a str,
    problems: Vec<Problem>,
}

impl Reader<'_> {
    fn push(&mut self, code: ProblemCode, field: impl Into<String>, message: impl Into<String>) {
        self.problems
            .push(Problem::new(code, self.file, field, message));
    }
}

impl ProvenanceFile {
    /// Validates the provenance file's schema, reporting every problem. `file` is its path
    /// relative to the adapter directory, for the problems.
    pub fn from_value(file: &str, value: &Value) -> Result<ProvenanceFile, Vec<Problem>> {
        let mut r = Reader {
            file,
            problems: Vec::new(),
        };
        let Some(top) = value.as_object() else {
            r.push(
                ProblemCode::ProvenanceNotObject,
                "",
                "a provenance file must be an object {schemaVersion, captures}",
            );
            return Err(r.problems);
        };
        for k in top
            .keys()
            .filter(|k| !matches!(k.as_str(), "schemaVersion" | "captures"))
        {
            r.push(
                ProblemCode::ProvenanceUnknownField,
                k.as_str(),
                format!("unknown provenance field {k}"),
            );
        }
        if top.get("schemaVersion").and_then(Value::as_u64) != Some(1) {
            r.push(
                ProblemCode::ProvenanceSchemaVersion,
                "schemaVersion",
                "provenance schemaVersion must be 1",
            );
        }
        let Some(entries) = top.get("captures").and_then(Value::as_array) else {
            r.push(
                ProblemCode::ProvenanceCapturesNotArray,
                "captures",
                "provenance captures must be an array",
            );
            return Err(r.problems);
        };
        let mut captures = Vec::new();
        for (i, entry) in entries.iter().enumerate() {
            if let Some(record) = read_record(&mut r, i, entry) {
                captures.push(record);
            }
        }
        let mut first_at: HashMap<&str, usize> = HashMap::new();
        for (i, entry) in entries.iter().enumerate() {
            if let Some(id) = entry.get("id").and_then(Value::as_str)
                && first_at.insert(id, i).is_some()
            {
                r.push(
                    ProblemCode::RecordDuplicateId,
                    format!("captures[{i}].id"),
                    format!("provenance record id {id} is used by more than one record"),
                );
            }
        }
        if r.problems.is_empty() {
            Ok(ProvenanceFile {
                schema_version: 1,
                captures,
            })
        } else {
            Err(r.problems)
        }
    }

    /// The records whose id is `id`.
    pub fn select<'a>(&'a self, id: &'a str) -> impl Iterator<Item = &'a ProvenanceRecord> + 'a {
        self.captures.iter().filter(move |r| r.id == id)
    }
}

fn read_record(r: &mut Reader<'_>, i: usize, entry: &Value) -> Option<ProvenanceRecord> {
    let base = format!("captures[{i}]");
    let at = |k: &str| format!("{base}.{k}");
    let before = r.problems.len();
    let Some(obj) = entry.as_object() else {
        r.push(
            ProblemCode::RecordNotObject,
            base,
            format!("provenance record {i} must be an object"),
        );
        return None;
    };
    for k in obj.keys().filter(|k| {
        !RECORD_REQUIRED.contains(&k.as_str()) && !RECORD_OPTIONAL.contains(&k.as_str())
    }) {
        r.push(
            ProblemCode::RecordUnknownField,
            at(k),
            format!("unknown provenance record field {k}"),
        );
    }
    let text = |k: &str| {
        obj.get(k)
            .and_then(Value::as_str)
            .filter(|s| !s.trim().is_empty())
    };
    let id = text("id");
    if !id.is_some_and(is_record_id) {
        r.push(
            ProblemCode::RecordInvalidField,
            at("id"),
            format!("provenance record {i} id must match ^[a-z0-9][a-z0-9-]+$"),
        );
    }
    for k in ["client", "version", "platform", "observedAt"] {
        if text(k).is_none() {
            r.push(
                ProblemCode::RecordInvalidField,
                at(k),
                format!("provenance record {i} must declare {k}"),
            );
        }
    }
    if !text("fixture").is_some_and(is_package_local_json) {
        r.push(
            ProblemCode::RecordInvalidField,
            at("fixture"),
            format!("provenance record {i} fixture must be package-local JSON"),
        );
    }
    if !text("sha256").is_some_and(is_sha256_hex) {
        r.push(
            ProblemCode::RecordInvalidField,
            at("sha256"),
            format!("provenance record {i} sha256 must be 64 lowercase hex digits"),
        );
    }
    let mut optional_text = |k: &str| match obj.get(k) {
        Some(Value::Null) => Some(None),
        Some(Value::String(s)) => Some(Some(s.clone())),
        _ => {
            r.push(
                ProblemCode::RecordInvalidField,
                at(k),
                format!("provenance record {i} {k} must be a string or null"),
            );
            None
        }
    };
    let event = optional_text("event");
    let tool = optional_text("tool");
    let claims = read_claims(r, i, &at("claims"), obj.get("claims"));
    let label = id.unwrap_or("?").to_owned();
    let product_evidence = match obj.get("productEvidence") {
        None => None,
        Some(v) => {
            let h = read_hashed(v);
            if h.is_none() {
                r.push(
                    ProblemCode::ProductEvidenceInvalid,
                    at("productEvidence"),
                    format!("provenance record {label} has invalid productEvidence"),
                );
            }
            h
        }
    };
    let mut historical_fixtures = Vec::new();
    match obj.get("historicalFixtures") {
        None => {}
        Some(Value::Array(items)) => {
            for (n, item) in items.iter().enumerate() {
                match read_hashed(item) {
                    Some(h) => historical_fixtures.push(h),
                    None => r.push(
                        ProblemCode::ProductEvidenceInvalid,
                        format!("{}[{n}]", at("historicalFixtures")),
                        format!("provenance record {label} has invalid historicalFixtures {n}"),
                    ),
                }
            }
        }
        Some(_) => r.push(
            ProblemCode::ProductEvidenceInvalid,
            at("historicalFixtures"),
            format!("provenance record {label} historicalFixtures must be an array"),
        ),
    }
    if r.problems.len() > before {
        return None;
    }
    let get = |k: &str| text(k).unwrap_or_default().to_owned();
    Some(ProvenanceRecord {
        id: get("id"),
        client: get("client"),
        version: get("version"),
        platform: get("platform"),
        observed_at: get("observedAt"),
        fixture: get("fixture"),
        sha256: get("sha256"),
        event: event.flatten(),
        tool: tool.flatten(),
        claims: claims.unwrap_or_default(),
        product_evidence,
        historical_fixtures,
    })
}

/// Exactly `{fixture, sha256}` with a package-local path and a lowercase hex digest.
fn read_hashed(value: &Value) -> Option<HashedFixture> {
    let obj = value.as_object()?;
    if obj.len() != 2 {
        return None;
    }
    let fixture = obj
        .get("fixture")?
        .as_str()
        .filter(|p| is_package_local_json(p))?;
    let sha256 = obj.get("sha256")?.as_str().filter(|d| is_sha256_hex(d))?;
    Some(HashedFixture {
        fixture: fixture.to_owned(),
        sha256: sha256.to_owned(),
    })
}

fn read_claims(
    r: &mut Reader<'_>,
    i: usize,
    field: &str,
    value: Option<&Value>,
) -> Option<Vec<Claim>> {
    let Some(items) = value.and_then(Value::as_array) else {
        r.push(
            ProblemCode::RecordInvalidField,
            field,
            format!("provenance record {i} claims must be an array"),
        );
        return None;
    };
    let mut claims = Vec::new();
    for (c, item) in items.iter().enumerate() {
        let at = format!("{field}[{c}]");
        match read_claim(item) {
            Ok(claim) => claims.push(claim),
            Err(why) => r.push(
                ProblemCode::RecordInvalidField,
                at,
                format!("provenance record {i} claim {c} {why}"),
            ),
        }
    }
    Some(claims)
}

fn read_claim(value: &Value) -> Result<Claim, String> {
    let obj = value
        .as_object()
        .ok_or("must be an object {capability, result, outcome}")?;
    if let Some(k) = obj
        .keys()
        .find(|k| !matches!(k.as_str(), "capability" | "result" | "outcome"))
    {
        return Err(format!("has unknown field {k}"));
    }
    let capability = obj
        .get("capability")
        .and_then(Value::as_str)
        .filter(|s| !s.trim().is_empty())
        .ok_or("must name a capability")?;
    let result = obj
        .get("result")
        .and_then(Value::as_str)
        .and_then(EvidenceResult::parse)
        .ok_or("result must be pass or fail")?;
    let outcome = read_outcome(
        obj.get("outcome")
            .and_then(Value::as_object)
            .ok_or("outcome must be an object")?,
    )?;
    Ok(Claim {
        capability: capability.to_owned(),
        result,
        outcome,
    })
}

fn read_outcome(obj: &Map<String, Value>) -> Result<ClaimOutcome, String> {
    let kind = obj
        .get("kind")
        .and_then(Value::as_str)
        .filter(|s| !s.trim().is_empty())
        .ok_or("outcome must declare kind")?;
    if kind == NATIVE_CAPTURE_FAILED {
        if let Some(k) = obj.keys().find(|k| k.as_str() != "kind") {
            return Err(format!(
                "outcome {NATIVE_CAPTURE_FAILED} has unknown field {k}"
            ));
        }
        return Ok(ClaimOutcome::NativeCaptureFailed);
    }
    if let Some(k) = obj.keys().find(|k| !OBSERVED_OUTCOME.contains(&k.as_str())) {
        return Err(format!("outcome has unknown field {k}"));
    }
    let text = |k: &str| {
        obj.get(k)
            .and_then(Value::as_str)
            .filter(|s| !s.trim().is_empty())
            .map(str::to_owned)
            .ok_or(format!("outcome must declare {k}"))
    };
    Ok(ClaimOutcome::Observed {
        kind: kind.to_owned(),
        idle: text("idle")?,
        busy: text("busy")?,
        authority: text("authority")?,
        limitations: text_list(obj.get("limitations"))
            .ok_or("outcome limitations must be an array of text")?,
    })
}

#[cfg(test)]
mod tests {
    use super::is_record_id;

    #[test]
    fn record_ids_are_lowercase_words_of_two_or_more_bytes() {
        for (text, ok) in [
            ("claude-code-2-1-282", true),
            ("ab", true),
            ("0a", true),
            ("a-", true),
            ("a--b", true),
            ("a", false),
            ("", false),
            ("-ab", false),
            ("Ab", false),
            ("a_b", false),
            ("a.b", false),
            ("ab\n", false),
        ] {
            assert_eq!(is_record_id(text), ok, "{text:?}");
        }
    }
}
