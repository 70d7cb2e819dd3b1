//! Which hook entries in a client's config belong to this install of acc.
//!
//! A config may hold entries that look like acc's and are not this install's: another acc
//! install with its own data home (`"/usr/local/bin/acc-hook" --data-home "/other/data" ...`),
//! or a program of the user's that happens to be called `acc-hook`. Install and uninstall
//! replace and remove only this install's entries, and keep every other entry byte for byte.
//!
//! An entry is this install's when
//! - the install record names it: its exact command, with its event and matcher, as a
//!   previous install of this data home wrote it ([`RecordedHook`]); or
//! - its command runs exactly this install's hook executable, pinning exactly this install's
//!   data home (or none, when this install pins none), for this adapter: what install writes
//!   now, and what an older record that named no commands can only be matched by.
//!
//! Never by its look alone: a command whose program is merely named `acc-hook` is not enough.

use std::path::{Path, PathBuf};

use crate::hook_command::{HookCommand, runs_acc_hook};
use crate::install::InstallContext;
/// The install record's type, named here too because this is where it is judged.
pub use crate::install::RecordedHook;

/// Decides which entries are this install's, for one adapter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HookOwner {
    adapter_id: String,
    executable: PathBuf,
    data_home: Option<PathBuf>,
    recorded: Vec<RecordedHook>,
}

impl HookOwner {
    /// The owner for `adapter_id` under `ctx`, knowing what the record says that adapter's
    /// install wrote (`ctx.recorded_hooks`).
    pub fn new(ctx: &InstallContext, adapter_id: &str) -> Self {
        HookOwner {
            adapter_id: adapter_id.to_owned(),
            executable: ctx.hook_executable.clone(),
            data_home: ctx.pinned_data_home.clone(),
            recorded: ctx.recorded_hooks.clone(),
        }
    }

    /// Whether the entry in `path` under `event`, in a group matching `matcher`, running
    /// `command`, is this install's.
    pub fn owns(&self, path: &Path, event: &str, matcher: Option<&str>, command: &str) -> bool {
        self.recorded.iter().any(|r| {
            r.path == path
                && r.event == event
                && r.matcher.as_deref() == matcher
                && r.command == command
        }) || self.runs_this_install(command)
    }

    /// The command runs this install's hook executable with this install's data home, for
    /// this adapter.
    fn runs_this_install(&self, command: &str) -> bool {
        HookCommand::parse(command).is_some_and(|c| {
            c.executable == self.executable
                && c.data_home == self.data_home
                && c.adapter_id == self.adapter_id
        })
    }

    /// What an entry that looks like acc's (its program is an `acc-hook`) but is not this
    /// install's is, in words; `None` for an entry that is this install's or does not look
    /// like acc's.
    pub fn stranger(
        &self,
        path: &Path,
        event: &str,
        matcher: Option<&str>,
        command: &str,
    ) -> Option<String> {
        if !runs_acc_hook(command) || self.owns(path, event, matcher, command) {
            return None;
        }
        let Some(parsed) = HookCommand::parse(command) else {
            return Some(
                "a program named acc-hook run in a shape acc does not write, so not acc's"
                    .to_owned(),
            );
        };
        Some(match &parsed.data_home {
            Some(home) if Some(home) != self.data_home.as_ref() => format!(
                "another acc install's, with the data home {} (run `ACC_DATA_HOME={} acc doctor` to see it)",
                home.display(),
                home.display()
            ),
            _ if parsed.executable != self.executable => format!(
                "not this acc's: {} is not this install's hook runtime {} (a program of yours, or an older acc no install record here names)",
                parsed.executable.display(),
                self.executable.display()
            ),
            None if self.data_home.is_some() => {
                "another acc install's, with the default data home".to_owned()
            }
            _ => format!(
                "for the adapter {}, not {}, so not this install's",
                parsed.adapter_id, self.adapter_id
            ),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::install::context;

    fn owner(recorded: Vec<RecordedHook>) -> HookOwner {
        let mut ctx = context(Path::new("/home/me"), &[]);
        ctx.hook_executable = PathBuf::from("/usr/local/bin/acc-hook");
        ctx.recorded_hooks = recorded;
        HookOwner::new(&ctx, "claude-code")
    }

    const FILE: &str = "/home/me/.claude/settings.json";

    #[test]
    fn only_this_installs_commands_are_owned() {
        let owner = owner(Vec::new());
        let file = Path::new(FILE);
        let owns = |c: &str| owner.owns(file, "PreToolUse", None, c);
        assert!(owns(r#""/usr/local/bin/acc-hook" claude-code PreToolUse"#));
        assert!(owns("/usr/local/bin/acc-hook claude-code SessionStart"));
        assert!(!owns("/home/me/acc-hook claude-code PreToolUse"));
        assert!(!owns(
            r#""/usr/local/bin/acc-hook" --data-home "/other/data" claude-code PreToolUse"#
        ));
        assert!(!owns(r#""/usr/local/bin/acc-hook" codex PreToolUse"#));
        assert!(!owns("/opt/tools/acc-hook-audit.sh"));
        assert!(!owns("logger acc-hook ran"));
    }

    #[test]
    fn recorded_commands_are_owned_where_and_as_they_were_written() {
        let old = "/old/bin/acc-hook claude-code Stop";
        let owner = owner(vec![RecordedHook {
            path: PathBuf::from(FILE),
            event: "Stop".to_owned(),
            matcher: None,
            command: old.to_owned(),
        }]);
        assert!(owner.owns(Path::new(FILE), "Stop", None, old));
        assert!(!owner.owns(Path::new(FILE), "Stop", Some("x"), old));
        assert!(!owner.owns(Path::new(FILE), "SessionEnd", None, old));
        assert!(!owner.owns(Path::new("/elsewhere.json"), "Stop", None, old));
    }

    #[test]
    fn strangers_are_named_for_what_they_are() {
        let owner = owner(Vec::new());
        let what = |c: &str| owner.stranger(Path::new(FILE), "PreToolUse", None, c);
        assert_eq!(
            what(r#""/usr/local/bin/acc-hook" claude-code PreToolUse"#),
            None
        );
        assert_eq!(what("logger acc-hook ran"), None);
        assert!(
            what(r#""/usr/local/bin/acc-hook" --data-home "/other/data" claude-code PreToolUse"#)
                .unwrap()
                .contains("data home /other/data")
        );
        assert!(
            what("/home/me/acc-hook claude-code PreToolUse")
                .unwrap()
                .contains("/home/me/acc-hook is not this install's hook runtime")
        );
    }
}
