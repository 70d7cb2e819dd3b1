//! The `before-read` scenario: can a read be refused before it happens?
//!
//! The recorder plants two files in the workspace, each holding a unique marker, and names
//! one of them in `ACC_CERTIFY_DENY_READ`: acc-hook's `beforeTool` then refuses a read of it
//! with the adapter's deny outcome ([`acc_runtime::hook::certify_read`]). acc refuses no read
//! of its own, and its installed pre-tool matchers name only write and shell tools, so for
//! this capture the recorder widens the matcher in the sandbox to the client's read tool.
//! The model reads the refused file, then the other one (the negative control).
//!
//! Passes when the pre-tool hook fired, the model got acc's refusal back and never the
//! refused file's marker, and the control read returned its marker. Adapters keep
//! `guards.beforeRead` undeclared whatever this shows: acc uses no read guard.

use std::path::{Path, PathBuf};

use acc_sdk::capabilities::Capability;

use crate::clients::Client;
use crate::doubles::Step;
use crate::record::kit::observations::Observations;
use crate::record::kit::verdict::{Verdict, conversation_requests};

/// The file whose read the hook refuses (also the value of `ACC_CERTIFY_DENY_READ`).
pub const REFUSED: &str = "withheld-notes.txt";
/// What it holds: must never reach the model.
pub const REFUSED_MARKER: &str = "acc-certify-withheld-7f3c9a1e";
/// The file read as the negative control.
pub const CONTROL: &str = "open-notes.txt";
/// What it holds: must reach the model.
pub const CONTROL_MARKER: &str = "acc-certify-readable-52d04b88";
/// The recorder-only variable acc-hook reads.
pub const DENY_READ_VAR: &str = acc_runtime::hook::hook_env::CERTIFY_DENY_READ_VAR;
/// The reason acc-hook gives.
pub const REFUSAL: &str = acc_runtime::hook::certify_read::DENY_READ_REASON;

/// Plants both files.
pub fn seed(workspace: &Path) -> std::io::Result<()> {
    std::fs::write(workspace.join(REFUSED), format!("{REFUSED_MARKER}\n"))?;
    std::fs::write(workspace.join(CONTROL), format!("{CONTROL_MARKER}\n"))
}

/// The double's two reads: the refused file first, the control second.
pub fn steps(workspace: &Path) -> Vec<Step> {
    vec![
        Step::read_file(workspace.join(REFUSED)),
        Step::read_file(workspace.join(CONTROL)),
    ]
}

/// The pre-tool matcher acc installs for `client` and the read tool it is widened to, or
/// `None` where the client offers no file-reading tool (Codex reads through its shell).
pub fn matcher_widening(client: Client) -> Option<(&'static str, &'static str)> {
    let widening = client.recorder().scenarios.before_read.as_ref()?;
    Some((widening.matcher.as_str(), widening.read_tool.as_str()))
}

/// Why the matcher could not be widened.
#[derive(Debug)]
pub enum WidenError {
    Io {
        path: PathBuf,
        message: String,
    },
    /// No installed file carries the matcher acc is expected to install.
    MatcherNotFound {
        matcher: &'static str,
    },
}

impl WidenError {
    pub fn code(&self) -> &'static str {
        match self {
            WidenError::Io { .. } => "before-read.io",
            WidenError::MatcherNotFound { .. } => "before-read.matcher-not-found",
        }
    }
}

impl std::fmt::Display for WidenError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            WidenError::Io { path, message } => {
                write!(f, "{}: {}: {message}", self.code(), path.display())
            }
            WidenError::MatcherNotFound { matcher } => write!(
                f,
                "{}: no installed hook file names the matcher {matcher:?}",
                self.code()
            ),
        }
    }
}

/// Adds the read tool to acc's installed matcher in `files` (the sandbox's hook configs).
/// The matcher is a quoted string in every client's config format (JSON or TOML), so the
/// quoted value is replaced as text.
pub fn widen(client: Client, files: &[PathBuf]) -> Result<(), WidenError> {
    let Some((matcher, read_tool)) = matcher_widening(client) else {
        return Ok(());
    };
    let quoted = format!("\"{matcher}\"");
    let widened = format!("\"{matcher}|{read_tool}\"");
    let mut found = false;
    for path in files {
        let io = |e: std::io::Error| WidenError::Io {
            path: path.clone(),
            message: e.to_string(),
        };
        let Ok(text) = std::fs::read_to_string(path) else {
            continue;
        };
        if text.contains(&quoted) {
            found = true;
            std::fs::write(path, text.replace(&quoted, &widened)).map_err(io)?;
        }
    }
    if found {
        Ok(())
    } else {
        Err(WidenError::MatcherNotFound { matcher })
    }
}

