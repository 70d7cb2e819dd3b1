//! Each evidence row selects exactly one provenance record, whose identity it repeats and
//! whose claims back it.

use std::collections::BTreeMap;

use super::provenance::{ClaimOutcome, ProvenanceFile};
use super::{Certification, EvidenceRow};
use crate::error::{CERTIFICATION_FILE, Problem, ProblemCode};

const IDENTITY_KEYS: [&str; 5] = ["client", "version", "platform", "observedAt", "fixture"];

fn row_identity<'a>(row: &'a EvidenceRow, key: &str) -> &'a str {
    match key {
        "client" => &row.client,
        "version" => &row.version,
        "platform" => &row.platform,
        "observedAt" => &row.observed_at,
        _ => &row.fixture,
    }
}

/// Checks every row against the provenance file it names (`files` maps a row's
/// `provenance` path to the parsed file; rows whose file is absent from the map are left to
/// the caller, which reports the file itself).
pub fn check_selection(
    certification: &Certification,
    files: &BTreeMap<String, ProvenanceFile>,
) -> Vec<Problem> {
    let mut problems = Vec::new();
    for (i, row) in certification.evidence.iter().enumerate() {
        let Some(file) = files.get(&row.provenance) else {
            continue;
        };
        let push = |problems: &mut Vec<Problem>, code, field: &str, message: String| {
            problems.push(Problem::new(
                code,
                CERTIFICATION_FILE,
                format!("evidence[{i}].{field}"),
                message,
            ));
        };
        let selected: Vec<_> = file.select(&row.provenance_id).collect();
        let [record] = selected.as_slice() else {
            push(
                &mut problems,
                ProblemCode::ProvenanceNotSelected,
                "provenanceId",
                format!("certification evidence {i} does not select one provenance record"),
            );
            continue;
        };
        for key in IDENTITY_KEYS {
            if record.identity(key) != Some(row_identity(row, key)) {
                push(
                    &mut problems,
                    ProblemCode::ProvenanceIdentityDiffers,
                    key,
                    format!("certification evidence {i} {key} differs from selected provenance"),
                );
            }
        }
        let Some(claim) = record
            .claims
            .iter()
            .find(|c| c.capability == row.capability)
        else {
            push(
                &mut problems,
                ProblemCode::ClaimMissing,
                "capability",
                format!(
                    "provenance record {} has no claim for {}",
                    record.id, row.capability
                ),
            );
            continue;
        };
        if claim.result != row.result {
            push(
                &mut problems,
                ProblemCode::ClaimDiffers,
                "result",
                format!(
                    "certification evidence {i} result differs from provenance record {} claim {}",
                    record.id, row.capability
                ),
            );
        }
        match &claim.outcome {
            ClaimOutcome::Observed {
                idle,
                busy,
                authority,
                limitations,
                ..
            } => {
                let pairs = [
                    ("idleBehavior", idle == &row.idle_behavior),
                    ("busyBehavior", busy == &row.busy_behavior),
                    ("authorityLevel", authority == &row.authority_level),
                    ("limitations", limitations == &row.limitations),
                ];
                for (key, same) in pairs {
                    if !same {
                        push(
                            &mut problems,
                            ProblemCode::ClaimDiffers,
                            key,
                            format!(
                                "certification evidence {i} {key} differs from provenance record {} claim outcome",
                                record.id
                            ),
                        );
                    }
                }
            }
            ClaimOutcome::NativeCaptureFailed if row.passed() => push(
                &mut problems,
                ProblemCode::ClaimDiffers,
                "result",
                format!(
                    "certification evidence {i} passes but provenance record {} records a failed native capture",
                    record.id
                ),
            ),
            ClaimOutcome::NativeCaptureFailed => {}
        }
    }
    problems
}
