//! `record`'s part for pairs: obtain both clients, run the pair, write its bundle (or, with
//! `--check`, compare it with the committed one), and report.

use std::path::Path;

use serde_json::{Value, json};

use super::bundle::{CommittedError, compare, judge_committed, write_pair_bundle};
use super::pair::{Pair, bundle_path};
use super::run::{PairClients, PairRun, run_pair};
use crate::clients::{Cache, Client, InstalledClient, obtain_in};
use crate::record::kit::error::RecordError;
use crate::record::kit::run::RunSettings;
use crate::record::kit::tuple::certification_name;
use crate::record::kit::tuple::{Tuple, current_platform};

/// How one pair's part of a run ended.
#[derive(Debug, Clone)]
pub enum PairOutcome {
    Recorded {
        run: Box<PairRun>,
        /// The bundle, relative to the repository.
        bundle: String,
        /// `--check` only: each step that differs from the committed recording.
        mismatches: Vec<String>,
    },
    /// A client could not be obtained or run; nothing of the pair was written.
    Unavailable {
        pair: String,
        code: String,
        message: String,
    },
}

impl PairOutcome {
    pub fn mismatched(&self) -> bool {
        matches!(self, PairOutcome::Recorded { mismatches, .. } if !mismatches.is_empty())
    }

    pub fn unavailable(&self) -> bool {
        matches!(self, PairOutcome::Unavailable { .. })
    }
}

/// What every pair's recording shares.
pub struct PairJob<'a> {
    pub cache: &'a Cache,
    pub repo: &'a Path,
    /// Where bundles are written: the repository, or a scratch directory with `--check`.
    pub bundles_root: &'a Path,
    pub settings: &'a RunSettings,
    pub check: bool,
}

impl PairJob<'_> {
    /// Records `pair` with both clients at their pinned versions. A client that cannot be
    /// obtained or run makes the pair unavailable; any other failure stops the command.
    pub fn record(
        &self,
        pair: Pair,
        progress: &mut dyn FnMut(&str),
    ) -> Result<PairOutcome, RecordError> {
        match self.try_record(pair, progress) {
            Err(e @ RecordError::Client { .. }) => Ok(PairOutcome::Unavailable {
                pair: pair.to_string(),
                code: e.code().to_owned(),
                message: e.to_string(),
            }),
            other => other,
        }
    }

    fn try_record(
        &self,
        pair: Pair,
        progress: &mut dyn FnMut(&str),
    ) -> Result<PairOutcome, RecordError> {
        let (owner, owner_tuple) = self.obtain(pair.owner, progress)?;
        let (asker, asker_tuple) = self.obtain(pair.asker, progress)?;
        let run = run_pair(
            pair,
            PairClients {
                owner: (&owner, &owner_tuple),
                asker: (&asker, &asker_tuple),
            },
            self.settings,
            progress,
        )?;
        let rel = bundle_path(&owner_tuple, &asker_tuple);
        let dir = self.bundles_root.join(&rel);
        write_pair_bundle(&dir, &run.bundle).map_err(|e| RecordError::Write {
            message: format!("writing the bundle {}: {e}", dir.display()),
        })?;
        let mismatches = if self.check {
            match judge_committed(&self.repo.join(&rel)) {
                Ok(committed) => compare(&committed, &run.verdict),
                Err(CommittedError::Missing) => {
                    vec![format!("missing: no committed recording at {rel}")]
                }
                Err(CommittedError::Invalid(reason)) => {
                    vec![format!(
                        "the committed recording cannot be judged: {reason}"
                    )]
                }
            }
        } else {
            Vec::new()
        };
        Ok(PairOutcome::Recorded {
            run: Box::new(run),
            bundle: rel,
            mismatches,
        })
    }

    fn obtain(
        &self,
        client: Client,
        progress: &mut dyn FnMut(&str),
    ) -> Result<(InstalledClient, Tuple), RecordError> {
        let installed =
            obtain_in(self.cache, client, client.pinned_version(), progress).map_err(|source| {
                RecordError::Client {
                    client: client.id().to_owned(),
                    source,
                }
            })?;
        let name = certification_name(&self.repo.join("adapters").join(client.id()))?;
        let tuple = Tuple {
            adapter: client.id().to_owned(),
            client: name,
            version: installed.version.clone(),
            platform: current_platform(),
        };
        Ok((installed, tuple))
    }
}

