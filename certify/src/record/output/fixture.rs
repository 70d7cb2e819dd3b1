//! The redacted capture fixture promoted into `adapters/<id>/fixtures/captures/`.
//!
//! It keeps what a reviewer needs to trust a verdict, and nothing a run saw in the clear:
//! hook event names, normalised kinds, payload key names, outcome shapes, the verdicts and
//! where the raw bundle is, with the digest of its observations. No prompt, transcript path,
//! file content, tool output or peer text is copied here (`redaction` tests enforce it).

use serde_json::{Value, json};

use crate::record::kit::observations::{HookFact, Observations};
use crate::record::kit::tuple::Tuple;
use crate::record::kit::verdict::{ControlVerdict, Verdict, conversation_requests};
use crate::record::scenario::Scenario;

/// The fixture's schema tag.
pub const FIXTURE_SCHEMA: &str = "acc-certify.capture/1";

/// The recorder that wrote a fixture.
pub fn recorder() -> String {
    format!("acc-certify {}", env!("CARGO_PKG_VERSION"))
}

/// The solo control as a `next-turn` fixture references it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ControlRef {
    pub verdict: ControlVerdict,
    pub bundle: String,
    pub observations_sha256: String,
}

/// Everything one fixture is made of.
#[derive(Debug, Clone, Copy)]
pub struct FixtureInput<'a> {
    pub tuple: &'a Tuple,
    pub observed_at: &'a str,
    pub scenario: Scenario,
    pub observations: &'a Observations,
    pub verdicts: &'a [Verdict],
    pub control: Option<&'a ControlRef>,
    /// The bundle directory, relative to the repository.
    pub bundle: &'a str,
    /// sha256 of the bundle's `observations.json` bytes.
    pub observations_sha256: &'a str,
}

/// The fixture as a JSON value (render it with [`crate::record::output::canonical::render`]).
pub fn fixture_value(input: &FixtureInput<'_>) -> Value {
    let obs = input.observations;
    let hooks: Value = match &obs.hooks {
        Some(facts) => facts.iter().map(hook_event).collect(),
        None => Value::Null,
    };
    let verdicts: Vec<Value> = input
        .verdicts
        .iter()
        .map(|v| json!({"capability": v.capability.key(), "result": v.result.as_str(), "reasons": v.reasons}))
        .collect();
    let control = input.control.map(|c| {
        json!({
            "scenario": Scenario::SoloControl.name(),
            "passed": c.verdict.passed,
            "reasons": c.verdict.reasons,
            "bundle": c.bundle,
            "observationsSha256": c.observations_sha256,
        })
    });
    json!({
        "schema": FIXTURE_SCHEMA,
        "recorder": recorder(),
        "adapter": input.tuple.adapter,
        "client": input.tuple.client,
        "version": input.tuple.version,
        "platform": input.tuple.platform,
        "observedAt": input.observed_at,
        "scenario": input.scenario.name(),
        "candidates": obs.expect.candidates,
        "run": {"exitCode": obs.run.exit_code, "timedOut": obs.run.timed_out},
        "modelRequests": {
            "total": obs.requests.len(),
            "conversation": conversation_requests(obs).len(),
        },
        "hooksCaptured": obs.hooks.is_some(),
        "hookEvents": hooks,
        "verdicts": verdicts,
        "control": control,
        "bundle": input.bundle,
        "observationsSha256": input.observations_sha256,
    })
}

fn hook_event(fact: &HookFact) -> Value {
    json!({
        "event": fact.event,
        "kind": fact.kind,
        "tool": fact.tool,
        "refusal": fact.refusal,
        "payloadKeys": fact.payload_keys,
        "outcome": fact.outcome,
    })
}
