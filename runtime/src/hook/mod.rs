//! The hook runtime behind `acc-hook`: one client hook invocation, from the payload on stdin
//! to the answer in the client's own shape.
//!
//! `acc-hook [--data-home DIR] <adapter-id> [args...]` reads one payload, lets the adapter
//! whitelist it into a [`acc_sdk::event::NormalizedEvent`], runs the core handler for its
//! kind, and answers through the adapter (`deny_outcome`, `inject_outcome`, ...), so this
//! module never knows which client it talks to.
//!
//! Everything runs under one [`deadline::Deadline`] of [`DEFAULT_BUDGET`]: a call the
//! snapshot settles is answered on the calling thread (held to the deadline by
//! [`watchdog`]), the store path's work happens on a worker thread while the calling thread
//! waits with a timeout. Any error, panic or
//! timeout fails open: allow, exit 0, empty stdout and one short stderr line naming a stable
//! reason code ([`failure::Failure`]). A hook never touches the network.
//!
//! Receipts become `offered` only after the answer's stdout was written and flushed, and
//! only for the ids the renderer returned ([`runner`]).

pub mod answer;
pub mod args;
pub mod authority_guard;
pub mod beat_marker;
pub mod beat_writer;
pub mod bound;
pub mod bound_workspace;
pub mod call;
pub mod capture;
pub mod certify_read;
pub mod client;
pub mod deadline;
pub mod deny_events;
pub mod entry;
pub mod fail_log;
pub mod failure;
pub mod fingerprints;
pub mod grants;
pub mod guard_fallback;
pub mod guard_fast;
pub mod handlers;
pub mod hook_env;
pub mod own_files;
pub mod owner_line;
pub mod participant;
pub mod payload;
pub mod platform;
pub mod runner;
pub mod self_guard;
pub mod settings;
pub mod shell_words;
pub mod tamper_guard;
pub mod targets;
pub mod verdict;
pub mod watchdog;

use std::time::Duration;

/// The one deadline every invocation gets, for everything from reading stdin to committing
/// offers.
pub const DEFAULT_BUDGET: Duration = Duration::from_millis(5_000);

pub use answer::Answer;
pub use failure::Failure;
pub use runner::run;
pub use settings::{AdapterLookup, HookSettings, ProcessSource};
