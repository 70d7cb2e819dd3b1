//! Whether a shell call may be rewritten without changing what the person's own
//! permission rules decide (measured on 1.0.102 against a model double).
//!
//! Copilot CLI judges its permission rules against the arguments a `preToolUse` hook hands
//! back in `modifiedArgs`, not the model's: a call rewritten to run under acc's runner no
//! longer matches a `--deny-tool=shell(git push)` rule, and an `allow` decision from the
//! hook runs the call even against a deny rule. The runner's line also names paths outside
//! the workspace, which the client asks about unless every path is allowed (with
//! `--allow-all-tools` alone a rewritten call was refused: no one to approve). So acc never
//! answers `allow` when it rewrites, and rewrites only where the client runs every call and
//! names every path unasked (`--allow-all-tools` or `COPILOT_ALLOW_ALL` with
//! `--allow-all-paths`, or `--allow-all`, or `--yolo`) and no deny rule is in force
//! (`--deny-tool`, `--deny-url`, or `deniedUrls` in the user's settings). Anywhere else the
//! call is judged by the target rules alone.

use std::path::{Path, PathBuf};

/// The flags that make every tool call run without a prompt.
const ALLOW_TOOLS_FLAGS: [&str; 3] = ["--allow-all-tools", "--allow-all", "--yolo"];
/// The flags that let a command name any path without a prompt: acc's runner line names
/// the data home, the hook runtime and the client's hook file, outside the workspace.
const ALLOW_PATHS_FLAGS: [&str; 3] = ["--allow-all-paths", "--allow-all", "--yolo"];
/// Flags that carry deny rules, alone or as `--flag=value`.
const DENY_FLAGS: [&str; 2] = ["--deny-tool", "--deny-url"];
/// How far up from the hook the client process may be (the hook may run under a shell).
const ANCESTOR_LIMIT: usize = 6;

/// What the running client's command line, environment and settings say.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ClientFlags {
    pub runs_unasked: bool,
    pub deny_rules: bool,
}

impl ClientFlags {
    /// Read from the `copilot` process above this hook, this process's environment (the
    /// client's, inherited) and the user's `settings.json`. Nothing found reads as "asks",
    /// so nothing is rewritten.
    pub fn of_running_client() -> ClientFlags {
        let args = client_args().unwrap_or_default();
        let env_allow = std::env::var("COPILOT_ALLOW_ALL").ok();
        let settings = settings_path().and_then(|p| std::fs::read_to_string(p).ok());
        ClientFlags::from_parts(&args, env_allow.as_deref(), settings.as_deref())
    }

    pub fn from_parts(
        args: &[String],
        env_allow_all: Option<&str>,
        settings: Option<&str>,
    ) -> Self {
        let flag = |a: &str, names: &[&str]| {
            names
                .iter()
                .any(|n| a == *n || a.strip_prefix(n).is_some_and(|r| r.starts_with('=')))
        };
        let has = |names: &[&str]| args.iter().any(|a| names.contains(&a.as_str()));
        let tools = has(&ALLOW_TOOLS_FLAGS) || env_allow_all.is_some_and(truthy);
        let runs_unasked = tools && has(&ALLOW_PATHS_FLAGS);
        let deny_rules = args.iter().any(|a| flag(a, &DENY_FLAGS))
            || settings.is_some_and(|s| s.contains("deniedUrls"));
        ClientFlags {
            runs_unasked,
            deny_rules,
        }
    }

    /// A rewritten call would run exactly when the original would, with no rule to evade.
    pub fn rewrite_allowed(self) -> bool {
        self.runs_unasked && !self.deny_rules
    }
}

/// `COPILOT_ALLOW_ALL` as the client reads it (its `help environment`).
fn truthy(value: &str) -> bool {
    matches!(
        value.trim().to_ascii_lowercase().as_str(),
        "true" | "1" | "yes" | "on" | "y"
    )
}

fn settings_path() -> Option<PathBuf> {
    let home = std::env::var_os("COPILOT_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".copilot")))?;
    Some(home.join("settings.json"))
}

/// The arguments of the nearest ancestor whose program is named `copilot`.
fn client_args() -> Option<Vec<String>> {
    let mut pid = std::os::unix::process::parent_id();
    for _ in 0..ANCESTOR_LIMIT {
        if pid <= 1 {
            return None;
        }
        let raw = std::fs::read(format!("/proc/{pid}/cmdline")).ok()?;
        let args: Vec<String> = raw
            .split(|b| *b == 0)
            .filter(|a| !a.is_empty())
            .map(|a| String::from_utf8_lossy(a).into_owned())
            .collect();
        let program = args.first().map(|a| Path::new(a).file_name());
        if program.flatten().is_some_and(|n| n == "copilot") {
            return Some(args);
        }
        pid = parent_of(pid)?;
    }
    None
}

fn parent_of(pid: u32) -> Option<u32> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name may hold spaces and parentheses; the fields after its last `)` do not.
    let rest = &stat[stat.rfind(')')? + 1..];
    rest.split_whitespace().nth(1)?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn only_an_unasked_client_without_deny_rules_is_rewritten() {
        for unasked in [
            args(&[
                "copilot",
                "-p",
                "x",
                "--allow-all-tools",
                "--allow-all-paths",
            ]),
            args(&["copilot", "--yolo"]),
            args(&["copilot", "--allow-all"]),
        ] {
            assert!(ClientFlags::from_parts(&unasked, None, None).rewrite_allowed());
        }
        // Tools alone: the runner's paths would still be asked about.
        let tools_only = args(&["copilot", "-p", "x", "--allow-all-tools"]);
        assert!(!ClientFlags::from_parts(&tools_only, None, None).rewrite_allowed());
        let asks = args(&["copilot", "-p", "x", "--allow-all-paths"]);
        assert!(!ClientFlags::from_parts(&asks, None, None).rewrite_allowed());
        assert!(ClientFlags::from_parts(&asks, Some(" Yes "), None).rewrite_allowed());
        assert!(!ClientFlags::from_parts(&asks, Some("false"), None).rewrite_allowed());
        for deny in [
            args(&["copilot", "--yolo", "--deny-tool", "shell(git push)"]),
            args(&["copilot", "--yolo", "--deny-tool=shell(rm)"]),
            args(&["copilot", "--yolo", "--deny-url=evil.example"]),
        ] {
            assert!(!ClientFlags::from_parts(&deny, None, None).rewrite_allowed());
        }
        let yolo = args(&["copilot", "--yolo"]);
        let settings = r#"{ // mine
  "deniedUrls": ["evil.example"] }"#;
        assert!(!ClientFlags::from_parts(&yolo, None, Some(settings)).rewrite_allowed());
        // A look-alike flag is not the flag.
        let look = args(&["copilot", "--allow-all-toolsx", "--deny-toolbox"]);
        assert_eq!(
            ClientFlags::from_parts(&look, None, None),
            ClientFlags::default()
        );
    }
}
