//! Root causes: one broken file fails several checks that all say the same thing (a
//! hand-edited evidence row fails `cert.validate`, `conf.manifest.valid`, a finding of
//! `cert.evidence.replay` and `cert.matrix.drift`). The gate reports the root cause once and
//! marks each failure it implies, so a reader fixes one thing, not four.
//!
//! Only implications the checks guarantee by construction are drawn; anything else stays a
//! root cause of its own:
//! - `conf.manifest.valid` starts with the very validation `cert.validate` runs, so when
//!   that validation found problems it fails with them;
//! - a replay finding about `certification.json` `evidence[i]` restates a `cert.validate`
//!   problem at `evidence[i]`;
//! - `conf.install.plan-matches` runs the comparison `cert.diff-install` runs, in the same
//!   home, so when `cert.diff-install` found differences it finds them too;
//! - `docs/CAPABILITIES.md` is tabulated from every adapter's evidence, so the matrix cannot
//!   be judged while an adapter's evidence does not validate.

use std::collections::{BTreeMap, BTreeSet};

use acc_sdk::error::{CERTIFICATION_FILE, Problem};

use super::results::{Cause, GateResult, Implied, Status};
use super::{DIFF_INSTALL_CHECK, MANIFEST_CHECK, PLAN_CHECK, VALIDATE_CHECK};
use crate::gate::replay::{REPLAY_CHECK, ReplayFinding};
use crate::matrix::DRIFT_CHECK;

/// What the gate learnt beyond pass and fail, per adapter id.
#[derive(Debug, Default)]
pub struct Facts {
    /// The problems `cert.validate` found.
    pub validate: BTreeMap<String, Vec<Problem>>,
    /// What `cert.evidence.replay` found, each finding with its evidence row.
    pub replay: BTreeMap<String, Vec<ReplayFinding>>,
    /// The adapters whose plan and install `cert.diff-install` found to differ.
    pub plan_differs: BTreeSet<String>,
}

/// The evidence row index a validation problem is about (`evidence[3].result` is 3).
fn evidence_row(problem: &Problem) -> Option<usize> {
    if problem.file != CERTIFICATION_FILE {
        return None;
    }
    let rest = problem.field.strip_prefix("evidence[")?;
    rest[..rest.find(']')?].parse().ok()
}

fn failing(results: &[GateResult], check: &str, adapter: Option<&str>) -> Option<usize> {
    results.iter().position(|r| {
        r.status == Status::Fail && r.check == check && r.adapter.as_deref() == adapter
    })
}

