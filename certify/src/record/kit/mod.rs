//! What every scenario shares, and imports nothing of the scenarios or the output above it:
//! the [`recipe::Recipe`] trait they implement, verdicts, the headless runner, the terminal
//! stage, observations and the facts some scenarios add, hook capture, redaction, the room
//! in acc's store, and acc's installer.

pub mod error;
pub mod facts;
pub mod headless;
pub mod hook_capture;
pub mod install;
pub mod model_text;
pub mod observations;
pub mod observe;
pub mod recipe;
pub mod redact;
pub mod room;
pub mod run;
pub mod run_facts;
pub mod terminal;
pub mod tuple;
pub mod verdict;
