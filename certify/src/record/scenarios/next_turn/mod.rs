//! `next-turn`: a peer message queued before the prompt must reach the first model request,
//! and its receipt become offered; the solo control of the same client, embedded in the
//! observations, must have shown no peer text.

use acc_runtime::{AccError, Core};
use acc_sdk::capabilities::Capability;
use acc_sdk::event::EventKind;

use crate::clients::InstalledClient;
use crate::record::kit::error::RecordError;
use crate::record::kit::headless;
use crate::record::kit::model_text::block_names_message;
use crate::record::kit::observations::Observations;
use crate::record::kit::recipe::Recipe;
use crate::record::kit::room::{self, Room};
use crate::record::kit::run::{RunSettings, ScenarioRun};
use crate::record::kit::tuple::Tuple;
use crate::record::kit::verdict::{ControlVerdict, Verdict, conversation_requests};
use crate::record::scenario::{AGENT, Scenario};
use crate::record::scenarios::solo_control::{
    DELIVERY_CANDIDATES, DELIVERY_WITHHELD, judge_control,
};

pub struct NextTurn;

impl Recipe for NextTurn {
    fn scenario(&self) -> Scenario {
        Scenario::NextTurn
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
        &[Capability::BeforeTurnInjection, Capability::NextTurn]
    }

    fn judge(&self, obs: &Observations) -> Vec<Verdict> {
        next_turn(obs)
    }

    fn candidates(&self) -> &'static [Capability] {
        DELIVERY_CANDIDATES
    }

    fn withheld(&self) -> &'static [Capability] {
        DELIVERY_WITHHELD
    }

    fn has_peer(&self) -> bool {
        true
    }

    fn pinned_participant(&self) -> Option<&'static str> {
        Some(AGENT)
    }

    fn decisive_hook(&self) -> EventKind {
        EventKind::BeforeTurn
    }

    fn room(&self, core: &mut Core) -> Result<Room, AccError> {
        room::queued_note(core)
    }
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
