//! The single deadline of one hook invocation, and the sub-budgets carved from it.

use super::failure::Failure;
use std::time::{Duration, Instant};

/// How long the client version probe (process walk and version commands) may take at most.
pub const PROBE_CAP: Duration = Duration::from_millis(1_000);

/// A point in monotonic time after which the invocation gives up and fails open.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Deadline {
    at: Instant,
}

impl Deadline {
    /// A deadline `budget` from now.
    pub fn after(budget: Duration) -> Self {
        Deadline {
            at: Instant::now() + budget,
        }
    }

    /// Time left; zero once expired.
    pub fn remaining(&self) -> Duration {
        self.at.saturating_duration_since(Instant::now())
    }

    pub fn expired(&self) -> bool {
        self.remaining().is_zero()
    }

    /// Stops work between steps once the caller has stopped waiting for it.
    pub fn check(&self) -> Result<(), Failure> {
        if self.expired() {
            Err(Failure::Timeout)
        } else {
            Ok(())
        }
    }

    /// `min(cap, remaining)`: a step that must leave time for the rest.
    pub fn sub_budget(&self, cap: Duration) -> Duration {
        cap.min(self.remaining())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sub_budgets_never_exceed_what_is_left() {
        let d = Deadline::after(Duration::from_millis(300));
        assert!(d.sub_budget(PROBE_CAP) <= Duration::from_millis(300));
        assert!(!d.expired());
        assert!(d.check().is_ok());
        let gone = Deadline::after(Duration::ZERO);
        assert!(gone.expired());
        assert_eq!(gone.sub_budget(PROBE_CAP), Duration::ZERO);
        assert_eq!(gone.check(), Err(Failure::Timeout));
    }
}
