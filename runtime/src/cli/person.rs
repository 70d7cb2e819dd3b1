//! Whether the caller of `acc release --authority …` is a person.
//!
//! An authority is not self-asserted: any agent can type `--authority human`. A caller counts
//! as a person only when both hold:
//!
//! 1. stdin and stderr are terminals: a person types at one. An agent's shell tool runs
//!    commands on pipes.
//! 2. no ancestor of the caller is the client process of a hooked conversation: a pid a hook
//!    recorded (in this store's bindings, or in any conversation pin under the data home),
//!    so an agent that fakes a terminal (`script -qc …`) is still refused. The check names no
//!    client: it only compares pids.
//!
//! Either failing is `authority_needs_person` (exit 5) with a message that says to ask the
//! user to run the command in their own terminal.

use crate::error::{AccError, ErrorCode, Result};
use acc_sdk::identity::{ProcessTable, system_process_table};
use std::collections::BTreeSet;

/// The most ancestors looked at; process trees are never this deep in practice.
pub const MAX_ANCESTORS: usize = 64;

/// Why a caller is not taken for a person.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NotAPerson {
    /// stdin or stderr is not a terminal.
    NoTerminal,
    /// This ancestor is the client process of a hooked conversation.
    UnderHookedClient(u32),
}

/// What the caller's surroundings are, as the check needs them.
pub struct Surroundings<'a> {
    pub stdin_is_terminal: bool,
    pub stderr_is_terminal: bool,
    /// The caller's own pid; its ancestors are walked from its parent.
    pub pid: u32,
    pub table: &'a dyn ProcessTable,
}

impl<'a> Surroundings<'a> {
    /// This process's real terminals, seen through `table`.
    pub fn of_this_process(table: &'a dyn ProcessTable) -> Self {
        use std::io::IsTerminal;
        Surroundings {
            stdin_is_terminal: std::io::stdin().is_terminal(),
            stderr_is_terminal: std::io::stderr().is_terminal(),
            pid: super::caller::pid(),
            table,
        }
    }
}

/// Judges the caller against the pids of hooked clients.
pub fn judge(s: &Surroundings<'_>, hooked: &BTreeSet<u32>) -> std::result::Result<(), NotAPerson> {
    // The ancestry comes first: it is the stronger proof, and the more useful reason.
    if let Some(p) = hooked_ancestor(s.table, s.pid, hooked) {
        return Err(NotAPerson::UnderHookedClient(p));
    }
    if !(s.stdin_is_terminal && s.stderr_is_terminal) {
        return Err(NotAPerson::NoTerminal);
    }
    Ok(())
}

/// The nearest ancestor of `pid` (not `pid` itself, never init) that is in `hooked`.
pub fn hooked_ancestor(table: &dyn ProcessTable, pid: u32, hooked: &BTreeSet<u32>) -> Option<u32> {
    let mut pid = table.entry(pid).map(|e| e.ppid);
    for _ in 0..MAX_ANCESTORS {
        let p = pid.filter(|p| *p > 1)?;
        if hooked.contains(&p) {
            return Some(p);
        }
        pid = table.entry(p).map(|e| e.ppid);
    }
    None
}

/// The refusal for `why`, for the `--authority` given.
pub fn refusal(why: NotAPerson, authority: &str) -> AccError {
    let (reason, detail) = match why {
        NotAPerson::NoTerminal => (
            "stdin and stderr are not both terminals".to_string(),
            "noTerminal",
        ),
        NotAPerson::UnderHookedClient(pid) => (
            format!("it runs under process {pid}, the client of a hooked agent session"),
            "underHookedClient",
        ),
    };
    AccError::new(
        ErrorCode::AuthorityNeedsPerson,
        format!(
            "--authority {authority} needs a person, and this caller is not shown to be one: {reason}; an agent cannot assert an authority, so ask the user to run `acc release --claim <CLAIM> --authority {authority}` in their own terminal"
        ),
    )
    .with("flag", "--authority")
    .with("why", detail)
}

/// Refuses unless this process's caller is a person (see the module docs).
pub fn require(hooked: &BTreeSet<u32>, authority: &str) -> Result<()> {
    let table = system_process_table();
    judge(&Surroundings::of_this_process(table.as_ref()), hooked)
        .map_err(|why| refusal(why, authority))
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use acc_sdk::adapter::ProcessEntry;
    use acc_sdk::identity::StaticTable;

    /// A shell process `pid` whose parent is `ppid`, for process tables in tests.
    pub(crate) fn entry(pid: u32, ppid: u32) -> ProcessEntry {
        ProcessEntry {
            pid,
            ppid,
            comm: "sh".into(),
            args: vec![],
            exe: None,
        }
    }

    fn at(table: &StaticTable, tty: bool) -> Surroundings<'_> {
        Surroundings {
            stdin_is_terminal: tty,
            stderr_is_terminal: tty,
            pid: 40,
            table,
        }
    }

    #[test]
    fn a_terminal_with_no_hooked_ancestor_is_a_person() {
        // 40 <- 30 <- 20 <- 1
        let table = StaticTable::new([entry(40, 30), entry(30, 20), entry(20, 1)]);
        let none = BTreeSet::new();
        assert_eq!(judge(&at(&table, true), &none), Ok(()));
        assert_eq!(
            judge(&at(&table, false), &none),
            Err(NotAPerson::NoTerminal)
        );
        let one_tty = Surroundings {
            stderr_is_terminal: false,
            ..at(&table, true)
        };
        assert_eq!(judge(&one_tty, &none), Err(NotAPerson::NoTerminal));
    }

    #[test]
    fn a_hooked_client_among_the_ancestors_is_an_agent_even_on_a_terminal() {
        let table = StaticTable::new([entry(40, 30), entry(30, 20), entry(20, 1)]);
        let hooked = BTreeSet::from([20]);
        assert_eq!(
            judge(&at(&table, true), &hooked),
            Err(NotAPerson::UnderHookedClient(20))
        );
        // The caller itself or an unrelated process is not an ancestor.
        assert_eq!(judge(&at(&table, true), &BTreeSet::from([40, 99])), Ok(()));
        let e = refusal(NotAPerson::UnderHookedClient(20), "human");
        assert_eq!(e.exit_code(), 5);
        assert!(e.message.contains("ask"), "{}", e.message);
    }

    #[test]
    fn a_cycle_in_the_table_ends_the_walk() {
        let table = StaticTable::new([entry(40, 30), entry(30, 40)]);
        assert_eq!(judge(&at(&table, true), &BTreeSet::from([7])), Ok(()));
    }
}
