//! `lifecycle`: no peer, one headless run. Did the session-start hook open a session of
//! the adapter in acc's store, and did the client's own session-end hook close it?

use acc_sdk::capabilities::Capability;

use crate::clients::InstalledClient;
use crate::record::kit::error::RecordError;
use crate::record::kit::headless;
use crate::record::kit::observations::Observations;
use crate::record::kit::recipe::Recipe;
use crate::record::kit::run::{RunSettings, ScenarioRun};
use crate::record::kit::tuple::Tuple;
use crate::record::kit::verdict::Verdict;
use crate::record::scenario::Scenario;

pub struct Lifecycle;

impl Recipe for Lifecycle {
    fn scenario(&self) -> Scenario {
        Scenario::Lifecycle
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
        &[Capability::SessionStart, Capability::SessionEnd]
    }

    fn judge(&self, obs: &Observations) -> Vec<Verdict> {
        lifecycle(obs)
    }
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
