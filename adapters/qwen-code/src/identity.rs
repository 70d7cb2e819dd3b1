//! Recognising Qwen Code among a hook's ancestors.
//!
//! `qwen` (npm's link to `@qwen-code/qwen-code/cli-entry.js`) relaunches itself as
//! `node --expose-gc …/@qwen-code/qwen-code/cli.js`, and the hooks run under that child.
//! Its script is `cli`, not `qwen`, so the command alone would skip it and stop at the
//! wrapper above; the package directory in the script's path names it.

use acc_sdk::adapter::{ClientIdentity, ProcessEntry};
use acc_sdk::identity::executable_name;

/// The package directory, as npm lays it out.
const PACKAGE_DIR: [&str; 2] = ["@qwen-code", "qwen-code"];

pub fn identify(entry: &ProcessEntry, certification_name: &str) -> Option<ClientIdentity> {
    let node = executable_name(&entry.comm) == "node"
        || entry
            .args
            .first()
            .is_some_and(|a0| executable_name(a0) == "node");
    let runs_bundle = entry
        .args
        .iter()
        .skip(1)
        .filter(|word| !word.starts_with('-'))
        .take(1)
        .any(|script| is_bundle(script));
    (node && runs_bundle).then(|| ClientIdentity {
        certification_name: certification_name.to_owned(),
        version: None,
    })
}

/// `…/@qwen-code/qwen-code/cli.js`: the bundle file directly inside the package directory.
fn is_bundle(script: &str) -> bool {
    let parts: Vec<&str> = script.rsplitn(4, '/').collect();
    matches!(parts.as_slice(), [file, pkg, scope, _] | [file, pkg, scope]
        if *file == "cli.js" && [*scope, *pkg] == PACKAGE_DIR)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_packages_own_bundle_is_qwen() {
        assert!(is_bundle("/w/node_modules/@qwen-code/qwen-code/cli.js"));
        assert!(!is_bundle("/w/node_modules/@qwen-code/qwen-code/other.js"));
        assert!(!is_bundle("/w/node_modules/@evil/qwen-code/cli.js"));
        assert!(!is_bundle("/w/qwen-code/cli.js"));
        assert!(!is_bundle("cli.js"));
    }
}
