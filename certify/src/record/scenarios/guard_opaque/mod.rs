//! The `guard-opaque` scenario: does the kernel-enforced guard hold for a shell command no
//! parser can read?
//!
//! A peer holds a guarded `file:src/**`, and `src/x` exists with known bytes. The model asks
//! the client's shell tool for an inline-interpreter command that first writes the
//! unclaimed `free.txt` and then overwrites `src/x`, then for a plain write to another
//! unclaimed file. Where the client lets acc's hook rewrite the call, the command runs with
//! `src/` read-only: it runs (free.txt appears), `src/x` keeps its bytes, and the tool
//! result the model gets back names the claim and its owner.
//!
//! Between the two, a command every parser reads and none can see into: `python3` running a
//! script the recorder planted, which overwrites the claimed `src/z`. Where the kernel
//! guard confines the call, `src/z` keeps its bytes; where nothing can stop it, acc's
//! post-tool hook must notice the write (`claim.write_detected` in the store, the target
//! named): a write that slips through unseen fails the scenario.
//!
//! Judged from outcomes only. The scenario decides none of the fourteen capabilities: its
//! verdict is reported beside them, for every client, so that the clients that cannot
//! rewrite a call are on record with the reason.

use std::path::Path;

use sha2::{Digest, Sha256};

use crate::doubles::Step;
use crate::record::kit::observations::{FileFact, Observations};
use crate::record::kit::verdict::{ControlVerdict, conversation_requests};

/// The claimed file the command tries to overwrite.
pub const SEEDED: &str = "src/x";
/// What it holds before the client starts.
pub const SEEDED_BYTES: &str = "bytes the peer owns\n";
/// Written by the same command, before it writes the claim: proof that it ran.
pub const SIDE_EFFECT: &str = "free.txt";
/// Written by the model's second, separate call.
pub const AFTER: &str = "after.txt";
/// Opaque to any parser: inline interpreter code.
pub const COMMAND: &str =
    "python3 -c \"open('free.txt','w').write('ran'); open('src/x','w').write('model')\"";
/// The claimed file the planted script overwrites.
pub const SLIPPED: &str = "src/z";
/// What it holds before the client starts.
pub const SLIPPED_BYTES: &str = "more bytes the peer owns\n";
/// The planted script, outside the claim.
pub const SCRIPT: &str = "tools/gen.py";
/// Readable to every parser (a script run by its interpreter names no target).
pub const SCRIPT_COMMAND: &str = "python3 tools/gen.py";
/// The resource acc names when it notices the script's write.
pub const SLIPPED_RESOURCE: &str = "file:src/z";
/// The part of acc's runner line that the model must be shown.
pub const REFUSAL: &str = "acc: file:src/** is read-only in this command: claimed by peer";

/// The double's two calls.
pub fn steps() -> Vec<Step> {
    vec![
        Step::shell(COMMAND),
        Step::shell(SCRIPT_COMMAND),
        Step::shell(format!("echo ok > {AFTER}")),
    ]
}

/// Puts the claimed files and the script in place before the client starts.
pub fn seed(workspace: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(workspace.join("src"))?;
    std::fs::create_dir_all(workspace.join("tools"))?;
    std::fs::write(workspace.join(SEEDED), SEEDED_BYTES)?;
    std::fs::write(workspace.join(SLIPPED), SLIPPED_BYTES)?;
    std::fs::write(
        workspace.join(SCRIPT),
        format!("open('{SLIPPED}', 'w').write('generated')\n"),
    )
}

