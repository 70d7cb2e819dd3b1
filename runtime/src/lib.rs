//! acc's runtime: protocol types, the SQLite store, the coordination core, and the library
//! the `acc`, `acc-hook`, `acc-mcp` and `acc-guard` binaries drive.
//!
//! The command layer is thin: [`core::Core`] is the one handle a process opens on a
//! workspace's store, and every operation (sessions, claims, messages, delivery, status) is a
//! method on it. [`workspace::discover`] finds the workspace of a directory and
//! [`paths::data_home`] the data home, both from an explicit [`env::Env`].

pub mod atomic_write;
pub mod cli;
pub mod clock;
pub mod core;
pub mod env;
pub mod error;
pub mod guard_exec;
pub mod hook;
pub mod ids;
pub mod installer;
pub mod live;
pub mod mcp;
pub mod paths;
pub mod registry;
pub mod serve;
pub mod store;
pub mod text;
pub mod watch;
pub mod workspace;

pub use crate::core::{Core, Owner, Ports};
pub use crate::error::{AccError, ErrorCode, ExitClass, Result};
