//! `guard-shell`: `guard-write` through the shell tool: `echo x > src/y` into the peer's
//! guarded claim, then a write to `free.txt`.

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
use crate::record::kit::verdict::Verdict;
use crate::record::scenario::{FINAL_TEXT, FREE_FILE, Scenario};
use crate::record::scenarios::guard_write::guard;

pub struct GuardShell;

impl Recipe for GuardShell {
    fn scenario(&self) -> Scenario {
        Scenario::GuardShell
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
        &[Capability::BeforeShell]
    }

    fn judge(&self, obs: &Observations) -> Vec<Verdict> {
        vec![guard(obs, Capability::BeforeShell, "shell command")]
    }

    fn has_peer(&self) -> bool {
        true
    }

    fn claimed_target(&self) -> Option<&'static str> {
        Some("src/y")
    }

    fn decisive_hook(&self) -> EventKind {
        EventKind::BeforeTool
    }

    /// The shell step writes `src/y` relative to the workspace (the runner creates `src/`).
    fn script(&self, _workspace: &Path) -> Result<Script, ScriptError> {
        Script::new(
            vec![
                Step::shell("echo x > src/y"),
                Step::shell(format!("echo ok > {FREE_FILE}")),
            ],
            FINAL_TEXT,
        )
    }

    fn room(&self, core: &mut Core) -> Result<Room, AccError> {
        room::guarded_claim(core)
    }
}