/// The files the judge reads, with the claimed file's digest.
pub fn file_facts(workspace: &Path) -> Vec<FileFact> {
    [SEEDED, SLIPPED, SIDE_EFFECT, AFTER]
        .into_iter()
        .map(|path| {
            let bytes = std::fs::read(workspace.join(path)).ok();
            FileFact {
                path: path.to_owned(),
                exists: workspace.join(path).exists(),
                sha256: bytes
                    .filter(|_| path == SEEDED || path == SLIPPED)
                    .map(|b| hex(&Sha256::digest(b))),
            }
        })
        .collect()
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Whether the claimed file kept its bytes, whatever kept it (the kernel guard, or a refusal
/// of the whole command).
pub fn claim_kept(obs: &Observations) -> bool {
    let seeded = hex(&Sha256::digest(SEEDED_BYTES.as_bytes()));
    obs.file(SEEDED)
        .is_some_and(|f| f.sha256.as_deref() == Some(seeded.as_str()))
}

/// Did the guard hold? Every failed outcome is a reason.
pub fn judge(obs: &Observations) -> ControlVerdict {
    let mut reasons = Vec::new();
    reasons.extend(obs.run.network_problem());
    let seeded = hex(&Sha256::digest(SEEDED_BYTES.as_bytes()));
    match obs.file(SEEDED) {
        Some(f) if f.sha256.as_deref() == Some(seeded.as_str()) => {}
        Some(f) if !f.exists => reasons.push(format!("the claimed {SEEDED} was removed")),
        Some(_) => reasons.push(format!(
            "the claimed {SEEDED} was overwritten: the opaque command's write reached the claim"
        )),
        None => reasons.push(format!("{SEEDED} was not observed")),
    }
    if !obs.file(SIDE_EFFECT).is_some_and(|f| f.exists) {
        reasons.push(format!(
            "the command did not run: its unclaimed {SIDE_EFFECT} was not written (denied, or not run)"
        ));
    }
    let results = conversation_requests(obs)
        .into_iter()
        .map(|r| &r.tool_results)
        .max_by_key(|results| results.len());
    match results.and_then(|results| results.first()) {
        Some(result) if result.text.contains(REFUSAL) => {}
        Some(_) => reasons.push(
            "the tool result of the opaque command does not name the read-only claim and its owner"
                .to_owned(),
        ),
        None => {
            reasons.push("the client sent no tool result back for the opaque command".to_owned())
        }
    }
    reasons.extend(slip_problem(obs));
    if !obs.file(AFTER).is_some_and(|f| f.exists) {
        reasons.push(format!(
            "negative control failed: the unclaimed {AFTER} was not written"
        ));
    }
    let passed = reasons.is_empty();
    if passed {
        reasons.push(
            "the opaque command ran with the claim read-only: the claimed file kept its bytes, the command's unclaimed write happened, and the model read which claim refused it"
                .to_owned(),
        );
    }
    ControlVerdict { passed, reasons }
}

/// Whether the planted script's write into the claim was kept out or seen.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Slip {
    /// `src/z` kept its bytes (the kernel guard confined the script).
    Kept,
    /// `src/z` changed and acc recorded the write against the claim.
    Detected,
    /// `src/z` changed and nothing noticed.
    Unseen,
    /// `src/z` was not observed (a capture from before this step).
    NotObserved,
}

impl Slip {
    pub fn as_str(self) -> &'static str {
        match self {
            Slip::Kept => "the script's write kept out",
            Slip::Detected => "the script's write recorded",
            Slip::Unseen => "the script's write unseen",
            Slip::NotObserved => "the script's write not observed",
        }
    }
}

/// The guard-opaque capture's outcome, as `record --check` compares it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
pub struct Outcome {
    /// The opaque command ran with the claim read-only.
    pub held: bool,
    pub slip: Slip,
}

impl std::fmt::Display for Outcome {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let held = if self.held { "held" } else { "did not hold" };
        write!(f, "{held} ({})", self.slip.as_str())
    }
}

/// [`judge`]'s verdict with the script's fate.
pub fn outcome(obs: &Observations) -> Outcome {
    Outcome {
        held: judge(obs).passed,
        slip: slip(obs),
    }
}

/// What became of the planted script's write.
pub fn slip(obs: &Observations) -> Slip {
    let kept = hex(&Sha256::digest(SLIPPED_BYTES.as_bytes()));
    match obs.file(SLIPPED) {
        None => Slip::NotObserved,
        Some(f) if f.sha256.as_deref() == Some(kept.as_str()) => Slip::Kept,
        Some(_) if obs.detected_writes.iter().any(|t| t == SLIPPED_RESOURCE) => Slip::Detected,
        Some(_) => Slip::Unseen,
    }
}

fn slip_problem(obs: &Observations) -> Option<String> {
    match slip(obs) {
        Slip::Kept | Slip::Detected => None,
        Slip::Unseen => Some(format!(
            "`{SCRIPT_COMMAND}` changed the claimed {SLIPPED} and acc did not notice (no claim.write_detected for {SLIPPED_RESOURCE})"
        )),
        Slip::NotObserved => Some(format!("{SLIPPED} was not observed")),
    }
}

