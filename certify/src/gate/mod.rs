//! `acc-certify gate`: the release gate. For every adapter: every conformance check,
//! `validate`, `diff-install`, `wire` and the evidence replay; then the matrix drift check.
//! Each result carries a stable check id and the adapter; a baseline may expect failures;
//! the report is written as `report.json` (sorted, deterministic) and `junit.xml`.

pub mod annotations;
pub mod baseline;
pub mod causes;
pub mod command;
pub mod junit;
pub mod replay;
pub mod results;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

use acc_conformance::{CheckContext, Outcome};
use acc_sdk::certification::validate_adapter_dir;
use acc_sdk::define::Adapter;
use acc_sdk::error::Problem;

use crate::diff_install::diff_install;
use crate::gate::replay::{REPLAY_CHECK, replay};
use crate::matrix::command::check_docs;
use crate::matrix::{CAPABILITIES_DOC, DRIFT_CHECK};
use crate::setup::{SetupError, scratch};
use crate::wire::wire_adapter;
use baseline::Baseline;
use causes::Facts;
use results::{GateReport, GateResult, Status};

pub const VALIDATE_CHECK: &str = "cert.validate";
pub const DIFF_INSTALL_CHECK: &str = "cert.diff-install";
pub const WIRE_CHECK: &str = "cert.wire";
/// The conformance check that starts with the validation `cert.validate` runs.
pub const MANIFEST_CHECK: &str = "conf.manifest.valid";
/// The conformance check that runs the comparison `cert.diff-install` runs.
pub const PLAN_CHECK: &str = "conf.install.plan-matches";

/// Every check id the gate reports besides the conformance checks, in report order.
pub const GATE_CHECKS: [&str; 5] = [
    DIFF_INSTALL_CHECK,
    REPLAY_CHECK,
    DRIFT_CHECK,
    VALIDATE_CHECK,
    WIRE_CHECK,
];

/// What a gate run needs.
#[derive(Debug, Clone)]
pub struct GateOptions {
    pub root: PathBuf,
    pub hook_executable: PathBuf,
    pub baseline: Option<Baseline>,
}

fn result(check: &str, adapter: Option<&str>, outcome: Outcome) -> GateResult {
    let (status, file, message) = match outcome {
        Outcome::Pass => (Status::Pass, None, None),
        Outcome::Fail(f) => (Status::Fail, f.file, Some(f.message)),
        Outcome::NotApplicable(reason) => (Status::NotApplicable, None, Some(reason)),
    };
    GateResult::new(check, adapter, status, file, message)
}

/// Runs `check` and measures it.
fn timed(check: &str, adapter: Option<&str>, run: impl FnOnce() -> Outcome) -> GateResult {
    let start = Instant::now();
    let outcome = run();
    let mut r = result(check, adapter, outcome);
    r.elapsed = start.elapsed();
    r
}

/// `adapters/<id>`'s validation problems (a missing directory is one problem of its own).
fn validation_problems(root: &Path, id: &str) -> Option<Vec<Problem>> {
    let dir = root.join("adapters").join(id);
    dir.is_dir().then(|| validate_adapter_dir(&dir))
}

fn validate(id: &str, problems: Option<&[Problem]>) -> Outcome {
    let Some(problems) = problems else {
        return Outcome::fail(
            None,
            format!("adapters/{id}/ does not exist: a listed adapter ships its directory"),
        );
    };
    let Some(first) = problems.first() else {
        return Outcome::Pass;
    };
    // The file to fix first: a manifest problem (a capability without passing evidence) is
    // most often the consequence of a problem in the evidence, so the evidence file leads.
    let first = problems
        .iter()
        .find(|p| p.file != acc_sdk::error::MANIFEST_FILE)
        .unwrap_or(first);
    let lines: Vec<String> = problems
        .iter()
        .map(|p| {
            let field = if p.field.is_empty() {
                String::new()
            } else {
                format!("{}: ", p.field)
            };
            format!(
                "adapters/{id}/{}: {field}{} [{}]",
                p.file, p.message, p.code
            )
        })
        .collect();
    Outcome::fail(
        Some(format!("adapters/{id}/{}", first.file)),
        lines.join("; "),
    )
}

/// The diff-install outcome, and whether plan and install differed (rather than the
/// comparison failing to run).
fn diff(ctx: &CheckContext, adapter: &Adapter) -> (Outcome, bool) {
    let file = ctx.source_file(adapter.id(), &["install.rs"]);
    let home = ctx.home_fixture(adapter.id());
    match diff_install(ctx, adapter, home.as_deref()) {
        Err(message) => (Outcome::fail(file, message), false),
        Ok(d) if d.differences.is_empty() => (Outcome::Pass, false),
        Ok(d) => (
            Outcome::fail(
                file,
                format!(
                    "plan and install differ in {}: {}",
                    d.home,
                    d.differences.join("; ")
                ),
            ),
            true,
        ),
    }
}

