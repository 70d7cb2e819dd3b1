//! The `startup-injection` scenario: does acc's startup block, answered by the session-start
//! hook, reach the model's first request?
//!
//! A peer session is open before the client starts, so acc's projection names it in its
//! peers line. The run grants `context.startupInjection` as a candidate and withholds
//! `context.beforeTurnInjection` (`ACC_CERTIFY_WITHHELD`): the before-turn hook answers
//! nothing, so a peers line in the first request can only be the start hook's. The hook
//! capture must agree: the sessionStart hook answered, every beforeTurn hook stayed silent.

use acc_sdk::capabilities::Capability;
use acc_sdk::event::EventKind;

use crate::record::kit::model_text::PEERS_MARK;
use crate::record::kit::observations::{Observations, StreamShape};
use crate::record::kit::verdict::{Verdict, conversation_requests};

/// Whether `line` is acc's peers line and names `peer` among the peers here.
pub fn names_peer(line: &str, peer: &str) -> bool {
    let Some(start) = line.find(PEERS_MARK) else {
        return false;
    };
    let rest = &line[start..];
    let names = rest.split_once(": ").map_or("", |(_, names)| names);
    names
        .split(", ")
        .any(|name| name.split_whitespace().next() == Some(peer))
}

/// The verdict on `context.startupInjection`.
pub fn judge(obs: &Observations) -> Verdict {
    let mut failures = Vec::new();
    let Some(peer) = obs.expect.peer.as_deref() else {
        return Verdict::new(
            Capability::StartupInjection,
            vec!["the observations do not say which peer was present at start".to_owned()],
            "",
        );
    };
    match conversation_requests(obs).first() {
        None => failures.push("the client made no model request".to_owned()),
        Some(first) if first.acc_lines.iter().any(|l| names_peer(l, peer)) => {}
        Some(_) => failures.push(
            "the first model request does not show acc's peers line naming the peer present at start"
                .to_owned(),
        ),
    }
    match &obs.hooks {
        None => failures.push(
            "acc-hook captured nothing, so no text can be attributed to the session-start hook"
                .to_owned(),
        ),
        Some(hooks) => {
            let of = |kind: EventKind| {
                hooks
                    .iter()
                    .filter(move |h| h.kind.as_deref() == Some(kind.as_str()))
            };
            if of(EventKind::SessionStart).next().is_none() {
                failures.push("no session-start hook reached acc".to_owned());
            } else if of(EventKind::SessionStart).all(|h| h.outcome.stdout == StreamShape::Empty) {
                failures.push("the session-start hook answered nothing on stdout".to_owned());
            }
            if of(EventKind::BeforeTurn).any(|h| h.outcome.stdout != StreamShape::Empty) {
                failures.push(
                    "a before-turn hook answered too, so the text is not attributable to the session-start hook"
                        .to_owned(),
                );
            }
        }
    }
    Verdict::new(
        Capability::StartupInjection,
        failures,
        "the session-start hook's answer, a peers line naming the peer present at start, reached the first model request while the before-turn hook was silent",
    )
}

/// A peer present at start; only the session-start hook may name it.
pub struct StartupInjection;

impl crate::record::kit::recipe::Recipe for StartupInjection {
    fn scenario(&self) -> crate::record::scenario::Scenario {
        crate::record::scenario::Scenario::StartupInjection
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

    fn capabilities(&self) -> &'static [acc_sdk::capabilities::Capability] {
        &[acc_sdk::capabilities::Capability::StartupInjection]
    }

    fn judge(
        &self,
        obs: &crate::record::kit::observations::Observations,
    ) -> Vec<crate::record::kit::verdict::Verdict> {
        vec![judge(obs)]
    }

    fn candidates(&self) -> &'static [acc_sdk::capabilities::Capability] {
        &[acc_sdk::capabilities::Capability::StartupInjection]
    }

    fn withheld(&self) -> &'static [acc_sdk::capabilities::Capability] {
        &[acc_sdk::capabilities::Capability::BeforeTurnInjection]
    }

    fn has_peer(&self) -> bool {
        true
    }

    fn room(
        &self,
        core: &mut acc_runtime::Core,
    ) -> Result<crate::record::kit::room::Room, acc_runtime::AccError> {
        crate::record::kit::room::peer_present(core)
    }
}

#[cfg(test)]
mod tests;
