//! The library behind `acc-certify`: evidence validation, capability explanation, the native
//! delivery rule, model doubles, recording, and the release gate.

pub mod cli;
pub mod clients;
pub mod doubles;
pub mod envelope;
pub mod explain;
pub mod native_cmd;
pub mod report;
pub mod validate;
