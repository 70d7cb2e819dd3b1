//! The `acc` command layer: parse, run one command against the core, print one line or one
//! JSON envelope, return the exit code. Everything is passed in (arguments, environment,
//! directory, output streams) so tests drive it without a process.

pub mod args;
pub mod commands;
pub mod context;
pub mod output;
pub mod owner;

use crate::env::Env;
use crate::error::{AccError, ErrorCode};
use args::Cli;
use clap::Parser;
use clap::error::ErrorKind;
use context::Invocation;
use std::ffi::OsString;
use std::io::Write;
use std::path::Path;

/// `--json` is recognised in the raw arguments so that even usage errors produce an envelope.
fn wants_json(argv: &[OsString]) -> bool {
    argv.iter().skip(1).any(|a| a == "--json")
}

/// The first line of clap's message, without its `error: ` prefix, plus where to get help.
fn usage_error(e: &clap::Error, argv: &[OsString]) -> AccError {
    let rendered = e.render().to_string();
    let mut lines = rendered.lines().skip_while(|l| l.trim().is_empty());
    let head = lines.next().unwrap_or("invalid arguments").trim();
    let head = head.strip_prefix("error: ").unwrap_or(head);
    // clap lists missing arguments on the indented lines after a line ending in ':'.
    let first = if head.ends_with(':') {
        let items: Vec<&str> = lines
            .take_while(|l| l.starts_with("  "))
            .map(str::trim)
            .collect();
        format!("{} {}", head, items.join(", "))
    } else {
        head.to_string()
    };
    // The first word naming a subcommand: a global option's value (`--cwd DIR`) may come
    // before it.
    let command = argv.iter().skip(1).filter_map(|a| a.to_str()).find(|a| {
        use clap::CommandFactory;
        !a.starts_with('-') && Cli::command().find_subcommand(a).is_some()
    });
    let help = match command {
        Some(c) => format!("acc {c} --help"),
        None => "acc --help".to_string(),
    };
    AccError::new(ErrorCode::InvalidArgument, format!("{first}; see `{help}`"))
}

/// Runs `acc` with `argv` (including the program name) and returns the exit code.
pub fn run(
    argv: Vec<OsString>,
    env: &Env,
    process_cwd: &Path,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> i32 {
    let json = wants_json(&argv);
    let cli = match Cli::try_parse_from(&argv) {
        Ok(cli) => cli,
        Err(e) => {
            if matches!(
                e.kind(),
                ErrorKind::DisplayHelp
                    | ErrorKind::DisplayVersion
                    | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
            ) {
                let _ = write!(out, "{}", e.render());
                return if e.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand {
                    2
                } else {
                    0
                };
            }
            return output::emit(Err(usage_error(&e, &argv)), json, out, err);
        }
    };
    let inv = Invocation::new(env, process_cwd, cli.cwd.as_deref());
    let result = commands::dispatch(&inv, cli.command);
    output::emit(result, cli.json || json, out, err)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run_args(args: &[&str]) -> (i32, String, String) {
        let argv: Vec<OsString> = std::iter::once("acc")
            .chain(args.iter().copied())
            .map(OsString::from)
            .collect();
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let dir = tempfile::tempdir().unwrap();
        let env = Env::new().with("ACC_DATA_HOME", "/nonexistent-acc-test-home");
        let code = run(argv, &env, dir.path(), &mut out, &mut err);
        (
            code,
            String::from_utf8(out).unwrap(),
            String::from_utf8(err).unwrap(),
        )
    }

    #[test]
    fn unknown_flags_are_one_line_usage_errors() {
        let (code, out, err) = run_args(&["claim", "--bogus"]);
        assert_eq!(code, 2);
        assert!(out.is_empty());
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(
            err.contains("--bogus") && err.contains("acc claim --help"),
            "{err}"
        );
    }

    #[test]
    fn usage_errors_are_json_when_json_appears_anywhere() {
        let (code, out, err) = run_args(&["claim", "--resource", "--json"]);
        assert_eq!(code, 2);
        assert!(err.is_empty());
        let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
        assert_eq!(v["ok"], false);
        assert_eq!(v["error"]["code"], 2);
        assert_eq!(v["error"]["details"]["reason"], "invalid_argument");
    }

    #[test]
    fn usage_errors_point_at_the_subcommand_after_global_options() {
        let (code, _, err) = run_args(&["--cwd", "/tmp", "claim", "--bogus"]);
        assert_eq!(code, 2);
        assert!(err.contains("see `acc claim --help`"), "{err}");
    }

    #[test]
    fn help_goes_to_stdout_with_exit_zero() {
        let (code, out, _) = run_args(&["claim", "--help"]);
        assert_eq!(code, 0);
        assert!(out.contains("Examples:"));
    }
}
