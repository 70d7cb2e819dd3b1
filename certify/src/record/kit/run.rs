//! What one scenario run is and yields: how every run is set up ([`RunSettings`]), the
//! run observed and judged ([`ScenarioRun`]) and its raw bundle, in memory ([`Bundle`]; the
//! recorder's output writes it).

use std::sync::{Arc, OnceLock};
use std::time::Duration;

use acc_runtime::ids::MessageId;
use serde_json::Value;

use crate::doubles::LoggedRequest;
use crate::record::kit::install::Binaries;
use crate::record::kit::observations::Observations;
use crate::record::kit::verdict::{ControlVerdict, Verdict};
use crate::record::scenario::Scenario;

/// How every scenario of a recording runs.
#[derive(Debug, Clone)]
pub struct RunSettings {
    pub binaries: Binaries,
    /// The deadline of one headless client run.
    pub timeout: Duration,
}

/// A note a peer sent while the turn ran, once the double had it sent, or why the send
/// failed.
pub type MidTurnNote = Arc<OnceLock<Result<MessageId, String>>>;
/// A double that sends nothing mid-turn has `None`.
pub type MidTurn = Option<MidTurnNote>;

/// A scenario run, observed and judged.
#[derive(Debug, Clone)]
pub struct ScenarioRun {
    pub scenario: Scenario,
    pub observations: Observations,
    pub verdicts: Vec<Verdict>,
    /// For the solo control.
    pub control: Option<ControlVerdict>,
    /// For `guard-opaque`: did the kernel-enforced guard hold?
    pub kernel_guard: Option<ControlVerdict>,
    /// For `interactive-quit`: did the session stop showing live after the quit?
    pub quit: Option<ControlVerdict>,
    /// For `guard-bridge`: did a write through the client's tool bridge leave the claimed
    /// file as it was?
    pub bridge_guard: Option<ControlVerdict>,
    pub bundle: Bundle,
}

/// Everything a bundle holds, already redacted.
#[derive(Debug, Clone)]
pub struct Bundle {
    pub requests: Vec<LoggedRequest>,
    pub stdout: String,
    pub stderr: String,
    pub hooks: Option<String>,
    pub observations: Observations,
    /// How the client ran: command line (prompt replaced), environment names, timing, exit.
    pub run: Value,
}
