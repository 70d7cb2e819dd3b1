//! The library behind `acc-certify`: evidence validation, capability explanation, the native
//! delivery rule, model doubles, recording, and the release gate.

pub mod adapter_arg;
pub mod cli;
pub mod client_arg;
pub mod clients;
pub mod diff_install;
pub mod doubles;
pub mod envelope;
pub mod explain;
pub mod gate;
pub mod matrix;
pub mod native_cmd;
pub mod new_adapter;
pub mod outdated;
pub mod output;
pub mod record;
pub mod report;
pub mod setup;
pub mod validate;
pub mod wire;
