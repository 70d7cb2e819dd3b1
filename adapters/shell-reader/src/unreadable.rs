//! Why a shell command cannot be read, and what the agent can do instead.
//!
//! Every reason is shown to the agent whose call was refused, so each one names the construct
//! acc could not follow and says how to rephrase. Only fixed text and a short, sanitised
//! program name go into it: never the command's own text, which may carry anything.

use std::fmt;

/// Why the lexer could not split a command. Any of these makes the whole command unreadable;
/// it lives here, with every other reason, so the lexer depends on the reasons and not the
/// other way round.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LexError {
    UnclosedQuote,
    /// `$(`, `${`, a backtick or a process substitution without its closing character.
    UnbalancedSubstitution,
    /// `<<` with no delimiter word after it.
    MissingHeredocDelimiter,
}

/// The longest program name quoted in a reason.
const MAX_NAME_CHARS: usize = 40;

/// Why the targets of a command cannot be known before it runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unreadable {
    /// The text is not a complete shell command.
    Syntax(LexError),
    /// A command substitution (`$(…)`, backticks) builds a written path or a command name.
    Substitution,
    /// A variable whose value is unknown before the command runs names a written path.
    UnknownVariable { name: String },
    /// A relative path is written after a `cd` to a directory known only at runtime.
    UnknownDirectory,
    /// `~user` or `~` with no home directory known.
    UnknownHome,
    /// Inline interpreter code: `python3 -c`, `node -e`, `perl -e`, `awk` with `system()`.
    InlineCode { program: String, flag: String },
    /// A script fed to a shell on standard input (`bash <<EOF`, `sh < x.sh`, `… | bash`).
    ScriptOnStdin { program: String },
    /// `sh -c` or `eval` whose script is only known at runtime.
    DynamicScript { program: String },
    /// `source` or `.`: the commands of a file this reader cannot see.
    Source,
    /// An alias or function defined in the command: later words may run it.
    Definition { what: &'static str },
    /// `trap` or `coproc`: commands that run at a time this reader cannot place.
    Deferred { program: String },
    /// `xargs`, `find -exec`, `parallel` running a program that writes, on files chosen at
    /// runtime.
    Runner { program: String, runs: String },
    /// A program that runs another command in a way this reader does not model.
    Wrapper { program: String },
    /// A writing command whose arguments (options included) are only known at runtime.
    DynamicArguments { program: String },
    /// A glob in a written path that cannot be listed here (no file system to look at).
    Glob,
    /// Too many alternatives or nested scripts to follow.
    TooComplex,
    /// The command is larger than a hook can judge in its budget.
    TooLarge,
    /// A Codex patch this reader cannot parse the way Codex would.
    Patch { why: &'static str },
}

impl Unreadable {
    /// A stable code, for logs and tests.
    pub fn code(&self) -> &'static str {
        match self {
            Unreadable::Syntax(_) => "shell.syntax",
            Unreadable::Substitution => "shell.substitution",
            Unreadable::UnknownVariable { .. } => "shell.unknown-variable",
            Unreadable::UnknownDirectory => "shell.unknown-directory",
            Unreadable::UnknownHome => "shell.unknown-home",
            Unreadable::InlineCode { .. } => "shell.inline-code",
            Unreadable::ScriptOnStdin { .. } => "shell.script-on-stdin",
            Unreadable::DynamicScript { .. } => "shell.dynamic-script",
            Unreadable::Source => "shell.source",
            Unreadable::Definition { .. } => "shell.definition",
            Unreadable::Deferred { .. } => "shell.deferred",
            Unreadable::Runner { .. } => "shell.runner",
            Unreadable::Wrapper { .. } => "shell.wrapper",
            Unreadable::DynamicArguments { .. } => "shell.dynamic-arguments",
            Unreadable::Glob => "shell.glob",
            Unreadable::TooComplex => "shell.too-complex",
            Unreadable::TooLarge => "shell.too-large",
            Unreadable::Patch { .. } => "patch.unreadable",
        }
    }

    pub fn inline_code(program: &str, flag: &str) -> Unreadable {
        Unreadable::InlineCode {
            program: shown(program),
            flag: shown(flag),
        }
    }

    pub fn script_on_stdin(program: &str) -> Unreadable {
        Unreadable::ScriptOnStdin {
            program: shown(program),
        }
    }

    pub fn dynamic_script(program: &str) -> Unreadable {
        Unreadable::DynamicScript {
            program: shown(program),
        }
    }

    pub fn deferred(program: &str) -> Unreadable {
        Unreadable::Deferred {
            program: shown(program),
        }
    }

    pub fn runner(program: &str, runs: &str) -> Unreadable {
        Unreadable::Runner {
            program: shown(program),
            runs: shown(runs),
        }
    }

    pub fn wrapper(program: &str) -> Unreadable {
        Unreadable::Wrapper {
            program: shown(program),
        }
    }

    pub fn dynamic_arguments(program: &str) -> Unreadable {
        Unreadable::DynamicArguments {
            program: shown(program),
        }
    }

    pub fn unknown_variable(name: &str) -> Unreadable {
        Unreadable::UnknownVariable { name: shown(name) }
    }
}

