//! One invocation's surroundings: its environment, its directory, and how to open the core.

use crate::clock::{ManualClock, parse_iso};
use crate::core::resources::Resource;
use crate::core::{Core, Ports};
use crate::env::Env;
use crate::error::{AccError, Result};
use crate::paths;
use crate::store::OpenMode;
use crate::workspace::{self, WorkspaceDescriptor};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Test-only: pins "now" for every command of a test run (an ISO timestamp or epoch
/// milliseconds), so snapshots of timestamps are stable. Not part of the user interface.
pub const TEST_CLOCK_VAR: &str = "ACC_TEST_CLOCK";

pub struct Invocation<'a> {
    pub env: &'a Env,
    pub cwd: PathBuf,
    /// A core opened read-only before the command ran (to judge its caller), handed to the
    /// command's own first read-only open instead of opening the store twice.
    opened: std::cell::RefCell<Option<Core>>,
}

impl<'a> Invocation<'a> {
    pub fn new(env: &'a Env, process_cwd: &Path, cwd_flag: Option<&Path>) -> Self {
        let cwd = match cwd_flag {
            Some(p) if p.is_absolute() => p.to_path_buf(),
            Some(p) => process_cwd.join(p),
            None => process_cwd.to_path_buf(),
        };
        Invocation {
            env,
            cwd,
            opened: Default::default(),
        }
    }

    pub fn ports(&self) -> Result<Ports> {
        let mut ports = Ports::system();
        if let Some(v) = self.env.get(TEST_CLOCK_VAR) {
            let ms = parse_iso(v)
                .or_else(|| v.parse::<i64>().ok())
                .ok_or_else(|| {
                    AccError::usage(format!("{TEST_CLOCK_VAR} {v:?} is not a timestamp"))
                })?;
            ports.clock = Arc::new(ManualClock::at(ms));
        }
        Ok(ports)
    }

    pub fn workspace(&self) -> Result<WorkspaceDescriptor> {
        workspace::discover(&self.cwd, self.env)
    }

    /// Opens the core. Only `OpenMode::ReadWrite` may create the store.
    pub fn open(&self, mode: OpenMode) -> Result<Core> {
        if mode == OpenMode::ReadOnly
            && let Some(core) = self.opened.borrow_mut().take()
        {
            return Ok(core);
        }
        let ws = self.workspace()?;
        let home = paths::data_home(self.env)?;
        Core::open(ws, &home, mode, self.ports()?)
    }

    /// Opens the core read-only for a look before the command, and keeps it for the
    /// command's own read-only open.
    pub fn with_core<T>(&self, look: impl FnOnce(&mut Core) -> Result<T>) -> Result<T> {
        let mut core = self.open(OpenMode::ReadOnly)?;
        let out = look(&mut core);
        *self.opened.borrow_mut() = Some(core);
        out
    }

    /// Parses a resource and, for `file:`, resolves it against the worktree root.
    pub fn resource(&self, core: &Core, raw: &str) -> Result<Resource> {
        Ok(Resource::parse(raw)?.resolve_against(core.workspace().checkout_root()))
    }
}
