//! Keeps the server's session online while the server runs and the model is idle.
//!
//! A background thread heartbeats every cadence. It opens its own [`Core`] (its own SQLite
//! connection), so it never shares a connection with the thread serving requests; the
//! store's `BEGIN IMMEDIATE` and busy timeout order the two writers.

use crate::core::{Core, Owner};
use crate::error::{ErrorCode, Result};
use std::io::Write;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::thread::JoinHandle;
use std::time::Duration;

/// Opens the heartbeat thread's own core.
pub type CoreOpener = Box<dyn Fn() -> Result<Core> + Send>;

/// A running heartbeat; stopping (or dropping) it joins the thread.
pub struct Heartbeat {
    stop: Option<mpsc::Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

/// Errors after which heartbeating this owner can never succeed again.
fn owner_is_gone(code: ErrorCode) -> bool {
    matches!(
        code,
        ErrorCode::SessionClosed | ErrorCode::SessionUnknown | ErrorCode::GenerationMismatch
    )
}

fn run(open: CoreOpener, owner: Owner, every: Duration, stop: mpsc::Receiver<()>) {
    let mut core: Option<Core> = None;
    let mut warned = false;
    let mut warn = |what: String| {
        // One line per run: a store that stays busy must not flood the client's log.
        if !warned {
            warned = true;
            let _ = writeln!(std::io::stderr(), "acc-mcp: heartbeat: {what}");
        }
    };
    loop {
        match stop.recv_timeout(every) {
            Err(RecvTimeoutError::Timeout) => {}
            // A stop message or a dropped sender.
            Ok(()) | Err(RecvTimeoutError::Disconnected) => return,
        }
        if core.is_none() {
            match open() {
                Ok(c) => core = Some(c),
                Err(e) => {
                    warn(e.message);
                    continue;
                }
            }
        }
        let Some(c) = core.as_mut() else { continue };
        if let Err(e) = c.heartbeat(&owner) {
            if owner_is_gone(e.code) {
                return;
            }
            warn(e.message);
        }
    }
}

impl Heartbeat {
    /// Starts heartbeating `owner` every `every`, on a core that `open` returns.
    pub fn start(open: CoreOpener, owner: Owner, every: Duration) -> Heartbeat {
        let (tx, rx) = mpsc::channel();
        let thread = std::thread::Builder::new()
            .name("acc-mcp-heartbeat".into())
            .spawn(move || run(open, owner, every, rx))
            .ok();
        if thread.is_none() {
            let _ = writeln!(
                std::io::stderr(),
                "acc-mcp: could not start the heartbeat thread; presence relies on tool calls"
            );
        }
        Heartbeat {
            stop: Some(tx),
            thread,
        }
    }

    /// Stops the thread and waits for it, so no heartbeat lands after the session closes.
    pub fn stop(&mut self) {
        if let Some(tx) = self.stop.take() {
            let _ = tx.send(());
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

impl Drop for Heartbeat {
    fn drop(&mut self) {
        self.stop();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::to_iso;
    use crate::core::testkit::{T0, kit};
    use crate::store::OpenMode;
    use std::time::Instant;

    #[test]
    fn heartbeats_on_its_own_core_until_stopped() {
        let mut k = kit();
        let owner = k.attach("alice");
        let ws = k.core.workspace().clone();
        let home = k._dir.path().join("data");
        let ports = k.core.ports.clone();
        let open: CoreOpener =
            Box::new(move || Core::open(ws.clone(), &home, OpenMode::ReadWrite, ports.clone()));
        let mut hb = Heartbeat::start(open, owner.clone(), Duration::from_millis(5));
        k.clock.advance_ms(90_000);
        let wanted = to_iso(T0 + 90_000);
        // A deadline only to fail instead of hanging; no duration is asserted.
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let s = k.core.session(&owner.session).unwrap().unwrap();
            if s.heartbeat_at == wanted {
                break;
            }
            assert!(Instant::now() < deadline, "no heartbeat at {wanted}");
            std::thread::sleep(Duration::from_millis(5));
        }
        hb.stop();
        // The thread is joined: nothing can heartbeat at the new time any more.
        k.clock.advance_ms(90_000);
        let s = k.core.session(&owner.session).unwrap().unwrap();
        assert_eq!(s.heartbeat_at, wanted, "a stopped heartbeat writes nothing");
    }

    #[test]
    fn stops_by_itself_when_the_session_is_closed() {
        let mut k = kit();
        let owner = k.attach("alice");
        k.core.close_session(&owner, None).unwrap();
        let ws = k.core.workspace().clone();
        let home = k._dir.path().join("data");
        let ports = k.core.ports.clone();
        let open: CoreOpener =
            Box::new(move || Core::open(ws.clone(), &home, OpenMode::ReadWrite, ports.clone()));
        let mut hb = Heartbeat::start(open, owner, Duration::from_millis(1));
        let deadline = Instant::now() + Duration::from_secs(30);
        while !hb.thread.as_ref().unwrap().is_finished() {
            assert!(Instant::now() < deadline, "the thread kept running");
            std::thread::sleep(Duration::from_millis(5));
        }
        hb.stop();
    }
}
