//! The `acc` command layer: parse, run one command against the core, print one line or one
//! JSON envelope, return the exit code. Everything is passed in (arguments, environment,
//! directory, output streams) so tests drive it without a process.

pub mod agent;
pub mod args;
pub mod caller;
pub mod commands;
pub mod context;
pub mod help_json;
pub mod output;
pub mod owner;
pub mod person;
pub mod takeover;
pub mod workspace_faults;

use crate::env::Env;
use crate::error::{AccError, ErrorCode};
use clap::error::ErrorKind;
use context::Invocation;
use std::ffi::OsString;
use std::io::Write;
use std::path::Path;

/// `--json` is recognised in the raw arguments so that even usage errors produce an envelope.
fn wants_json(argv: &[OsString]) -> bool {
    argv.iter().skip(1).any(|a| a == "--json")
}

/// The subcommand path `argv` names (`["config", "init"]`), skipping options and the value
/// of `--cwd`, which may come before the subcommand.
fn command_path(argv: &[OsString]) -> Vec<String> {
    help_json::known_path(&words(argv))
}

/// The words of `argv` that are not options (nor the value of `--cwd`): the command path
/// first, then whatever followed it.
fn words(argv: &[OsString]) -> Vec<String> {
    let mut out = Vec::new();
    let mut args = argv.iter().skip(1).filter_map(|a| a.to_str());
    while let Some(a) = args.next() {
        if a == "--cwd" {
            args.next();
        } else if !a.starts_with('-') {
            out.push(a.to_string());
        }
    }
    out
}

/// `acc config --help` for `["config"]`, `acc --help` for none.
fn help_for(path: &[String]) -> String {
    if path.is_empty() {
        "acc --help".to_string()
    } else {
        format!("acc {} --help", path.join(" "))
    }
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
    let help = help_for(&command_path(argv));
    AccError::new(ErrorCode::InvalidArgument, format!("{first}; see `{help}`"))
}

/// `acc` or `acc config` without the subcommand it needs: a usage error naming the choices,
/// not a help page (which belongs to `--help`, on stdout with exit 0).
fn missing_subcommand(argv: &[OsString]) -> AccError {
    let path = command_path(argv);
    let choices = help_json::describe(&path).subcommands;
    let shown = if path.is_empty() {
        "acc".to_string()
    } else {
        format!("acc {}", path.join(" "))
    };
    let what = if path.is_empty() {
        "a command"
    } else {
        "a subcommand"
    };
    if choices.is_empty() {
        return AccError::new(
            ErrorCode::InvalidArgument,
            format!("{shown} needs arguments; see `{}`", help_for(&path)),
        )
        .with("command", shown);
    }
    AccError::new(
        ErrorCode::InvalidArgument,
        format!(
            "{shown} needs {what}: one of {}; see `{}`",
            choices.join(", "),
            help_for(&path)
        ),
    )
    .with("command", shown)
    .with("subcommands", choices)
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
    let cli = match args::parse(&argv) {
        Ok(cli) => cli,
        Err(e) => {
            // `acc help claim --json`: clap's own help subcommand takes no options.
            if json && words(&argv).first().map(String::as_str) == Some("help") {
                let result = match help_json::describe_exact(&words(&argv)) {
                    Ok(help) => Ok(output::Output::silent(help)),
                    Err(unknown) => Err(AccError::new(
                        ErrorCode::InvalidArgument,
                        format!("unrecognized subcommand '{unknown}'; see `acc --help`"),
                    )),
                };
                return output::emit(result, true, out, err);
            }
            let refused = match e.kind() {
                ErrorKind::DisplayHelp if json => {
                    let help = help_json::describe(&words(&argv));
                    return output::emit(Ok(output::Output::silent(help)), true, out, err);
                }
                ErrorKind::DisplayVersion if json => {
                    return output::emit(Ok(commands::admin::version()), true, out, err);
                }
                ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => {
                    let _ = write!(out, "{}", e.render());
                    return 0;
                }
                // The second arises when an option (such as `--json`) was given but no
                // subcommand; both get the same answer.
                ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
                | ErrorKind::MissingSubcommand => missing_subcommand(&argv),
                _ => usage_error(&e, &argv),
            };
            return output::emit(Err(refused), json, out, err);
        }
    };
    if json && matches!(cli.command, args::Command::Watch(_)) {
        let refused = AccError::new(
            ErrorCode::InvalidArgument,
            "acc watch is a terminal view and has no --json output; use `acc sync --json` (or `acc status --json`) for data",
        )
        .with("command", "watch");
        return output::emit(Err(refused), true, out, err);
    }
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
    fn the_command_path_skips_options_and_the_cwd_value() {
        let path = |args: &[&str]| {
            let argv: Vec<OsString> = std::iter::once("acc")
                .chain(args.iter().copied())
                .map(OsString::from)
                .collect();
            command_path(&argv)
        };
        assert_eq!(
            path(&["--cwd", "config", "config", "init"]),
            ["config", "init"]
        );
        assert_eq!(path(&["--json", "claim", "--resource", "x"]), ["claim"]);
        assert!(path(&["--cwd", "status"]).is_empty());
        assert!(path(&["frobnicate", "status"]).is_empty());
    }

    #[test]
    fn a_missing_subcommand_names_the_choices_on_one_line() {
        let (code, out, err) = run_args(&["--cwd", "/tmp", "config"]);
        assert_eq!((code, out.as_str()), (2, ""));
        assert_eq!(
            err,
            "acc config needs a subcommand: one of init, validate; see `acc config --help`\n"
        );
        let (code, out, err) = run_args(&["config", "--json"]);
        assert_eq!((code, err.as_str()), (2, ""));
        let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
        assert_eq!(
            v["error"]["details"]["subcommands"],
            serde_json::json!(["init", "validate"])
        );
    }

    #[test]
    fn help_and_version_under_json_are_one_envelope() {
        for args in [
            &["claim", "--help", "--json"][..],
            &["--json", "claim", "-h"],
            &["help", "claim", "--json"],
            &["--cwd", "/tmp", "--json", "help", "claim"],
        ] {
            let (code, out, err) = run_args(args);
            assert_eq!(code, 0, "{args:?}: {err}");
            assert!(err.is_empty(), "{args:?}: {err}");
            assert_eq!(out.lines().count(), 1, "{args:?}: {out}");
            let v: serde_json::Value = serde_json::from_str(&out).unwrap();
            assert_eq!(v["ok"], true, "{args:?}");
            assert_eq!(v["data"]["name"], "acc claim", "{args:?}");
            assert_eq!(v["data"]["required"], serde_json::json!(["--resource"]));
            assert_eq!(
                v["data"]["choices"]["--mode"],
                serde_json::json!(["shared", "exclusive"])
            );
        }
        let (code, out, _) = run_args(&["--json", "help", "nosuch"]);
        assert_eq!(code, 2);
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(v["ok"], false);
        assert!(
            v["error"]["message"].as_str().unwrap().contains("'nosuch'"),
            "{v}"
        );
        let (code, out, _) = run_args(&["--json", "--version"]);
        assert_eq!(code, 0);
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(v["data"]["version"], env!("CARGO_PKG_VERSION"));
        // Without --json, help stays the page.
        let (_, out, _) = run_args(&["help", "claim"]);
        assert!(out.contains("Usage: acc claim"), "{out}");
    }

    #[test]
    fn help_goes_to_stdout_with_exit_zero() {
        let (code, out, _) = run_args(&["claim", "--help"]);
        assert_eq!(code, 0);
        assert!(out.contains("Examples:"));
    }
}
