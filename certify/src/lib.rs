//! The library behind `acc-certify`: evidence validation, capability explanation, the native
//! delivery rule, model doubles, recording, and the release gate.

pub mod clients;
pub mod doubles;
