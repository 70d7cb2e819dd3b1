//! `--help` under `--json`: the command's interface as data, so a tool can learn the flags
//! without scraping the help page. Built from the same clap declaration the parser uses,
//! so it cannot drift from what `acc` accepts.

use clap::{ArgAction, Command, CommandFactory};
use serde::Serialize;
use std::collections::BTreeMap;

use super::args::Cli;
use crate::core::model::{
    Authority, ClaimMode, Enforcement, HandoffStatus, IntentMode, IntentState, MessageKind,
    Obligation, SyncScope,
};

/// The closed vocabularies behind string options. The parser leaves these to the core (whose
/// refusal lists the choices), so they are named here from the same enums.
fn vocabulary(command: &str, flag: &str) -> Option<Vec<&'static str>> {
    fn names<T: Copy>(all: &[T], name: fn(T) -> &'static str) -> Option<Vec<&'static str>> {
        Some(all.iter().map(|v| name(*v)).collect())
    }
    match (command, flag) {
        ("attach" | "claim", "--enforcement") => names(Enforcement::ALL, Enforcement::as_str),
        ("claim", "--mode") => names(ClaimMode::ALL, ClaimMode::as_str),
        ("release", "--authority") => names(Authority::ALL, Authority::as_str),
        ("sync", "--scope") => names(SyncScope::ALL, SyncScope::as_str),
        ("work", "--mode") => names(IntentMode::ALL, IntentMode::as_str),
        ("work", "--state") => names(IntentState::ALL, IntentState::as_str),
        ("message", "--type") => names(MessageKind::ALL, MessageKind::as_str),
        ("message", "--obligation") => names(Obligation::ALL, Obligation::as_str),
        ("finish", "--status") => names(HandoffStatus::ALL, HandoffStatus::as_str),
        _ => None,
    }
}

/// One command's interface: what CLI-MCP.md's help object names.
#[derive(Debug, Serialize, PartialEq, Eq)]
pub struct CommandHelp {
    /// `acc claim`, `acc config init`.
    pub name: String,
    pub summary: String,
    /// Options that must be given (`--resource`).
    pub required: Vec<String>,
    /// Options that take a value and may be left out.
    pub optional: Vec<String>,
    /// Options that may be given more than once.
    pub repeated: Vec<String>,
    /// Options without a value (`--shared`), global ones included.
    pub flags: Vec<String>,
    pub subcommands: Vec<String>,
    /// The closed set of values an option takes, where it has one.
    pub choices: BTreeMap<String, Vec<String>>,
    /// The long description and the examples, as lines.
    pub notes: Vec<String>,
}

/// The command `path` names (`["config", "init"]`); the root for an empty or unknown path.
fn find(path: &[String]) -> (Command, Vec<String>) {
    let mut cmd = Cli::command();
    cmd.build();
    let mut known = Vec::new();
    for name in path {
        // The built command knows clap's own `help`; it names no command of acc's.
        let Some(sub) = cmd
            .find_subcommand(name)
            .filter(|_| name != "help")
            .cloned()
        else {
            break;
        };
        known.push(name.clone());
        cmd = sub;
    }
    (cmd, known)
}

/// The longest prefix of `words` that names a command (`["config", "init"]`).
pub fn known_path(words: &[String]) -> Vec<String> {
    find(words).1
}

/// `acc help <path>`: every word must name a subcommand; the first that does not is the
/// error.
pub fn describe_exact(path: &[String]) -> Result<CommandHelp, String> {
    let words = match path.split_first() {
        Some((first, rest)) if first == "help" => rest,
        _ => path,
    };
    let (_, known) = find(words);
    match words.get(known.len()) {
        Some(unknown) => Err(unknown.clone()),
        None => Ok(describe(words)),
    }
}

