//! `acc-certify record`: real clients, driven headless against a model double in a sandbox
//! wired by acc's real installer, judged from what they actually did.
//!
//! For each client and [`scenario::Scenario`] the recorder builds a fresh sandbox, starts the
//! double, writes the client's base config, runs acc's installer, sets up the room in acc's
//! store, runs the client, and collects [`observations::Observations`]: acc's store, the
//! workspace, the double's request log and acc-hook's own capture. The pure
//! [`judge`] turns observations into verdicts. Then it writes, deterministically:
//! - the raw bundle `captures/<client>-<version>-<platform>/<scenario>/` ([`bundle`]);
//! - the redacted fixture `adapters/<id>/fixtures/captures/<scenario>/...json` ([`fixture`]),
//!   its provenance record and the evidence rows ([`evidence`], [`writer`]).
//!
//! `--check` records into a scratch directory and compares the verdicts with the committed
//! evidence ([`check`]).

pub mod before_read;
pub mod behaviour;
pub mod bundle;
pub mod canonical;
pub mod check;
pub mod child_sessions;
pub mod command;
pub mod coordinate;
pub mod error;
pub mod evidence;
pub mod fixture;
pub mod heartbeat;
pub mod hook_capture;
pub mod idle_heartbeat;
pub mod install;
pub mod judge;
pub mod live;
pub mod model_text;
pub mod observations;
pub mod observe;
pub mod opaque;
pub mod quit;
pub mod recording;
pub mod redact;
pub mod resume;
pub mod room;
pub mod runner;
pub mod safe_point;
pub mod scenario;
pub mod startup;
pub mod summary;
pub mod terminal_stage;
pub mod tuple;
pub mod writer;

pub use command::{RecordArgs, execute};
pub use error::RecordError;
pub use judge::{Verdict, judge, judge_bundle};
pub use scenario::Scenario;
