//! The `child-sessions` scenario: does a subagent become a child session of its parent,
//! with its writes guarded as its own?
//!
//! The peer holds a guarded claim on `src/**` and the claimed file already exists. The
//! double makes the parent ask the client's subagent tool for a task; inside the subagent
//! it writes the claimed file, then an unclaimed one, and closes; the parent then answers
//! and the run ends. The run names `lifecycle.childSessions` in `ACC_CERTIFY_CANDIDATES`.
//! acc's installer registers no subagent hook today, so for this capture the recorder adds
//! the client's subagent start and end events to the sandbox's installed hook file, with
//! acc-hook's own command ([`wire`]).
//!
//! Passes when the client fired both subagent hooks, acc's store holds a session whose
//! parent is the client's main session (same participant, same harness), the claimed file
//! kept its bytes and acc's refusal names that child session, the unclaimed write happened,
//! and the child was closed by the end of the run.

use std::path::{Path, PathBuf};

use acc_runtime::{AccError, Core};
use acc_sdk::capabilities::Capability;
use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::clients::Client;
use crate::doubles::{Delegation, LoggedRequest, Protocol, RequestView, Script, Step};
pub use crate::record::kit::facts::{ChildFacts, LinkedSession, RefusalFact};
use crate::record::kit::observations::{FileFact, Observations};
use crate::record::kit::room::RECORDER_HARNESS;
use crate::record::kit::verdict::Verdict;
use crate::record::scenario::{FINAL_TEXT, FREE_FILE};

/// The claimed file the subagent tries to overwrite.
pub const CLAIMED: &str = "src/child.txt";
/// What it holds before the client starts.
pub const CLAIMED_BYTES: &str = "bytes the peer owns\n";
/// Only the subagent's conversation shows it (its task is the subagent's first message).
pub const MARKER: &str = "acc-certify-child-task-3e91c0d7";
/// The subagent's closing text, handed back to the parent as the subagent tool's result.
pub const CHILD_FINAL: &str = "Subagent done: acc-certify-child-done-58b2a4f0";

/// Plants the claimed file.
pub fn seed(workspace: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(workspace.join("src"))?;
    std::fs::write(workspace.join(CLAIMED), CLAIMED_BYTES)
}

/// The parent's delegation and the subagent's two writes.
pub fn delegation(workspace: &Path) -> Delegation {
    Delegation {
        task: format!("{MARKER}: write {CLAIMED} and {FREE_FILE} as instructed, then report."),
        marker: MARKER.to_owned(),
        child_steps: vec![
            Step::write_file(workspace.join(CLAIMED), "written by the subagent\n"),
            Step::write_file(workspace.join(FREE_FILE), "unclaimed\n"),
        ],
        child_final: CHILD_FINAL.to_owned(),
    }
}

pub fn script(workspace: &Path) -> Script {
    Script::delegated(delegation(workspace), FINAL_TEXT)
}

/// The client's hook events for a subagent's start and end, or `None` where it has none
/// that acc's adapter reads (Gemini CLI runs subagents as a tool, with no hook of their own).
pub fn subagent_events(client: Client) -> Option<[&'static str; 2]> {
    let [start, end] = client.recorder().scenarios.subagent_events.as_ref()?;
    Some([start.as_str(), end.as_str()])
}

/// Why the subagent hooks could not be added.
#[derive(Debug)]
pub enum WireError {
    Io {
        path: PathBuf,
        message: String,
    },
    /// No installed hook file carries acc's session-start entry to copy.
    NoSessionStart,
}

impl WireError {
    pub fn code(&self) -> &'static str {
        match self {
            WireError::Io { .. } => "child-sessions.io",
            WireError::NoSessionStart => "child-sessions.no-session-start",
        }
    }
}

impl std::fmt::Display for WireError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            WireError::Io { path, message } => {
                write!(f, "{}: {}: {message}", self.code(), path.display())
            }
            WireError::NoSessionStart => write!(
                f,
                "{}: no installed hook file holds acc's SessionStart entry",
                self.code()
            ),
        }
    }
}

const START_EVENT: &str = "SessionStart";

