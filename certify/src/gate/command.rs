//! `acc-certify gate [--baseline FILE] [--out DIR] [--json]`: the command layer over
//! [`super::run_gate`].

use std::io::Write;
use std::path::{Path, PathBuf};

use clap::Args;
use serde_json::json;

use super::baseline::Baseline;
use super::{GateOptions, annotations, run_gate, write_reports};
use crate::envelope::Exit;
use crate::output::CommandOutput;
use crate::setup::{SetupError, resolve_hook_executable, resolve_root};

/// Where reports go unless `--out` says otherwise, relative to the repository root.
pub const DEFAULT_OUT: &str = "target/acc-certify/gate";

#[derive(Debug, Args)]
pub struct GateArgs {
    /// Expected failures, one `check-id` or `check-id:adapter` per line (`#` comments).
    /// A listed failure does not fail the gate; a listed one that passes now does.
    #[arg(long, value_name = "FILE")]
    pub baseline: Option<PathBuf>,
    /// Where to write report.json and junit.xml (default: target/acc-certify/gate/ under
    /// the repository root).
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// The repository root (default: the nearest directory at or above the current one
    /// holding adapters/ and Cargo.toml).
    #[arg(long, value_name = "DIR", alias = "repo")]
    pub root: Option<PathBuf>,
    /// Print exactly one JSON envelope (annotations then go to stderr).
    #[arg(long)]
    pub json: bool,
}

/// The environment facts the command reads, passed in so tests choose them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GateEnv {
    /// `GITHUB_ACTIONS=true`: print workflow annotations.
    pub github_actions: bool,
}

impl GateEnv {
    pub fn from_process() -> GateEnv {
        GateEnv {
            github_actions: std::env::var("GITHUB_ACTIONS").is_ok_and(|v| v == "true"),
        }
    }
}

fn shown(path: &Path) -> String {
    let cwd = std::env::current_dir().unwrap_or_default();
    path.strip_prefix(&cwd)
        .map_or_else(|_| path.display().to_string(), |p| p.display().to_string())
}

fn read_baseline(path: &Path) -> Result<Baseline, SetupError> {
    let text = std::fs::read_to_string(path).map_err(|e| SetupError::Baseline {
        message: format!("cannot read the baseline {}: {e}", path.display()),
    })?;
    Baseline::parse(&path.display().to_string(), &text)
        .map_err(|message| SetupError::Baseline { message })
}

fn run(
    args: &GateArgs,
    env: &GateEnv,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<CommandOutput, SetupError> {
    let root = resolve_root(args.root.as_deref())?;
    let baseline = args.baseline.as_deref().map(read_baseline).transpose()?;
    let hook_executable = resolve_hook_executable()?;
    let adapters = acc_runtime::registry::all();
    let options = GateOptions {
        root: root.clone(),
        hook_executable,
        baseline,
    };
    let report = run_gate(&options, &adapters, err)?;
    let dir = match &args.out {
        Some(dir) => std::path::absolute(dir).unwrap_or(dir.clone()),
        None => root.join(DEFAULT_OUT),
    };
    let (report_path, junit_path) = write_reports(&report, &dir).map_err(|e| SetupError::Io {
        message: format!("cannot write the reports into {}: {e}", dir.display()),
    })?;
    if env.github_actions {
        let text = annotations::render(&report);
        let sink: &mut dyn Write = if args.json { err } else { out };
        let _ = sink.write_all(text.as_bytes());
    }
    let human = format!(
        "{}report: {}\njunit: {}\n",
        report.human(),
        shown(&report_path),
        shown(&junit_path)
    );
    let data = json!({
        "report": report.json(),
        "files": {"report": shown(&report_path), "junit": shown(&junit_path)},
    });
    Ok(if report.passed() {
        CommandOutput::new(Exit::Ok, human, data, String::new())
    } else {
        CommandOutput::new(Exit::Invalid, human, data, report.summary())
    })
}

pub fn execute(args: &GateArgs, env: &GateEnv, out: &mut dyn Write, err: &mut dyn Write) -> i32 {
    let output = run(args, env, out, err).unwrap_or_else(|e| CommandOutput::could_not_run(&e));
    output.emit(args.json, out, err)
}
