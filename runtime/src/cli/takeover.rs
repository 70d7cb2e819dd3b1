//! The CLI's half of the loud path ([`crate::core::takeovers`]): whether a command reaches a
//! live agent session from outside that session's client, and what acc knows of the caller.
//!
//! A session is an agent's when a hook recorded its client process (in the store's bindings
//! or a conversation pin); it is live while that process is. A caller runs inside it when the
//! client is among its ancestors. Anything else (a person's shell, a script of the user's, an
//! agent's process that left its client's tree) is outside, and acc cannot tell which: so it
//! records the act with the caller's process chain, tells the owner, and holds what would
//! take something away from it.

use super::person::{MAX_ANCESTORS, hooked_ancestor};
use crate::core::Core;
use crate::core::takeovers::{CallerProcess, Takeover, TakeoverKind};
use crate::error::Result;
use crate::ids::SessionId;
use crate::workspace::pin;
use acc_sdk::identity::{ProcessTable, system_process_table};
use std::collections::BTreeSet;
use std::path::Path;

/// A caller outside a live agent session's client.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outside {
    /// The session's live client process.
    pub client_pid: u32,
    /// The caller's ancestors, its parent first, up to init.
    pub process: Vec<CallerProcess>,
}

/// `pid`'s ancestors, its parent first, as the table shows them (at most [`MAX_ANCESTORS`]).
pub fn caller_chain(table: &dyn ProcessTable, pid: u32) -> Vec<CallerProcess> {
    let mut out = Vec::new();
    let mut next = table.entry(pid).map(|e| e.ppid);
    for _ in 0..MAX_ANCESTORS {
        let Some(p) = next.filter(|p| *p > 0) else {
            break;
        };
        let Some(e) = table.entry(p) else {
            out.push(CallerProcess {
                pid: p,
                name: "?".into(),
                exe: None,
            });
            break;
        };
        out.push(CallerProcess {
            pid: p,
            name: e.comm.clone(),
            exe: e.exe.as_ref().map(|x| x.display().to_string()),
        });
        if p == 1 || out.iter().any(|c| c.pid == e.ppid) {
            break;
        }
        next = Some(e.ppid);
    }
    out
}

/// The client process a hook recorded for `session`: the store's binding, else a pin.
fn client_of(core: &mut Core, data_home: &Path, session: &SessionId) -> Result<Option<u32>> {
    if let Some(pid) = core.client_pid_of_session(session)? {
        return Ok(Some(pid));
    }
    Ok(pin::all(data_home)
        .into_iter()
        .filter(|p| p.facts.session_id.as_deref() == Some(session.as_str()))
        .find_map(|p| p.facts.client_pid))
}

/// `Some` when `session`'s hooked client is alive and `pid` does not run under it.
pub fn judge(
    core: &mut Core,
    data_home: &Path,
    session: &SessionId,
    table: &dyn ProcessTable,
    pid: u32,
) -> Result<Option<Outside>> {
    let Some(client) = client_of(core, data_home, session)? else {
        return Ok(None);
    };
    if client <= 1 || table.entry(client).is_none() {
        // No live client: nobody is there to take anything from.
        return Ok(None);
    }
    if hooked_ancestor(table, pid, &BTreeSet::from([client])).is_some() {
        return Ok(None);
    }
    Ok(Some(Outside {
        client_pid: client,
        process: caller_chain(table, pid),
    }))
}

/// [`judge`] for this process.
pub fn outside(core: &mut Core, data_home: &Path, session: &SessionId) -> Result<Option<Outside>> {
    let table = system_process_table();
    judge(
        core,
        data_home,
        session,
        table.as_ref(),
        super::caller::pid(),
    )
}

/// The caller's chain for this process, whoever it is.
pub fn this_chain() -> Vec<CallerProcess> {
    let table = system_process_table();
    caller_chain(table.as_ref(), super::caller::pid())
}

/// What a held takeover's command prints: what waits, for whom, and the two ways on.
pub fn held_line(t: &Takeover, client_pid: u32) -> String {
    let owner = t
        .owner_participant_id
        .clone()
        .unwrap_or_else(|| t.owner_session_id.clone());
    let what = match t.kind {
        TakeoverKind::ForcedRelease | TakeoverKind::Release => format!(
            "the release of {}'s claim {}",
            owner,
            t.claim_id.as_deref().unwrap_or("?")
        ),
        TakeoverKind::Detach => format!("the detach of {owner}'s session {}", t.owner_session_id),
        TakeoverKind::AttachLive => format!(
            "session {} acting as {owner}",
            t.taker_session_id.as_deref().unwrap_or("?")
        ),
        TakeoverKind::ActedAs => format!("a command as {owner}'s session"),
    };
    format!(
        "held takeover {seq}: {what} waits for {owner} or a person, because {owner}'s session runs in live process {client_pid} and this command does not run under it; {owner} is told at its next turn. Confirm with `acc takeover confirm {seq}` ({owner} from its own session, or a person in a terminal), or drop it with `acc takeover refuse {seq}`",
        seq = t.sequence.0
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::person::tests::entry;
    use acc_sdk::identity::StaticTable;

    #[test]
    fn the_chain_runs_from_the_parent_to_init_and_stops_on_a_cycle() {
        let table = StaticTable::new([entry(40, 30), entry(30, 20), entry(20, 1), entry(1, 0)]);
        let pids: Vec<u32> = caller_chain(&table, 40).iter().map(|c| c.pid).collect();
        assert_eq!(pids, vec![30, 20, 1]);
        let cycle = StaticTable::new([entry(40, 30), entry(30, 40)]);
        assert!(caller_chain(&cycle, 40).len() <= 2);
        // An ancestor the table does not show ends the chain with what is known.
        let gone = StaticTable::new([entry(40, 30)]);
        let chain = caller_chain(&gone, 40);
        assert_eq!((chain.len(), chain[0].name.as_str()), (1, "?"));
    }
}
