//! How a connection waits for another process's lock (issue 30, the claim race's tenth
//! round). SQLite's own busy timeout sleeps 1, 2, 5, 10, 15, 20, 25 ms... between tries, so
//! a lock let go 4 ms into the wait is seen at 8 ms, one let go at 9 ms at 18. The lock a
//! claim usually meets is the last connection's close: its checkpoint (the WAL and `acc.db`
//! synced, the WAL deleted) holds `acc.db`'s exclusive lock for a few milliseconds (since the
//! eleventh round a granted claim checkpoints before its close, outside that lock, and the
//! close only deletes the WAL: the waits are rarer and shorter), and the
//! claim that waits holds the claims' turn (`claim_lock`), so every racer waits with it for
//! the overshoot. Here the first [`FINE_TRIES`] tries come every [`FINE_STEP`] (half a
//! millisecond late at most while a close is the usual wait), then every [`COARSE_STEP`],
//! until [`super::BUSY_TIMEOUT`] has passed since the wait began, then the same
//! `store_busy` error as before. The limit is read on the clock, not summed from the steps:
//! on a loaded host a short sleep returns milliseconds late, and a thousand late steps
//! would stretch a 5 s wait by seconds. A try costs SQLite a lock attempt.

use std::cell::Cell;
use std::time::{Duration, Instant};

/// The step of the first tries.
pub(crate) const FINE_STEP: Duration = Duration::from_micros(500);
/// How many tries come at [`FINE_STEP`] (20 ms of waiting).
pub(crate) const FINE_TRIES: u32 = 40;
/// The step after them.
pub(crate) const COARSE_STEP: Duration = Duration::from_millis(5);

thread_local! {
    /// When this thread's current wait began: SQLite calls the handler with count 0 at the
    /// first retry of every wait, and one thread waits for one lock at a time.
    static WAIT_BEGAN: Cell<Option<Instant>> = const { Cell::new(None) };
}

/// The sleep before retry `count` (0 for the first) of a wait that began `waited` ago, or
/// `None` once `limit` has passed.
fn step(count: u32, waited: Duration, limit: Duration) -> Option<Duration> {
    if waited >= limit {
        return None;
    }
    let step = if count < FINE_TRIES {
        FINE_STEP
    } else {
        COARSE_STEP
    };
    Some(step.min(limit - waited))
}

/// SQLite's busy handler for a connection that waits [`super::BUSY_TIMEOUT`] (rusqlite takes
/// a plain function: the limit is the constant): true to try again after the sleep.
pub(crate) fn handler(count: i32) -> bool {
    let Ok(count) = u32::try_from(count) else {
        return false;
    };
    let now = Instant::now();
    let began = WAIT_BEGAN.with(|b| match (count, b.get()) {
        (0, _) | (_, None) => {
            b.set(Some(now));
            now
        }
        (_, Some(began)) => began,
    });
    match step(
        count,
        now.saturating_duration_since(began),
        super::BUSY_TIMEOUT,
    ) {
        Some(d) => {
            std::thread::sleep(d);
            true
        }
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_tries_are_fine_and_the_wait_ends_at_the_limit_on_the_clock() {
        let limit = super::super::BUSY_TIMEOUT;
        let zero = Duration::ZERO;
        assert_eq!(step(0, zero, limit), Some(FINE_STEP));
        assert_eq!(step(FINE_TRIES - 1, zero, limit), Some(FINE_STEP));
        assert_eq!(step(FINE_TRIES, zero, limit), Some(COARSE_STEP));
        // Late sleeps do not stretch the wait: what has passed, not what was asked, counts.
        assert_eq!(step(3, limit, limit), None);
        assert_eq!(step(3, limit + FINE_STEP, limit), None);
        // The last sleep ends at the limit, never past it.
        let near = limit - Duration::from_micros(200);
        assert_eq!(
            step(FINE_TRIES + 7, near, limit),
            Some(Duration::from_micros(200))
        );
        assert!(!handler(-1), "a count SQLite never passes gives up");
    }

    #[test]
    fn a_wait_is_timed_from_its_first_retry() {
        let ago = |d: Duration| {
            Instant::now()
                .checked_sub(d)
                .expect("the clock is past 60 s")
        };
        // A wait that began long ago on this thread does not cut a new one short.
        WAIT_BEGAN.with(|b| b.set(Some(ago(Duration::from_secs(60)))));
        assert!(handler(0), "a new wait retries");
        assert!(handler(1), "and goes on");
        // A wait whose beginning is past the limit gives up.
        WAIT_BEGAN.with(|b| {
            b.set(Some(ago(
                super::super::BUSY_TIMEOUT + Duration::from_millis(1)
            )))
        });
        assert!(!handler(5), "the limit has passed");
    }
}