/// Registers the client's subagent events in `files` (the sandbox's installed hook files)
/// as copies of acc's session-start entry, the event name swapped. JSON files hold the
/// entries under `hooks.<Event>`; TOML files (Kimi Code) as `[[hooks]]` tables.
pub fn wire(client: Client, files: &[PathBuf]) -> Result<(), WireError> {
    let Some(events) = subagent_events(client) else {
        return Ok(());
    };
    let mut found = false;
    for path in files {
        let Ok(text) = std::fs::read_to_string(path) else {
            continue;
        };
        let wired = if path.extension().is_some_and(|e| e == "toml") {
            wire_toml(&text, &events)
        } else {
            wire_json(&text, &events)
        };
        if let Some(wired) = wired {
            found = true;
            std::fs::write(path, wired).map_err(|e| WireError::Io {
                path: path.clone(),
                message: e.to_string(),
            })?;
        }
    }
    if found {
        Ok(())
    } else {
        Err(WireError::NoSessionStart)
    }
}

fn wire_json(text: &str, events: &[&str]) -> Option<String> {
    let mut value: Value = serde_json::from_str(text).ok()?;
    let hooks = value.get_mut("hooks")?.as_object_mut()?;
    let start = hooks.get(START_EVENT)?.clone();
    for event in events {
        if !hooks.contains_key(*event) {
            hooks.insert((*event).to_owned(), renamed(&start, event));
        }
    }
    serde_json::to_string_pretty(&value).ok()
}

/// `value` with every string ending in ` SessionStart` (acc-hook's event argument) ending
/// in ` <event>` instead.
fn renamed(value: &Value, event: &str) -> Value {
    match value {
        Value::String(s) => match s.strip_suffix(START_EVENT) {
            Some(head) if head.ends_with(' ') => Value::String(format!("{head}{event}")),
            _ => Value::String(s.clone()),
        },
        Value::Array(items) => Value::Array(items.iter().map(|v| renamed(v, event)).collect()),
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| (k.clone(), renamed(v, event)))
                .collect(),
        ),
        other => other.clone(),
    }
}

fn wire_toml(text: &str, events: &[&str]) -> Option<String> {
    let quoted = format!("\"{START_EVENT}\"");
    let table = text
        .split("[[hooks]]")
        .skip(1)
        .find(|table| table.contains(&quoted) && table.contains("acc-hook"))?;
    let mut out = text.trim_end().to_owned();
    for event in events {
        if text.contains(&format!("\"{event}\"")) {
            continue;
        }
        let copy = table
            .replace(&quoted, &format!("\"{event}\""))
            .replace(&format!(" {START_EVENT}"), &format!(" {event}"));
        out.push_str("\n\n[[hooks]]");
        out.push_str(copy.trim_end());
    }
    out.push('\n');
    Some(out)
}

/// The double's side: which answers delegated, and how many requests the subagent made.
pub fn request_facts(
    protocol: Protocol,
    delegation: &Delegation,
    requests: &[LoggedRequest],
) -> (Vec<String>, u64) {
    let delegates = |r: &LoggedRequest| {
        [
            "Agent",
            "agent",
            "spawn_subagent",
            "invoke_agent",
            "spawn_agent",
            "task",
        ]
            .iter()
            .any(|tool| r.answered.contains(&format!(":{tool} ")))
    };
    let delegations = requests
        .iter()
        .filter(|r| delegates(r))
        .map(|r| r.answered.clone())
        .collect();
    // A parent that waits for its subagent in a later call (Codex's `wait_agent`) shows the
    // task in its spawn call before the subagent's closing text comes back; the double
    // answered those requests with the parent's own sub-agent calls, never the child's steps.
    let child = requests
        .iter()
        .filter(|r| !delegates(r) && !is_parent_subagent_call(&r.answered))
        .filter(|r| {
            let results = protocol.tool_results(&r.body);
            let visible = protocol.model_visible_text(&r.body);
            delegation.is_child(&RequestView {
                tool_results: &results,
                visible_text: &visible,
            })
        })
        .count() as u64;
    (delegations, child)
}

/// Whether the double answered with a parent's sub-agent plumbing (loading the tools, or
/// waiting for the spawned agent) rather than a step of the subagent's own.
fn is_parent_subagent_call(answered: &str) -> bool {
    answered.starts_with("tool_search_call:")
        || [":wait_agent ", ":wait "]
            .iter()
            .any(|tool| answered.contains(tool))
}

