//! The installer: wires acc into each client where the real client reads it, and takes it
//! back out byte for byte.
//!
//! - [`install_run::run_install`] plans every selected adapter before writing anything
//!   (a malformed config or a conflict stops the run untouched), keeps the original bytes
//!   of each user file before its first edit, runs the adapter's install and records each
//!   artifact's sha256 in `<data home>/acc/installs.json` ([`record`]). An acc file the
//!   user changed since acc wrote it is kept through a re-install ([`set_aside`]).
//!   A run over several adapters is all or nothing: a failure part way is rolled back
//!   ([`rollback`]).
//! - [`uninstall_run::run_uninstall`] restores unchanged user files from their originals,
//!   lets the adapter strip acc's entries from files the user edited since, keeps acc trees
//!   the user changed, and removes the directories install created once empty (a directory
//!   another adapter's files still fill passes to that adapter and goes with it).
//! - [`doctor::run_doctor`] reports store health, clients, installed artifacts, the wiring
//!   found in each client's own files with the data home it points at ([`wiring`]) and the
//!   one next step; read-only unless asked to repair.
//!
//! The context every adapter sees is built in [`context`] from an explicit environment.

pub mod backups;
pub mod context;
pub mod digest;
pub mod directories;
pub mod doctor;
pub mod error;
pub mod install_run;
pub mod record;
pub mod report;
pub mod rollback;
pub mod selection;
pub mod set_aside;
pub mod store_health;
pub mod uninstall_run;
pub mod wiring;

pub use context::{ContextRequest, build_context};
pub use doctor::{DoctorRun, run_doctor};
pub use error::{InstallError, InstallErrorKind};
pub use install_run::{InstallOptions, run_install};
pub use report::RunReport;
pub use uninstall_run::{UninstallOptions, run_uninstall};
