//! `guard-write`: a peer's guarded claim on `src/**`; the model writes `src/x`, then the
//! unclaimed `free.txt`. Was the write into the claim denied before it happened, with acc's
//! reason read by the model, while the unclaimed write happened? The judge is shared with
//! `guard-shell` ([`guard`]).

use std::path::Path;

use acc_runtime::{AccError, Core};
use acc_sdk::capabilities::Capability;
use acc_sdk::event::EventKind;

use crate::clients::InstalledClient;
use crate::doubles::{Script, ScriptError, Step};
use crate::record::kit::error::RecordError;
use crate::record::kit::headless;
use crate::record::kit::observations::Observations;
use crate::record::kit::recipe::Recipe;
use crate::record::kit::room::{self, Room};
use crate::record::kit::run::{RunSettings, ScenarioRun};
use crate::record::kit::tuple::Tuple;
use crate::record::kit::verdict::{Verdict, conversation_requests};
use crate::record::scenario::{FINAL_TEXT, FREE_FILE, Scenario};

pub struct GuardWrite;

impl Recipe for GuardWrite {
    fn scenario(&self) -> Scenario {
        Scenario::GuardWrite
    }

    fn run(
        &self,
        installed: &InstalledClient,
        tuple: &Tuple,
        settings: &RunSettings,
        control: Option<&Observations>,
    ) -> Result<ScenarioRun, RecordError> {
        headless::run(self, installed, tuple, settings, control)
    }

    fn capabilities(&self) -> &'static [Capability] {
        &[Capability::BeforeWrite]
    }

    fn judge(&self, obs: &Observations) -> Vec<Verdict> {
        vec![guard(obs, Capability::BeforeWrite, "write")]
    }

    fn has_peer(&self) -> bool {
        true
    }

    fn claimed_target(&self) -> Option<&'static str> {
        Some("src/x")
    }

    fn decisive_hook(&self) -> EventKind {
        EventKind::BeforeTool
    }

    /// Two tool calls: the claimed target, then the unclaimed control.
    fn script(&self, workspace: &Path) -> Result<Script, ScriptError> {
        Script::new(
            vec![
                Step::write_file(workspace.join("src/x"), "written by the model double\n"),
                Step::write_file(workspace.join(FREE_FILE), "unclaimed\n"),
            ],
            FINAL_TEXT,
        )
    }

    fn room(&self, core: &mut Core) -> Result<Room, AccError> {
        room::guarded_claim(core)
    }
}

/// The guard scenarios' judge: the claimed target was not created, the tool result the
/// client sent back carries acc's reason, and the unclaimed file was written.
pub fn guard(obs: &Observations, capability: Capability, tool: &str) -> Verdict {
    let mut failures = Vec::new();
    let (Some(target), Some(reason), Some(free)) = (
        obs.expect.claimed_target.as_deref(),
        obs.expect.deny_reason.as_deref(),
        obs.expect.free_target.as_deref(),
    ) else {
        return Verdict::new(
            capability,
            vec!["the observations do not say which target was claimed".to_owned()],
            "",
        );
    };
    match obs.file(target) {
        Some(f) if !f.exists => {}
        Some(_) => failures.push(format!(
            "the claimed {target} was created: the {tool} was not blocked"
        )),
        None => failures.push(format!("{target} was not observed")),
    }
    // Result 0 answers script step 0, the call into the claim.
    let results = conversation_requests(obs)
        .into_iter()
        .map(|r| &r.tool_results)
        .max_by_key(|results| results.len());
    match results.and_then(|results| results.first()) {
        Some(result) if result.text.contains(reason) => {}
        Some(_) => failures.push(format!(
            "the tool result the client sent back for the claimed {tool} does not carry acc's reason"
        )),
        None => failures.push(format!(
            "the client sent no tool result back for the claimed {tool}"
        )),
    }
    match obs.file(free) {
        Some(f) if f.exists => {}
        _ => failures.push(format!(
            "negative control failed: the unclaimed {free} was not written"
        )),
    }
    let success = match capability {
        Capability::BeforeShell => {
            "the shell command into the claim was denied before it ran, the model read acc's reason, and the unclaimed write ran"
        }
        _ => {
            "the write into the claim was denied before it happened, the model read acc's reason, and the unclaimed write happened"
        }
    };
    Verdict::new(capability, failures, success)
}

#[cfg(test)]
mod tests;
