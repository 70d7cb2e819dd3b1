//! Which client process a hook runs under, and which version it is.
//!
//! The hook walks its own ancestry (at most 16 hops) for the first ancestor that is the
//! client: the adapter's `identify_client_process` first (a panic or `None` is "no"), then
//! the basename of `client.command`, then a node script named like it. A command that
//! matches nothing resolves nothing, and the session falls back to presence by age.

mod peer;
mod session_version;
mod table;

pub use peer::{peer_credentials, peer_pid};

pub use session_version::{DEFAULT_VERSION_TIMEOUT, run_version_command, session_version};
pub use table::{ProcTable, PsTable, StaticTable, system_process_table};

use std::collections::BTreeSet;
use std::panic::{AssertUnwindSafe, catch_unwind};

use crate::adapter::{AdapterBehaviour, ClientIdentity, ProcessEntry};
use crate::manifest::ClientSpec;

/// The most ancestors a walk visits.
pub const MAX_HOPS: usize = 16;

/// A view of the process table. Tests use synthetic tables.
pub trait ProcessTable {
    fn entry(&self, pid: u32) -> Option<ProcessEntry>;
}

/// The client process found among a hook's ancestors.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResolvedClient {
    pub pid: u32,
    pub entry: ProcessEntry,
    /// The primary's certification name, or the variant the adapter recognised.
    pub certification_name: String,
    /// The version `identify_client_process` returned, if any.
    pub version: Option<String>,
}

/// The last path component on `/` or `\`, without `.exe`, lowercased.
pub fn executable_name(path: &str) -> String {
    let base = path
        .rsplit(['/', '\\'])
        .next()
        .unwrap_or(path)
        .to_lowercase();
    base.strip_suffix(".exe").map(str::to_owned).unwrap_or(base)
}

/// The script candidates of a `node` command line: after the interpreter word, each
/// non-option word's basename without `.js`/`.mjs`/`.cjs`. A word right after an option
/// written without `=` may be that option's value, so the scan goes on past it; it stops
/// at the first candidate that does not follow such an option.
pub fn node_script_candidates(args: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    let mut after_bare_option = false;
    for word in args.iter().skip(1) {
        if word.starts_with('-') && word.len() > 1 {
            after_bare_option = !word.contains('=');
            continue;
        }
        let name = executable_name(word);
        let stem = [".js", ".mjs", ".cjs"]
            .iter()
            .find_map(|ext| name.strip_suffix(ext))
            .unwrap_or(&name)
            .to_owned();
        out.push(stem);
        if !after_bare_option {
            break;
        }
        after_bare_option = false;
    }
    out
}

fn identified(behaviour: &dyn AdapterBehaviour, entry: &ProcessEntry) -> Option<ClientIdentity> {
    // An identifier reads only the entry it is given; a panic in it must not take the hook
    // down with it.
    catch_unwind(AssertUnwindSafe(|| {
        behaviour.identify_client_process(entry)
    }))
    .ok()
    .flatten()
}

/// Does `entry` run `command` itself, or as a node script?
pub fn matches_command(entry: &ProcessEntry, command: &str) -> bool {
    let command = executable_name(command);
    let comm = executable_name(&entry.comm);
    if comm == command
        || entry
            .args
            .first()
            .is_some_and(|a0| executable_name(a0) == command)
    {
        return true;
    }
    let is_node = comm == "node"
        || entry
            .args
            .first()
            .is_some_and(|a0| executable_name(a0) == "node");
    is_node && node_script_candidates(&entry.args).contains(&command)
}

/// Walks up from `hook_pid` for the client process. A missing entry, a cycle, a parent of 1
/// or less, or 16 hops without a match give `None`.
pub fn resolve_client(
    table: &dyn ProcessTable,
    hook_pid: u32,
    client: &ClientSpec,
    behaviour: &dyn AdapterBehaviour,
) -> Option<ResolvedClient> {
    let mut seen = BTreeSet::from([hook_pid]);
    let mut pid = hook_pid;
    // Each process is read once: the parent read at one hop is the current one of the next.
    let mut current = table.entry(pid)?;
    for _ in 0..MAX_HOPS {
        let parent = current.ppid;
        if parent <= 1 || parent == pid || !seen.insert(parent) {
            return None;
        }
        let entry = table.entry(parent)?;
        if let Some(identity) =
            identified(behaviour, &entry).filter(|i| client.declares(&i.certification_name))
        {
            return Some(ResolvedClient {
                pid: parent,
                entry,
                certification_name: identity.certification_name,
                version: identity.version,
            });
        }
        if matches_command(&entry, &client.command) {
            return Some(ResolvedClient {
                pid: parent,
                entry,
                certification_name: client.primary().to_owned(),
                version: None,
            });
        }
        pid = parent;
        current = entry;
    }
    None
}

#[cfg(test)]
mod tests;
