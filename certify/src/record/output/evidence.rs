//! A scenario's verdicts as evidence: one `certification.json` row per capability and one
//! provenance record for the fixture they share (CERTIFICATION.md §1.2-1.3).

use acc_sdk::capabilities::Capability;
use acc_sdk::event::EventKind;
use serde_json::{Value, json};

use crate::clients::Client;
use crate::record::kit::observations::Observations;
use crate::record::kit::tuple::{PROVENANCE_PATH, Tuple};
use crate::record::kit::verdict::Verdict;
use crate::record::output::behaviour::row_behaviour;
use crate::record::scenario::Scenario;
use crate::record::scenarios::recipe;

/// What identifies one recorded scenario in an adapter's evidence.
#[derive(Debug, Clone, Copy)]
pub struct EvidenceInput<'a> {
    pub client: Client,
    pub tuple: &'a Tuple,
    pub observed_at: &'a str,
    pub scenario: Scenario,
    pub verdicts: &'a [Verdict],
}

/// The evidence rows, one per verdict.
pub fn rows(input: &EvidenceInput<'_>) -> Vec<Value> {
    input
        .verdicts
        .iter()
        .map(|verdict| {
            let b = row_behaviour(input.client, verdict);
            json!({
                "client": input.tuple.client,
                "version": input.tuple.version,
                "platform": input.tuple.platform,
                "observedAt": input.observed_at,
                "capability": verdict.capability.key(),
                "fixture": input.tuple.fixture_path(input.scenario),
                "provenance": PROVENANCE_PATH,
                "provenanceId": input.tuple.provenance_id(input.scenario),
                "idleBehavior": b.idle,
                "busyBehavior": b.busy,
                "authorityLevel": b.authority,
                "limitations": b.limitations,
                "result": verdict.result.as_str(),
            })
        })
        .collect()
}

/// The provenance record for the fixture whose raw bytes hash to `fixture_sha256`. `event`
/// and `tool` name what the client sent at the decisive hook, when acc-hook captured it.
pub fn provenance_record(
    input: &EvidenceInput<'_>,
    fixture_sha256: &str,
    observations: &Observations,
) -> Value {
    let claims: Vec<Value> = input
        .verdicts
        .iter()
        .map(|verdict| {
            let b = row_behaviour(input.client, verdict);
            json!({
                "capability": verdict.capability.key(),
                "result": verdict.result.as_str(),
                "outcome": {
                    "kind": b.kind,
                    "idle": b.idle,
                    "busy": b.busy,
                    "authority": b.authority,
                    "limitations": b.limitations,
                },
            })
        })
        .collect();
    let (event, tool) = decisive_hook(input.scenario, observations);
    json!({
        "id": input.tuple.provenance_id(input.scenario),
        "client": input.tuple.client,
        "version": input.tuple.version,
        "platform": input.tuple.platform,
        "observedAt": input.observed_at,
        "fixture": input.tuple.fixture_path(input.scenario),
        "sha256": fixture_sha256,
        "event": event,
        "tool": tool,
        "claims": claims,
    })
}

/// The client's event (and tool) at the hook a scenario's verdict turns on: the first
/// invocation of the normalised kind that scenario exercises.
fn decisive_hook(scenario: Scenario, obs: &Observations) -> (Option<String>, Option<String>) {
    let kind = recipe(scenario).decisive_hook();
    let Some(fact) = obs
        .hooks
        .iter()
        .flatten()
        .find(|h| h.kind.as_deref() == Some(kind.as_str()))
    else {
        return (None, None);
    };
    let tool = (kind == EventKind::BeforeTool)
        .then(|| fact.tool.clone())
        .flatten();
    (fact.event.clone(), tool)
}

/// The capabilities whose rows `scenarios` decide, for `--check`.
pub fn decided(scenarios: &[Scenario]) -> Vec<Capability> {
    let mut caps: Vec<Capability> = scenarios
        .iter()
        .flat_map(|s| recipe(*s).capabilities().iter().copied())
        .collect();
    caps.sort();
    caps.dedup();
    caps
}
