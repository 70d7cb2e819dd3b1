//! Which workspace one hook call acts in: the one its conversation was pinned to at attach
//! ([`crate::workspace::pin`]), whatever the payload's `cwd` or the workspace's files say
//! now; discovery from the `cwd` only for a conversation that has no pin yet.
//!
//! A workspace that changed under a bound conversation (its config broken, replaced by a
//! symlink, a FIFO or a huge file; a nested config or `git init` claiming the `cwd` for
//! another workspace) never moves the conversation and never turns its guard off: the call
//! answers from the bound workspace and says so on stderr, every call, until it is fixed.

use super::failure::Failure;
use crate::core::bindings::binding_key;
use crate::env::Env;
use crate::error::ErrorCode;
use crate::workspace::{self, WorkspaceDescriptor, git, pin};
use std::path::Path;

/// The workspace of one call and the faults to report with its answer.
#[derive(Debug)]
pub struct Resolved {
    pub workspace: WorkspaceDescriptor,
    /// True when the workspace came from the conversation's pin.
    pub pinned: bool,
    /// One stderr line each; never file contents, paths escaped.
    pub notes: Vec<String>,
}

/// The workspace the conversation `client_session_id` acts in for a call made from `cwd`.
pub fn resolve(
    data_home: &Path,
    client_session_id: &str,
    cwd: &Path,
    env: &Env,
) -> Result<Resolved, Failure> {
    let key = binding_key(client_session_id);
    match pin::read(data_home, &key) {
        Ok(Some(mut ws)) => {
            let (note, found) = drift(&ws, cwd, env);
            refresh_git(&mut ws, found);
            let notes = note.into_iter().collect();
            Ok(Resolved {
                workspace: ws,
                pinned: true,
                notes,
            })
        }
        Ok(None) => Ok(Resolved {
            workspace: workspace::discover(cwd, env)?,
            pinned: false,
            notes: Vec::new(),
        }),
        Err(e) => {
            // acc's own file is damaged: the best guess left is discovery, said out loud.
            let ws = workspace::discover(cwd, env)?;
            let note = format!(
                "acc: this conversation's workspace pin is unreadable ({}); it acts in workspace {} found from its cwd",
                e.code.as_str(),
                ws.id
            );
            Ok(Resolved {
                workspace: ws,
                pinned: false,
                notes: vec![note],
            })
        }
    }
}

/// Re-reads the branch of the pinned worktree (it changes with every checkout), keeping the
/// pinned repository: a worktree root that now leads to another repository keeps the pin.
/// `found` is what the drift check's discovery read: when it is the pinned worktree's, it
/// is what probing that worktree again would read.
fn refresh_git(ws: &mut WorkspaceDescriptor, found: Option<git::GitInfo>) {
    let Some(pinned) = ws.git.as_mut() else {
        return;
    };
    let now = found
        .filter(|f| f.worktree_root == pinned.worktree_root)
        .or_else(|| git::probe(&pinned.worktree_root));
    if let Some(now) = now
        && now.common_dir == pinned.common_dir
        && now.worktree_root == pinned.worktree_root
    {
        pinned.branch = now.branch;
        pinned.head = now.head;
    }
}

/// What discovery would say now, from the `cwd` when it lies inside the bound workspace
/// (else from its checkout root), when that differs from the binding; and the repository
/// it found.
fn drift(
    bound: &WorkspaceDescriptor,
    cwd: &Path,
    env: &Env,
) -> (Option<String>, Option<git::GitInfo>) {
    let real_cwd = crate::paths::canonicalize(cwd).ok();
    let start = match &real_cwd {
        Some(c) if bound.roots.iter().any(|r| c.starts_with(r)) => c.as_path(),
        _ => bound.checkout_root(),
    };
    let found = workspace::discover(start, env);
    let git = found.as_ref().ok().and_then(|now| now.git.clone());
    let note = match found {
        Err(e) if e.code == ErrorCode::WorkspaceConfigInvalid => {
            let file = e
                .details
                .get("file")
                .and_then(|v| v.as_str())
                .unwrap_or("acc.workspace.json");
            Some(format!(
                "acc: {file:?} is not a usable workspace config ({}); this conversation stays bound to workspace {} and its guard still answers; fix or remove the file",
                e.code.as_str(),
                bound.id
            ))
        }
        Err(_) => None,
        Ok(now) if now.id != bound.id => {
            let by = match &now.config_path {
                Some(p) => format!("{p:?}"),
                None => format!("{:?}", now.checkout_root()),
            };
            Some(format!(
                "acc: {by} would make this directory workspace {}; this conversation stays bound to workspace {} where it attached",
                now.id, bound.id
            ))
        }
        Ok(_) => None,
    };
    (note, git)
}

/// Pins the conversation to `ws` at attach. A pin that cannot be written is reported, not
/// fatal: the session still works, but only as long as discovery agrees.
pub fn pin_at_attach(
    data_home: &Path,
    client_session_id: &str,
    ws: &WorkspaceDescriptor,
    facts: &pin::PinFacts,
) -> Option<String> {
    let key = binding_key(client_session_id);
    match pin::write(data_home, &key, ws, facts) {
        Ok(()) => None,
        Err(e) => Some(format!(
            "acc: this conversation's workspace could not be pinned ({}); a later change to the workspace's files can move it",
            e.code.as_str()
        )),
    }
}
