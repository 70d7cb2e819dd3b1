//! The process environment as an explicit value, so library code and tests never read or
//! mutate the real environment behind the caller's back.

use std::collections::BTreeMap;

/// A snapshot of environment variables. An empty value counts as unset.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Env(BTreeMap<String, String>);

impl Env {
    /// The current process environment (non-UTF-8 entries are skipped).
    pub fn from_process() -> Self {
        Env(std::env::vars_os()
            .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)))
            .collect())
    }

    pub fn new() -> Self {
        Env::default()
    }

    /// Builder-style insert, for tests and callers that assemble an environment.
    pub fn with(mut self, key: &str, value: &str) -> Self {
        self.0.insert(key.to_string(), value.to_string());
        self
    }

    pub fn set(&mut self, key: &str, value: &str) {
        self.0.insert(key.to_string(), value.to_string());
    }

    /// Every variable, empty ones included.
    pub fn vars(&self) -> &BTreeMap<String, String> {
        &self.0
    }

    /// The value of `key`, or `None` when it is unset or empty.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.0
            .get(key)
            .map(String::as_str)
            .filter(|v| !v.is_empty())
    }
}

impl<K: Into<String>, V: Into<String>> FromIterator<(K, V)> for Env {
    fn from_iter<I: IntoIterator<Item = (K, V)>>(iter: I) -> Self {
        Env(iter
            .into_iter()
            .map(|(k, v)| (k.into(), v.into()))
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_values_count_as_unset() {
        let env = Env::new().with("A", "").with("B", "x");
        assert_eq!(env.get("A"), None);
        assert_eq!(env.get("B"), Some("x"));
        assert_eq!(env.get("C"), None);
    }
}
