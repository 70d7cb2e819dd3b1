//! A model request the double holds until the recorder lets it go, so that a busy turn
//! lasts exactly as long as the recorder needs it busy, however loaded the machine is.
//! (A fixed hold let a slow `acc message` run out the turn before its receipt was read.)

use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::time::{Duration, Instant};

/// The bound on one hold: only a recorder that never releases meets it, and then the run's
/// own deadlines report what was not observed.
pub const HOLD_LIMIT: Duration = Duration::from_secs(180);

#[derive(Debug, Default)]
struct State {
    armed: bool,
    released: bool,
}

#[derive(Debug, Clone, Default)]
pub struct Hold(Arc<(Mutex<State>, Condvar)>);

impl Hold {
    /// The next request the double receives is held until [`Hold::release`].
    pub fn arm(&self) {
        let mut state = self.0.0.lock().unwrap_or_else(PoisonError::into_inner);
        state.armed = true;
        state.released = false;
    }

    /// Called by the double for every request: holds the first one after [`Hold::arm`].
    pub fn hold_if_armed(&self, limit: Duration) {
        let (lock, released) = &*self.0;
        let mut state = lock.lock().unwrap_or_else(PoisonError::into_inner);
        if !state.armed {
            return;
        }
        state.armed = false;
        let end = Instant::now() + limit;
        while !state.released {
            let left = end.saturating_duration_since(Instant::now());
            if left.is_zero() {
                break;
            }
            state = released
                .wait_timeout(state, left)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
    }

    /// Lets a held request go; one not yet arrived is no longer held.
    pub fn release(&self) {
        let (lock, released) = &*self.0;
        let mut state = lock.lock().unwrap_or_else(PoisonError::into_inner);
        state.released = true;
        state.armed = false;
        released.notify_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_held_request_waits_for_the_release_not_for_a_clock() {
        let hold = Hold::default();
        hold.arm();
        let held = hold.clone();
        let started = Instant::now();
        let waiter = std::thread::spawn(move || held.hold_if_armed(Duration::from_secs(60)));
        std::thread::sleep(Duration::from_millis(300));
        assert!(!waiter.is_finished(), "the request was let go before the release");
        hold.release();
        waiter.join().unwrap();
        assert!(started.elapsed() < Duration::from_secs(30));
    }

    #[test]
    fn only_the_first_request_after_arming_is_held_and_a_late_one_never() {
        let hold = Hold::default();
        hold.hold_if_armed(Duration::from_secs(60));
        hold.arm();
        hold.release();
        let started = Instant::now();
        hold.hold_if_armed(Duration::from_secs(60));
        assert!(started.elapsed() < Duration::from_secs(5));
    }
}
