//! `acc-certify wire`: install one adapter into a sandbox home, then execute every hook
//! command the install wrote, exactly as the client would, with a probe payload for its
//! event; report each command (paths redacted) and how it ended.

use std::io::Write;
use std::path::PathBuf;

use acc_conformance::CheckContext;
use acc_conformance::sandbox::Sandbox;
use acc_conformance::wiring::wire;
use acc_sdk::define::Adapter;
use clap::Args;
use serde_json::{Value, json};

use crate::adapter_arg::{ADAPTER_HELP, shipped_adapter};
use crate::envelope::Exit;
use crate::output::CommandOutput;
use crate::report::plural;
use crate::setup::{SetupError, resolve_hook_executable, resolve_root, scratch};

#[derive(Debug, Args)]
pub struct WireArgs {
    #[arg(long, value_name = "ID|DIR", help = ADAPTER_HELP)]
    pub adapter: String,
    /// The repository root (default: the nearest directory at or above the current one
    /// holding adapters/ and Cargo.toml).
    #[arg(long, value_name = "DIR", alias = "repo")]
    pub root: Option<PathBuf>,
    /// Print exactly one JSON envelope.
    #[arg(long)]
    pub json: bool,
}

/// One hook command as `wire` reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandLine {
    /// The client event the command names.
    pub event: String,
    /// The normalised kind its probe gave (`sessionStart`, ...), when it normalised.
    pub kind: Option<String>,
    pub command: String,
    pub file: String,
    pub probe: String,
    /// Problems found before running; a command with any was not run.
    pub problems: Vec<String>,
    pub exit_code: Option<i32>,
    pub failed_open: Option<String>,
    pub stderr: String,
    pub passed: bool,
}

/// What `wire` found, sandbox paths redacted to `<home>`, `<data>`, `<ws>`, `<bin>`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WireSummary {
    pub adapter: String,
    /// The files holding hook commands.
    pub files: Vec<String>,
    pub commands: Vec<CommandLine>,
    pub decoy_used: bool,
    pub workspace_writes: Vec<String>,
}

impl WireSummary {
    pub fn passed(&self) -> bool {
        !self.decoy_used
            && self.workspace_writes.is_empty()
            && self.commands.iter().all(|c| c.passed)
    }

    pub fn failures(&self) -> usize {
        self.commands.iter().filter(|c| !c.passed).count()
            + usize::from(self.decoy_used)
            + self.workspace_writes.len()
    }

    pub fn human(&self) -> String {
        let mut out = if self.commands.is_empty() {
            format!("wire {}: install wrote no acc-hook command\n", self.adapter)
        } else {
            format!(
                "wire {}: {} in {}\n",
                self.adapter,
                plural(self.commands.len(), "hook command"),
                self.files.join(", ")
            )
        };
        let width = self
            .commands
            .iter()
            .map(|c| c.event.len())
            .max()
            .unwrap_or(0);
        for c in &self.commands {
            let status = if c.passed { "ok  " } else { "FAIL" };
            let exit = match (&c.problems.is_empty(), c.exit_code) {
                (false, _) => "not run".to_owned(),
                (true, Some(code)) => format!("exit {code}"),
                (true, None) => "killed".to_owned(),
            };
            out.push_str(&format!(
                "  {status}  {:<width$}  {exit:<7}  {}\n",
                c.event, c.command
            ));
            out.push_str(&format!("        probe: {}\n", c.probe));
            for p in &c.problems {
                out.push_str(&format!("        {p}\n"));
            }
            if let Some(code) = &c.failed_open {
                out.push_str(&format!("        failed open: {code}\n"));
            }
            if !c.passed && !c.stderr.is_empty() {
                out.push_str(&format!("        stderr: {}\n", c.stderr));
            }
        }
        if self.decoy_used {
            out.push_str("FAIL: a hook opened the data home from its environment instead of the pinned one\n");
        }
        for path in &self.workspace_writes {
            out.push_str(&format!("FAIL: a hook wrote {path} inside the workspace\n"));
        }
        if self.passed() {
            out.push_str(&format!(
                "all {} ran and exited 0\n",
                plural(self.commands.len(), "hook command")
            ));
        } else {
            out.push_str(&format!(
                "{} of {} failed\n",
                self.failures(),
                plural(self.commands.len(), "hook command")
            ));
        }
        out
    }

