//! One client's recording: every planned scenario run, then its bundles and evidence.

use std::path::Path;

use acc_sdk::certification::digest::sha256_hex;

use crate::clients::{Client, InstalledClient};
use crate::record::kit::error::RecordError;
use crate::record::kit::run::{RunSettings, ScenarioRun};
pub use crate::record::kit::tuple::certification_name;
use crate::record::kit::tuple::{Tuple, current_platform};
use crate::record::output::bundle::{observations_bytes, write_bundle};
use crate::record::output::canonical::render;
use crate::record::output::evidence::{EvidenceInput, provenance_record, rows};
use crate::record::output::fixture::{ControlRef, FixtureInput, fixture_value};
use crate::record::output::writer::{ScenarioEvidence, write_evidence};
use crate::record::scenario::Scenario;
use crate::record::scenarios::recipe;

/// Every scenario run of one client build.
#[derive(Debug, Clone)]
pub struct ClientRecording {
    pub client: Client,
    pub tuple: Tuple,
    pub observed_at: String,
    pub runs: Vec<ScenarioRun>,
}

impl ClientRecording {
    pub fn run(&self, scenario: Scenario) -> Option<&ScenarioRun> {
        self.runs.iter().find(|r| r.scenario == scenario)
    }
}

/// Runs `scenarios` (in plan order) against `installed`; `progress` hears about each one
/// as it starts (`None`) and once it is judged.
pub fn record_client(
    installed: &InstalledClient,
    certification_name: &str,
    scenarios: &[Scenario],
    settings: &RunSettings,
    observed_at: &str,
    progress: &mut dyn FnMut(&Tuple, Scenario, Option<&ScenarioRun>),
) -> Result<ClientRecording, RecordError> {
    let tuple = Tuple {
        adapter: installed.client.id().to_owned(),
        client: certification_name.to_owned(),
        version: installed.version.clone(),
        platform: current_platform(),
    };
    let mut runs: Vec<ScenarioRun> = Vec::new();
    // A pair scenario runs two clients together (`coordinate::record`), never one alone.
    for &scenario in scenarios.iter().filter(|s| {
        let recipe = recipe(**s);
        !recipe.is_pair() && recipe.applies_to(installed.client.id())
    }) {
        let control = runs
            .iter()
            .find(|r| r.scenario == Scenario::SoloControl)
            .map(|r| &r.observations)
            .filter(|_| scenario == Scenario::NextTurn);
        progress(&tuple, scenario, None);
        let run = recipe(scenario).run(installed, &tuple, settings, control)?;
        progress(&tuple, scenario, Some(&run));
        runs.push(run);
    }
    Ok(ClientRecording {
        client: installed.client,
        tuple,
        observed_at: observed_at.to_owned(),
        runs,
    })
}

/// Writes every bundle under `bundles_root` (`<root>/captures/...`) and returns the evidence
/// each capability scenario contributes to the adapter directory.
pub fn persist_bundles(
    recording: &ClientRecording,
    bundles_root: &Path,
) -> Result<Vec<ScenarioEvidence>, RecordError> {
    let tuple = &recording.tuple;
    let mut control: Option<ControlRef> = None;
    let mut items = Vec::new();
    for run in &recording.runs {
        let rel = tuple.bundle_path(run.scenario);
        let dir = bundles_root.join(&rel);
        let observations_sha256 =
            write_bundle(&dir, &run.bundle).map_err(|e| RecordError::Write {
                message: format!("writing the bundle {}: {e}", dir.display()),
            })?;
        debug_assert_eq!(
            observations_sha256,
            sha256_hex(&observations_bytes(&run.observations))
        );
        if let Some(verdict) = &run.control {
            control = Some(ControlRef {
                verdict: verdict.clone(),
                bundle: rel.clone(),
                observations_sha256: observations_sha256.clone(),
            });
        }
        if run.verdicts.is_empty() {
            continue;
        }
        let fixture = fixture_value(&FixtureInput {
            tuple,
            observed_at: &recording.observed_at,
            scenario: run.scenario,
            observations: &run.observations,
            verdicts: &run.verdicts,
            control: control
                .as_ref()
                .filter(|_| run.scenario == Scenario::NextTurn),
            bundle: &rel,
            observations_sha256: &observations_sha256,
        });
        let fixture_bytes = render(&fixture);
        let input = EvidenceInput {
            client: recording.client,
            tuple,
            observed_at: &recording.observed_at,
            scenario: run.scenario,
            verdicts: &run.verdicts,
        };
        let record = provenance_record(&input, &sha256_hex(&fixture_bytes), &run.observations);
        items.push(ScenarioEvidence {
            fixture_path: tuple.fixture_path(run.scenario),
            fixture_bytes,
            record,
            rows: rows(&input),
        });
    }
    Ok(items)
}

/// Writes `items` into `adapter_dir` and validates it.
pub fn persist_evidence(adapter_dir: &Path, items: &[ScenarioEvidence]) -> Result<(), RecordError> {
    write_evidence(adapter_dir, items).map_err(|e| RecordError::Write {
        message: e.to_string(),
    })
}
