//! `acc-certify record`: real clients, driven headless against a model double in a sandbox
//! wired by acc's real installer, judged from what they actually did.
//!
//! For each client and [`scenario::Scenario`] the recorder builds a fresh sandbox, starts the
//! double, writes the client's base config, runs acc's installer, sets up the room in acc's
//! store, runs the client, and collects [`kit::observations::Observations`]: acc's store,
//! the workspace, the double's request log and acc-hook's own capture. The pure judge
//! ([`scenarios::judge`]) turns observations into verdicts. Then it writes, deterministically:
//! - the raw bundle `captures/<client>-<version>-<platform>/<scenario>/` ([`output::bundle`]);
//! - the redacted fixture `adapters/<id>/fixtures/captures/<scenario>/...json`
//!   ([`output::fixture`]), its provenance record and the evidence rows ([`output::evidence`],
//!   [`output::writer`]).
//!
//! The layers import downwards only: [`scenarios`] (one folder per scenario, each an
//! implementation of [`kit::recipe::Recipe`]) and [`output`] build on [`kit`], which builds
//! on nothing above it; [`command`] and [`recording`] drive them all.
//!
//! `--check` records into a scratch directory and compares the verdicts with the committed
//! evidence ([`output::check`]).

pub mod command;
pub mod kit;
pub mod output;
pub mod recording;
pub mod scenario;
pub mod scenarios;
pub mod summary;

pub use command::{RecordArgs, execute};
pub use kit::error::RecordError;
pub use kit::verdict::Verdict;
pub use scenario::Scenario;
pub use scenarios::{judge, judge_bundle};