/// The stdout summary of the pairs.
pub fn human(outcomes: &[PairOutcome], check: bool) -> String {
    let mut out = String::new();
    for outcome in outcomes {
        match outcome {
            PairOutcome::Recorded {
                run,
                bundle,
                mismatches,
            } => {
                let verdict = &run.verdict;
                let passed = verdict.steps.iter().filter(|s| s.passed).count();
                out.push_str(&format!(
                    "{} coordinate {} {} + {} {} {}: {} ({passed} of {} steps)\n",
                    if check { "checked" } else { "recorded" },
                    run.owner.client,
                    run.owner.version,
                    run.asker.client,
                    run.asker.version,
                    run.owner.platform,
                    if verdict.passed { "pass" } else { "fail" },
                    verdict.steps.len()
                ));
                for step in &verdict.steps {
                    out.push_str(&format!(
                        "  {:<10} {:<5} {}\n",
                        step.step.name(),
                        if step.passed { "pass" } else { "fail" },
                        step.reasons.join("; ")
                    ));
                }
                if !check {
                    out.push_str(&format!("  bundle: {bundle}\n"));
                } else if mismatches.is_empty() {
                    out.push_str("  matches the committed recording\n");
                }
                for m in mismatches {
                    out.push_str(&format!("  {m}\n"));
                }
            }
            PairOutcome::Unavailable {
                pair,
                code,
                message,
            } => out.push_str(&format!(
                "could not record coordinate {pair}: {message} [{code}]\n"
            )),
        }
    }
    out
}

/// The `--json` data of the pairs.
pub fn json(outcomes: &[PairOutcome]) -> Value {
    let items: Vec<Value> = outcomes
        .iter()
        .map(|outcome| match outcome {
            PairOutcome::Recorded {
                run,
                bundle,
                mismatches,
            } => json!({
                "pair": run.pair.to_string(),
                "owner": run.owner,
                "asker": run.asker,
                "passed": run.verdict.passed,
                "steps": run.verdict.steps,
                "bundle": bundle,
                "mismatches": mismatches,
            }),
            PairOutcome::Unavailable {
                pair,
                code,
                message,
            } => json!({"pair": pair, "unavailable": {"code": code, "message": message}}),
        })
        .collect();
    Value::Array(items)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::scenarios::coordinate::bundle::PairBundle;
    use crate::record::scenarios::coordinate::judge::judge;
    use crate::record::scenarios::coordinate::observations::{
        COORDINATION_SCHEMA, CoordinationExpect, CoordinationObservations, Side,
    };
    use crate::record::scenarios::coordinate::pair::PAIRS;

    fn tuple(client: &str, version: &str) -> Tuple {
        Tuple {
            adapter: client.into(),
            client: client.into(),
            version: version.into(),
            platform: "linux-x64".into(),
        }
    }

    /// A pair whose runs were never observed: every step fails with its reason.
    fn unobserved() -> PairOutcome {
        let side = |adapter: &str| Side {
            adapter: adapter.into(),
            client: adapter.into(),
            version: "1.0.0".into(),
            protocol: "anthropic-messages".into(),
        };
        let observations = CoordinationObservations {
            schema_version: COORDINATION_SCHEMA,
            platform: "linux-x64".into(),
            owner: side("claude-code"),
            asker: side("codex"),
            expect: CoordinationExpect {
                resource: "file:src/**".into(),
                target: "src/x".into(),
                target_sha256: "0".repeat(64),
            },
            runs: Vec::new(),
        };
        let verdict = judge(&observations);
        PairOutcome::Recorded {
            run: Box::new(PairRun {
                pair: PAIRS[0],
                owner: tuple("claude-code", "2.1.332"),
                asker: tuple("codex-cli", "0.171.0"),
                bundle: PairBundle {
                    observations: observations.clone(),
                    installed: Vec::new(),
                    runs: Vec::new(),
                },
                observations,
                verdict,
            }),
            bundle: "captures/coordinate/a+b".into(),
            mismatches: vec![
                "differs: step claimed is pass in the committed recording but fail now".into(),
            ],
        }
    }

    #[test]
    fn the_summary_names_every_step_and_each_difference() {
        let outcomes = [
            unobserved(),
            PairOutcome::Unavailable {
                pair: "claude-code+gemini-cli".into(),
                code: "client.npm-missing".into(),
                message: "npm is not on PATH".into(),
            },
        ];
        assert!(outcomes[0].mismatched() && outcomes[1].unavailable());
        insta::assert_snapshot!("pairs_checked", human(&outcomes, true));
        insta::assert_snapshot!("pairs_recorded", human(&outcomes[..1], false));
        let data = json(&outcomes);
        assert_eq!(data[0]["pair"], "claude-code+codex");
        assert_eq!(data[0]["passed"], false);
        assert_eq!(data[0]["steps"].as_array().unwrap().len(), 7);
        assert_eq!(data[0]["steps"][0]["step"], "claimed");
        assert_eq!(data[1]["unavailable"]["code"], "client.npm-missing");
    }
}