/// A name fit to quote in a reason: short, printable, without backticks.
pub(super) fn shown(name: &str) -> String {
    let mut out: String = name
        .chars()
        .filter(|c| !c.is_control() && *c != '`')
        .take(MAX_NAME_CHARS)
        .collect();
    if name.chars().count() > MAX_NAME_CHARS {
        out.push('…');
    }
    out
}

impl From<LexError> for Unreadable {
    fn from(error: LexError) -> Self {
        Unreadable::Syntax(error)
    }
}

impl fmt::Display for Unreadable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Unreadable::Syntax(error) => {
                let what = match error {
                    LexError::UnclosedQuote => "a quote is never closed",
                    LexError::UnbalancedSubstitution => "a substitution is never closed",
                    LexError::MissingHeredocDelimiter => "a heredoc has no delimiter",
                };
                write!(
                    f,
                    "acc cannot read this command ({what}); fix the quoting and run it again"
                )
            }
            Unreadable::Substitution => f.write_str(
                "acc cannot tell what a command substitution ($(…) or backticks) produces where \
                 it names a written file or the command itself; spell the path out",
            ),
            Unreadable::UnknownVariable { name } => write!(
                f,
                "acc cannot tell the value of ${name} where it names a written file; spell the \
                 path out, or assign it earlier in the same command (`D=src; … > $D/x`)"
            ),
            Unreadable::UnknownDirectory => f.write_str(
                "acc cannot tell which directory a relative path is written in after `cd` to a \
                 directory known only at runtime; `cd` to a literal path or write absolute paths",
            ),
            Unreadable::UnknownHome => f.write_str(
                "acc cannot tell which directory `~` names here; write the path out in full",
            ),
            Unreadable::InlineCode { program, flag } => write!(
                f,
                "acc cannot tell what `{program} {flag}` writes; write the file with the file \
                 tool, or run a script whose written files are named in the command"
            ),
            Unreadable::ScriptOnStdin { program } => write!(
                f,
                "acc cannot read a script fed to `{program}` on standard input; run the commands \
                 directly"
            ),
            Unreadable::DynamicScript { program } => write!(
                f,
                "acc cannot read a `{program}` script that is only known at runtime; run the \
                 commands directly with literal paths"
            ),
            Unreadable::Source => f.write_str(
                "acc cannot read the commands `source` (or `.`) runs from a file; run them \
                 directly",
            ),
            Unreadable::Definition { what } => write!(
                f,
                "acc cannot follow {what} defined in the command; run the commands directly"
            ),
            Unreadable::Deferred { program } => write!(
                f,
                "acc cannot tell when or what `{program}` runs; run the commands directly"
            ),
            Unreadable::Runner { program, runs } => write!(
                f,
                "acc cannot tell which files `{program} … {runs}` writes (they are chosen at \
                 runtime); name the files in the command"
            ),
            Unreadable::Wrapper { program } => write!(
                f,
                "acc cannot read the command `{program}` runs; run that command directly"
            ),
            Unreadable::DynamicArguments { program } => write!(
                f,
                "acc cannot tell what `{program}` writes when its arguments are only known at \
                 runtime; spell them out"
            ),
            Unreadable::Glob => f.write_str(
                "acc cannot list the files a pattern matches here; name the files in the command",
            ),
            Unreadable::TooComplex => f.write_str(
                "acc cannot follow this many nested scripts or alternatives; split the command",
            ),
            Unreadable::TooLarge => f.write_str("the command is too large to judge; split it"),
            Unreadable::Patch { why } => write!(
                f,
                "acc cannot read this patch the way apply_patch would ({why}); send one \
                 well-formed `*** Begin Patch` … `*** End Patch` body"
            ),
        }
    }
}

impl std::error::Error for Unreadable {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_in_reasons_are_short_and_printable() {
        let reason = Unreadable::inline_code(&format!("py`\n{}", "x".repeat(100)), "-c");
        let text = reason.to_string();
        assert!(!text.contains('\n'));
        assert!(text.contains('…'));
        assert!(text.len() < 300, "{text}");
        assert_eq!(reason.code(), "shell.inline-code");
    }
}
