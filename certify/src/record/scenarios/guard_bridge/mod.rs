//! `guard-bridge`: a peer's guarded claim on `src/**`, and a file already in it; the model
//! overwrites that file through the client's tool that runs another tool by name (Qwen
//! Code's `tool_call`), then writes the unclaimed `free.txt` the same way.
//!
//! The outcome decides, not acc's verdict: the claimed file must keep its bytes while the
//! bridged write to `free.txt` happened (so the bridge really ran a write). Whether the
//! inner tool's pre-tool hook reached acc, and whether the model read acc's reason, are
//! reported with it. A client without such a bridge has no `[scenarios.guard-bridge]` in
//! its recorder file and is not run. Decides no capability: the bridge is another path to
//! the write `guard-write` already decides, so its outcome is reported beside them.

use std::path::{Path, PathBuf};

use acc_runtime::{AccError, Core};
use acc_sdk::event::EventKind;
use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};

use crate::clients::recorder_file::GuardBridge as Bridge;
use crate::clients::{Client, InstalledClient};
use crate::doubles::{Script, ScriptError, Step};
use crate::record::kit::error::RecordError;
use crate::record::kit::headless;
use crate::record::kit::observations::{FileFact, Observations};
use crate::record::kit::recipe::{HeadlessRun, Recipe};
use crate::record::kit::room::{self, Room};
use crate::record::kit::run::{RunSettings, ScenarioRun};
use crate::record::kit::tuple::Tuple;
use crate::record::kit::verdict::{ControlVerdict, conversation_requests};
use crate::record::scenario::{FINAL_TEXT, FREE_FILE, Scenario};

/// The claimed file, present before the run.
pub const CLAIMED: &str = "src/x";
/// What it holds; the bridged write must leave exactly this.
pub const CLAIMED_BYTES: &str = "the peer's claimed file, as seeded\n";
/// What the bridged write tries to put there.
pub const OVERWRITE: &str = "overwritten through the tool bridge\n";

/// The registered recipe: looks up the client's bridge and runs [`Bound`].
pub struct GuardBridge;

/// The scenario for one client's bridge.
struct Bound(&'static Bridge);

/// The bridge `client`'s recorder file declares.
pub fn bridge_of(client: Client) -> Option<&'static Bridge> {
    client.recorder().scenarios.guard_bridge.as_ref()
}

impl Recipe for GuardBridge {
    fn scenario(&self) -> Scenario {
        Scenario::GuardBridge
    }

    fn run(
        &self,
        installed: &InstalledClient,
        tuple: &Tuple,
        settings: &RunSettings,
        control: Option<&Observations>,
    ) -> Result<ScenarioRun, RecordError> {
        let bridge = bridge_of(installed.client).ok_or_else(|| RecordError::Double {
            message: format!(
                "guard-bridge: adapters/{}/recorder.toml names no [scenarios.guard-bridge]; run it only for clients with a tool bridge",
                installed.client.id()
            ),
        })?;
        headless::run(&Bound(bridge), installed, tuple, settings, control)
    }

    fn applies_to(&self, adapter_id: &str) -> bool {
        adapter_id
            .parse::<Client>()
            .is_ok_and(|client| bridge_of(client).is_some())
    }

    fn has_peer(&self) -> bool {
        true
    }

    fn claimed_target(&self) -> Option<&'static str> {
        Some(CLAIMED)
    }

    fn decisive_hook(&self) -> EventKind {
        EventKind::BeforeTool
    }
}

impl Recipe for Bound {
    fn scenario(&self) -> Scenario {
        Scenario::GuardBridge
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

    fn has_peer(&self) -> bool {
        true
    }

    fn claimed_target(&self) -> Option<&'static str> {
        Some(CLAIMED)
    }

    fn decisive_hook(&self) -> EventKind {
        EventKind::BeforeTool
    }

    fn seed(&self, workspace: &Path) -> Result<(), RecordError> {
        std::fs::write(workspace.join(CLAIMED), CLAIMED_BYTES).map_err(|e| RecordError::Write {
            message: format!("seeding {CLAIMED} in {}: {e}", workspace.display()),
        })
    }

    fn script(&self, workspace: &Path) -> Result<Script, ScriptError> {
        Script::new(steps(self.0, workspace), FINAL_TEXT)
    }

    fn room(&self, core: &mut Core) -> Result<Room, AccError> {
        room::guarded_claim(core)
    }

    fn wire(&self, client: Client, installed: &[PathBuf]) -> std::io::Result<()> {
        let Some(settings) = self.0.settings.as_deref() else {
            return Ok(());
        };
        let hooks_file = &client.recorder().config.hooks;
        let path = installed
            .iter()
            .find(|p| p.ends_with(hooks_file))
            .ok_or_else(|| {
                std::io::Error::other(format!(
                    "guard-bridge: the installer wrote no {hooks_file} to merge the bridge's settings into"
                ))
            })?;
        merge_settings(path, settings)
    }

