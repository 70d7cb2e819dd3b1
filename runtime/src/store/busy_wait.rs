//! How a connection waits for another process's lock (issue 30, the claim race's tenth
//! round). SQLite's own busy timeout sleeps 1, 2, 5, 10, 15, 20, 25 ms... between tries, so
//! a lock let go 4 ms into the wait is seen at 8 ms, one let go at 9 ms at 18. The lock a
//! claim usually meets is the last connection's close: its checkpoint (the WAL and `acc.db`
//! synced, the WAL deleted) holds `acc.db`'s exclusive lock for a few milliseconds, and the
//! claim that waits holds the claims' turn (`claim_lock`), so every racer waits with it for
//! the overshoot. Here the first [`FINE_TRIES`] tries come every [`FINE_STEP`] (half a
//! millisecond late at most while a close is the usual wait), then every [`COARSE_STEP`],
//! until the same [`super::BUSY_TIMEOUT`] as before has been slept: the same wait in all,
//! the same `store_busy` error after it. A try costs SQLite a lock attempt.

use std::time::Duration;

/// The step of the first tries.
pub(crate) const FINE_STEP: Duration = Duration::from_micros(500);
/// How many tries come at [`FINE_STEP`] (20 ms of waiting).
pub(crate) const FINE_TRIES: u32 = 40;
/// The step after them.
pub(crate) const COARSE_STEP: Duration = Duration::from_millis(5);

/// How long a wait that is about to make try `count` (0 for the first retry) has slept.
fn slept_before(count: u32) -> Duration {
    let fine = count.min(FINE_TRIES);
    FINE_STEP * fine + COARSE_STEP * (count - fine)
}

/// The sleep before retry `count`, or `None` once `limit` has been slept.
fn step(count: u32, limit: Duration) -> Option<Duration> {
    let slept = slept_before(count);
    if slept >= limit {
        return None;
    }
    let step = if count < FINE_TRIES {
        FINE_STEP
    } else {
        COARSE_STEP
    };
    Some(step.min(limit - slept))
}

/// SQLite's busy handler for a connection that waits [`super::BUSY_TIMEOUT`] (rusqlite takes
/// a plain function: the limit is the constant): true to try again after the sleep.
pub(crate) fn handler(count: i32) -> bool {
    let Ok(count) = u32::try_from(count) else {
        return false;
    };
    match step(count, super::BUSY_TIMEOUT) {
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
    fn the_first_tries_are_fine_and_the_whole_wait_is_the_busy_timeout() {
        let limit = super::super::BUSY_TIMEOUT;
        assert_eq!(step(0, limit), Some(FINE_STEP));
        assert_eq!(step(FINE_TRIES - 1, limit), Some(FINE_STEP));
        assert_eq!(step(FINE_TRIES, limit), Some(COARSE_STEP));
        // Every step summed: exactly the limit, then no more tries.
        let mut total = Duration::ZERO;
        let mut count = 0;
        while let Some(d) = step(count, limit) {
            total += d;
            count += 1;
            assert!(count < 10_000, "the wait ends");
        }
        assert_eq!(total, limit);
        assert!(step(count + 1, limit).is_none());
        // A limit that is not a whole number of steps is not overslept.
        let odd = Duration::from_micros(20_300);
        let (mut total, mut count) = (Duration::ZERO, 0);
        while let Some(d) = step(count, odd) {
            total += d;
            count += 1;
        }
        assert_eq!(total, odd);
        assert!(!handler(-1), "a count SQLite never passes gives up");
    }
}
