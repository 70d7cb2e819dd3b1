//! The judge: observations in, verdicts out. Pure, so a bundle's `observations.json` can be
//! judged again at any time ([`judge_bundle`]) and must give the verdicts it was recorded
//! with.
//!
//! A failed observation is a `fail` verdict with its reasons, never a missing one: every
//! capability a scenario is about gets exactly one verdict.

use std::fmt;
use std::path::{Path, PathBuf};

use acc_sdk::capabilities::Capability;
use acc_sdk::certification::EvidenceResult;
use serde::Serialize;

use super::model_text::{block_names_message, is_identity_line};
use super::observations::{OBSERVATIONS_SCHEMA, Observations, RequestFact};
use super::scenario::Scenario;
use crate::doubles::Protocol;

/// The name of the file the judge reads in a bundle.
pub const OBSERVATIONS_FILE: &str = "observations.json";

/// One capability's verdict from one scenario run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Verdict {
    pub capability: Capability,
    pub result: EvidenceResult,
    /// Why, in words that name no session id, path or peer text (they become limitations
    /// of failing evidence rows and must be the same on every run).
    pub reasons: Vec<String>,
}

impl Verdict {
    pub(crate) fn new(capability: Capability, failures: Vec<String>, success: &str) -> Verdict {
        if failures.is_empty() {
            Verdict {
                capability,
                result: EvidenceResult::Pass,
                reasons: vec![success.to_owned()],
            }
        } else {
            Verdict {
                capability,
                result: EvidenceResult::Fail,
                reasons: failures,
            }
        }
    }

    pub fn passed(&self) -> bool {
        self.result == EvidenceResult::Pass
    }
}

/// The negative control's outcome.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ControlVerdict {
    pub passed: bool,
    pub reasons: Vec<String>,
}

/// Judges one scenario's observations. The solo control decides no capability of its own
/// (see [`judge_control`]); it returns no verdicts.
pub fn judge(scenario: Scenario, obs: &Observations) -> Vec<Verdict> {
    if let Some(problem) = unusable(scenario, obs).or_else(|| obs.run.network_problem()) {
        return scenario
            .capabilities()
            .iter()
            .map(|cap| Verdict::new(*cap, vec![problem.clone()], ""))
            .collect();
    }
    match scenario {
        Scenario::Lifecycle => lifecycle(obs),
        Scenario::GuardWrite => vec![guard(obs, Capability::BeforeWrite, "write")],
        Scenario::GuardShell => vec![guard(obs, Capability::BeforeShell, "shell command")],
        Scenario::NextTurn => next_turn(obs),
        Scenario::LiveWake => vec![super::live::judge(obs)],
        Scenario::SafePoint => vec![super::safe_point::judge(obs)],
        Scenario::Heartbeat => vec![super::heartbeat::judge(obs)],
        Scenario::SessionResume => vec![super::resume::judge(obs)],
        Scenario::StartupInjection => vec![super::startup::judge(obs)],
        Scenario::BeforeRead => vec![super::before_read::judge(obs)],
        Scenario::ChildSessions => vec![super::child_sessions::judge(obs)],
        // Their outcomes are reported beside the capabilities (`judge_control`,
        // `opaque::judge`); the pair scenario is judged by `coordinate::judge`.
        // `quit::judge` for the interactive quit.
        Scenario::SoloControl
        | Scenario::GuardOpaque
        | Scenario::Coordinate
        | Scenario::InteractiveQuit => Vec::new(),
    }
}

fn unusable(scenario: Scenario, obs: &Observations) -> Option<String> {
    if obs.schema_version != OBSERVATIONS_SCHEMA {
        return Some(format!(
            "observations use schema {} but this judge reads schema {OBSERVATIONS_SCHEMA}",
            obs.schema_version
        ));
    }
    (obs.scenario != scenario).then(|| {
        format!(
            "the observations are of scenario {}, not {scenario}",
            obs.scenario
        )
    })
}