/// The store's side: every session with its parent, and the refusals, by label.
pub fn store_facts(core: &mut Core) -> Result<(Vec<LinkedSession>, Vec<RefusalFact>), AccError> {
    let mut status = core.status(None, true)?;
    // Start order decides the numbering; the id breaks ties so a rerun labels alike.
    status.sessions.sort_by(|a, b| {
        (&a.started_at, a.session_id.as_str()).cmp(&(&b.started_at, b.session_id.as_str()))
    });
    let mut labels: Vec<(String, String)> = Vec::new();
    let (mut mains, mut children) = (0, 0);
    for s in &status.sessions {
        let label = if s.harness == RECORDER_HARNESS {
            s.participant_id.to_string()
        } else if s.parent_session_id.is_some() {
            children += 1;
            format!("child-{children}")
        } else {
            mains += 1;
            if mains == 1 {
                "main".to_owned()
            } else {
                format!("main-{mains}")
            }
        };
        labels.push((s.session_id.to_string(), label));
    }
    let label_of = |id: &str| {
        labels
            .iter()
            .find(|(known, _)| known == id)
            .map(|(_, label)| label.clone())
            .unwrap_or_else(|| "unknown".to_owned())
    };
    let sessions = status
        .sessions
        .iter()
        .map(|s| LinkedSession {
            label: label_of(s.session_id.as_str()),
            participant_id: s.participant_id.to_string(),
            harness: s.harness.clone(),
            state: s.state.as_str().to_owned(),
            parent: s.parent_session_id.as_deref().map(label_of),
        })
        .collect();
    let refusals = status
        .refused_writes
        .listed
        .iter()
        .map(|r| RefusalFact {
            target: r.target.clone(),
            by: label_of(&r.by_session_id),
        })
        .collect();
    Ok((sessions, refusals))
}

/// The claimed file with its digest, and whether the unclaimed one exists.
pub fn file_facts(workspace: &Path) -> Vec<FileFact> {
    [CLAIMED, FREE_FILE]
        .into_iter()
        .map(|path| {
            let bytes = std::fs::read(workspace.join(path)).ok();
            FileFact {
                path: path.to_owned(),
                exists: bytes.is_some(),
                sha256: bytes.filter(|_| path == CLAIMED).map(|b| digest(&b)),
            }
        })
        .collect()
}

/// The claimed file's digest before the run.
pub fn seeded_digest() -> String {
    digest(CLAIMED_BYTES.as_bytes())
}