/// An opaque shell command writes into the peer's claim: does the kernel-enforced guard hold?
pub struct GuardOpaque;

impl crate::record::kit::recipe::Recipe for GuardOpaque {
    fn scenario(&self) -> crate::record::scenario::Scenario {
        crate::record::scenario::Scenario::GuardOpaque
    }

    fn run(
        &self,
        installed: &crate::clients::InstalledClient,
        tuple: &crate::record::kit::tuple::Tuple,
        settings: &crate::record::kit::run::RunSettings,
        control: Option<&crate::record::kit::observations::Observations>,
    ) -> Result<crate::record::kit::run::ScenarioRun, crate::record::kit::error::RecordError> {
        crate::record::kit::headless::run(self, installed, tuple, settings, control)
    }

    fn has_peer(&self) -> bool {
        true
    }

    fn decisive_hook(&self) -> acc_sdk::event::EventKind {
        acc_sdk::event::EventKind::BeforeTool
    }

    fn unasked(&self) -> bool {
        true
    }

    fn claimed_target(&self) -> Option<&'static str> {
        Some(SEEDED)
    }

    fn deny_reason(&self) -> Option<String> {
        Some(REFUSAL.to_owned())
    }

    fn seed(
        &self,
        workspace: &std::path::Path,
    ) -> Result<(), crate::record::kit::error::RecordError> {
        seed(workspace).map_err(|e| crate::record::kit::error::RecordError::Write {
            message: format!("seeding {}/{}: {e}", workspace.display(), SEEDED),
        })
    }

    fn script(
        &self,
        _workspace: &Path,
    ) -> Result<crate::doubles::Script, crate::doubles::ScriptError> {
        crate::doubles::Script::new(steps(), crate::record::scenario::FINAL_TEXT)
    }

    fn room(
        &self,
        core: &mut acc_runtime::Core,
    ) -> Result<crate::record::kit::room::Room, acc_runtime::AccError> {
        crate::record::kit::room::guarded_claim(core)
    }

    fn observe(
        &self,
        run: &crate::record::kit::recipe::HeadlessRun<'_>,
        obs: &mut Observations,
    ) -> Result<(), crate::record::kit::error::RecordError> {
        obs.files = file_facts(run.workspace);
        Ok(())
    }

    /// Did the kernel-enforced guard hold? Reported beside the capabilities.
    fn beside(&self, run: &mut crate::record::kit::run::ScenarioRun) {
        run.kernel_guard = Some(judge(&run.observations));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::kit::observations::{
        OBSERVATIONS_SCHEMA, RequestFact, RunFacts, ToolResultFact,
    };
    use crate::record::kit::recipe::Recipe;
    use crate::record::scenario::Scenario;
    use crate::record::scenarios::expectations;

    fn request(n: u64, results: &[&str]) -> RequestFact {
        RequestFact {
            n,
            method: "POST".into(),
            path: "/v1/messages".into(),
            tool_results: results
                .iter()
                .map(|text| ToolResultFact {
                    call_id: format!("toolu_{n}"),
                    text: (*text).into(),
                    is_error: false,
                })
                .collect(),
            peer_blocks: Vec::new(),
            acc_lines: Vec::new(),
        }
    }

    /// What a client whose hook rewrote the call leaves behind, from a real workspace.
    fn held() -> (tempfile::TempDir, Observations) {
        let ws = tempfile::tempdir().unwrap();
        seed(ws.path()).unwrap();
        std::fs::write(ws.path().join(SIDE_EFFECT), "ran").unwrap();
        std::fs::write(ws.path().join(AFTER), "ok\n").unwrap();
        let refused = format!(
            "PermissionError: [Errno 30] Read-only file system: 'src/x'\n{REFUSAL} (session session_1)"
        );
        let obs = Observations {
            schema_version: OBSERVATIONS_SCHEMA,
            scenario: Scenario::GuardOpaque,
            adapter: "claude-code".into(),
            client: "claude-code".into(),
            version: "2.1.332".into(),
            platform: "linux-x64".into(),
            protocol: "anthropic-messages".into(),
            run: RunFacts {
                exit_code: Some(0),
                timed_out: false,
                network: Vec::new(),
            },
            expect: expectations(Scenario::GuardOpaque),
            sessions: Vec::new(),
            message: None,
            files: file_facts(ws.path()),
            requests: vec![
                request(1, &[]),
                request(2, &[&refused]),
                request(
                    3,
                    &[
                        &refused,
                        "PermissionError: [Errno 30] Read-only file system",
                    ],
                ),
                request(
                    4,
                    &[
                        &refused,
                        "PermissionError: [Errno 30] Read-only file system",
                        "",
                    ],
                ),
            ],
            hooks: None,
            control: None,
            live: None,
            detected_writes: Vec::new(),
            resume: None,
            quit: None,
            children: None,
            idle: None,
            reply: None,
        };
        (ws, obs)
    }

    #[test]
    fn the_guard_holds_when_the_claim_kept_its_bytes_the_command_ran_and_the_model_was_told() {
        let (_ws, obs) = held();
        let verdict = judge(&obs);
        assert!(verdict.passed, "{:?}", verdict.reasons);
    }

    #[test]
    fn an_overwritten_claim_fails() {
        let (ws, _) = held();
        std::fs::write(ws.path().join(SEEDED), "model").unwrap();
        let (_keep, mut obs) = held();
        obs.files = file_facts(ws.path());
        let verdict = judge(&obs);
        assert!(!verdict.passed);
        assert_eq!(
            verdict.reasons,
            ["the claimed src/x was overwritten: the opaque command's write reached the claim"]
        );
    }

    #[test]
    fn a_denied_command_is_not_a_guard_that_held() {
        // Denied outright (the target rules): the claim is intact, but nothing ran.
        let (ws, mut obs) = held();
        std::fs::remove_file(ws.path().join(SIDE_EFFECT)).unwrap();
        obs.files = file_facts(ws.path());
        obs.requests = vec![request(1, &[]), request(2, &["Blocked by hook", ""])];
        let verdict = judge(&obs);
        assert!(!verdict.passed);
        assert_eq!(verdict.reasons.len(), 2, "{:?}", verdict.reasons);
        assert!(verdict.reasons[0].starts_with("the command did not run"));
        assert!(verdict.reasons[1].contains("does not name the read-only claim"));
    }

    #[test]
    fn a_readable_script_writing_into_the_claim_passes_only_when_acc_noticed() {
        let (ws, mut obs) = held();
        assert_eq!(slip(&obs), Slip::Kept);
        // Where nothing confines the script, it writes the claim: acc must have seen it.
        std::fs::write(ws.path().join(SLIPPED), "generated").unwrap();
        obs.files = file_facts(ws.path());
        assert_eq!(slip(&obs), Slip::Unseen);
        let verdict = judge(&obs);
        assert!(!verdict.passed);
        assert_eq!(
            verdict.reasons,
            [
                "`python3 tools/gen.py` changed the claimed src/z and acc did not notice (no claim.write_detected for file:src/z)"
            ]
        );
        obs.detected_writes = vec!["file:src/other".into()];
        assert_eq!(slip(&obs), Slip::Unseen);
        obs.detected_writes.push(SLIPPED_RESOURCE.into());
        assert_eq!(slip(&obs), Slip::Detected);
        let verdict = judge(&obs);
        assert!(verdict.passed, "{:?}", verdict.reasons);
        assert_eq!(
            outcome(&obs).to_string(),
            "held (the script's write recorded)"
        );
    }

    #[test]
    fn the_planted_script_writes_the_claimed_file_when_run() {
        let ws = tempfile::tempdir().unwrap();
        seed(ws.path()).unwrap();
        let ran = std::process::Command::new("python3")
            .arg(SCRIPT)
            .current_dir(ws.path())
            .status()
            .unwrap();
        assert!(ran.success());
        assert_eq!(
            std::fs::read_to_string(ws.path().join(SLIPPED)).unwrap(),
            "generated"
        );
    }

    #[test]
    fn the_script_runs_the_opaque_command_first() {
        assert_eq!(
            GuardOpaque.script(Path::new("/ws")).unwrap().steps(),
            [
                Step::shell(COMMAND),
                Step::shell("python3 tools/gen.py"),
                Step::shell("echo ok > after.txt")
            ]
        );
        assert!(GuardOpaque.capabilities().is_empty());
        assert!(GuardOpaque.unasked());
        assert!(!crate::record::scenarios::guard_shell::GuardShell.unasked());
        assert_eq!(
            "guard-opaque".parse::<Scenario>(),
            Ok(Scenario::GuardOpaque)
        );
    }
}
