//! Helpers for adapter crates' tests, so the scaffolding every client's tests share is
//! written once and each adapter's tests hold only its client's facts. Compiled for tests
//! and with the `testing` feature.
//!
//! Every assertion here names the case, file or event kind that failed.

pub mod install;
pub mod outcomes;
pub mod payloads;
pub mod process;
pub mod refusals;
pub mod shell;
