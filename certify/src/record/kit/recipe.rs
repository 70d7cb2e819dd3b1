//! The one trait every scenario implements: what it plants in the workspace, what the model
//! double says, which variables the client is given, how it runs and how it is judged. The
//! enum in [`crate::record::scenario`] only names the scenarios; `scenarios::recipe` maps
//! each name to its implementation, the one match over the enum.
//!
//! Every method but [`Recipe::scenario`] and [`Recipe::run`] has the answer of a scenario
//! that sets nothing up: no peer, no claim, no candidates, a double that only answers with
//! text. A scenario says only what differs.
//!
//! ```
//! use acc_certify::record::Scenario;
//! use acc_certify::record::scenarios::recipe;
//!
//! // Each name has exactly one implementation, and it answers to that name.
//! for scenario in Scenario::ALL {
//!     assert_eq!(recipe(scenario).scenario(), scenario);
//! }
//! ```

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use acc_runtime::{AccError, Core};
use acc_sdk::capabilities::Capability;
use acc_sdk::event::EventKind;

use crate::clients::{Client, InstalledClient};
use crate::doubles::{ModelDouble, Protocol, Script, ScriptError};
use crate::record::kit::error::RecordError;
use crate::record::kit::hook_capture::CAPTURE_DIR_VAR;
use crate::record::kit::observations::{Expectations, Observations};
use crate::record::kit::room::Room;
use crate::record::kit::run::{MidTurn, RunSettings, ScenarioRun};
use crate::record::kit::tuple::Tuple;
use crate::record::kit::verdict::{Verdict, unusable};
use crate::record::scenario::{FINAL_TEXT, FREE_FILE, PEER, Scenario};

/// The variables the hook runtime reads for a recording.
pub const CANDIDATES_VAR: &str = "ACC_CERTIFY_CANDIDATES";
pub const PARTICIPANT_VAR: &str = "ACC_PARTICIPANT";
pub const WITHHELD_VAR: &str = "ACC_CERTIFY_WITHHELD";

/// What the headless runner hands a scenario that starts its own double.
pub struct DoubleSetup<'a> {
    pub protocol: Protocol,
    pub script: Script,
    pub workspace: &'a Path,
    pub acc_data_home: PathBuf,
    pub room: &'a Room,
    /// Where acc-hook writes its capture lines (a double may wait on one).
    pub capture_dir: PathBuf,
}

/// What a headless run left for a scenario's own observations.
pub struct HeadlessRun<'a> {
    pub client: Client,
    pub workspace: &'a Path,
    pub acc_data_home: PathBuf,
    pub double: &'a ModelDouble,
}

/// One scenario: its set-up, its run and its judge.
pub trait Recipe: Sync {
    /// The name this implements.
    fn scenario(&self) -> Scenario;

    /// Runs the scenario once against `installed`. `control` is the solo control's
    /// observations of the same client, which `next-turn` embeds so that its verdicts can
    /// be judged again from one file.
    fn run(
        &self,
        installed: &InstalledClient,
        tuple: &Tuple,
        settings: &RunSettings,
        control: Option<&Observations>,
    ) -> Result<ScenarioRun, RecordError>;

