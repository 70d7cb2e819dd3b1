//! Recognising Kimi Code among a hook's ancestors.
//!
//! Kimi Code is `node …/dist/main.mjs`, started through the `kimi` bin, and renames its own
//! process to `kimi-code` (`process.title`), which overwrites both its `comm` and its
//! command line (docs/research/real-clients-env.md). Neither then matches the command
//! `kimi`, so without this the walk would find no client and the session would have no pid.

use acc_sdk::adapter::{ClientIdentity, ProcessEntry};
use acc_sdk::identity::executable_name;

/// The process title Kimi Code gives itself.
const TITLE: &str = "kimi-code";

pub fn identify(entry: &ProcessEntry, certification_name: &str) -> Option<ClientIdentity> {
    let titled =
        executable_name(&entry.comm) == TITLE || entry.args.first().is_some_and(|a0| a0 == TITLE);
    titled.then(|| ClientIdentity {
        certification_name: certification_name.to_owned(),
        version: None,
    })
}