fn lifecycle(obs: &Observations) -> Vec<Verdict> {
    let sessions: Vec<_> = obs.adapter_sessions().collect();
    let mut start_failures = Vec::new();
    if sessions.is_empty() {
        start_failures.push(format!(
            "no session of the {} adapter reached acc's store: the session-start hook did not reach acc",
            obs.adapter
        ));
    }
    let mut end_failures = Vec::new();
    if sessions.is_empty() {
        end_failures.push("no session was opened, so none could be closed".to_owned());
    } else {
        let closed = sessions.iter().any(|s| s.state == "closed");
        // acc also closes a session whose client process is gone (at the next reader); only
        // the client's own session-end hook certifies the capability.
        let hook_saw_end = obs.hooks.as_ref().map(|hooks| {
            hooks
                .iter()
                .any(|h| h.kind.as_deref() == Some("sessionEnd"))
        });
        if !closed {
            end_failures.push(
                "the session stayed open after the client exited: no session-end hook reached acc in a headless run"
                    .to_owned(),
            );
        }
        match (closed, hook_saw_end) {
            (false, Some(false)) => {
                end_failures.push("acc-hook saw no sessionEnd event".to_owned());
            }
            (true, Some(false)) => end_failures.push(
                "acc-hook saw no sessionEnd event: the session was closed by acc once the client process was gone, not by the client's session-end hook"
                    .to_owned(),
            ),
            _ => {}
        }
    }
    let mut end = Verdict::new(
        Capability::SessionEnd,
        end_failures,
        "the hook closed the session in acc's store when the client exited",
    );
    if end.passed()
        && let Some(reason) = sessions.iter().find_map(|s| s.end_reason.as_deref())
    {
        end.reasons.push(format!("end reason kept: {reason}"));
    }
    vec![
        Verdict::new(
            Capability::SessionStart,
            start_failures,
            "the session-start hook opened a session of this adapter in acc's store",
        ),
        end,
    ]
}

/// The conversation requests (the client's own turns, not listings or side calls).
pub fn conversation_requests(obs: &Observations) -> Vec<&RequestFact> {
    let protocol = obs.protocol.parse::<Protocol>().ok();
    obs.requests
        .iter()
        .filter(|r| protocol.is_some_and(|p| is_conversation(p, &r.method, &r.path)))
        .collect()
}

/// Whether a request is one of the client's model turns under `protocol`.
pub fn is_conversation(protocol: Protocol, method: &str, path: &str) -> bool {
    method.eq_ignore_ascii_case("POST")
        && match protocol {
            Protocol::AnthropicMessages => path.trim_end_matches('/').ends_with("/v1/messages"),
            Protocol::OpenAiResponses => path.trim_end_matches('/').ends_with("/responses"),
            Protocol::GeminiGenerateContent => path.ends_with(":streamGenerateContent"),
            Protocol::OpenAiChatCompletions => path.ends_with("/chat/completions"),
        }
}

