//! Everything one invocation depends on besides its arguments and stdin, passed in so tests
//! drive the whole runtime in-process with their own adapters, clock and process table.

use super::DEFAULT_BUDGET;
use super::hook_env::HookEnv;
use crate::clock::{ManualClock, parse_iso};
use crate::core::Ports;
use acc_sdk::define::Adapter;
use acc_sdk::identity::StaticTable;
use std::sync::Arc;
use std::time::Duration;

/// Test-only: pins "now" for an invocation (the same variable the `acc` CLI honours).
pub use crate::cli::context::TEST_CLOCK_VAR;

/// Finds the adapter an invocation names.
pub type AdapterLookup = Arc<dyn Fn(&str) -> Option<Adapter> + Send + Sync>;

/// Where the client's process ancestry is read from.
#[derive(Clone)]
pub enum ProcessSource {
    /// The machine's own table, walked from this process.
    System,
    /// The machine's own table, walked from this pid: the `acc-hook` process a resident
    /// server ([`crate::serve`]) runs the hook for.
    SystemFrom(u32),
    /// A fixed table, walked from `hook_pid`.
    Fixed {
        table: Arc<StaticTable>,
        hook_pid: u32,
    },
}

#[derive(Clone)]
pub struct HookSettings {
    pub env: HookEnv,
    pub ports: Ports,
    pub budget: Duration,
    pub adapters: AdapterLookup,
    pub processes: ProcessSource,
    /// The `acc-hook` binary that writes a heartbeat the guard's fast path deferred
    /// (`acc-hook --beat …`, started after the answer and not waited for). `None` (in
    /// process, tests): the fast path leaves a due heartbeat to the store path, as before.
    pub beat_exe: Option<std::path::PathBuf>,
}

impl HookSettings {
    /// The real runtime: the shipped adapters, the system's clock, ids and processes, and the
    /// given environment (whose `ACC_TEST_CLOCK`, when parseable, pins the clock).
    pub fn system(env: HookEnv) -> Self {
        let mut ports = Ports::system();
        if let Some(ms) = env
            .get(TEST_CLOCK_VAR)
            .and_then(|v| parse_iso(v).or_else(|| v.parse::<i64>().ok()))
        {
            ports.clock = Arc::new(ManualClock::at(ms));
        }
        HookSettings {
            env,
            ports,
            budget: DEFAULT_BUDGET,
            adapters: Arc::new(crate::registry::find),
            processes: ProcessSource::System,
            beat_exe: None,
        }
    }

    /// Only `adapter` exists; everything else as [`HookSettings::system`].
    pub fn with_adapter(
        env: HookEnv,
        adapter: impl Fn() -> Adapter + Send + Sync + 'static,
    ) -> Self {
        let mut s = Self::system(env);
        s.adapters = Arc::new(move |id: &str| Some(adapter()).filter(|a| a.id() == id));
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_test_clock_pins_now() {
        let s = HookSettings::system(
            HookEnv::default().with(TEST_CLOCK_VAR, "2026-12-02T12:00:00.000Z"),
        );
        assert_eq!(
            s.ports.clock.now_ms(),
            parse_iso("2026-12-02T12:00:00.000Z").unwrap()
        );
        let s = HookSettings::system(HookEnv::default().with(TEST_CLOCK_VAR, "not a time"));
        assert!(s.ports.clock.now_ms() > 1_700_000_000_000, "system clock");
        assert_eq!(s.budget, DEFAULT_BUDGET);
    }
}