/// The verdict on `guards.beforeRead`.
pub fn judge(obs: &Observations) -> Verdict {
    let mut failures = Vec::new();
    let requests = conversation_requests(obs);
    let results = requests
        .iter()
        .map(|r| &r.tool_results)
        .max_by_key(|results| results.len());
    let called = results.is_some_and(|results| !results.is_empty());
    if !called {
        failures.push(
            "the client made no tool call for the read steps: the model double found no file-reading tool among those the client offers"
                .to_owned(),
        );
    }
    match &obs.hooks {
        None => failures.push("acc-hook left no capture of its invocations".to_owned()),
        Some(hooks)
            if !hooks
                .iter()
                .any(|h| h.kind.as_deref() == Some("beforeTool")) =>
        {
            failures.push("no pre-tool hook reached acc for the read".to_owned());
        }
        Some(_) => {}
    }
    let leaked = requests
        .iter()
        .flat_map(|r| &r.tool_results)
        .any(|result| result.text.contains(REFUSED_MARKER));
    if leaked {
        failures.push(
            "the refused file's content reached the model: the read was not blocked".to_owned(),
        );
    }
    if called {
        match results.and_then(|results| results.first()) {
            Some(result) if result.text.contains(REFUSAL) => {}
            _ => failures.push(
                "the tool result the client sent back for the refused read does not carry acc's reason"
                    .to_owned(),
            ),
        }
    }
    match results.and_then(|results| results.get(1)) {
        Some(result) if result.text.contains(CONTROL_MARKER) => {}
        _ => failures.push(
            "negative control failed: the read of the unrefused file did not return its content"
                .to_owned(),
        ),
    }
    Verdict::new(
        Capability::BeforeRead,
        failures,
        "the read of the refused file was denied before it happened, the model read acc's reason and not the file, and the unrefused read returned its content",
    )
}

/// Two planted files; acc-hook refuses the read of one.
pub struct BeforeRead;

impl crate::record::kit::recipe::Recipe for BeforeRead {
    fn scenario(&self) -> crate::record::scenario::Scenario {
        crate::record::scenario::Scenario::BeforeRead
    }

    fn run(
        &self,
        installed: &crate::clients::InstalledClient,
        tuple: &crate::record::kit::tuple::Tuple,
        settings: &crate::record::kit::run::RunSettings,
        control: Option<&crate::record::kit::observations::Observations>,
    ) -> Result<crate::record::kit::run::ScenarioRun, crate::record::kit::error::RecordError> {
        crate::record::kit::headless::run(self, installed, tuple, settings, control)
    }

    fn capabilities(&self) -> &'static [acc_sdk::capabilities::Capability] {
        &[acc_sdk::capabilities::Capability::BeforeRead]
    }

    fn judge(
        &self,
        obs: &crate::record::kit::observations::Observations,
    ) -> Vec<crate::record::kit::verdict::Verdict> {
        vec![judge(obs)]
    }

    fn decisive_hook(&self) -> acc_sdk::event::EventKind {
        acc_sdk::event::EventKind::BeforeTool
    }

    fn deny_reason(&self) -> Option<String> {
        Some(REFUSAL.to_owned())
    }

    fn seed(
        &self,
        workspace: &std::path::Path,
    ) -> Result<(), crate::record::kit::error::RecordError> {
        seed(workspace).map_err(|e| crate::record::kit::error::RecordError::Write {
            message: format!(
                "planting the before-read files in {}: {e}",
                workspace.display()
            ),
        })
    }

    fn script(
        &self,
        workspace: &Path,
    ) -> Result<crate::doubles::Script, crate::doubles::ScriptError> {
        crate::doubles::Script::new(steps(workspace), crate::record::scenario::FINAL_TEXT)
    }

    fn wire(
        &self,
        client: crate::clients::Client,
        installed: &[std::path::PathBuf],
    ) -> std::io::Result<()> {
        widen(client, installed).map_err(|e| std::io::Error::other(e.to_string()))
    }

    /// acc-hook is told which file to refuse.
    fn environment(&self, capture_dir: &Path) -> std::collections::BTreeMap<String, String> {
        let mut env = crate::record::kit::recipe::base_environment(self, capture_dir);
        env.insert(DENY_READ_VAR.to_owned(), REFUSED.to_owned());
        env
    }
}

#[cfg(test)]
mod tests;
