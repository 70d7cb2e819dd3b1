//! Process entries for the ancestry a real hook had.

use crate::adapter::ProcessEntry;

/// A process with `pid`, parent `ppid`, short name `comm` and argument vector `args`; the
/// executable path is left unnamed, as on platforms that do not report it.
pub fn entry(pid: u32, ppid: u32, comm: &str, args: &[&str]) -> ProcessEntry {
    ProcessEntry {
        pid,
        ppid,
        comm: comm.to_owned(),
        args: args.iter().map(|a| a.to_string()).collect(),
        exe: None,
    }
}
