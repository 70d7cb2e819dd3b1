//! Process tables: Linux `/proc`, a `ps` snapshot (macOS and other POSIX systems), and a
//! static table for tests.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use super::ProcessTable;
use super::session_version::run_with_timeout;
use crate::adapter::ProcessEntry;

/// Reads `/proc/<pid>/stat` (ppid and comm), `/proc/<pid>/cmdline` and `/proc/<pid>/exe`.
#[derive(Debug, Clone)]
pub struct ProcTable {
    root: PathBuf,
}

impl Default for ProcTable {
    fn default() -> Self {
        Self {
            root: PathBuf::from("/proc"),
        }
    }
}

impl ProcTable {
    /// A table over another proc root (tests point it at a synthetic tree).
    pub fn at(root: impl Into<PathBuf>) -> Self {
        Self { root: root.into() }
    }
}

/// `pid (comm) state ppid ...`: comm may hold spaces and parentheses, so it ends at the
/// last `)`.
pub(crate) fn parse_stat(stat: &str) -> Option<(String, u32)> {
    let open = stat.find('(')?;
    let close = stat.rfind(')')?;
    let comm = stat.get(open + 1..close)?.to_owned();
    let mut rest = stat.get(close + 1..)?.split_whitespace();
    let _state = rest.next()?;
    let ppid = rest.next()?.parse().ok()?;
    Some((comm, ppid))
}

impl ProcessTable for ProcTable {
    fn entry(&self, pid: u32) -> Option<ProcessEntry> {
        let dir = self.root.join(pid.to_string());
        let (comm, ppid) = parse_stat(&std::fs::read_to_string(dir.join("stat")).ok()?)?;
        let args = std::fs::read(dir.join("cmdline"))
            .map(|raw| {
                raw.split(|b| *b == 0)
                    .filter(|w| !w.is_empty())
                    .map(|w| String::from_utf8_lossy(w).into_owned())
                    .collect()
            })
            .unwrap_or_default();
        let exe = std::fs::read_link(dir.join("exe"))
            .ok()
            .filter(|p| p.is_absolute());
        Some(ProcessEntry {
            pid,
            ppid,
            comm,
            args,
            exe,
        })
    }
}

/// A snapshot of `ps -o pid=,ppid=,comm= -A` and `ps -A -o pid=,args=`. A failure gives an
/// empty table.
#[derive(Debug, Clone, Default)]
pub struct PsTable {
    entries: BTreeMap<u32, ProcessEntry>,
}

const PS_TIMEOUT: Duration = Duration::from_secs(1);

impl PsTable {
    /// Runs `ps` twice, each bounded by one second.
    pub fn snapshot() -> Self {
        let ps = Path::new("ps");
        let env = BTreeMap::from([("PATH".to_owned(), "/bin:/usr/bin".to_owned())]);
        let comm = run_with_timeout(ps, &["-o", "pid=,ppid=,comm=", "-A"], &env, PS_TIMEOUT);
        let args = run_with_timeout(ps, &["-A", "-o", "pid=,args="], &env, PS_TIMEOUT);
        match (comm, args) {
            (Some(comm), Some(args)) => Self::parse(&comm, &args),
            _ => Self::default(),
        }
    }

    /// Builds the table from the two listings.
    pub fn parse(comm_listing: &str, args_listing: &str) -> Self {
        let mut entries = BTreeMap::new();
        for line in comm_listing.lines() {
            let mut words = line.split_whitespace();
            let (Some(pid), Some(ppid)) = (
                words.next().and_then(|w| w.parse().ok()),
                words.next().and_then(|w| w.parse().ok()),
            ) else {
                continue;
            };
            let comm = words.collect::<Vec<_>>().join(" ");
            let exe = Some(PathBuf::from(&comm)).filter(|p| p.is_absolute());
            entries.insert(
                pid,
                ProcessEntry {
                    pid,
                    ppid,
                    comm,
                    args: Vec::new(),
                    exe,
                },
            );
        }
        for line in args_listing.lines() {
            let Some((pid, rest)) = line.trim_start().split_once(char::is_whitespace) else {
                continue;
            };
            if let Ok(pid) = pid.parse::<u32>()
                && let Some(entry) = entries.get_mut(&pid)
            {
                entry.args = rest.split_whitespace().map(str::to_owned).collect();
            }
        }
        Self { entries }
    }
}

impl ProcessTable for PsTable {
    fn entry(&self, pid: u32) -> Option<ProcessEntry> {
        self.entries.get(&pid).cloned()
    }
}

/// A fixed table, for tests and for callers that already hold a snapshot.
#[derive(Debug, Clone, Default)]
pub struct StaticTable(pub BTreeMap<u32, ProcessEntry>);

impl StaticTable {
    pub fn new(entries: impl IntoIterator<Item = ProcessEntry>) -> Self {
        Self(entries.into_iter().map(|e| (e.pid, e)).collect())
    }
}

impl ProcessTable for StaticTable {
    fn entry(&self, pid: u32) -> Option<ProcessEntry> {
        self.0.get(&pid).cloned()
    }
}

/// The platform's own table: `/proc` on Linux, a `ps` snapshot elsewhere.
pub fn system_process_table() -> Box<dyn ProcessTable> {
    if cfg!(target_os = "linux") && Path::new("/proc/self/stat").exists() {
        Box::new(ProcTable::default())
    } else {
        Box::new(PsTable::snapshot())
    }
}
