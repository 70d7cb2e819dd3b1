//! The hook command line: `acc-hook [--data-home DIR] <adapter-id> [args...]`.
//!
//! Parsed by hand rather than with clap: everything after the adapter id belongs to the
//! adapter (Antigravity names its event there), and a malformed command line must fail open
//! instead of printing usage to a client.

use super::failure::Failure;
use std::path::PathBuf;

pub const USAGE: &str = "\
acc-hook: the acc hook runtime. Installed client hooks run it; it reads one hook payload on
stdin and answers in the client's own shape.

Usage: acc-hook [--data-home DIR] <adapter-id> [args...]
       acc-hook guard-exec [--ro PATH | --rw PATH]... [--own PATH]...
                           [--claim RESOURCE PARTICIPANT SESSION]... [--more N] -- COMMAND

  --data-home DIR  the acc data home (absolute); else ACC_DATA_HOME, else the default
  <adapter-id>     claude-code, codex, gemini-cli, kimi-code, antigravity, grok or qwen-code
  [args...]        passed to the adapter (for example the hook event name)

Any error, refusal or timeout (5 s) allows the client's action: exit 0, no output, one
stderr line with a reason code.

guard-exec runs COMMAND as `bash -c` would, in a private user and mount namespace in
which every --ro PATH and --own PATH is read-only and a --rw PATH under one of them is
writable again; --claim names why when COMMAND fails, --more counts the claims not named.
The hook rewrites a client's shell calls to it where the client allows. It exits 125
without running COMMAND when the namespace cannot be set up.

Example:
  acc-hook claude-code PreToolUse < payload.json
";

/// The first argument of the process that writes a deferred heartbeat.
pub const BEAT_FLAG: &str = "--beat";

/// A parsed hook command line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    /// Answer one hook.
    Hook(HookArgs),
    /// `--help` / `-h` as the first argument.
    Help,
    /// `--version` / `-V` as the first argument.
    Version,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HookArgs {
    /// `--beat` first: only write the conversation's heartbeat (what the guard's fast path
    /// deferred past its answer); the answer goes nowhere.
    pub beat_only: bool,
    pub data_home: Option<PathBuf>,
    pub adapter_id: String,
    /// Everything after the adapter id, unread.
    pub rest: Vec<String>,
}

/// Parses the arguments after the program name.
pub fn parse(argv: &[String]) -> Result<Command, Failure> {
    let mut i = 0;
    let mut data_home = None;
    match argv.first().map(String::as_str) {
        Some("--help" | "-h") => return Ok(Command::Help),
        Some("--version" | "-V") => return Ok(Command::Version),
        _ => {}
    }
    let beat_only = argv.first().is_some_and(|a| a == BEAT_FLAG);
    if beat_only {
        i += 1;
    }
    while let Some(arg) = argv.get(i) {
        let value = if arg == "--data-home" {
            i += 1;
            argv.get(i).ok_or(Failure::Usage)?.clone()
        } else if let Some(v) = arg.strip_prefix("--data-home=") {
            v.to_string()
        } else {
            break;
        };
        let path = PathBuf::from(value);
        // A relative data home would depend on whichever directory the client ran us in.
        if !path.is_absolute() || data_home.is_some() {
            return Err(Failure::Usage);
        }
        data_home = Some(path);
        i += 1;
    }
    let adapter_id = argv.get(i).ok_or(Failure::Usage)?;
    if adapter_id.starts_with('-') || adapter_id.is_empty() {
        return Err(Failure::Usage);
    }
    Ok(Command::Hook(HookArgs {
        beat_only,
        data_home,
        adapter_id: adapter_id.clone(),
        rest: argv[i + 1..].to_vec(),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    fn hook(v: &[&str]) -> HookArgs {
        match parse(&args(v)).unwrap() {
            Command::Hook(h) => h,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn adapter_and_rest() {
        let h = hook(&["claude-code", "PreToolUse", "--x"]);
        assert_eq!(h.adapter_id, "claude-code");
        assert_eq!(h.rest, args(&["PreToolUse", "--x"]));
        assert_eq!(h.data_home, None);
    }

    #[test]
    fn data_home_in_both_spellings() {
        let h = hook(&["--data-home", "/d", "codex"]);
        assert_eq!(h.data_home, Some(PathBuf::from("/d")));
        assert!(h.rest.is_empty());
        let h = hook(&["--data-home=/e", "antigravity", "PreInvocation"]);
        assert_eq!(h.data_home, Some(PathBuf::from("/e")));
        assert_eq!(h.rest, args(&["PreInvocation"]));
        assert!(!h.beat_only);
    }

    #[test]
    fn a_deferred_heartbeat_is_asked_for_first() {
        let h = hook(&["--beat", "--data-home", "/d", "claude-code", "PreToolUse"]);
        assert!(h.beat_only);
        assert_eq!(h.data_home, Some(PathBuf::from("/d")));
        assert_eq!(h.rest, args(&["PreToolUse"]));
        // Anywhere else it is the adapter's argument, or no adapter at all.
        assert!(!hook(&["claude-code", "--beat"]).beat_only);
        assert_eq!(parse(&args(&["--beat"])), Err(Failure::Usage));
    }

    #[test]
    fn malformed_lines_are_usage_failures() {
        for bad in [
            &[][..],
            &["--data-home"],
            &["--data-home", "relative", "codex"],
            &["--data-home", "/a", "--data-home", "/b", "codex"],
            &["--data-home", "/a"],
            &["--bogus", "codex"],
            &[""],
        ] {
            assert_eq!(parse(&args(bad)), Err(Failure::Usage), "{bad:?}");
        }
    }

    #[test]
    fn help_and_version_only_in_first_position() {
        assert_eq!(parse(&args(&["--help"])), Ok(Command::Help));
        assert_eq!(parse(&args(&["-V"])), Ok(Command::Version));
        assert_eq!(hook(&["codex", "--help"]).rest, args(&["--help"]));
    }
}
