//! `solo-control`, the negative control of `next-turn`: a solo session with the same
//! candidates must get no peer text (its identity lines only). It decides no capability:
//! `next-turn` embeds its observations and fails when it fails.

use acc_sdk::capabilities::Capability;
use acc_sdk::event::EventKind;

use crate::clients::InstalledClient;
use crate::record::kit::error::RecordError;
use crate::record::kit::headless;
use crate::record::kit::model_text::is_identity_line;
use crate::record::kit::observations::Observations;
use crate::record::kit::recipe::Recipe;
use crate::record::kit::run::{RunSettings, ScenarioRun};
use crate::record::kit::tuple::Tuple;
use crate::record::kit::verdict::{ControlVerdict, conversation_requests, unusable};
use crate::record::scenario::Scenario;

/// The candidates of `next-turn` and its control.
pub const DELIVERY_CANDIDATES: &[Capability] =
    &[Capability::NextTurn, Capability::BeforeTurnInjection];
/// What `next-turn` and its control keep silent: the startup block could carry the peer.
pub const DELIVERY_WITHHELD: &[Capability] = &[Capability::StartupInjection];

pub struct SoloControl;

impl Recipe for SoloControl {
    fn scenario(&self) -> Scenario {
        Scenario::SoloControl
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

    fn candidates(&self) -> &'static [Capability] {
        DELIVERY_CANDIDATES
    }

    fn withheld(&self) -> &'static [Capability] {
        DELIVERY_WITHHELD
    }

    fn decisive_hook(&self) -> EventKind {
        EventKind::BeforeTurn
    }

    fn beside(&self, run: &mut ScenarioRun) {
        run.control = Some(judge_control(&run.observations));
    }
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