/// Marks every failure implied by another, and trims replay findings that restate a
/// validation problem.
pub fn link(results: &mut [GateResult], facts: &Facts) {
    for id in &facts.plan_differs {
        let (Some(root), Some(at)) = (
            failing(results, DIFF_INSTALL_CHECK, Some(id)),
            failing(results, PLAN_CHECK, Some(id)),
        ) else {
            continue;
        };
        results[at].implied = Some(Implied {
            by: vec![Cause::of(&results[root])],
            why: format!("{PLAN_CHECK} runs the same comparison of plan and install"),
        });
    }
    let mut roots: Vec<Cause> = Vec::new();
    for (id, problems) in &facts.validate {
        if problems.is_empty() {
            continue;
        }
        let Some(at) = failing(results, VALIDATE_CHECK, Some(id)) else {
            continue;
        };
        let root = Cause::of(&results[at]);
        roots.push(root.clone());
        if let Some(at) = failing(results, MANIFEST_CHECK, Some(id)) {
            results[at].implied = Some(Implied {
                by: vec![root.clone()],
                why: format!("{MANIFEST_CHECK} runs the same validation first"),
            });
        }
        let Some(at) = failing(results, REPLAY_CHECK, Some(id)) else {
            continue;
        };
        let Some(found) = facts.replay.get(id).filter(|f| !f.is_empty()) else {
            continue;
        };
        let validated: Vec<usize> = problems.iter().filter_map(evidence_row).collect();
        let (restated, own): (Vec<&ReplayFinding>, Vec<&ReplayFinding>) = found
            .iter()
            .partition(|f| f.row.is_some_and(|row| validated.contains(&row)));
        if restated.is_empty() {
            continue;
        }
        let rows: Vec<String> = restated
            .iter()
            .filter_map(|f| f.row)
            .map(|row| format!("evidence[{row}]"))
            .collect();
        let why = format!(
            "{} of {CERTIFICATION_FILE}, which {VALIDATE_CHECK} already reports",
            rows.join(", ")
        );
        if own.is_empty() {
            results[at].implied = Some(Implied {
                by: vec![root.clone()],
                why,
            });
        } else {
            // The replay's other findings are causes of their own: say them, and only point
            // at the restated ones.
            let lines: Vec<&str> = own.iter().map(|f| f.text.as_str()).collect();
            results[at].message = Some(format!(
                "{}; besides, {} implied by {}: {why}",
                lines.join("; "),
                crate::report::plural(restated.len(), "finding"),
                root.describe()
            ));
        }
    }
    if roots.is_empty() {
        return;
    }
    if let Some(at) = failing(results, DRIFT_CHECK, None) {
        results[at].implied = Some(Implied {
            by: roots,
            why: "the matrix is tabulated from every adapter's evidence, which does not validate"
                .to_owned(),
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use acc_sdk::error::ProblemCode;

    fn fail(check: &str, adapter: Option<&str>, file: &str) -> GateResult {
        GateResult::new(
            check,
            adapter,
            Status::Fail,
            Some(file.to_owned()),
            Some(format!("{check} says so")),
        )
    }

    fn problem(file: &str, field: &str) -> Problem {
        Problem::new(ProblemCode::ClaimDiffers, file, field, "differs")
    }

    fn finding(row: Option<usize>, text: &str) -> ReplayFinding {
        ReplayFinding {
            row,
            text: text.to_owned(),
        }
    }

    #[test]
    fn one_edited_row_is_one_root_cause_implying_the_rest() {
        let mut results = vec![
            fail(
                VALIDATE_CHECK,
                Some("codex"),
                "adapters/codex/certification.json",
            ),
            fail(MANIFEST_CHECK, Some("codex"), "adapters/codex/adapter.json"),
            fail(
                REPLAY_CHECK,
                Some("codex"),
                "adapters/codex/certification.json",
            ),
            fail(DRIFT_CHECK, None, "docs/CAPABILITIES.md"),
        ];
        let facts = Facts {
            validate: [(
                "codex".to_owned(),
                vec![problem(CERTIFICATION_FILE, "evidence[2].result")],
            )]
            .into(),
            replay: [(
                "codex".to_owned(),
                vec![finding(Some(2), "row 2 says fail")],
            )]
            .into(),
            ..Facts::default()
        };
        link(&mut results, &facts);
        assert_eq!(results[0].implied, None, "the root cause");
        for r in &results[1..] {
            let implied = r.implied.as_ref().unwrap_or_else(|| panic!("{}", r.check));
            assert_eq!(
                implied.by[0].describe(),
                "cert.validate [codex] (adapters/codex/certification.json)"
            );
        }
        assert!(
            results[2]
                .implied
                .as_ref()
                .unwrap()
                .why
                .starts_with("evidence[2] of certification.json")
        );
    }

    #[test]
    fn a_replay_finding_of_its_own_keeps_the_replay_a_root_cause() {
        let mut results = vec![
            fail(
                VALIDATE_CHECK,
                Some("codex"),
                "adapters/codex/certification.json",
            ),
            fail(
                REPLAY_CHECK,
                Some("codex"),
                "adapters/codex/certification.json",
            ),
        ];
        let facts = Facts {
            validate: [(
                "codex".to_owned(),
                vec![problem(CERTIFICATION_FILE, "evidence[0].result")],
            )]
            .into(),
            replay: [(
                "codex".to_owned(),
                vec![
                    finding(None, "the bundle changed"),
                    finding(Some(0), "row 0 says fail"),
                    finding(Some(1), "row 1 says fail"),
                ],
            )]
            .into(),
            ..Facts::default()
        };
        link(&mut results, &facts);
        assert_eq!(results[1].implied, None);
        let message = results[1].message.as_deref().unwrap();
        assert!(message.starts_with("the bundle changed; row 1 says fail; besides, 1 finding implied by cert.validate [codex]"), "{message}");
        assert!(!message.contains("row 0 says fail"), "{message}");
    }

    #[test]
    fn nothing_is_implied_without_a_validation_failure() {
        let mut results = vec![
            fail(MANIFEST_CHECK, Some("codex"), "adapters/codex/adapter.json"),
            fail(DRIFT_CHECK, None, "docs/CAPABILITIES.md"),
        ];
        link(&mut results, &Facts::default());
        assert!(results.iter().all(|r| r.implied.is_none()));
    }
}

#[cfg(test)]
mod report_tests {
    use super::*;
    use crate::gate::annotations;
    use crate::gate::results::GateReport;
    use acc_sdk::error::ProblemCode;

    /// What people read when one hand-edited row fails four checks.
    #[test]
    fn the_report_says_the_root_cause_once_and_lists_what_it_implies() {
        let cert = "adapters/codex/certification.json";
        let mut results = vec![
            GateResult::new(
                VALIDATE_CHECK,
                Some("codex"),
                Status::Fail,
                Some(cert.into()),
                Some(format!(
                    "{cert}: evidence[0].result: result differs from provenance record [claim_differs]"
                )),
            ),
            GateResult::new(
                MANIFEST_CHECK,
                Some("codex"),
                Status::Fail,
                Some(cert.into()),
                Some(format!(
                    "{cert}: evidence[0].result: result differs from provenance record [claim_differs]; fix these files"
                )),
            ),
            GateResult::new(
                REPLAY_CHECK,
                Some("codex"),
                Status::Fail,
                Some(cert.into()),
                Some(format!(
                    "{cert} evidence[0] says fail but judging the capture again gives pass"
                )),
            ),
            GateResult::new(
                DRIFT_CHECK,
                None,
                Status::Fail,
                Some("docs/CAPABILITIES.md".into()),
                Some("docs/CAPABILITIES.md cannot be checked: adapters/codex does not load".into()),
            ),
            GateResult::new(WIRE_CHECK_FOR_TEST, Some("codex"), Status::Pass, None, None),
        ];
        let facts = Facts {
            validate: [(
                "codex".to_owned(),
                vec![Problem::new(
                    ProblemCode::ClaimDiffers,
                    CERTIFICATION_FILE,
                    "evidence[0].result",
                    "differs",
                )],
            )]
            .into(),
            replay: [(
                "codex".to_owned(),
                vec![ReplayFinding {
                    row: Some(0),
                    text: "evidence[0] says fail".into(),
                }],
            )]
            .into(),
            ..Facts::default()
        };
        link(&mut results, &facts);
        let report = GateReport::new(vec!["codex".into()], None, results);
        assert_eq!(report.root_causes(), 1);
        assert_eq!(report.implied(), 3);
        insta::assert_snapshot!("gate_root_cause_human", report.human());
        insta::assert_snapshot!("gate_root_cause_annotations", annotations::render(&report));
    }

    const WIRE_CHECK_FOR_TEST: &str = crate::gate::WIRE_CHECK;
}
