//! One hook invocation's inputs, shared by the guard's own checks and every handler: the
//! bottom of the hook's imports, so that no file needs a handler to name the call it judges.

use super::bound_workspace;
use super::deadline::Deadline;
use super::failure::Failure;
use super::settings::HookSettings;
use crate::core::Core;
use crate::store::{MMAP_WHOLE_STORE, OpenMode};
use acc_sdk::define::Adapter;
use acc_sdk::event::NormalizedEvent;
use serde_json::Value;
use std::cell::RefCell;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// One invocation's inputs, shared by every handler.
pub struct Call<'a> {
    pub adapter: Arc<Adapter>,
    pub event: &'a NormalizedEvent,
    /// The raw payload, only ever handed back to the adapter unread.
    pub payload: &'a Value,
    pub settings: &'a HookSettings,
    pub deadline: Deadline,
    pub data_home: PathBuf,
    pub platform: String,
    /// Faults found on the way (a workspace that changed under the conversation, a pin that
    /// could not be written), reported on stderr with whatever the handler answers.
    pub faults: RefCell<Vec<String>>,
    /// Only write the conversation's heartbeat ([`super::args::HookArgs::beat_only`]).
    pub beat_only: bool,
}

impl Call<'_> {
    /// Opens the store of the workspace the conversation is bound to (the one the payload's
    /// cwd belongs to only before it was bound; [`bound_workspace`]). A lock held by
    /// another process is waited for only as long as the deadline leaves, and pages are
    /// read through a memory map (a hook reads a few hundred scattered pages).
    pub fn open_core(&self, mode: OpenMode) -> Result<Core, Failure> {
        let resolved = bound_workspace::resolve(
            &self.data_home,
            super::bound::pin_conversation(self.event),
            Path::new(&self.event.cwd),
            self.settings.env.env(),
        )?;
        self.faults.borrow_mut().extend(resolved.notes);
        let ws = resolved.workspace;
        self.deadline.check()?;
        let mut core = Core::open(ws, &self.data_home, mode, self.settings.ports.clone())?;
        // This host's listener keeps the fast path's snapshot of a shared store current.
        if let Some(exe) = &self.settings.beat_exe {
            crate::store::shared_listener::ensure_running(exe, &self.data_home, core.workspace());
        }
        core.set_busy_timeout(self.deadline.remaining())?;
        core.set_mmap_size(MMAP_WHOLE_STORE)?;
        Ok(core)
    }

    /// Reports a fault with this call's answer.
    pub fn report(&self, note: String) {
        self.faults.borrow_mut().push(note);
    }

    pub fn primary(&self) -> &str {
        self.adapter.manifest().client.primary()
    }
}
