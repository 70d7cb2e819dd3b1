//! `record --check`: the verdicts of a fresh recording against the committed evidence.
//!
//! Only (client, version, platform, capability, result) are compared: dates, limitations
//! and digests change on every recording, verdicts must not. Within the tuples and
//! capabilities a check recorded, a verdict with no committed row is `missing`, a committed
//! row with no verdict is `extra`, and a different result is `differs`.

use crate::record::scenarios::guard_opaque::Outcome;
use std::fmt;

use serde::Serialize;

/// One verdict, as compared.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct VerdictKey {
    pub client: String,
    pub version: String,
    pub platform: String,
    pub capability: String,
    pub result: String,
}

impl VerdictKey {
    fn tuple(&self) -> (&str, &str, &str, &str) {
        (
            &self.client,
            &self.version,
            &self.platform,
            &self.capability,
        )
    }

    fn build(&self) -> (&str, &str, &str) {
        (&self.client, &self.version, &self.platform)
    }
}

/// Where a verdict recorded now came from, so that a difference explains itself without a
/// second run: its scenario, why it failed (the first failed step), and its kept bundle.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RunRef {
    pub scenario: String,
    /// The first reason of a failing verdict; `None` when it passes now.
    pub first_failure: Option<String>,
    /// The bundle the check kept (an absolute path outside the repository).
    pub bundle: String,
}

impl fmt::Display for RunRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.first_failure {
            Some(reason) => write!(f, "; {} failed first on: {reason}", self.scenario)?,
            None => write!(f, "; {} passed", self.scenario)?,
        }
        write!(f, "; bundle kept in {}", self.bundle)
    }
}

#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum Mismatch {
    /// The result recorded now differs from the committed row's.
    Differs {
        committed: VerdictKey,
        now: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        run: Option<RunRef>,
    },
    /// A verdict recorded now has no committed row.
    Missing {
        now: VerdictKey,
        #[serde(skip_serializing_if = "Option::is_none")]
        run: Option<RunRef>,
    },
    /// A committed row that this recording should have reproduced has no verdict now.
    Extra { committed: VerdictKey },
    /// The guard-opaque scenario's outcome (does the kernel guard hold?) differs from the
    /// committed capture's, judged again; `committed` is `None` without a committed capture.
    KernelGuard {
        build: String,
        committed: Option<Outcome>,
        now: Outcome,
        #[serde(skip_serializing_if = "Option::is_none")]
        run: Option<RunRef>,
    },
    /// The interactive-quit outcome (is the session no longer live after the quit?)
    /// differs from the committed capture's, judged again.
    InteractiveQuit {
        build: String,
        committed: Option<bool>,
        now: bool,
        #[serde(skip_serializing_if = "Option::is_none")]
        run: Option<RunRef>,
    },
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name =
            |k: &VerdictKey| format!("{} {} {} {}", k.client, k.version, k.platform, k.capability);
        match self {
            Mismatch::Differs {
                committed,
                now,
                run,
            } => write!(
                f,
                "differs: {} is {} in the committed evidence but {now} now{}",
                name(committed),
                committed.result,
                run_text(run)
            ),
            Mismatch::Missing { now, run } => write!(
                f,
                "missing: {} recorded {} now but has no committed row{}",
                name(now),
                now.result,
                run_text(run)
            ),
            Mismatch::Extra { committed } => write!(
                f,
                "extra: {} is committed as {} but was not recorded now",
                name(committed),
                committed.result
            ),
            Mismatch::KernelGuard {
                build,
                committed,
                now,
                run,
            } => match committed {
                Some(c) => write!(
                    f,
                    "differs: {build} kernel guard (guard-opaque) {c} in the committed capture but {now} now{}",
                    run_text(run)
                ),
                None => write!(
                    f,
                    "missing: {build} kernel guard (guard-opaque) {now} now but has no committed capture{}",
                    run_text(run)
                ),
            },
            Mismatch::InteractiveQuit {
                build,
                committed,
                now,
                run,
            } => {
                let ended = |e: bool| if e { "ended" } else { "stayed live" };
                match committed {
                    Some(c) => write!(
                        f,
                        "differs: {build} interactive quit: the session {} in the committed capture but {} now{}",
                        ended(*c),
                        ended(*now),
                        run_text(run)
                    ),
                    None => write!(
                        f,
                        "missing: {build} interactive quit: the session {} now but has no committed capture{}",
                        ended(*now),
                        run_text(run)
                    ),
                }
            }
        }
    }
}

