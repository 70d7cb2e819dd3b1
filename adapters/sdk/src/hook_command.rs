//! The command line a client's hook config runs, rendered and read back.
//!
//! Every supported client runs a hook command through a shell whose environment carries no
//! `PATH`, so the command names `acc-hook` by its absolute path:
//!
//! ```text
//! "/abs/acc-hook" [--data-home "/abs/data"] <adapter-id> <Event>
//! ```
//!
//! Paths are double-quoted with `"`, `\`, `$` and backtick escaped, which is the whole set a
//! POSIX shell still interprets inside double quotes. The data home is pinned whenever the
//! install ran with a non-default one, so the hook opens the same store as the CLI. The
//! client's own event name comes last: one client (Antigravity) learns which hook ran only
//! from it.

use std::path::{Path, PathBuf};

use crate::install::InstallContext;

/// The file name of acc's hook runtime. A hook entry whose command runs a program with this
/// name looks like acc's; whether it is this install's is [`crate::hook_owner::HookOwner`]'s
/// call.
pub const HOOK_BINARY: &str = "acc-hook";

/// The option that pins the data home into a hook command.
pub const DATA_HOME_FLAG: &str = "--data-home";

/// One hook command, structured.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HookCommand {
    /// The `acc-hook` executable; absolute in everything acc writes.
    pub executable: PathBuf,
    /// The pinned data home, when there is one.
    pub data_home: Option<PathBuf>,
    pub adapter_id: String,
    /// The client's own event name (`SessionStart`, `BeforeAgent`, ...).
    pub event: String,
}

impl HookCommand {
    /// The command install writes for `adapter_id`'s `event` under `ctx`.
    pub fn for_context(ctx: &InstallContext, adapter_id: &str, event: &str) -> HookCommand {
        HookCommand {
            executable: ctx.hook_executable.clone(),
            data_home: ctx.pinned_data_home.clone(),
            adapter_id: adapter_id.to_owned(),
            event: event.to_owned(),
        }
    }

    /// The shell text, in the one shape acc writes.
    pub fn render(&self) -> String {
        let mut out = shell_quote(&self.executable);
        if let Some(home) = &self.data_home {
            out.push(' ');
            out.push_str(DATA_HOME_FLAG);
            out.push(' ');
            out.push_str(&shell_quote(home));
        }
        out.push(' ');
        out.push_str(&self.adapter_id);
        out.push(' ');
        out.push_str(&self.event);
        out
    }

    /// Reads a command back. `None` when it does not run `acc-hook` in the shape
    /// `[--data-home DIR] <adapter-id> <event>` (whatever quoting the words use).
    pub fn parse(command: &str) -> Option<HookCommand> {
        let words = shell_words(command)?;
        let (program, rest) = words.split_first()?;
        if !runs_acc_hook_program(program) {
            return None;
        }
        let (data_home, rest) = match rest {
            [flag, dir, rest @ ..] if flag == DATA_HOME_FLAG => (Some(PathBuf::from(dir)), rest),
            _ => (None, rest),
        };
        match rest {
            [adapter_id, event] if !adapter_id.starts_with('-') => Some(HookCommand {
                executable: PathBuf::from(program),
                data_home,
                adapter_id: adapter_id.clone(),
                event: event.clone(),
            }),
            _ => None,
        }
    }
}

/// True when `command`'s program is `acc-hook`, whatever its arguments: an entry that looks
/// like acc's, whichever install (or a user's own program of that name) it is. Never enough
/// to replace or remove an entry: see [`crate::hook_owner::HookOwner`].
pub fn runs_acc_hook(command: &str) -> bool {
    shell_words(command)
        .and_then(|words| words.into_iter().next())
        .is_some_and(|program| runs_acc_hook_program(&program))
}

fn runs_acc_hook_program(program: &str) -> bool {
    Path::new(program)
        .file_name()
        .is_some_and(|name| name == HOOK_BINARY)
}

/// `path` double-quoted for a POSIX shell.
pub fn shell_quote(path: &Path) -> String {
    let text = path.to_string_lossy();
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        if matches!(c, '"' | '\\' | '$' | '`') {
            out.push('\\');
        }
        out.push(c);
    }
    out.push('"');
    out
}

