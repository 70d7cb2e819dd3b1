//! Which files a shell command would write, read statically from its text (CLIENTS.md §2).
//!
//! The guard uses this for shell tools. It is a reader, not a shell: it never runs or
//! expands anything. What it reads:
//! - Heredoc bodies are skipped; `#` comments are dropped.
//! - A backslash escapes the next character and quotes are literal; either marks the word
//!   quoted. An unclosed quote makes the command unreadable.
//! - Commands are split at `;`, `&&`, `||`, `|`, `|&`, `&`, `;;` and newlines; `(`…`)`
//!   subshells scope directory changes.
//! - Redirections: `>`, `>>`, `>|`, `&>`, `&>>` and `<>` (with any descriptor prefix, as in
//!   `2>`) write the next word unless it is an operator, starts with `&`, or is one of
//!   `/dev/null`, `/dev/stdout`, `/dev/stderr`, `/dev/tty`. `>&` with a file name (not a
//!   descriptor number or `-`) writes that file, as bash does. `<`, `<<`, `<<<`, `<&` write
//!   nothing.
//! - The command word comes after unquoted `NAME=value` words, compound-command keywords
//!   (`if`, `then`, `do`, `{`, `!`, ...) and wrappers with their options (`sudo`, `doas`,
//!   `command`, `builtin`, `exec`, `nohup`, `time`, `nice`, `env`, `timeout`, `stdbuf`); its
//!   basename picks the rule in the `commands` module.
//! - `cd`/`pushd`/`popd` with a literal directory move later relative targets into it;
//!   after a directory only known at runtime (`cd`, `cd -`, `cd ~/x`, `cd "$D"`) a relative
//!   target makes the command unreadable.
//! - `sh -c '…'`, `bash -lc '…'` and `eval …` are read in turn (up to a small depth).
//! - `cp`, `mv`, `ln` and `install` write their destination and, unless `-T` is given, the
//!   entry each source becomes if it is a directory (`cp a.rs src/` writes `src/` and
//!   `src/a.rs`). What `rm`, `rmdir`, `mv` (its sources) and `git restore`/`checkout --`/`rm`
//!   name is written whole ([`ShellTarget::whole`]).
//! - `apply_patch` (Codex's patch tool run as a command) writes the files its patch names,
//!   whether the patch is its argument or a heredoc on its standard input.
//! - `$(…)` and backticks stay opaque: nothing inside them is a target, an unbalanced one
//!   makes the command unreadable, and so does a target that contains one (its value exists
//!   only at runtime). `$NAME`, globs and `~` are kept literally, as written.
//!
//! Not seen, by design: reads, writes made by interpreters (`python -c`), files a program
//! chooses itself, and commands fed from standard input (`xargs`).

mod commands;
mod editors;
mod effect;
mod git;
mod lexer;
mod options;
mod wrappers;

use std::collections::HashSet;

use commands::simple_command;
use effect::{DirChange, Effect, Target, join};
use lexer::{Redirect, Token, Word, tokenize};

/// Files that are never real write targets.
const SINKS: [&str; 4] = ["/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty"];

/// How deep `sh -c` and `eval` strings are followed.
const MAX_SCRIPT_DEPTH: usize = 8;

/// The paths `command` would write, in order, without duplicates; `[]` when the command is
/// blank or cannot be read. Never panics.
pub fn shell_write_targets(command: &str) -> Vec<String> {
    parse_shell_write_targets(command).unwrap_or_default()
}

/// Like [`shell_write_targets`], but `None` when the command cannot be read (an unclosed
/// quote or substitution, a target built at runtime), so the guard can mark the call
/// unguarded instead of calling it harmless.
pub fn parse_shell_write_targets(command: &str) -> Option<Vec<String>> {
    Some(
        parse_shell_write_reach(command)?
            .into_iter()
            .map(|t| t.path)
            .collect(),
    )
}

/// One path a shell command writes, and how much of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShellTarget {
    pub path: String,
    /// Removed, moved away or restored whole (`rm -r`, `mv`'s sources, `git restore`,
    /// `git checkout --`): a directory here has everything under it written. Otherwise
    /// the path itself is written, and a directory only gains an entry (`cp f dir/`).
    pub whole: bool,
}

/// Like [`parse_shell_write_targets`], with each path's reach.
pub fn parse_shell_write_reach(command: &str) -> Option<Vec<ShellTarget>> {
    let mut found = Found::default();
    walk(command, Cwd::Known(String::new()), 0, &mut found).ok()?;
    Some(found.paths)
}

/// The command cannot be read: its targets are unknown.
struct Unreadable;

impl From<lexer::LexError> for Unreadable {
    fn from(_: lexer::LexError) -> Self {
        Unreadable
    }
}

/// The directory commands run in, relative to the one the command started in.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Cwd {
    /// `""` is the starting directory; otherwise a relative or absolute path.
    Known(String),
    Unknown,
}

#[derive(Default)]
struct Found {
    paths: Vec<ShellTarget>,
    seen: HashSet<String>,
}

#[derive(Clone)]
struct Shell {
    cwd: Cwd,
    dir_stack: Vec<Cwd>,
}

