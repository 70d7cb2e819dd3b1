//! The hook wiring install wrote, read back from the files themselves and executed: three
//! adapters once shipped a hook command that did not exist anywhere while every test was
//! green, so nothing here trusts what install meant to write.

use acc_sdk::define::Adapter;

use super::sandbox;
use crate::check::{Outcome, Problems};
use crate::context::CheckContext;
use crate::hook_commands::{files_under, installed_commands};
use crate::wiring::{static_problems, wire};

const NO_COMMANDS: &str =
    "install wrote no acc-hook command (an adapter without hooks is tier 0 or 1)";

pub fn absolute_commands(ctx: &CheckContext, adapter: &Adapter) -> Outcome {
    let sb = match sandbox(ctx, adapter) {
        Ok(sb) => sb,
        Err(outcome) => return outcome,
    };
    let file = ctx.source_file(adapter.id(), &["install.rs"]);
    let report = match sb.install(adapter) {
        Ok(report) => report,
        Err(e) => {
            return Outcome::fail(file, format!("install failed: {}", sb.redact(&e.message)));
        }
    };
    let written: Vec<_> = report
        .adapters
        .iter()
        .flat_map(|a| a.files.iter().map(|f| f.path.clone()))
        .collect();
    let commands = installed_commands(&files_under(&written));
    if commands.is_empty() {
        return Outcome::not_applicable(NO_COMMANDS);
    }
    let pinned = sb.context().pinned_data_home.clone();
    let mut problems = Problems::new(file);
    for command in &commands {
        for problem in static_problems(command, adapter, pinned.as_deref()) {
            problems.push(format!(
                "{}: `{}` {problem}",
                sb.redact_path(&command.file),
                sb.redact(&command.command)
            ));
        }
    }
    problems.into_outcome()
}

pub fn wiring_executes(ctx: &CheckContext, adapter: &Adapter) -> Outcome {
    let sb = match sandbox(ctx, adapter) {
        Ok(sb) => sb,
        Err(outcome) => return outcome,
    };
    let file = ctx.source_file(adapter.id(), &["install.rs"]);
    let report = match wire(&ctx.root, &sb, adapter) {
        Ok(report) => report,
        Err(message) => return Outcome::fail(file, message),
    };
    if report.commands.is_empty() {
        return Outcome::not_applicable(NO_COMMANDS);
    }
    let mut problems = Problems::new(file);
    for command in &report.commands {
        let shown = format!(
            "{}: `{}`",
            sb.redact_path(&command.installed.file),
            sb.redact(&command.installed.command)
        );
        if !command.problems.is_empty() {
            problems.push(format!(
                "{shown} was not run: {}",
                command.problems.join("; ")
            ));
            continue;
        }
        let Some(run) = &command.run else {
            continue;
        };
        let probe = command.probe.describe();
        if run.timed_out {
            problems.push(format!("{shown} did not finish (probe: {probe})"));
        } else if run.exit_code != Some(0) {
            problems.push(format!(
                "{shown} exited {} with the probe {probe}; stderr: {}",
                run.exit_code
                    .map_or_else(|| "by a signal".to_owned(), |c| c.to_string()),
                sb.redact(run.stderr.trim())
            ));
        } else if let Some(code) = run.failed_open() {
            problems.push(format!(
                "{shown} failed open ({code}) on the probe {probe}: the hook ran but acc did nothing"
            ));
        }
    }
    if report.decoy_used {
        problems.push(
            "a hook opened the data home from its environment instead of the one the install pinned",
        );
    }
    for path in &report.workspace_writes {
        problems.push(format!(
            "a hook wrote {} inside the workspace; acc never writes into the user's repository",
            sb.redact_path(path)
        ));
    }
    problems.into_outcome()
}