/// Splits shell text into words the way a POSIX shell would for the simple commands acc
/// writes: double quotes (with the four escapes), single quotes, and backslash escapes.
/// `None` for an unclosed quote or anything that is not a plain simple command (operators,
/// substitutions, redirections), which acc never writes.
fn shell_words(text: &str) -> Option<Vec<String>> {
    let mut words = Vec::new();
    let mut current = String::new();
    let mut in_word = false;
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        match c {
            ' ' | '\t' => {
                if in_word {
                    words.push(std::mem::take(&mut current));
                    in_word = false;
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next()? {
                        '"' => break,
                        '\\' => {
                            let next = chars.next()?;
                            if !matches!(next, '"' | '\\' | '$' | '`' | '\n') {
                                current.push('\\');
                            }
                            if next != '\n' {
                                current.push(next);
                            }
                        }
                        '$' | '`' => return None,
                        other => current.push(other),
                    }
                }
            }
            '\'' => {
                in_word = true;
                loop {
                    match chars.next()? {
                        '\'' => break,
                        other => current.push(other),
                    }
                }
            }
            '\\' => {
                in_word = true;
                current.push(chars.next()?);
            }
            ';' | '&' | '|' | '<' | '>' | '(' | ')' | '$' | '`' | '\n' => return None,
            other => {
                in_word = true;
                current.push(other);
            }
        }
    }
    if in_word {
        words.push(current);
    }
    Some(words)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn command(exe: &str, data_home: Option<&str>) -> HookCommand {
        HookCommand {
            executable: PathBuf::from(exe),
            data_home: data_home.map(PathBuf::from),
            adapter_id: "claude-code".to_owned(),
            event: "SessionStart".to_owned(),
        }
    }

    #[test]
    fn renders_the_architecture_shape() {
        assert_eq!(
            command("/opt/acc/bin/acc-hook", None).render(),
            r#""/opt/acc/bin/acc-hook" claude-code SessionStart"#
        );
        assert_eq!(
            command("/opt/acc/bin/acc-hook", Some("/data/acc home")).render(),
            r#""/opt/acc/bin/acc-hook" --data-home "/data/acc home" claude-code SessionStart"#
        );
    }

    #[test]
    fn escapes_exactly_what_a_shell_reads_inside_double_quotes() {
        let hostile = r#"/tmp/a"b\c$HOME`id`'d e/acc-hook"#;
        let rendered = command(hostile, None).render();
        assert_eq!(
            rendered,
            r#""/tmp/a\"b\\c\$HOME\`id\`'d e/acc-hook" claude-code SessionStart"#
        );
        assert_eq!(HookCommand::parse(&rendered), Some(command(hostile, None)));
    }

    #[test]
    fn the_rendered_command_is_what_sh_sees() {
        // The real shell is the authority on quoting: it must see the same words we meant.
        let hostile = r#"/tmp/x "y" \z $HOME `q` 'w'/acc-hook"#;
        let rendered = command(hostile, Some("/d/$X")).render();
        let out = std::process::Command::new("sh")
            .arg("-c")
            .arg(format!("printf '%s\\n' {rendered}"))
            .env_clear()
            .output()
            .unwrap();
        let words: Vec<String> = String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .map(str::to_owned)
            .collect();
        assert_eq!(
            words,
            [
                hostile,
                "--data-home",
                "/d/$X",
                "claude-code",
                "SessionStart"
            ]
        );
    }

    #[test]
    fn parses_other_quotings_of_the_same_words() {
        let expected = command("/opt/acc-hook", Some("/d"));
        for text in [
            "/opt/acc-hook --data-home /d claude-code SessionStart",
            "'/opt/acc-hook' --data-home '/d' claude-code SessionStart",
            "  \"/opt/acc-hook\"   --data-home \"/d\" claude-code\tSessionStart ",
        ] {
            assert_eq!(HookCommand::parse(text).as_ref(), Some(&expected), "{text}");
        }
    }

    #[test]
    fn refuses_what_acc_never_writes() {
        for text in [
            "",
            "/opt/other-hook claude-code SessionStart",
            "/opt/acc-hook claude-code",
            "/opt/acc-hook claude-code SessionStart extra",
            "/opt/acc-hook --data-home /d",
            "/opt/acc-hook claude-code SessionStart; rm -rf /",
            "\"/opt/acc-hook claude-code SessionStart",
            "/opt/acc-hook $(id) SessionStart",
        ] {
            assert_eq!(HookCommand::parse(text), None, "{text}");
        }
    }

    #[test]
    fn recognises_any_command_running_acc_hook() {
        assert!(runs_acc_hook("\"/x/acc-hook\" codex Stop"));
        assert!(runs_acc_hook("acc-hook codex"));
        assert!(runs_acc_hook("/old/place/acc-hook --whatever"));
        assert!(!runs_acc_hook("/x/acc-hook-wrapper codex Stop"));
        assert!(!runs_acc_hook("sh -c '/x/acc-hook codex Stop'"));
        assert!(!runs_acc_hook("/x/my-acc-hook codex Stop"));
        assert!(!runs_acc_hook("echo acc-hook"));
    }
}
