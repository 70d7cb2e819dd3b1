//! The server's one acc session: attached on the first call that needs it, heartbeated while
//! the server runs, closed when the client goes away.
//!
//! An MCP server sees neither the client's start nor its end, so its session is `advisory`
//! (it guards nothing) and `manual` (no hook reports its lifecycle). The server's own pid is
//! recorded: if the server is killed instead of reaching end of input, presence turns
//! offline at once rather than after the silence limit.

use super::heartbeat::{CoreOpener, Heartbeat};
use super::settings::Settings;
use crate::core::model::{Enforcement, Lifecycle};
use crate::core::sessions::{HOOK_CADENCE_MS, OpenSession};
use crate::core::{Core, Owner};
use crate::error::{ErrorCode, Result};
use crate::store::OpenMode;
use std::time::Duration;

/// The harness name recorded for sessions of this server (and usable as a recipient name
/// while exactly one MCP participant is live).
pub const HARNESS: &str = "mcp";

/// An attached session with the core it was opened on.
pub struct Attachment {
    pub core: Core,
    pub owner: Owner,
    heartbeat: Heartbeat,
}

/// Holds the attachment, if any.
#[derive(Default)]
pub struct SessionSlot {
    current: Option<Attachment>,
}

/// Errors meaning the session no longer exists as this server knows it (closed by someone
/// else, reopened elsewhere, or its store replaced): the next call attaches a fresh one.
fn session_is_gone(code: ErrorCode) -> bool {
    matches!(
        code,
        ErrorCode::SessionClosed | ErrorCode::SessionUnknown | ErrorCode::GenerationMismatch
    )
}

fn attach(settings: &Settings) -> Result<Attachment> {
    let ws = settings.workspace()?;
    let home = settings.data_home()?;
    let mut req = OpenSession::new(settings.participant.clone(), HARNESS, HOOK_CADENCE_MS);
    req.enforcement = Enforcement::Advisory;
    req.lifecycle = Lifecycle::Manual;
    req.pid = Some(std::process::id());
    req.checkout_root = Some(ws.checkout_root().display().to_string());
    req.branch = ws.branch().map(str::to_string);
    let mut core = Core::open(ws, &home, OpenMode::ReadWrite, settings.ports.clone())?;
    let record = core.open_session(req)?;
    let owner = Owner::new(record.session_id, record.generation);
    let for_thread = settings.clone();
    let open: CoreOpener = Box::new(move || for_thread.open_core(OpenMode::ReadWrite));
    let heartbeat = Heartbeat::start(open, owner.clone(), Duration::from_millis(HOOK_CADENCE_MS));
    Ok(Attachment {
        core,
        owner,
        heartbeat,
    })
}

impl SessionSlot {
    /// The attached session, attaching one first when there is none.
    pub fn ensure(&mut self, settings: &Settings) -> Result<&mut Attachment> {
        if self.current.is_none() {
            self.current = Some(attach(settings)?);
        }
        Ok(self.current.as_mut().expect("attached just above"))
    }

    /// The attached session, if any (never attaches).
    pub fn current(&mut self) -> Option<&mut Attachment> {
        self.current.as_mut()
    }

    /// Forgets the session after a failure that shows it is gone.
    pub fn note_failure(&mut self, code: ErrorCode) {
        if session_is_gone(code) {
            self.forget();
        }
    }

    /// Stops heartbeating and forgets the session without closing it (it is closed already,
    /// by `finish`, or by someone else).
    pub fn forget(&mut self) {
        if let Some(mut a) = self.current.take() {
            a.heartbeat.stop();
        }
    }

    /// Stops heartbeating and closes the session. `None` when nothing was attached.
    pub fn detach(&mut self) -> Option<Result<()>> {
        let mut a = self.current.take()?;
        a.heartbeat.stop();
        Some(a.core.close_session(&a.owner, None).map(|_| ()))
    }
}