fn guard(obs: &Observations, capability: Capability, tool: &str) -> Verdict {
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

fn next_turn(obs: &Observations) -> Vec<Verdict> {
    let mut shown = Vec::new();
    let Some(message) = &obs.message else {
        let missing = vec!["the observations carry no queued peer message".to_owned()];
        return vec![
            Verdict::new(Capability::BeforeTurnInjection, missing.clone(), ""),
            Verdict::new(Capability::NextTurn, missing, ""),
        ];
    };
    match conversation_requests(obs).first() {
        None => shown.push("the client made no model request".to_owned()),
        Some(first) => {
            let named = first
                .peer_blocks
                .iter()
                .any(|block| block_names_message(block, &message.message_id));
            if !named {
                shown.push(
                    "the first model request does not contain the fenced acc-peer-message block naming the queued message"
                        .to_owned(),
                );
            }
        }
    }
    let mut offered = shown.clone();
    match message.receipt_state.as_deref() {
        Some("offered") => {}
        Some(state) => offered.push(format!("the receipt is {state}, not offered")),
        None => offered.push("the receipt is no longer listed as unresolved".to_owned()),
    }
    let control = match &obs.control {
        Some(control) => judge_control(control),
        None => ControlVerdict {
            passed: false,
            reasons: vec!["the solo control was not observed".to_owned()],
        },
    };
    if !control.passed {
        for reasons in [&mut shown, &mut offered] {
            reasons.extend(
                control
                    .reasons
                    .iter()
                    .map(|r| format!("negative control failed: {r}")),
            );
        }
    }
    vec![
        Verdict::new(
            Capability::BeforeTurnInjection,
            shown,
            "the peer block reached the first model request, and a solo session got no peer text",
        ),
        Verdict::new(
            Capability::NextTurn,
            offered,
            "the queued message reached the next model turn and its receipt became offered, and a solo session got no peer text",
        ),
    ]
}

/// The solo control passes when no request showed the model any of acc's peer context: a
/// block, a header or a presence line. The identity lines every attached session gets, alone
/// or not, prove nothing about peers and are allowed.
pub fn judge_control(obs: &Observations) -> ControlVerdict {
    if let Some(problem) = unusable(Scenario::SoloControl, obs) {
        return ControlVerdict {
            passed: false,
            reasons: vec![problem],
        };
    }
    if let Some(problem) = obs.run.network_problem() {
        return ControlVerdict {
            passed: false,
            reasons: vec![problem],
        };
    }
    let mut reasons = Vec::new();
    if conversation_requests(obs).is_empty() {
        reasons.push("the solo client made no model request".to_owned());
    }
    let injected = obs
        .requests
        .iter()
        .filter(|r| !r.peer_blocks.is_empty() || r.acc_lines.iter().any(|l| !is_identity_line(l)))
        .count();
    if injected > 0 {
        reasons.push(format!(
            "{injected} model request(s) of a solo session showed acc's peer text"
        ));
    }
    if reasons.is_empty() {
        reasons.push("no model request of a solo session showed acc's peer text".to_owned());
    }
    ControlVerdict {
        passed: injected == 0 && !conversation_requests(obs).is_empty(),
        reasons,
    }
}

/// Why a bundle could not be judged.
#[derive(Debug)]
pub enum BundleError {
    Unreadable {
        path: PathBuf,
        source: std::io::Error,
    },
    Invalid {
        path: PathBuf,
        reason: String,
    },
}

impl BundleError {
    pub fn code(&self) -> &'static str {
        match self {
            BundleError::Unreadable { .. } => "bundle.unreadable",
            BundleError::Invalid { .. } => "bundle.invalid",
        }
    }
}

impl fmt::Display for BundleError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BundleError::Unreadable { path, source } => {
                write!(f, "{}: cannot read: {source}", path.display())
            }
            BundleError::Invalid { path, reason } => {
                write!(f, "{}: not valid observations: {reason}", path.display())
            }
        }
    }
}

impl std::error::Error for BundleError {}

/// Reads `observations.json` from a bundle directory.
pub fn read_observations(dir: &Path) -> Result<Observations, BundleError> {
    let path = dir.join(OBSERVATIONS_FILE);
    let bytes = std::fs::read(&path).map_err(|source| BundleError::Unreadable {
        path: path.clone(),
        source,
    })?;
    serde_json::from_slice(&bytes).map_err(|e| BundleError::Invalid {
        path,
        reason: e.to_string(),
    })
}

/// Judges a raw bundle (`captures/<client>-<version>-<platform>/<scenario>/`) again from its
/// `observations.json`, with the scenario it names.
pub fn judge_bundle(dir: &Path) -> Result<Vec<Verdict>, BundleError> {
    let obs = read_observations(dir)?;
    Ok(judge(obs.scenario, &obs))
}

#[cfg(test)]
mod tests;