    fn observe(&self, run: &HeadlessRun<'_>, obs: &mut Observations) -> Result<(), RecordError> {
        obs.files = file_facts(run.workspace);
        Ok(())
    }

    fn beside(&self, run: &mut ScenarioRun) {
        run.bridge_guard = Some(judge(&run.observations, &self.0.inner));
    }
}

/// The two bridged writes: into the claim, then the unclaimed control.
pub fn steps(bridge: &Bridge, workspace: &Path) -> Vec<Step> {
    [(CLAIMED, OVERWRITE), (FREE_FILE, "unclaimed\n")]
        .into_iter()
        .map(|(file, content)| {
            let mut inner = Map::new();
            inner.insert(
                bridge.path_key.clone(),
                json!(workspace.join(file).to_string_lossy()),
            );
            inner.insert(bridge.content_key.clone(), json!(content));
            let mut call = Map::new();
            call.insert(bridge.name_key.clone(), json!(bridge.inner));
            call.insert(bridge.arguments_key.clone(), Value::Object(inner));
            Step::call(&bridge.tool, Value::Object(call))
        })
        .collect()
}

/// Deep-merges the JSON object `settings` into the JSON file at `path`.
fn merge_settings(path: &Path, settings: &str) -> std::io::Result<()> {
    let invalid = |what: &str, e: serde_json::Error| {
        std::io::Error::other(format!("guard-bridge: {what}: {e}"))
    };
    let mut doc: Value = serde_json::from_str(&std::fs::read_to_string(path)?)
        .map_err(|e| invalid(&path.display().to_string(), e))?;
    let add: Value = serde_json::from_str(settings).map_err(|e| invalid("settings", e))?;
    merge(&mut doc, add);
    std::fs::write(path, format!("{}\n", serde_json::to_string_pretty(&doc)?))
}

fn merge(into: &mut Value, add: Value) {
    match (into, add) {
        (Value::Object(into), Value::Object(add)) => {
            for (key, value) in add {
                merge(into.entry(key).or_insert(Value::Null), value);
            }
        }
        (slot, add) => *slot = add,
    }
}

fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The claimed file with its digest, and whether the control was written.
fn file_facts(workspace: &Path) -> Vec<FileFact> {
    [CLAIMED, FREE_FILE]
        .into_iter()
        .map(|path| {
            let bytes = std::fs::read(workspace.join(path)).ok();
            FileFact {
                path: path.to_owned(),
                exists: bytes.is_some(),
                sha256: bytes
                    .filter(|_| path == CLAIMED)
                    .map(|b| sha256_hex(&b)),
            }
        })
        .collect()
}

/// Did the claimed file keep its bytes while the bridge wrote the control? Every failed
/// outcome is a reason; a passing one says how acc saw the call.
pub fn judge(obs: &Observations, inner: &str) -> ControlVerdict {
    let mut reasons: Vec<String> = obs.run.network_problem().into_iter().collect();
    let seeded = sha256_hex(CLAIMED_BYTES.as_bytes());
    let kept = match obs.file(CLAIMED) {
        Some(f) if f.sha256.as_deref() == Some(seeded.as_str()) => true,
        Some(f) if !f.exists => {
            reasons.push(format!("the claimed {CLAIMED} was removed"));
            false
        }
        Some(_) => {
            reasons.push(format!(
                "the claimed {CLAIMED} was overwritten: the write through the bridge reached the claim"
            ));
            false
        }
        None => {
            reasons.push(format!("{CLAIMED} was not observed"));
            false
        }
    };
    if !obs.file(FREE_FILE).is_some_and(|f| f.exists) {
        reasons.push(format!(
            "negative control failed: the bridged write to the unclaimed {FREE_FILE} did not happen, so the bridge was not shown to run a write"
        ));
    }
    let inner_hook = obs.hooks.as_ref().is_some_and(|hooks| {
        hooks
            .iter()
            .any(|h| h.kind.as_deref() == Some("beforeTool") && h.tool.as_deref() == Some(inner))
    });
    if !inner_hook {
        reasons.push(format!(
            "no pre-tool hook naming the inner tool {inner} reached acc"
        ));
    }
    let reason_read = obs.expect.deny_reason.as_deref().is_some_and(|reason| {
        conversation_requests(obs)
            .iter()
            .flat_map(|r| &r.tool_results)
            .any(|result| result.text.contains(reason))
    });
    if !reason_read {
        reasons.push("the model was not shown acc's reason for the refused write".to_owned());
    }
    let passed = reasons.is_empty() && kept;
    if passed {
        reasons.push(format!(
            "the inner {inner}'s pre-tool hook reached acc, which refused it; the claimed file kept its bytes and the bridged unclaimed write happened"
        ));
    }
    ControlVerdict { passed, reasons }
}

#[cfg(test)]
mod tests;
