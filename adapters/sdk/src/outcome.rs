//! What a hook prints back to its client. The runtime never knows which client it is
//! talking to: adapters build these in their client's measured shape.

use serde::Serialize;

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HookOutcome {
    pub stdout: String,
    pub stderr: String,
    pub exit_code: i32,
}

impl HookOutcome {
    /// Allow, say nothing.
    pub fn silent() -> Self {
        Self::default()
    }

    pub fn stdout(text: impl Into<String>) -> Self {
        Self {
            stdout: text.into(),
            ..Self::default()
        }
    }
}
