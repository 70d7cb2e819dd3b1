//! An agent acts only as itself.
//!
//! A process whose ancestors include the client process of a hooked conversation (a pid a
//! hook recorded, in the store's bindings or in a conversation pin; for a client whose hooks
//! and shell commands run under a shared host, such as Codex's app-server daemon, that host)
//! is that client's agent.
//! It may act only as the sessions that client's hooks opened (and their subagents'): naming
//! another session, even with its right generation, is refused; and it may not run what
//! changes acc for every agent (`install`, `uninstall`, `prune`, `config init`). A caller with
//! no hooked ancestor (a person's shell, a script of the user's) is not judged here.
//!
//! This is the CLI's half; the guard refuses the same commands before they run
//! ([`crate::hook::self_guard`]). An agent that re-parents its process away from its client
//! (`setsid`, a double fork) escapes the ancestry: the guard refuses such commands by their
//! words, and the threat model (docs/ARCHITECTURE.md) says what is left.

use super::person::hooked_ancestor;
use crate::core::{Core, Owner};
use crate::error::{AccError, ErrorCode, Result};
use crate::workspace::pin;
use acc_sdk::identity::{ProcessTable, system_process_table};
use std::collections::BTreeSet;
use std::path::Path;

/// The hooked client this process runs under, if any, judged by the pins under
/// `data_home` and, when given, the store's bindings.
pub fn caller_client(
    core: Option<&mut Core>,
    data_home: &Path,
    table: &dyn ProcessTable,
    pid: u32,
) -> Result<Option<u32>> {
    let mut hooked: BTreeSet<u32> = pin::client_pids(data_home).into_iter().collect();
    if let Some(core) = core {
        hooked.extend(core.hooked_client_pids()?);
    }
    Ok(hooked_ancestor(table, pid, &hooked))
}

/// Refuses when this process is an agent's and `owner` is not one of its client's sessions.
pub fn require_own_session(core: &mut Core, data_home: &Path, owner: &Owner) -> Result<()> {
    let table = system_process_table();
    judge_owner(core, data_home, owner, table.as_ref(), super::caller::pid())
}

fn judge_owner(
    core: &mut Core,
    data_home: &Path,
    owner: &Owner,
    table: &dyn ProcessTable,
    pid: u32,
) -> Result<()> {
    let Some(client) = caller_client(Some(core), data_home, table, pid)? else {
        return Ok(());
    };
    let mut own: BTreeSet<String> = core
        .sessions_of_client(client)?
        .into_iter()
        .map(|s| s.as_str().to_string())
        .collect();
    own.extend(
        pin::all(data_home)
            .into_iter()
            .filter(|p| p.facts.client_pid == Some(client))
            .filter_map(|p| p.facts.session_id),
    );
    if own.contains(owner.session.as_str()) {
        return Ok(());
    }
    Err(AccError::new(
        ErrorCode::AgentActsAsAnother,
        format!(
            "this command runs under process {client}, the client of a hooked agent session, and names session {}, which is not that client's: an agent acts only as itself. Use the --session and --generation of your own context's `ACC CLI (append)` line; to act on another session's behalf, message its owner or ask the user",
            owner.session
        ),
    )
    .with("why", "notYourSession")
    .with("clientPid", client))
}

/// Refuses an agent's `acc attach` under a participant that a live session already acts
/// as: that would be acting as another agent under its name.
pub fn require_free_name(core: &mut Core, data_home: &Path, participant: &str) -> Result<()> {
    let table = system_process_table();
    let Some(client) = caller_client(Some(core), data_home, table.as_ref(), super::caller::pid())?
    else {
        return Ok(());
    };
    let Ok(name) = crate::ids::ParticipantId::parse(participant) else {
        return Ok(());
    };
    if !core.participant_is_live(&name)? {
        return Ok(());
    }
    Err(AccError::new(
        ErrorCode::AgentActsAsAnother,
        format!(
            "{participant} is live in another session, and this command runs under process {client}, the client of a hooked agent session: an agent acts only as itself. Your own session is in your context's `ACC CLI (append)` line"
        ),
    )
    .with("why", "participantLive")
    .with("clientPid", client))
}

/// Refuses `command` (one that changes acc for every agent) when this process is an agent's.
pub fn require_person(core: Option<&mut Core>, data_home: &Path, command: &str) -> Result<()> {
    let table = system_process_table();
    let Some(client) = caller_client(core, data_home, table.as_ref(), super::caller::pid())? else {
        return Ok(());
    };
    Err(AccError::new(
        ErrorCode::AgentActsAsAnother,
        format!(
            "`acc {command}` changes acc for every agent on this machine, and this command runs under process {client}, the client of a hooked agent session: ask the user to run it from their own terminal (`acc doctor` says what is installed)"
        ),
    )
    .with("why", "needsPerson")
    .with("clientPid", client))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::person::tests::entry;
    use crate::core::testkit::kit;
    use acc_sdk::identity::StaticTable;

    #[test]
    fn an_agent_may_name_only_its_own_client_s_sessions() {
        let mut k = kit();
        let data = tempfile::tempdir().unwrap();
        let mine = k.attach("mine");
        let theirs = k.attach("theirs");
        k.core
            .put_binding("conv-mine", &mine, "client", None, Some(20))
            .unwrap();
        k.core
            .put_binding("conv-theirs", &theirs, "client", None, Some(30))
            .unwrap();
        // 40 (acc) <- 21 (shell) <- 20 (client of "mine") <- 1
        let table = StaticTable::new([entry(40, 21), entry(21, 20), entry(20, 1)]);
        assert!(judge_owner(&mut k.core, data.path(), &mine, &table, 40).is_ok());
        let e = judge_owner(&mut k.core, data.path(), &theirs, &table, 40).unwrap_err();
        assert_eq!(e.code, ErrorCode::AgentActsAsAnother);
        assert_eq!(e.exit_code(), 5);
        // A person's shell (no hooked ancestor) may name any session it holds.
        let person = StaticTable::new([entry(40, 21), entry(21, 2), entry(2, 1)]);
        assert!(judge_owner(&mut k.core, data.path(), &theirs, &person, 40).is_ok());
    }
}
