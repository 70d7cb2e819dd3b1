//! The server's one acc session: attached on the first call that needs it, heartbeated while
//! the server runs, closed when the client goes away.
//!
//! An MCP server sees neither the client's start nor its end, so its session is `advisory`
//! (it guards nothing) and `manual` (no hook reports its lifecycle). The server's own end
//! closes it: end of input, or SIGINT, SIGTERM or SIGHUP through [`LastWord`]. The server's
//! own pid is recorded: if the server is killed outright (SIGKILL), presence turns offline at
//! once and the next reader of the store closes the session.

use super::heartbeat::{CoreOpener, Heartbeat};
use super::settings::Settings;
use crate::core::model::{Enforcement, Lifecycle};
use crate::core::sessions::{HOOK_CADENCE_MS, OpenSession};
use crate::core::{Core, Owner};
use crate::error::{ErrorCode, Result};
use crate::store::OpenMode;
use std::sync::{Arc, Mutex, MutexGuard};
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

/// The attached session as another thread can close it: its settings (to open a core of its
/// own) and its owner. The signal thread closes through it while the serving thread may be
/// blocked reading input.
#[derive(Clone, Default)]
pub struct LastWord(Arc<Mutex<Option<(Settings, Owner)>>>);

impl LastWord {
    fn slot(&self) -> MutexGuard<'_, Option<(Settings, Owner)>> {
        // A panic elsewhere must not cost the close.
        self.0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn publish(&self, session: Option<(Settings, Owner)>) {
        *self.slot() = session;
    }

    /// Closes the published session, once, on a core of its own. `None` when nothing was
    /// attached (or it was closed already).
    pub fn close(&self) -> Option<Result<()>> {
        let mut slot = self.slot();
        let (settings, owner) = slot.take()?;
        Some(
            settings
                .open_core(OpenMode::ReadWrite)
                .and_then(|mut core| core.close_session(&owner, None).map(|_| ())),
        )
    }
}

/// Holds the attachment, if any.
#[derive(Default)]
pub struct SessionSlot {
    current: Option<Attachment>,
    last_word: LastWord,
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
            let attached = attach(settings)?;
            self.last_word
                .publish(Some((settings.clone(), attached.owner.clone())));
            self.current = Some(attached);
        }
        Ok(self.current.as_mut().expect("attached just above"))
    }

    /// The attached session, if any (never attaches).
    pub fn current(&mut self) -> Option<&mut Attachment> {
        self.current.as_mut()
    }

    /// The handle another thread closes the session through.
    pub fn last_word(&self) -> LastWord {
        self.last_word.clone()
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
        self.last_word.publish(None);
        if let Some(mut a) = self.current.take() {
            a.heartbeat.stop();
        }
    }

    /// Stops heartbeating and closes the session. `None` when nothing was attached.
    pub fn detach(&mut self) -> Option<Result<()>> {
        self.last_word.publish(None);
        let mut a = self.current.take()?;
        a.heartbeat.stop();
        Some(a.core.close_session(&a.owner, None).map(|_| ()))
    }
}
