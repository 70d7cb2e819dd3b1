//! The library behind `acc-certify`: evidence validation, capability explanation, the native
//! delivery rule, model doubles, recording, and the release gate.
