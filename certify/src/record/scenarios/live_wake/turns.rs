//! When a turn is over, from what was observed rather than from time passing: the recorder
//! waits on these events, so a slow or loaded machine changes how long a phase takes, not
//! what it sees.
//!
//! The double notes, as each model request arrives, how many turn ends acc-hook had
//! recorded by then (`hooks.jsonl`, appended once a hook has answered). A turn that showed
//! a message is over once a turn end was recorded after the last request carrying it.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use acc_runtime::ids::MessageId;
use serde_json::Value;

use crate::record::kit::hook_capture::turn_ends;
use crate::record::kit::terminal::tmux::poll;

/// Every model request's body as it arrived, with the turn ends recorded before it.
#[derive(Clone)]
pub struct Arrivals {
    capture_dir: PathBuf,
    seen: Arc<Mutex<Vec<(String, usize)>>>,
}

impl Arrivals {
    pub fn new(capture_dir: &Path) -> Arrivals {
        Arrivals {
            capture_dir: capture_dir.to_path_buf(),
            seen: Arc::new(Mutex::new(Vec::new())),
        }
    }

    /// Called by the double's responder as a request arrives, before it answers.
    pub fn note(&self, body: &Value) {
        let ends = turn_ends(&self.capture_dir);
        self.seen
            .lock()
            .expect("the arrivals list")
            .push((body.to_string(), ends));
    }

    /// The turn ends recorded before the last request carrying `id`, if one arrived.
    fn last_carrying(&self, id: &MessageId) -> Option<usize> {
        let id = id.to_string();
        let seen = self.seen.lock().expect("the arrivals list");
        seen.iter()
            .rev()
            .find(|(body, _)| body.contains(&id))
            .map(|(_, ends)| *ends)
    }

    /// Waits until a model request carrying `id` has arrived (the turn showing it is under
    /// way), or `limit`.
    pub fn await_carried(&self, id: &MessageId, limit: Duration) -> bool {
        poll(limit, || self.last_carrying(id)).is_some()
    }

    /// Waits until the turn that showed `id` is over (a turn end recorded after the last
    /// request carrying it), or `limit`.
    pub fn await_turn_end(&self, id: &MessageId, limit: Duration) -> bool {
        poll(limit, || {
            let before = self.last_carrying(id)?;
            (turn_ends(&self.capture_dir) > before).then_some(())
        })
        .is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::kit::hook_capture::CAPTURE_FILE;

    fn append(dir: &Path, kind: &str) {
        use std::io::Write;
        let mut file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(dir.join(CAPTURE_FILE))
            .unwrap();
        writeln!(file, "{}", serde_json::json!({"kind": kind})).unwrap();
    }

    #[test]
    fn a_turn_is_over_only_after_a_turn_end_later_than_its_last_request() {
        let dir = tempfile::tempdir().unwrap();
        let arrivals = Arrivals::new(dir.path());
        let id = MessageId::parse("message_a").unwrap();
        let short = Duration::from_millis(50);
        assert!(!arrivals.await_carried(&id, short));
        // An earlier turn's end does not count.
        append(dir.path(), "turnEnd");
        append(dir.path(), "beforeTurn");
        arrivals.note(&serde_json::json!({"messages": [format!("peer block {id}")]}));
        assert!(arrivals.await_carried(&id, short));
        assert!(!arrivals.await_turn_end(&id, short));
        // The turn end that held the turn open is followed by another request carrying it.
        append(dir.path(), "turnEnd");
        arrivals.note(&serde_json::json!({"messages": [format!("again {id}")]}));
        assert!(!arrivals.await_turn_end(&id, short));
        append(dir.path(), "turnEnd");
        assert!(arrivals.await_turn_end(&id, short));
        assert_eq!(turn_ends(dir.path()), 3);
    }
}