fn walk(script: &str, cwd: Cwd, depth: usize, found: &mut Found) -> Result<(), Unreadable> {
    if depth > MAX_SCRIPT_DEPTH {
        return Err(Unreadable);
    }
    let mut shell = Shell {
        cwd,
        dir_stack: Vec::new(),
    };
    let mut subshells: Vec<Shell> = Vec::new();
    let mut words: Vec<Word> = Vec::new();
    // The last heredoc body fed to the command being read: its standard input.
    let mut stdin: Option<String> = None;
    let mut tokens = tokenize(script)?.into_iter().peekable();
    while let Some(token) = tokens.next() {
        match token {
            Token::Word(word) => {
                process_substitution(&word, &shell, depth, found)?;
                words.push(word);
            }
            Token::Redirect(redirect) => {
                let target = tokens.next_if(|t| matches!(t, Token::Word(_)));
                if let Some(Token::Word(mut word)) = target {
                    if redirect == Redirect::Heredoc {
                        stdin = word.heredoc_body.take();
                    }
                    process_substitution(&word, &shell, depth, found)?;
                    redirection(redirect, &word, &shell, found)?;
                }
            }
            Token::Separator => run(
                &std::mem::take(&mut words),
                stdin.take(),
                &mut shell,
                depth,
                found,
            )?,
            Token::OpenGroup => {
                run(
                    &std::mem::take(&mut words),
                    stdin.take(),
                    &mut shell,
                    depth,
                    found,
                )?;
                subshells.push(shell.clone());
            }
            Token::CloseGroup => {
                run(
                    &std::mem::take(&mut words),
                    stdin.take(),
                    &mut shell,
                    depth,
                    found,
                )?;
                // A stray `)` (a `case` pattern, say) closes nothing.
                if let Some(outer) = subshells.pop() {
                    shell = outer;
                }
            }
        }
    }
    run(&words, stdin, &mut shell, depth, found)
}

/// The commands inside `<(…)` or `>(…)` run too (`echo > >(tee f)` writes `f`).
fn process_substitution(
    word: &Word,
    shell: &Shell,
    depth: usize,
    found: &mut Found,
) -> Result<(), Unreadable> {
    if !word.process {
        return Ok(());
    }
    let inner = word
        .text
        .get(2..word.text.len().saturating_sub(1))
        .ok_or(Unreadable)?;
    walk(inner, shell.cwd.clone(), depth + 1, found)
}

fn redirection(
    redirect: Redirect,
    word: &Word,
    shell: &Shell,
    found: &mut Found,
) -> Result<(), Unreadable> {
    let writes = match redirect {
        Redirect::Write => true,
        // `2>&1`, `>&-`, `>&3-` duplicate or close descriptors; `>& file` writes the file.
        Redirect::DupOut => !word
            .text
            .trim_end_matches('-')
            .bytes()
            .all(|b| b.is_ascii_digit()),
        Redirect::Read | Redirect::Heredoc => false,
    };
    if !writes || word.process || (word.text.starts_with('&') && word.unquoted_through(1)) {
        return Ok(());
    }
    record(
        Target {
            text: word.text.clone(),
            dynamic: word.substituted,
            whole: false,
        },
        shell,
        found,
    )
}

fn run(
    words: &[Word],
    stdin: Option<String>,
    shell: &mut Shell,
    depth: usize,
    found: &mut Found,
) -> Result<(), Unreadable> {
    if words.is_empty() {
        return Ok(());
    }
    match simple_command(words, stdin.as_deref()) {
        Effect::Writes(targets) => targets
            .into_iter()
            .try_for_each(|t| record(t, shell, found)),
        Effect::ChangeDir(change) => {
            change_dir(change, shell);
            Ok(())
        }
        Effect::Script(script) => walk(&script, shell.cwd.clone(), depth + 1, found),
        Effect::Unknown => Err(Unreadable),
    }
}

fn change_dir(change: DirChange, shell: &mut Shell) {
    match change {
        DirChange::Enter { dir, push } => {
            let entered = match &shell.cwd {
                _ if dir.starts_with('/') => Cwd::Known(dir),
                Cwd::Known(base) => Cwd::Known(join(base, &dir)),
                Cwd::Unknown => Cwd::Unknown,
            };
            let previous = std::mem::replace(&mut shell.cwd, entered);
            if push {
                shell.dir_stack.push(previous);
            }
        }
        DirChange::Pop => shell.cwd = shell.dir_stack.pop().unwrap_or(Cwd::Unknown),
        DirChange::Unknown => shell.cwd = Cwd::Unknown,
    }
}

fn record(target: Target, shell: &Shell, found: &mut Found) -> Result<(), Unreadable> {
    if target.dynamic {
        return Err(Unreadable);
    }
    if target.text.is_empty() || SINKS.contains(&target.text.as_str()) {
        return Ok(());
    }
    let path = match &shell.cwd {
        _ if target.text.starts_with('/') => target.text,
        Cwd::Known(base) => join(base, &target.text),
        Cwd::Unknown => return Err(Unreadable),
    };
    if SINKS.contains(&path.as_str()) {
        return Ok(());
    }
    if found.seen.insert(path.clone()) {
        found.paths.push(ShellTarget {
            path,
            whole: target.whole,
        });
    } else if target.whole
        && let Some(seen) = found.paths.iter_mut().find(|t| t.path == path)
    {
        seen.whole = true;
    }
    Ok(())
}
