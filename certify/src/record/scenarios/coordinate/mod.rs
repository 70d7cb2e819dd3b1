//! The `coordinate` scenario: two real clients in one sandbox workspace coordinate through
//! acc with no person and no flag supplied from outside.
//!
//! The owner client's model (a double following the skill, [`crate::doubles::Agent`])
//! claims `file:src/**` guarded with the flags of its own `ACC CLI (append):` line; the
//! asker client's model writes `src/x`, is refused, and asks the participant the refusal
//! names; the owner's next run is shown the question, answers it and releases; the asker's
//! next run writes. Each client's `-p` run is a new session. The pure [`judge`] decides from
//! acc's store and the file after each run.

pub mod bundle;
pub mod judge;
pub mod observations;
pub mod pair;
pub mod record;
pub mod run;
pub mod store;

pub use judge::{CoordinationVerdict, Step, StepVerdict, judge};
pub use observations::{CoordinationObservations, Turn};
pub use pair::{PAIRS, Pair};
pub use run::{PairClients, PairRun, run_pair};

/// Two real clients coordinate through acc by themselves; decides no capability.
pub struct Coordinate;

impl crate::record::kit::recipe::Recipe for Coordinate {
    fn scenario(&self) -> crate::record::scenario::Scenario {
        crate::record::scenario::Scenario::Coordinate
    }

    fn run(
        &self,
        installed: &crate::clients::InstalledClient,
        tuple: &crate::record::kit::tuple::Tuple,
        settings: &crate::record::kit::run::RunSettings,
        control: Option<&crate::record::kit::observations::Observations>,
    ) -> Result<crate::record::kit::run::ScenarioRun, crate::record::kit::error::RecordError> {
        let _ = (installed, tuple, settings, control);
        Err(crate::record::kit::error::RecordError::Usage(
            "coordinate runs two clients together: it is recorded by pairs, never one client alone"
                .to_owned(),
        ))
    }

    fn decisive_hook(&self) -> acc_sdk::event::EventKind {
        acc_sdk::event::EventKind::BeforeTurn
    }

    fn is_pair(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests;