    pub fn json(&self) -> Value {
        json!({
            "adapter": self.adapter,
            "passed": self.passed(),
            "files": self.files,
            "commands": self.commands.iter().map(|c| json!({
                "event": c.event,
                "kind": c.kind,
                "command": c.command,
                "file": c.file,
                "probe": c.probe,
                "problems": c.problems,
                "exitCode": c.exit_code,
                "failedOpen": c.failed_open,
                "stderr": c.stderr,
                "passed": c.passed,
            })).collect::<Vec<_>>(),
            "decoyDataHomeUsed": self.decoy_used,
            "workspaceWrites": self.workspace_writes,
        })
    }
}

/// Installs `adapter` into a fresh sandbox (its home a copy of `fixtures/homes/<id>/`) and
/// runs every hook command it wrote.
pub fn wire_adapter(ctx: &CheckContext, adapter: &Adapter) -> Result<WireSummary, String> {
    let fixture = ctx.home_fixture(adapter.id());
    let sb = Sandbox::new(
        &ctx.scratch,
        &ctx.hook_executable,
        adapter,
        fixture.as_deref(),
    )
    .map_err(|e| format!("could not build a sandbox home: {e}"))?;
    let report = wire(&ctx.root, &sb, adapter)?;
    let mut files: Vec<String> = report
        .commands
        .iter()
        .map(|c| sb.redact_path(&c.installed.file))
        .collect();
    files.sort();
    files.dedup();
    let commands = report
        .commands
        .iter()
        .map(|c| {
            let run = c.run.as_ref();
            CommandLine {
                event: c.installed.event().unwrap_or("?").to_owned(),
                kind: c.kind.map(|k| k.as_str().to_owned()),
                command: sb.redact(&c.installed.command),
                file: sb.redact_path(&c.installed.file),
                probe: c.probe.describe(),
                problems: c.problems.iter().map(|p| sb.redact(p)).collect(),
                exit_code: run.and_then(|r| r.exit_code),
                failed_open: run.and_then(|r| r.failed_open()),
                stderr: run.map(|r| sb.redact(r.stderr.trim())).unwrap_or_default(),
                passed: c.passed(),
            }
        })
        .collect();
    Ok(WireSummary {
        adapter: adapter.id().to_owned(),
        files,
        commands,
        decoy_used: report.decoy_used,
        workspace_writes: report
            .workspace_writes
            .iter()
            .map(|p| sb.redact_path(p))
            .collect(),
    })
}

fn run(args: &WireArgs) -> Result<CommandOutput, SetupError> {
    let adapter = shipped_adapter(&args.adapter)?;
    let root = resolve_root(args.root.as_deref())?;
    let hook = resolve_hook_executable()?;
    let scratch = scratch()?;
    let ctx = CheckContext::new(&root, &hook, scratch.path());
    let summary = wire_adapter(&ctx, &adapter).map_err(|message| SetupError::Sandbox {
        message: format!("wire {}: {message}", adapter.id()),
    })?;
    Ok(if summary.passed() {
        CommandOutput::new(Exit::Ok, summary.human(), summary.json(), String::new())
    } else {
        let message = format!(
            "{} of {} failed",
            summary.failures(),
            plural(summary.commands.len(), "hook command")
        );
        CommandOutput::new(Exit::Invalid, summary.human(), summary.json(), message)
    })
}

pub fn execute(args: &WireArgs, out: &mut dyn Write, err: &mut dyn Write) -> i32 {
    let output = run(args).unwrap_or_else(|e| CommandOutput::could_not_run(&e));
    output.emit(args.json, out, err)
}
