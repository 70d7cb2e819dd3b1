//! What `record` tells people: one progress line per scenario on stderr, a summary on
//! stdout, and the same summary as the data of the `--json` envelope.

use serde_json::{Value, json};

use crate::record::kit::run::ScenarioRun;
use crate::record::kit::tuple::Tuple;
use crate::record::output::check::Mismatch;
use crate::record::recording::ClientRecording;

/// How one client's part of a run ended.
#[derive(Debug, Clone)]
pub enum ClientOutcome {
    Recorded {
        recording: Box<ClientRecording>,
        /// Where its evidence went, relative to the repository (none for `--check`).
        evidence: Option<String>,
        /// `--check` only.
        mismatches: Vec<Mismatch>,
    },
    /// Could not be obtained or run; nothing of it was written.
    Unavailable {
        client: String,
        code: String,
        message: String,
    },
}

/// `<client> <version> <platform> <scenario>: running`, as a scenario starts.
pub fn start_line(tuple: &Tuple, scenario: crate::record::scenario::Scenario) -> String {
    format!(
        "{} {} {} {scenario}: running",
        tuple.client, tuple.version, tuple.platform
    )
}

/// `<client> <version> <platform> <scenario>: <capability> <result>, ...`
pub fn progress_line(tuple: &Tuple, run: &ScenarioRun) -> String {
    let verdicts: Vec<String> = match (&run.control, &run.kernel_guard) {
        _ if run.quit.is_some() => run
            .quit
            .iter()
            .map(|q| quit_outcome(q.passed).to_owned())
            .collect(),
        (Some(control), _) => vec![format!(
            "control {}",
            if control.passed { "passed" } else { "failed" }
        )],
        (None, Some(guard)) => vec![format!(
            "kernel guard {}",
            if guard.passed { "held" } else { "did not hold" }
        )],
        (None, None) if run.bridge_guard.is_some() => run
            .bridge_guard
            .iter()
            .map(|g| {
                format!(
                    "bridged write {}",
                    if g.passed {
                        "blocked"
                    } else {
                        "not shown blocked"
                    }
                )
            })
            .collect(),
        (None, None) => run
            .verdicts
            .iter()
            .map(|v| format!("{} {}", v.capability, v.result.as_str()))
            .collect(),
    };
    format!(
        "{} {} {} {}: {}",
        tuple.client,
        tuple.version,
        tuple.platform,
        run.scenario,
        verdicts.join(", ")
    )
}

fn quit_outcome(passed: bool) -> &'static str {
    if passed {
        "not live after the quit"
    } else {
        "not shown to end after the quit"
    }
}

/// The stdout summary.
pub fn human(outcomes: &[ClientOutcome], check: bool) -> String {
    let mut out = String::new();
    for outcome in outcomes {
        match outcome {
            ClientOutcome::Recorded {
                recording,
                evidence,
                mismatches,
            } => {
                let t = &recording.tuple;
                let verdicts: Vec<_> = recording.runs.iter().flat_map(|r| &r.verdicts).collect();
                let passed = verdicts.iter().filter(|v| v.passed()).count();
                let verb = if check { "checked" } else { "recorded" };
                out.push_str(&format!(
                    "{verb} {} {} {}: {} verdicts ({passed} pass, {} fail)\n",
                    t.client,
                    t.version,
                    t.platform,
                    verdicts.len(),
                    verdicts.len() - passed
                ));
                for run in &recording.runs {
                    for v in &run.verdicts {
                        out.push_str(&format!(
                            "  {:<28} {:<5} {}\n",
                            v.capability.key(),
                            v.result.as_str(),
                            run.scenario
                        ));
                    }
                }
                for guard in recording
                    .runs
                    .iter()
                    .filter_map(|r| r.kernel_guard.as_ref())
                {
                    let held = if guard.passed { "held" } else { "did not hold" };
                    out.push_str(&format!(
                        "  kernel guard {held}: {}\n",
                        guard.reasons.join("; ")
                    ));
                }
                for quit in recording.runs.iter().filter_map(|r| r.quit.as_ref()) {
                    out.push_str(&format!(
                        "  interactive quit: {}: {}\n",
                        quit_outcome(quit.passed),
                        quit.reasons.join("; ")
                    ));
                }
                if let Some(path) = evidence {
                    out.push_str(&format!("  evidence: {path}\n"));
                }
                if check {
                    if mismatches.is_empty() {
                        out.push_str("  matches the committed evidence\n");
                    }
                    for m in mismatches {
                        out.push_str(&format!("  {m}\n"));
                    }
                }
            }
            ClientOutcome::Unavailable {
                client,
                code,
                message,
            } => out.push_str(&format!("could not record {client}: {message} [{code}]\n")),
        }
    }
    out
}

/// The `--json` data.
pub fn json(outcomes: &[ClientOutcome], check: bool) -> Value {
    let mut clients = Vec::new();
    let mut unavailable = Vec::new();
    for outcome in outcomes {
        match outcome {
            ClientOutcome::Recorded {
                recording,
                evidence,
                mismatches,
            } => {
                let t = &recording.tuple;
                let scenarios: Vec<Value> = recording
                    .runs
                    .iter()
                    .map(|run| {
                        let mut entry = json!({
                            "scenario": run.scenario.name(),
                            "bundle": t.bundle_path(run.scenario),
                            "verdicts": run.verdicts,
                            "control": run.control,
                        });
                        if let Some(guard) = &run.kernel_guard {
                            entry["kernelGuard"] = json!(guard);
                        }
                        if let Some(quit) = &run.quit {
                            entry["interactiveQuit"] = json!(quit);
                        }
                        if let Some(bridge) = &run.bridge_guard {
                            entry["bridgeGuard"] = json!(bridge);
                        }
                        entry
                    })
                    .collect();
                clients.push(json!({
                    "adapter": t.adapter,
                    "client": t.client,
                    "version": t.version,
                    "platform": t.platform,
                    "observedAt": recording.observed_at,
                    "scenarios": scenarios,
                    "evidence": evidence,
                    "mismatches": mismatches,
                }));
            }
            ClientOutcome::Unavailable {
                client,
                code,
                message,
            } => unavailable.push(json!({"client": client, "code": code, "message": message})),
        }
    }
    json!({"check": check, "clients": clients, "unavailable": unavailable})
}
