//! The `heartbeat` scenario: does any hook of the client fire on a timer while a session
//! sits in a long wait, so that acc can keep the session's presence fresh without a turn?
//!
//! Headless, like the others: the double holds the conversation's first model request until
//! acc-hook's capture shows a timer hook, [`HOLD`] at most, longer than the one-minute
//! period the clients that have such a hook use (Kimi Code's `SessionHeartbeat`). Whatever acc-hook is invoked with during the hold is
//! captured; a `heartbeat`-kind invocation that acc answered is the pass. An idle-prompt
//! notification (Claude Code's `Notification` with `idle_prompt`) needs an interactive
//! session left at its prompt: for such a client the scenario runs
//! [`idle`] instead, and its observations say so.

pub mod idle;

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use acc_sdk::capabilities::Capability;

use crate::doubles::{ModelDouble, Protocol, Script};
use crate::record::kit::observations::Observations;
use crate::record::kit::verdict::{Verdict, is_conversation};

/// The longest the first model request is held: past a 60-second timer with a margin for a
/// loaded machine. The hold ends as soon as acc-hook's capture shows the timer's beat, so a
/// client that has one never waits this long.
pub const HOLD: Duration = Duration::from_secs(90);

/// The normalised kind a timer hook is given.
const KIND: &str = "heartbeat";

/// Starts a double that holds the conversation's first model request until the capture
/// in `capture_dir` shows a heartbeat, or for `hold` at most.
pub fn start_double(
    protocol: Protocol,
    script: Script,
    hold: Duration,
    capture_dir: std::path::PathBuf,
) -> std::io::Result<ModelDouble> {
    let held = AtomicBool::new(false);
    ModelDouble::start_with(
        Box::new(move |request, script| {
            if is_conversation(protocol, &request.method, &request.path)
                && !held.swap(true, Ordering::SeqCst)
            {
                crate::record::kit::terminal::tmux::poll(hold, || {
                    beat_captured(&capture_dir).then_some(())
                });
            }
            protocol.respond(request, script)
        }),
        script,
    )
}

/// Whether acc-hook's capture holds a line of a timer hook.
fn beat_captured(capture_dir: &std::path::Path) -> bool {
    std::fs::read_to_string(capture_dir.join(crate::record::kit::hook_capture::CAPTURE_FILE))
        .map(|text| {
            text.lines().any(|line| {
                serde_json::from_str::<serde_json::Value>(line)
                    .is_ok_and(|v| v.get("kind").and_then(|k| k.as_str()) == Some(KIND))
            })
        })
        .unwrap_or(false)
}

/// Did a timer hook reach acc while the client waited?
pub fn judge(obs: &Observations) -> Verdict {
    if let Some(idle) = &obs.idle {
        return crate::record::scenarios::heartbeat::idle::judge(obs, idle);
    }
    let cap = Capability::Heartbeat;
    let mut reasons = Vec::new();
    if obs.adapter_sessions().next().is_none() {
        reasons.push(format!(
            "no session of the {} adapter reached acc's store",
            obs.adapter
        ));
    }
    match &obs.hooks {
        None => reasons.push("acc-hook's invocations were not captured".to_owned()),
        Some(hooks) => {
            let beats: Vec<_> = hooks
                .iter()
                .filter(|h| h.kind.as_deref() == Some(KIND))
                .collect();
            if beats.is_empty() {
                reasons.push(format!(
                    "no hook fired on a timer while the client waited {} s for its model: no heartbeat-kind invocation reached acc",
                    HOLD.as_secs()
                ));
            } else if !beats.iter().any(|h| h.outcome.exit_code == Some(0)) {
                reasons.push("the heartbeat hook never exited 0".to_owned());
            }
        }
    }
    if !conversation_answered(obs) {
        reasons.push("the client made no model request to wait on".to_owned());
    }
    Verdict::new(
        cap,
        reasons,
        "a hook fired on the client's own timer while the session waited on its model, and acc-hook answered it (its heartbeat handler refreshes the session's presence)",
    )
}

fn conversation_answered(obs: &Observations) -> bool {
    !crate::record::kit::verdict::conversation_requests(obs).is_empty()
}

/// Does a hook fire on a timer (headless), or on the idle prompt (in the terminal)?
pub struct Heartbeat;

impl crate::record::kit::recipe::Recipe for Heartbeat {
    fn scenario(&self) -> crate::record::scenario::Scenario {
        crate::record::scenario::Scenario::Heartbeat
    }

    fn run(
        &self,
        installed: &crate::clients::InstalledClient,
        tuple: &crate::record::kit::tuple::Tuple,
        settings: &crate::record::kit::run::RunSettings,
        control: Option<&crate::record::kit::observations::Observations>,
    ) -> Result<crate::record::kit::run::ScenarioRun, crate::record::kit::error::RecordError> {
        if idle::drives(installed.client) {
            return idle::run_idle_heartbeat(self, installed, tuple, settings);
        }
        crate::record::kit::headless::run(self, installed, tuple, settings, control)
    }

    fn capabilities(&self) -> &'static [acc_sdk::capabilities::Capability] {
        &[acc_sdk::capabilities::Capability::Heartbeat]
    }

    fn judge(
        &self,
        obs: &crate::record::kit::observations::Observations,
    ) -> Vec<crate::record::kit::verdict::Verdict> {
        vec![judge(obs)]
    }

    fn decisive_hook(&self) -> acc_sdk::event::EventKind {
        acc_sdk::event::EventKind::Heartbeat
    }

    /// The double holds the conversation's first model request until a beat, [`HOLD`] at most.
    fn start_double(
        &self,
        setup: crate::record::kit::recipe::DoubleSetup<'_>,
    ) -> std::io::Result<(ModelDouble, crate::record::kit::run::MidTurn)> {
        Ok((
            start_double(setup.protocol, setup.script, HOLD, setup.capture_dir)?,
            None,
        ))
    }
}

#[cfg(test)]
mod tests;