fn digest(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The verdict on `lifecycle.childSessions`.
pub fn judge(obs: &Observations) -> Verdict {
    let mut failures = Vec::new();
    let facts = obs.children.clone().unwrap_or_default();
    if facts.delegations.is_empty() {
        failures.push(
            "the model double found no subagent tool among those the client offers (it looks for Agent, agent, spawn_subagent, invoke_agent, spawn_agent, task), so no subagent could be asked for"
                .to_owned(),
        );
    } else if facts.child_requests == 0 {
        failures.push(
            "the client was asked for a subagent but no request of the subagent's conversation reached the model double"
                .to_owned(),
        );
    }
    let fired = |kind: &str| {
        obs.hooks
            .iter()
            .flatten()
            .any(|h| h.kind.as_deref() == Some(kind))
    };
    if !fired("childStart") {
        failures.push(
            "no subagent-start hook reached acc (acc-hook saw no childStart event)".to_owned(),
        );
    }
    if !fired("childEnd") {
        failures
            .push("no subagent-stop hook reached acc (acc-hook saw no childEnd event)".to_owned());
    }
    let main = facts.sessions.iter().find(|s| s.label == "main");
    let child = facts
        .sessions
        .iter()
        .find(|s| s.parent.as_deref() == Some("main"));
    match (main, child) {
        (None, _) => failures.push("acc's store holds no session of the client".to_owned()),
        (Some(_), None) => failures.push(
            "acc's store holds no session whose parent is the client's main session: the subagent did not become a child session"
                .to_owned(),
        ),
        (Some(main), Some(child)) => {
            if child.participant_id != main.participant_id {
                failures.push("the child session's participant is not its parent's".to_owned());
            }
            if child.harness != main.harness {
                failures.push("the child session's harness is not its parent's".to_owned());
            }
            if child.state != "closed" {
                failures.push("the child session was still open after the run".to_owned());
            }
        }
    }
    let kept = obs
        .file(CLAIMED)
        .is_some_and(|f| f.sha256 == Some(seeded_digest()));
    if !kept {
        failures.push(
            "the peer's claimed file did not keep its bytes: the subagent's write got through"
                .to_owned(),
        );
    }
    let refused: Vec<&str> = facts
        .refusals
        .iter()
        // acc names the target as a resource (`file:src/child.txt`).
        .filter(|r| r.target.strip_prefix("file:").unwrap_or(&r.target) == CLAIMED)
        .map(|r| r.by.as_str())
        .collect();
    match (refused.as_slice(), child) {
        ([], _) => failures
            .push("acc recorded no refusal of a write into the peer's claimed file".to_owned()),
        (by, Some(child)) if by.contains(&child.label.as_str()) => {}
        (by, _) => failures.push(format!(
            "acc's refusal of the subagent's write names the {} session, not a child session",
            by.join(", ")
        )),
    }
    if !obs.file(FREE_FILE).is_some_and(|f| f.exists) {
        failures.push(
            "negative control failed: the subagent's write of the unclaimed file did not happen"
                .to_owned(),
        );
    }
    Verdict::new(
        Capability::ChildSessions,
        failures,
        "the subagent's start and end hooks reached acc, which opened a child session of the client's session (same participant and harness), refused the subagent's write into the peer's claim as that child, let its unclaimed write through, and closed the child",
    )
}

/// A subagent writes into the peer's claim: is it a child session, refused as itself?
pub struct ChildSessions;

impl crate::record::kit::recipe::Recipe for ChildSessions {
    fn scenario(&self) -> crate::record::scenario::Scenario {
        crate::record::scenario::Scenario::ChildSessions
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
        &[acc_sdk::capabilities::Capability::ChildSessions]
    }

    fn judge(
        &self,
        obs: &crate::record::kit::observations::Observations,
    ) -> Vec<crate::record::kit::verdict::Verdict> {
        vec![judge(obs)]
    }

    fn candidates(&self) -> &'static [acc_sdk::capabilities::Capability] {
        &[acc_sdk::capabilities::Capability::ChildSessions]
    }

    fn has_peer(&self) -> bool {
        true
    }

    fn decisive_hook(&self) -> acc_sdk::event::EventKind {
        acc_sdk::event::EventKind::ChildStart
    }

    fn claimed_target(&self) -> Option<&'static str> {
        Some(CLAIMED)
    }

    fn seed(
        &self,
        workspace: &std::path::Path,
    ) -> Result<(), crate::record::kit::error::RecordError> {
        seed(workspace).map_err(|e| crate::record::kit::error::RecordError::Write {
            message: format!("seeding {}/{}: {e}", workspace.display(), CLAIMED),
        })
    }

    fn script(&self, workspace: &Path) -> Result<Script, crate::doubles::ScriptError> {
        Ok(script(workspace))
    }

    fn room(
        &self,
        core: &mut acc_runtime::Core,
    ) -> Result<crate::record::kit::room::Room, acc_runtime::AccError> {
        crate::record::kit::room::guarded_claim(core)
    }

    fn wire(
        &self,
        client: crate::clients::Client,
        installed: &[std::path::PathBuf],
    ) -> std::io::Result<()> {
        wire(client, installed).map_err(|e| std::io::Error::other(e.to_string()))
    }

    /// What the double and acc's store show about the subagent, and the files it wrote.
    fn observe(
        &self,
        run: &crate::record::kit::recipe::HeadlessRun<'_>,
        obs: &mut Observations,
    ) -> Result<(), crate::record::kit::error::RecordError> {
        let (delegations, child_requests) = request_facts(
            run.client.protocol(),
            &delegation(run.workspace),
            &run.double.requests(),
        );
        let mut core = crate::record::kit::room::open_core(run.workspace, &run.acc_data_home)?;
        let (sessions, refusals) = store_facts(&mut core)?;
        obs.children = Some(ChildFacts {
            delegations,
            child_requests,
            sessions,
            refusals,
        });
        obs.files = file_facts(run.workspace);
        Ok(())
    }
}

#[cfg(test)]
mod tests;