    /// The capabilities this scenario's verdicts are about (none for the ones reported
    /// beside them).
    fn capabilities(&self) -> &'static [Capability] {
        &[]
    }

    /// Judges the observations: one verdict per capability. Only called on usable
    /// observations of this scenario (see `scenarios::judge`).
    fn judge(&self, _obs: &Observations) -> Vec<Verdict> {
        Vec::new()
    }

    /// Whether the scenario can run against the client of `adapter_id`.
    fn applies_to(&self, _adapter_id: &str) -> bool {
        true
    }

    /// Runs two clients together instead of one client alone.
    fn is_pair(&self) -> bool {
        false
    }

    /// The client must run every tool call without asking its user (for Claude Code,
    /// `bypassPermissions`): acc's hook rewrites a call only where that skips no prompt.
    fn unasked(&self) -> bool {
        false
    }

    /// The capabilities named in `ACC_CERTIFY_CANDIDATES` for this run.
    fn candidates(&self) -> &'static [Capability] {
        &[]
    }

    /// The injections named in `ACC_CERTIFY_WITHHELD`: each delivery scenario keeps the
    /// other hook that could carry acc's text silent, so what the model was shown is
    /// attributable to the hook the verdict is about, whatever the evidence grants.
    fn withheld(&self) -> &'static [Capability] {
        &[]
    }

    /// A peer session exists in the store before the client starts.
    fn has_peer(&self) -> bool {
        false
    }

    /// The workspace-relative file the peer's claim covers and the model tries to create.
    fn claimed_target(&self) -> Option<&'static str> {
        None
    }

    /// The participant `ACC_PARTICIPANT` pins the client's session to.
    fn pinned_participant(&self) -> Option<&'static str> {
        None
    }

    /// The reason acc's guard gives for the claimed target.
    fn deny_reason(&self) -> Option<String> {
        self.claimed_target()
            .map(|target| format!("file:{target} is claimed by {PEER}"))
    }

    /// The normalised hook kind the verdict turns on, whose event an evidence row names.
    fn decisive_hook(&self) -> EventKind {
        EventKind::SessionStart
    }

    /// What the scenario set up, for the judge.
    fn expectations(&self) -> Expectations {
        Expectations {
            peer: self.has_peer().then(|| PEER.to_owned()),
            claimed_target: self.claimed_target().map(str::to_owned),
            free_target: self.claimed_target().map(|_| FREE_FILE.to_owned()),
            deny_reason: self.deny_reason(),
            pinned_participant: self.pinned_participant().map(str::to_owned),
            candidates: candidate_keys(self.candidates()),
        }
    }

    /// Plants the files the scenario needs in the workspace before anything else runs.
    fn seed(&self, _workspace: &Path) -> Result<(), RecordError> {
        Ok(())
    }

    /// The double's script: by default no tool call, only the closing text.
    fn script(&self, _workspace: &Path) -> Result<Script, ScriptError> {
        Script::new(Vec::new(), FINAL_TEXT)
    }

    /// What the recorder puts in acc's store before the client starts.
    fn room(&self, _core: &mut Core) -> Result<Room, AccError> {
        Ok(Room::default())
    }

    /// Starts the model double; a scenario whose double acts mid-turn returns what it did.
    fn start_double(&self, setup: DoubleSetup<'_>) -> std::io::Result<(ModelDouble, MidTurn)> {
        Ok((ModelDouble::start(setup.protocol, setup.script)?, None))
    }

    /// Changes the scenario makes to what acc's installer wrote, before the client runs.
    fn wire(&self, _client: Client, _installed: &[PathBuf]) -> std::io::Result<()> {
        Ok(())
    }

    /// The variables the recorder adds to the client's environment (all clients pass
    /// their environment through to hooks; docs/research/real-clients-env.md).
    fn environment(&self, capture_dir: &Path) -> BTreeMap<String, String> {
        base_environment(self, capture_dir)
    }

    /// The scenario's own observations of a headless run, after the shared ones: by
    /// default the claimed target and the free file, when there is a claim.
    fn observe(&self, run: &HeadlessRun<'_>, obs: &mut Observations) -> Result<(), RecordError> {
        if let Some(target) = self.claimed_target() {
            obs.files =
                crate::record::kit::observe::file_facts(run.workspace, &[target, FREE_FILE]);
        }
        Ok(())
    }

    /// Outcomes reported beside the capabilities (the control's, the kernel guard's),
    /// added to a finished headless run.
    fn beside(&self, _run: &mut ScenarioRun) {}
}

/// Capability keys as the hook runtime reads them.
pub fn candidate_keys(caps: &[Capability]) -> Vec<String> {
    caps.iter().map(|c| c.key().to_owned()).collect()
}

/// The variables every scenario's client gets: the capture directory, and the candidates,
/// withheld injections and pinned participant `recipe` names.
pub fn base_environment<R: Recipe + ?Sized>(
    recipe: &R,
    capture_dir: &Path,
) -> BTreeMap<String, String> {
    let mut env = BTreeMap::new();
    env.insert(
        CAPTURE_DIR_VAR.to_owned(),
        capture_dir.display().to_string(),
    );
    let candidates = candidate_keys(recipe.candidates());
    if !candidates.is_empty() {
        env.insert(CANDIDATES_VAR.to_owned(), candidates.join(","));
    }
    let withheld = candidate_keys(recipe.withheld());
    if !withheld.is_empty() {
        env.insert(WITHHELD_VAR.to_owned(), withheld.join(","));
    }
    if let Some(participant) = recipe.pinned_participant() {
        env.insert(PARTICIPANT_VAR.to_owned(), participant.to_owned());
    }
    env
}

/// `recipe`'s verdicts on `obs`: observations of another schema or scenario, or of a run
/// that left 127.0.0.1, fail every capability the scenario is about.
pub fn judged<R: Recipe + ?Sized>(recipe: &R, obs: &Observations) -> Vec<Verdict> {
    if let Some(problem) = unusable(recipe.scenario(), obs).or_else(|| obs.run.network_problem()) {
        return recipe
            .capabilities()
            .iter()
            .map(|cap| Verdict::new(*cap, vec![problem.clone()], ""))
            .collect();
    }
    recipe.judge(obs)
}