fn run_text(run: &Option<RunRef>) -> String {
    run.as_ref().map(RunRef::to_string).unwrap_or_default()
}

impl Mismatch {
    /// The capability of a verdict recorded now that this mismatch is about.
    pub fn capability_now(&self) -> Option<&str> {
        match self {
            Mismatch::Differs { committed, .. } => Some(&committed.capability),
            Mismatch::Missing { now, .. } => Some(&now.capability),
            _ => None,
        }
    }

    /// Names where the verdict or outcome recorded now came from.
    pub fn with_run(mut self, found: RunRef) -> Mismatch {
        if let Mismatch::Differs { run, .. }
        | Mismatch::Missing { run, .. }
        | Mismatch::KernelGuard { run, .. }
        | Mismatch::InteractiveQuit { run, .. } = &mut self
        {
            *run = Some(found);
        }
        self
    }
}

/// Compares the interactive quit's outcome now with the committed capture's.
pub fn compare_quit(build: &str, committed: Option<bool>, now: bool) -> Option<Mismatch> {
    (committed != Some(now)).then(|| Mismatch::InteractiveQuit {
        build: build.to_owned(),
        committed,
        now,
        run: None,
    })
}

/// Compares the kernel guard's outcome now with the committed capture's (`committed`,
/// judged again from its observations; `None` when there is none).
pub fn compare_kernel_guard(
    build: &str,
    committed: Option<Outcome>,
    now: Outcome,
) -> Option<Mismatch> {
    (committed != Some(now)).then(|| Mismatch::KernelGuard {
        build: build.to_owned(),
        committed,
        now,
        run: None,
    })
}

