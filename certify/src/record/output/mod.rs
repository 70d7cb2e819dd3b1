//! What a recording writes, and how it is compared: the raw bundle, the redacted fixture,
//! the evidence rows and provenance record, the writer that merges them into an adapter's
//! certification, the one canonical JSON form, and `--check`'s comparison.

pub mod behaviour;
pub mod bundle;
pub mod canonical;
pub mod check;
pub mod evidence;
pub mod fixture;
pub mod writer;