/// The help object for the command `path` names. `acc help claim` is given as
/// `["help", "claim"]` and answers for `claim`.
pub fn describe(path: &[String]) -> CommandHelp {
    let path = match path.split_first() {
        Some((first, rest)) if first == "help" => rest,
        _ => path,
    };
    let (cmd, known) = find(path);
    let mut help = CommandHelp {
        name: std::iter::once("acc".to_string())
            .chain(known)
            .collect::<Vec<_>>()
            .join(" "),
        summary: cmd.get_about().map(|s| s.to_string()).unwrap_or_default(),
        required: Vec::new(),
        optional: Vec::new(),
        repeated: Vec::new(),
        flags: Vec::new(),
        subcommands: cmd
            .get_subcommands()
            .filter(|s| s.get_name() != "help" && !s.is_hide_set())
            .map(|s| s.get_name().to_string())
            .collect(),
        choices: BTreeMap::new(),
        notes: Vec::new(),
    };
    for arg in cmd.get_arguments().filter(|a| !a.is_hide_set()) {
        let Some(long) = arg.get_long() else {
            continue;
        };
        let flag = format!("--{long}");
        match arg.get_action() {
            ArgAction::Help | ArgAction::HelpLong | ArgAction::HelpShort | ArgAction::Version => {}
            ArgAction::SetTrue | ArgAction::SetFalse | ArgAction::Count => {
                help.flags.push(flag.clone())
            }
            action => {
                if arg.is_required_set() {
                    help.required.push(flag.clone());
                } else {
                    help.optional.push(flag.clone());
                }
                if matches!(action, ArgAction::Append) {
                    help.repeated.push(flag.clone());
                }
            }
        }
        let mut values: Vec<String> = arg
            .get_possible_values()
            .iter()
            .filter(|v| !v.is_hide_set())
            .map(|v| v.get_name().to_string())
            .collect();
        if let Some(words) = vocabulary(cmd.get_name(), &flag) {
            values = words.into_iter().map(str::to_string).collect();
        }
        if !values.is_empty() && !matches!(arg.get_action(), ArgAction::SetTrue) {
            help.choices.insert(flag, values);
        }
    }
    let long = cmd.get_long_about().or(cmd.get_about());
    let after = cmd.get_after_help();
    help.notes = long
        .into_iter()
        .chain(after)
        .flat_map(|text| {
            text.to_string()
                .lines()
                .map(str::trim_end)
                .filter(|l| !l.is_empty())
                .map(str::to_string)
                .collect::<Vec<_>>()
        })
        .collect();
    help
}

#[cfg(test)]
mod tests {
    use super::*;

    fn path(words: &[&str]) -> Vec<String> {
        words.iter().map(|w| w.to_string()).collect()
    }

    #[test]
    fn a_command_lists_its_options_by_kind() {
        let h = describe(&path(&["claim"]));
        assert_eq!(h.name, "acc claim");
        assert!(h.required.contains(&"--resource".to_string()), "{h:?}");
        assert!(h.optional.contains(&"--session".to_string()), "{h:?}");
        assert!(h.flags.contains(&"--json".to_string()), "{h:?}");
        assert!(!h.flags.contains(&"--help".to_string()), "{h:?}");
        assert!(h.subcommands.is_empty());
        assert!(h.notes.iter().any(|l| l.contains("acc claim")), "{h:?}");
    }

    #[test]
    fn repeated_options_and_choices_are_named() {
        let h = describe(&path(&["message"]));
        assert!(h.repeated.contains(&"--to".to_string()), "{h:?}");
        assert!(h.optional.contains(&"--to".to_string()), "{h:?}");
        assert!(
            h.choices["--type"].contains(&"question".to_string()),
            "{h:?}"
        );
        let claim = describe(&path(&["claim"]));
        assert_eq!(claim.choices["--mode"], ["shared", "exclusive"]);
        assert_eq!(claim.choices["--enforcement"], ["advisory", "guarded"]);
    }

    #[test]
    fn nested_and_help_prefixed_paths_answer_for_the_command() {
        let config = describe(&path(&["config"]));
        assert_eq!(config.name, "acc config");
        assert_eq!(config.subcommands, ["init", "validate"]);
        assert_eq!(
            describe(&path(&["help", "config", "init"])).name,
            "acc config init"
        );
        assert_eq!(
            describe_exact(&path(&["help", "config", "nosuch"])),
            Err("nosuch".to_string())
        );
        assert_eq!(
            describe_exact(&path(&["help", "claim"])).map(|h| h.name),
            Ok("acc claim".to_string())
        );
        let root = describe(&[]);
        assert_eq!(root.name, "acc");
        assert!(root.subcommands.contains(&"attach".to_string()));
        assert!(!root.subcommands.contains(&"help".to_string()));
    }
}
