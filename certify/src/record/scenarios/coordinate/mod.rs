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

#[cfg(test)]
mod tests;