fn wire(ctx: &CheckContext, adapter: &Adapter) -> Outcome {
    let file = ctx.source_file(adapter.id(), &["install.rs"]);
    match wire_adapter(ctx, adapter) {
        Err(message) => Outcome::fail(file, message),
        Ok(s) if s.commands.is_empty() => {
            Outcome::not_applicable("install wrote no acc-hook command")
        }
        Ok(s) if s.passed() => Outcome::Pass,
        Ok(s) => {
            let mut lines: Vec<String> = s
                .commands
                .iter()
                .filter(|c| !c.passed)
                .map(|c| {
                    let how = if !c.problems.is_empty() {
                        format!("not run: {}", c.problems.join("; "))
                    } else if let Some(code) = &c.failed_open {
                        format!("failed open ({code})")
                    } else {
                        match c.exit_code {
                            Some(code) => format!("exited {code}: {}", c.stderr),
                            None => "was killed".to_owned(),
                        }
                    };
                    format!("{} `{}` {how} (probe: {})", c.file, c.command, c.probe)
                })
                .collect();
            if s.decoy_used {
                lines.push("a hook ignored the pinned data home".to_owned());
            }
            lines.extend(
                s.workspace_writes
                    .iter()
                    .map(|p| format!("a hook wrote {p} inside the workspace")),
            );
            Outcome::fail(file, lines.join("; "))
        }
    }
}

fn drift(root: &Path, ids: &[String]) -> Outcome {
    let file = Some(CAPABILITIES_DOC.to_owned());
    if ids != crate::matrix::shipped_ids() {
        // The document is about the shipped set; a gate over another set cannot judge it.
        return Outcome::not_applicable("the gate ran over adapters other than the shipped ones");
    }
    match check_docs(root) {
        Ok(None) => Outcome::Pass,
        Ok(Some(message)) => Outcome::fail(file, message),
        Err(e) => Outcome::fail(file, format!("{CAPABILITIES_DOC} cannot be checked: {e}")),
    }
}

/// Runs every check for every adapter, writing one progress line per adapter to
/// `progress`.
pub fn run_gate(
    options: &GateOptions,
    adapters: &[Adapter],
    progress: &mut dyn Write,
) -> Result<GateReport, SetupError> {
    let scratch = scratch()?;
    let ctx = CheckContext::new(&options.root, &options.hook_executable, scratch.path());
    let ids: Vec<String> = adapters.iter().map(|a| a.id().to_owned()).collect();
    let mut results = Vec::new();
    let mut facts = Facts::default();
    for adapter in adapters {
        let id = adapter.id();
        let _ = writeln!(
            progress,
            "gate: {id}: {} conformance checks, validate, diff-install, wire, evidence replay",
            acc_conformance::checks().len()
        );
        let mut own: Vec<GateResult> = acc_conformance::checks()
            .iter()
            .map(|c| {
                let start = Instant::now();
                let r = c.run(&ctx, adapter);
                let mut gr = result(r.check.as_str(), Some(&r.adapter), r.outcome);
                gr.elapsed = start.elapsed();
                gr
            })
            .collect();
        let start = Instant::now();
        let problems = validation_problems(&options.root, id);
        let mut validated = result(VALIDATE_CHECK, Some(id), validate(id, problems.as_deref()));
        validated.elapsed = start.elapsed();
        own.push(validated);
        facts
            .validate
            .insert(id.to_owned(), problems.unwrap_or_default());
        own.push(timed(DIFF_INSTALL_CHECK, Some(id), || {
            let (outcome, differs) = diff(&ctx, adapter);
            if differs {
                facts.plan_differs.insert(id.to_owned());
            }
            outcome
        }));
        own.push(timed(WIRE_CHECK, Some(id), || wire(&ctx, adapter)));
        let start = Instant::now();
        let (outcome, found) = replay(&options.root, id);
        let mut replayed = result(REPLAY_CHECK, Some(id), outcome);
        replayed.elapsed = start.elapsed();
        own.push(replayed);
        facts.replay.insert(id.to_owned(), found);
        let failed = own.iter().filter(|r| r.status == Status::Fail).count();
        let _ = writeln!(
            progress,
            "gate: {id}: {} results, {failed} failed",
            own.len()
        );
        results.extend(own);
    }
    let _ = writeln!(progress, "gate: {DRIFT_CHECK}: {CAPABILITIES_DOC}");
    results.push(timed(DRIFT_CHECK, None, || drift(&options.root, &ids)));
    causes::link(&mut results, &facts);
    if let Some(baseline) = &options.baseline {
        baseline.apply(&mut results);
    }
    Ok(GateReport::new(
        ids,
        options.baseline.as_ref().map(|b| b.file.clone()),
        results,
    ))
}

/// Writes `report.json` and `junit.xml` into `dir`; returns their paths.
pub fn write_reports(report: &GateReport, dir: &Path) -> std::io::Result<(PathBuf, PathBuf)> {
    std::fs::create_dir_all(dir)?;
    let json_path = dir.join("report.json");
    let mut json = serde_json::to_string_pretty(&report.json()).map_err(std::io::Error::other)?;
    json.push('\n');
    std::fs::write(&json_path, json)?;
    let junit_path = dir.join("junit.xml");
    std::fs::write(&junit_path, junit::render(report))?;
    Ok((json_path, junit_path))
}