/// Compares `now` with `committed`. `capabilities` are the ones the recorded scenarios
/// decide; committed rows of other builds or capabilities are out of scope.
pub fn compare(
    committed: &[VerdictKey],
    now: &[VerdictKey],
    capabilities: &[&str],
) -> Vec<Mismatch> {
    let builds: Vec<(&str, &str, &str)> = now.iter().map(VerdictKey::build).collect();
    let in_scope = |k: &VerdictKey| {
        builds.contains(&k.build()) && capabilities.contains(&k.capability.as_str())
    };
    let mut out = Vec::new();
    for verdict in now {
        match committed.iter().find(|c| c.tuple() == verdict.tuple()) {
            Some(row) if row.result == verdict.result => {}
            Some(row) => out.push(Mismatch::Differs {
                committed: row.clone(),
                now: verdict.result.clone(),
                run: None,
            }),
            None => out.push(Mismatch::Missing {
                now: verdict.clone(),
                run: None,
            }),
        }
    }
    for row in committed.iter().filter(|c| in_scope(c)) {
        if !now.iter().any(|v| v.tuple() == row.tuple()) {
            out.push(Mismatch::Extra {
                committed: row.clone(),
            });
        }
    }
    out.sort();
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::scenarios::guard_opaque::Slip;

    #[test]
    fn a_kernel_guard_outcome_is_compared_with_the_committed_capture() {
        let o = |held, slip| Outcome { held, slip };
        let claude = "claude-code 2.1.332 linux-x64";
        assert_eq!(
            compare_kernel_guard(claude, Some(o(true, Slip::Kept)), o(true, Slip::Kept)),
            None
        );
        let m =
            compare_kernel_guard(claude, Some(o(true, Slip::Kept)), o(false, Slip::Kept)).unwrap();
        assert_eq!(
            m.to_string(),
            "differs: claude-code 2.1.332 linux-x64 kernel guard (guard-opaque) held (the script's write kept out) in the committed capture but did not hold (the script's write kept out) now"
        );
        // The script's write seen once and missed now is a difference on its own.
        let codex = "codex-cli 0.171.0 linux-x64";
        let m = compare_kernel_guard(
            codex,
            Some(o(false, Slip::Detected)),
            o(false, Slip::Unseen),
        )
        .unwrap();
        assert!(m.to_string().contains("(the script's write recorded) in the committed capture but did not hold (the script's write unseen) now"), "{m}");
        let m = compare_kernel_guard(codex, None, o(false, Slip::Detected)).unwrap();
        assert_eq!(
            m.to_string(),
            "missing: codex-cli 0.171.0 linux-x64 kernel guard (guard-opaque) did not hold (the script's write recorded) now but has no committed capture"
        );
    }

    #[test]
    fn an_interactive_quit_outcome_is_compared_with_the_committed_capture() {
        assert_eq!(
            compare_quit("codex-cli 0.171.0 linux-x64", Some(true), true),
            None
        );
        let m = compare_quit("codex-cli 0.171.0 linux-x64", Some(true), false).unwrap();
        assert_eq!(
            m.to_string(),
            "differs: codex-cli 0.171.0 linux-x64 interactive quit: the session ended in the committed capture but stayed live now"
        );
        let m = compare_quit("codex-cli 0.171.0 linux-x64", None, true).unwrap();
        assert_eq!(
            m.to_string(),
            "missing: codex-cli 0.171.0 linux-x64 interactive quit: the session ended now but has no committed capture"
        );
    }

    fn key(version: &str, capability: &str, result: &str) -> VerdictKey {
        VerdictKey {
            client: "claude-code".into(),
            version: version.into(),
            platform: "linux-x64".into(),
            capability: capability.into(),
            result: result.into(),
        }
    }

    const CAPS: [&str; 2] = ["guards.beforeWrite", "guards.beforeShell"];

    #[test]
    fn equal_verdicts_match() {
        let rows = [
            key("1.0.0", "guards.beforeWrite", "pass"),
            key("1.0.0", "guards.beforeShell", "fail"),
        ];
        assert!(compare(&rows, &rows, &CAPS).is_empty());
    }

    #[test]
    fn a_changed_result_differs_and_names_the_tuple() {
        let committed = [key("1.0.0", "guards.beforeWrite", "pass")];
        let now = [key("1.0.0", "guards.beforeWrite", "fail")];
        let mismatches = compare(&committed, &now, &CAPS);
        assert_eq!(
            mismatches,
            [Mismatch::Differs {
                committed: committed[0].clone(),
                now: "fail".into(),
                run: None,
            }]
        );
        assert_eq!(
            mismatches[0].to_string(),
            "differs: claude-code 1.0.0 linux-x64 guards.beforeWrite is pass in the committed evidence but fail now"
        );
    }

    #[test]
    fn a_difference_names_its_scenario_its_first_failure_and_the_kept_bundle() {
        let committed = [key("1.0.0", "delivery.livePush", "pass")];
        let now = [key("1.0.0", "delivery.livePush", "fail")];
        let found = RunRef {
            scenario: "live-wake".into(),
            first_failure: Some("the idle session ran no turn by itself".into()),
            bundle: "/tmp/kept/captures/claude-code-1.0.0-linux-x64/live-wake".into(),
        };
        let mismatch = compare(&committed, &now, &["delivery.livePush"])
            .remove(0)
            .with_run(found.clone());
        assert_eq!(
            mismatch.to_string(),
            "differs: claude-code 1.0.0 linux-x64 delivery.livePush is pass in the committed evidence but fail now; live-wake failed first on: the idle session ran no turn by itself; bundle kept in /tmp/kept/captures/claude-code-1.0.0-linux-x64/live-wake"
        );
        let json = serde_json::to_value(&mismatch).unwrap();
        assert_eq!(
            json["run"]["firstFailure"],
            "the idle session ran no turn by itself"
        );
        // A verdict that passes now where a failure was committed says so, with its bundle.
        let mismatch = compare(&now, &committed, &["delivery.livePush"])
            .remove(0)
            .with_run(RunRef {
                first_failure: None,
                ..found
            });
        assert!(
            mismatch
                .to_string()
                .ends_with("but pass now; live-wake passed; bundle kept in /tmp/kept/captures/claude-code-1.0.0-linux-x64/live-wake"),
            "{mismatch}"
        );
    }

    #[test]
    fn missing_and_extra_rows_are_reported_within_scope_only() {
        let committed = [
            key("1.0.0", "guards.beforeShell", "pass"),
            // Another version and a capability no recorded scenario decides: out of scope.
            key("0.9.0", "guards.beforeWrite", "pass"),
            key("1.0.0", "lifecycle.sessionStart", "pass"),
        ];
        let now = [key("1.0.0", "guards.beforeWrite", "pass")];
        let mismatches = compare(&committed, &now, &CAPS);
        assert_eq!(
            mismatches,
            [
                Mismatch::Missing {
                    now: now[0].clone(),
                    run: None,
                },
                Mismatch::Extra {
                    committed: committed[0].clone()
                },
            ]
        );
        assert!(
            mismatches[0]
                .to_string()
                .starts_with("missing: claude-code 1.0.0")
        );
        assert!(
            mismatches[1]
                .to_string()
                .starts_with("extra: claude-code 1.0.0 linux-x64 guards.beforeShell")
        );
    }
}
