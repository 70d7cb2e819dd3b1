//! The raw bundle of one pair run, `captures/coordinate/<owner build>+<asker build>/`:
//! `observations.json` (what the judge reads), `installed.json`, and per client run
//! `<turn>/` with `requests.jsonl`, `hooks.jsonl`, `stdout.txt`, `stderr.txt` and
//! `run.json`, all redacted. Re-recording replaces the directory.
//!
//! `record --check` judges the committed `observations.json` again and compares its step
//! verdicts with a fresh run's ([`compare`]).

use std::fs;
use std::io;
use std::path::Path;

use acc_sdk::certification::digest::sha256_hex;
use serde_json::{Value, json};

use super::judge::{CoordinationVerdict, judge};
use super::observations::{CoordinationObservations, Turn};
use crate::doubles::LoggedRequest;
use crate::record::output::bundle::OBSERVATIONS_FILE;
use crate::record::output::bundle::{
    HOOKS_FILE, REQUESTS_FILE, RUN_FILE, STDERR_FILE, STDOUT_FILE,
};
use crate::record::output::canonical::{render, write_atomic};

pub const INSTALLED_FILE: &str = "installed.json";

/// One client run's files.
#[derive(Debug, Clone)]
pub struct RunFiles {
    pub turn: Turn,
    pub requests: Vec<LoggedRequest>,
    pub stdout: String,
    pub stderr: String,
    pub hooks: Option<String>,
    pub run: Value,
}

/// Everything a pair bundle holds, already redacted.
#[derive(Debug, Clone)]
pub struct PairBundle {
    pub observations: CoordinationObservations,
    /// The files acc's installer created or edited in the shared home.
    pub installed: Vec<String>,
    pub runs: Vec<RunFiles>,
}

/// The bytes `observations.json` is written with.
pub fn observations_bytes(observations: &CoordinationObservations) -> Vec<u8> {
    render(&serde_json::to_value(observations).expect("observations serialize"))
}

/// Writes `bundle` into `dir`, replacing it; returns the sha256 of `observations.json`.
pub fn write_pair_bundle(dir: &Path, bundle: &PairBundle) -> io::Result<String> {
    if dir.exists() {
        fs::remove_dir_all(dir)?;
    }
    fs::create_dir_all(dir)?;
    for run in &bundle.runs {
        let run_dir = dir.join(run.turn.name());
        fs::create_dir_all(&run_dir)?;
        let mut requests = String::new();
        for request in &run.requests {
            requests.push_str(&serde_json::to_string(request).map_err(io::Error::other)?);
            requests.push('\n');
        }
        write_atomic(&run_dir.join(REQUESTS_FILE), requests.as_bytes())?;
        write_atomic(&run_dir.join(STDOUT_FILE), run.stdout.as_bytes())?;
        write_atomic(&run_dir.join(STDERR_FILE), run.stderr.as_bytes())?;
        if let Some(hooks) = &run.hooks {
            write_atomic(&run_dir.join(HOOKS_FILE), hooks.as_bytes())?;
        }
        write_atomic(&run_dir.join(RUN_FILE), &render(&run.run))?;
    }
    write_atomic(
        &dir.join(INSTALLED_FILE),
        &render(&json!({ "installed": bundle.installed })),
    )?;
    let observations = observations_bytes(&bundle.observations);
    write_atomic(&dir.join(OBSERVATIONS_FILE), &observations)?;
    Ok(sha256_hex(&observations))
}

/// Why a committed pair bundle could not be judged.
#[derive(Debug)]
pub enum CommittedError {
    Missing,
    Invalid(String),
}

/// Judges the committed bundle in `dir` again.
pub fn judge_committed(dir: &Path) -> Result<CoordinationVerdict, CommittedError> {
    let path = dir.join(OBSERVATIONS_FILE);
    let bytes = match fs::read(&path) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Err(CommittedError::Missing),
        Err(e) => return Err(CommittedError::Invalid(format!("{}: {e}", path.display()))),
    };
    let observations: CoordinationObservations = serde_json::from_slice(&bytes)
        .map_err(|e| CommittedError::Invalid(format!("{}: {e}", path.display())))?;
    Ok(judge(&observations))
}

/// Each step whose result differs between the committed recording and now, as one line.
pub fn compare(committed: &CoordinationVerdict, now: &CoordinationVerdict) -> Vec<String> {
    let result = |passed: bool| if passed { "pass" } else { "fail" };
    now.steps
        .iter()
        .filter_map(|step| {
            let before = committed.steps.iter().find(|s| s.step == step.step);
            match before {
                Some(before) if before.passed == step.passed => None,
                Some(before) => Some(format!(
                    "differs: step {} is {} in the committed recording but {} now",
                    step.step,
                    result(before.passed),
                    result(step.passed)
                )),
                None => Some(format!(
                    "missing: step {} has no committed verdict",
                    step.step
                )),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::scenarios::coordinate::judge::{Step, StepVerdict};

    fn verdict(results: &[(Step, bool)]) -> CoordinationVerdict {
        CoordinationVerdict {
            passed: results.iter().all(|(_, p)| *p),
            steps: results
                .iter()
                .map(|&(step, passed)| StepVerdict {
                    step,
                    passed,
                    reasons: vec!["why".into()],
                })
                .collect(),
        }
    }

    #[test]
    fn only_changed_step_results_are_differences() {
        let committed = verdict(&[(Step::Claimed, true), (Step::Refused, false)]);
        assert!(compare(&committed, &committed).is_empty());
        let now = verdict(&[
            (Step::Claimed, false),
            (Step::Refused, false),
            (Step::Wrote, true),
        ]);
        assert_eq!(
            compare(&committed, &now),
            [
                "differs: step claimed is pass in the committed recording but fail now",
                "missing: step wrote has no committed verdict"
            ]
        );
    }

    #[test]
    fn a_bundle_written_is_judged_again_from_its_observations() {
        let dir = tempfile::tempdir().unwrap();
        assert!(matches!(
            judge_committed(dir.path()),
            Err(CommittedError::Missing)
        ));
        let observations = CoordinationObservations {
            schema_version: super::super::observations::COORDINATION_SCHEMA,
            platform: "linux-x64".into(),
            owner: side("claude-code"),
            asker: side("codex"),
            expect: super::super::observations::CoordinationExpect {
                resource: "file:src/**".into(),
                target: "src/x".into(),
                target_sha256: "0".repeat(64),
            },
            runs: Vec::new(),
        };
        let bundle = PairBundle {
            observations: observations.clone(),
            installed: vec!["<home>/.claude/settings.json".into()],
            runs: vec![RunFiles {
                turn: Turn::OwnerClaims,
                requests: Vec::new(),
                stdout: "Done.\n".into(),
                stderr: String::new(),
                hooks: None,
                run: json!({"exitCode": 0}),
            }],
        };
        let target = dir.path().join("pair");
        let sha = write_pair_bundle(&target, &bundle).unwrap();
        assert_eq!(
            sha,
            sha256_hex(&fs::read(target.join(OBSERVATIONS_FILE)).unwrap())
        );
        assert!(target.join("owner-claims/requests.jsonl").is_file());
        assert!(!target.join("owner-claims/hooks.jsonl").exists());
        let again = judge_committed(&target).unwrap();
        assert_eq!(again, judge(&observations));
        assert!(!again.passed);
    }

    fn side(adapter: &str) -> super::super::observations::Side {
        super::super::observations::Side {
            adapter: adapter.into(),
            client: adapter.into(),
            version: "1.0.0".into(),
            protocol: "anthropic-messages".into(),
        }
    }
}
