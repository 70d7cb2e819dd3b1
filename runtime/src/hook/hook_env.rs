//! The hook's environment as one explicit value: the core reads it as an [`Env`], adapters
//! and version commands receive the whole map.

use crate::env::Env;
use std::collections::BTreeMap;

/// Names the participant a hooked session acts as (otherwise derived from the client's
/// session id).
pub const PARTICIPANT_VAR: &str = "ACC_PARTICIPANT";
/// Set by `acc-certify record` in a sandboxed client: the capabilities being certified.
pub const CERTIFY_CANDIDATES_VAR: &str = "ACC_CERTIFY_CANDIDATES";
/// Set by `acc-certify record` in a sandboxed client: the context injections to keep silent,
/// so that text the model was shown can be attributed to the one hook left speaking.
pub const CERTIFY_WITHHELD_VAR: &str = "ACC_CERTIFY_WITHHELD";
/// Set by `acc-certify record` in a sandboxed client: the one planted file whose read
/// `beforeTool` refuses ([`super::certify_read`]).
pub const CERTIFY_DENY_READ_VAR: &str = "ACC_CERTIFY_DENY_READ";

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HookEnv {
    vars: BTreeMap<String, String>,
    env: Env,
}

impl HookEnv {
    /// The current process environment (non-UTF-8 entries are skipped).
    pub fn from_process() -> Self {
        Self::from_vars(
            std::env::vars_os()
                .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)))
                .collect(),
        )
    }

    pub fn from_vars(vars: BTreeMap<String, String>) -> Self {
        let env = vars.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
        HookEnv { vars, env }
    }

    /// Builder-style insert, for tests.
    pub fn with(mut self, key: &str, value: &str) -> Self {
        self.vars.insert(key.to_string(), value.to_string());
        self.env.set(key, value);
        self
    }

    /// The value of `key`; an empty value counts as unset.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.env.get(key)
    }

    pub fn env(&self) -> &Env {
        &self.env
    }

    pub fn vars(&self) -> &BTreeMap<String, String> {
        &self.vars
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_views_agree() {
        let e = HookEnv::default().with("A", "1").with("B", "");
        assert_eq!(e.get("A"), Some("1"));
        assert_eq!(e.get("B"), None);
        assert_eq!(e.env().get("A"), Some("1"));
        assert_eq!(e.vars().len(), 2);
    }
}
