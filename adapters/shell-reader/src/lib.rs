//! Which files a shell command would write, read statically from its text (README.md says
//! what it reads, what it refuses and why).
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
//! - `$(…)`, backticks, `<(…)` and `>(…)` are read like the commands they hold, wherever
//!   they stand (arguments, assignments, redirection targets, double quotes, `${…}`,
//!   arithmetic, unquoted heredoc bodies): `echo $(rm f)` removes `f`. An unbalanced one
//!   makes the command unreadable, and so does a target that contains one (its value exists
//!   only at runtime).
//! - Programs outside the command table (the `unknown` module): known read-only ones name
//!   nothing; extractors, `patch`, package managers and scaffolders write their working
//!   directory (or `-C`/`-d`/`--prefix` directory) whole; any other program may write every
//!   path it names (operands and option values), each marked [`ShellTarget::named_by`] so
//!   the guard refuses it only inside a peer's guarded claim, naming the program.
//!
//! Not seen, by design: reads, writes made by interpreters (`python -c`, a script's own
//! choices: seen after it runs), and files a program chooses itself without naming them.

mod bounded;
mod commands;
mod context;
mod editors;
mod effect;
mod expand;
mod git;
mod lexer;
mod opaque;
mod options;
pub mod patch_targets;
mod state;
mod unknown;
mod unreadable;
mod wrappers;

use std::collections::HashMap;

pub use context::{RealFs, ShellContext, ShellFs};
pub use effect::NamedBy;
pub use unreadable::{LexError, Unreadable};

use commands::{is_assignment, simple_command};
use effect::{DirChange, Effect, Target, join};
use lexer::{Redirect, Sep, Token, Word, tokenize};
use state::{Cwd, State};

/// Files that are never real write targets.
const SINKS: [&str; 4] = ["/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty"];

/// How deep `sh -c` and `eval` strings are followed.
const MAX_SCRIPT_DEPTH: usize = 8;

/// The longest command judged: a hook has a few seconds, and an agent never needs more
/// than this in one call. Longer is refused as too large to judge.
pub const MAX_COMMAND_BYTES: usize = 1 << 20;

/// The most targets one command may have before it is too large to judge.
pub const MAX_TARGETS: usize = 250_000;

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
    /// Set when the command is not known to write this path, only that it may: a program
    /// acc does not know to be read-only names it (`chmod 000 src/lib.rs`), or writes into
    /// it as its working directory (`tar xf a.tar`). The guard refuses it only inside a
    /// peer's guarded claim, saying acc could not bound the program.
    pub named_by: Option<NamedBy>,
}

/// Like [`parse_shell_write_targets`], with each path's reach, read with no context (see
/// [`ShellContext::DETACHED`]).
pub fn parse_shell_write_reach(command: &str) -> Option<Vec<ShellTarget>> {
    read_shell_command(command, &ShellContext::DETACHED).ok()
}

/// The paths `command` writes when run where `ctx` says, each with its reach, in order and
/// without duplicates; or why they cannot be known before it runs. Relative paths are
/// relative to the directory the command starts in.
pub fn read_shell_command(
    command: &str,
    ctx: &ShellContext<'_>,
) -> Result<Vec<ShellTarget>, Unreadable> {
    read_shell_command_whole(command, ctx).map(|reading| reading.targets)
}

/// What the reader found in a command it could read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShellReading {
    /// As [`read_shell_command`] returns them.
    pub targets: Vec<ShellTarget>,
    /// Every program the command runs writes nothing but what a redirection names and
    /// starts no other program (`cat src/lib.rs | grep -c x`, see the `bounded` module):
    /// `targets` are all it can write. False as soon as one program is anything else
    /// (`make`, `python`, `sh -c`, `sudo cat`) or the `PATH` is set in the command.
    pub writes_only_targets: bool,
}

/// Like [`read_shell_command`], with whether the targets are all the command can write.
pub fn read_shell_command_whole(
    command: &str,
    ctx: &ShellContext<'_>,
) -> Result<ShellReading, Unreadable> {
    if command.len() > MAX_COMMAND_BYTES {
        return Err(Unreadable::TooLarge);
    }
    let mut reader = Reader {
        ctx,
        found: Found::default(),
    };
    let mut state = State::new(Cwd::Known(String::new()));
    reader.walk(command, &mut state, 0)?;
    Ok(ShellReading {
        targets: reader.found.paths,
        writes_only_targets: !reader.found.unbounded,
    })
}

#[derive(Default)]
struct Found {
    paths: Vec<ShellTarget>,
    /// Index into `paths` by path, so duplicates cost one lookup each.
    index: HashMap<String, usize>,
    /// A program that may write what the reader does not see runs (see [`ShellReading`]).
    unbounded: bool,
}

impl Found {
    fn push(
        &mut self,
        path: String,
        whole: bool,
        named_by: Option<&NamedBy>,
    ) -> Result<(), Unreadable> {
        match self.index.get(&path) {
            Some(&at) => {
                let found = &mut self.paths[at];
                found.whole |= whole;
                // A path the command is known to write is judged as such.
                if named_by.is_none() {
                    found.named_by = None;
                }
            }
            None => {
                if self.paths.len() >= MAX_TARGETS {
                    return Err(Unreadable::TooLarge);
                }
                self.index.insert(path.clone(), self.paths.len());
                self.paths.push(ShellTarget {
                    path,
                    whole,
                    named_by: named_by.cloned(),
                });
            }
        }
        Ok(())
    }
}

struct Reader<'c, 'f> {
    ctx: &'c ShellContext<'f>,
    found: Found,
}

/// A compound command being read (`if`, `while`, `for`, `case`): its branches may or may
/// not run, so what they change is merged with the state before it.
struct Compound {
    /// `case` branches end at `;;`.
    is_case: bool,
    entry: State,
    /// The state at the end of each branch left so far.
    branches: Option<State>,
}

/// Where a simple command stands in its list, for what it may change.
#[derive(Clone, Copy, PartialEq, Eq)]
struct Position {
    /// The command runs in a subshell (a pipeline stage, a background job): nothing it
    /// changes outlives it.
    subshell: bool,
}

impl Reader<'_, '_> {
    fn walk(&mut self, script: &str, state: &mut State, depth: usize) -> Result<(), Unreadable> {
        if depth > MAX_SCRIPT_DEPTH {
            return Err(Unreadable::TooComplex);
        }
        let mut subshells: Vec<State> = Vec::new();
        let mut compounds: Vec<Compound> = Vec::new();
        // The states at which the current `&&`/`||` list may stop, merged.
        let mut stops: Option<State> = None;
        let mut words: Vec<Word> = Vec::new();
        let mut redirects: Vec<(Redirect, Word)> = Vec::new();
        let mut previous = Sep::Sequence;
        // The last heredoc body fed to the command being read: its standard input.
        let mut stdin: Option<String> = None;
        let mut tokens = tokenize(script)?.into_iter().peekable();
        while let Some(token) = tokens.next() {
            match token {
                Token::Word(word) => {
                    self.process_substitution(&word, state, depth)?;
                    words.push(word);
                }
                Token::Redirect(redirect) => {
                    let target = tokens.next_if(|t| matches!(t, Token::Word(_)));
                    if let Some(Token::Word(mut word)) = target {
                        if redirect == Redirect::Heredoc {
                            stdin = word.heredoc_body.take();
                        }
                        self.process_substitution(&word, state, depth)?;
                        redirects.push((redirect, word));
                    }
                }
                Token::Separator(sep) => {
                    let position = Position {
                        subshell: matches!(previous, Sep::Pipe)
                            || matches!(sep, Sep::Pipe | Sep::Background),
                    };
                    let command = std::mem::take(&mut words);
                    let redirected = std::mem::take(&mut redirects);
                    self.command(
                        &command,
                        &redirected,
                        stdin.take(),
                        position,
                        state,
                        &mut compounds,
                        depth,
                    )?;
                    match sep {
                        Sep::And | Sep::Or => match &mut stops {
                            Some(stopped) => stopped.merge(state),
                            None => stops = Some(state.clone()),
                        },
                        Sep::CaseBreak => {
                            end_list(&mut stops, state);
                            if let Some(case) = compounds.iter_mut().rev().find(|c| c.is_case) {
                                branch(case, state);
                            }
                        }
                        Sep::Sequence | Sep::Background => end_list(&mut stops, state),
                        Sep::Pipe => {}
                    }
                    previous = sep;
                }
                Token::OpenGroup => {
                    // `name() { …; }`: a function definition.
                    if words.len() == 1 && matches!(tokens.peek(), Some(Token::CloseGroup)) {
                        return Err(Unreadable::Definition { what: "a function" });
                    }
                    let command = std::mem::take(&mut words);
                    let redirected = std::mem::take(&mut redirects);
                    self.command(
                        &command,
                        &redirected,
                        stdin.take(),
                        Position { subshell: false },
                        state,
                        &mut compounds,
                        depth,
                    )?;
                    subshells.push(state.clone());
                }
                Token::CloseGroup => {
                    let command = std::mem::take(&mut words);
                    let redirected = std::mem::take(&mut redirects);
                    self.command(
                        &command,
                        &redirected,
                        stdin.take(),
                        Position { subshell: false },
                        state,
                        &mut compounds,
                        depth,
                    )?;
                    // A stray `)` (a `case` pattern, say) closes nothing.
                    if let Some(outer) = subshells.pop() {
                        *state = outer;
                    }
                }
            }
        }
        let position = Position {
            subshell: matches!(previous, Sep::Pipe),
        };
        self.command(
            &words,
            &redirects,
            stdin,
            position,
            state,
            &mut compounds,
            depth,
        )?;
        end_list(&mut stops, state);
        // A compound the script never closes ends here, its branches merged all the same.
        while let Some(compound) = compounds.pop() {
            close(compound, state);
        }
        Ok(())
    }

    /// The commands inside `<(…)` or `>(…)` run too (`echo > >(tee f)` writes `f`), and so
    /// do those of `$(…)` and backticks, wherever the word stands (`echo $(rm f)` removes
    /// `f`): each is read like any command, in a subshell.
    fn process_substitution(
        &mut self,
        word: &Word,
        state: &State,
        depth: usize,
    ) -> Result<(), Unreadable> {
        for script in &word.scripts {
            let mut child = state.clone();
            self.walk(script, &mut child, depth + 1)?;
        }
        if !word.process {
            return Ok(());
        }
        let inner = word
            .text
            .get(2..word.text.len().saturating_sub(1))
            .ok_or(Unreadable::Syntax(LexError::UnbalancedSubstitution))?;
        let mut child = state.clone();
        self.walk(inner, &mut child, depth + 1)
    }

    /// One simple command with its redirections, read in `state`.
    #[allow(clippy::too_many_arguments)]
    fn command(
        &mut self,
        words: &[Word],
        redirects: &[(Redirect, Word)],
        stdin: Option<String>,
        position: Position,
        state: &mut State,
        compounds: &mut Vec<Compound>,
        depth: usize,
    ) -> Result<(), Unreadable> {
        // Redirections are opened by the shell before the command's own assignments apply.
        for (redirect, word) in redirects {
            self.redirection(*redirect, word, state)?;
        }
        let words = self.keywords(words, state, compounds)?;
        if words.is_empty() {
            return Ok(());
        }
        if position.subshell {
            let mut child = state.clone();
            return self.simple(words, stdin, &mut child, depth);
        }
        self.simple(words, stdin, state, depth)
    }

    /// Leading compound-command keywords: they open, branch and close [`Compound`]s. The
    /// words after them are the command proper.
    fn keywords<'w>(
        &mut self,
        words: &'w [Word],
        state: &mut State,
        compounds: &mut Vec<Compound>,
    ) -> Result<&'w [Word], Unreadable> {
        let mut i = 0;
        while let Some(word) = words.get(i) {
            if word.is_quoted() || word.expanded || word.substituted {
                break;
            }
            let open = |is_case: bool, state: &State| Compound {
                is_case,
                entry: state.clone(),
                branches: None,
            };
            match word.text.as_str() {
                "if" | "while" | "until" => compounds.push(open(false, state)),
                "for" | "select" => {
                    compounds.push(open(false, state));
                    // The loop variable takes values this reader does not follow.
                    if let Some(name) = words.get(i + 1) {
                        state.vars.insert(name.text.clone(), None);
                    }
                    return Ok(&[]);
                }
                "case" => {
                    compounds.push(open(true, state));
                    return Ok(&[]);
                }
                "else" | "elif" => {
                    if let Some(compound) = compounds.last_mut() {
                        branch(compound, state);
                    }
                }
                "fi" | "done" | "esac" => {
                    if let Some(compound) = compounds.pop() {
                        close(compound, state);
                    }
                }
                "function" => return Err(Unreadable::Definition { what: "a function" }),
                "then" | "do" | "{" | "}" | "!" | "in" => {}
                _ => break,
            }
            i += 1;
        }
        Ok(&words[i..])
    }

    fn simple(
        &mut self,
        words: &[Word],
        stdin: Option<String>,
        state: &mut State,
        depth: usize,
    ) -> Result<(), Unreadable> {
        let assignments = words.iter().take_while(|w| is_assignment(w)).count();
        let assigned: Vec<(String, Option<String>)> = words[..assignments]
            .iter()
            .map(|w| assignment(w, state, self.ctx))
            .collect();
        if assignments == words.len() {
            // Assignments alone set shell variables for the commands after them.
            state.vars.extend(assigned);
            return Ok(());
        }
        let mut expanded = words[..assignments].to_vec();
        for word in &words[assignments..] {
            expanded.extend(expand::expand(word, state, self.ctx)?);
        }
        if self.builtin(&expanded[assignments..], words, state)? {
            return Ok(());
        }
        // A `PATH` set anywhere in the command may make `cat` any program.
        let path_set =
            state.vars.contains_key("PATH") || assigned.iter().any(|(name, _)| name == "PATH");
        let bounded = expanded.get(assignments).is_some_and(|program| {
            !program.substituted && bounded::writes_only_what_is_read(&program.text)
        });
        if path_set || !bounded {
            self.found.unbounded = true;
        }
        match simple_command(&expanded, stdin.as_deref()) {
            Effect::Writes(targets) => targets.into_iter().try_for_each(|t| self.record(t, state)),
            Effect::ChangeDir(change) => {
                self.change_dir(change, state);
                Ok(())
            }
            Effect::Script {
                script,
                child: None,
            } => self.walk(&script, state, depth + 1),
            Effect::Script {
                script,
                child: Some(positional),
            } => {
                let mut child = state.child(Some(positional), &assigned);
                self.walk(&script, &mut child, depth + 1)
            }
            Effect::Unknown(why) => Err(why),
        }
    }

    /// Builtins that change what later words mean: `export`/`declare`/`local`/`readonly`
    /// assignments, `unset`, and the ones that assign at runtime (`read`, `mapfile`,
    /// `printf -v`, `let`). True when `words` was one of them.
    fn builtin(
        &mut self,
        words: &[Word],
        raw: &[Word],
        state: &mut State,
    ) -> Result<bool, Unreadable> {
        let Some(first) = words.first() else {
            return Ok(false);
        };
        let args = &words[1..];
        match first.text.as_str() {
            "export" | "declare" | "typeset" | "local" | "readonly" => {
                let exported = first.text == "export"
                    || args.iter().any(|w| w.is_flag() && w.text.contains('x'));
                // Values come from the words as written, before splitting.
                let raw_args = raw.iter().skip_while(|w| w.text != first.text).skip(1);
                for word in raw_args.filter(|w| !w.is_flag()) {
                    let (name, value) = match word.text.split_once('=') {
                        Some(_) => assignment(word, state, self.ctx),
                        None => {
                            let name = word.text.clone();
                            let value = state.vars.get(&name).cloned().unwrap_or(None);
                            (name, value)
                        }
                    };
                    if exported {
                        state.exported.insert(name.clone());
                    }
                    state.vars.insert(name, value);
                }
                Ok(true)
            }
            "unset" => {
                for word in args.iter().filter(|w| !w.is_flag()) {
                    state.vars.insert(word.text.clone(), Some(String::new()));
                }
                Ok(true)
            }
            "read" | "mapfile" | "readarray" | "getopts" | "let" => {
                for word in args.iter().filter(|w| !w.is_flag()) {
                    let name = word.text.split('=').next().unwrap_or_default();
                    state.vars.insert(name.to_owned(), None);
                }
                Ok(false)
            }
            "printf" => {
                if let Some(at) = args.iter().position(|w| w.is_bare("-v"))
                    && let Some(name) = args.get(at + 1)
                {
                    state.vars.insert(name.text.clone(), None);
                }
                Ok(false)
            }
            _ => Ok(false),
        }
    }

    fn redirection(
        &mut self,
        redirect: Redirect,
        word: &Word,
        state: &mut State,
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
        let fields = expand::expand(word, state, self.ctx)?;
        // bash refuses an ambiguous redirect (one that globs or splits to several words).
        for field in fields.iter().take(1) {
            let target = Target::from_word(field).unwrap_or_else(|| Target::literal(""));
            self.record(target, state)?;
        }
        Ok(())
    }

    fn change_dir(&self, change: DirChange, state: &mut State) {
        let next = match change {
            DirChange::Enter { dir, push } => {
                let entered = match &state.cwd {
                    _ if dir.starts_with('/') => Cwd::Known(fold(&dir)),
                    Cwd::Known(base) => Cwd::Known(fold(&join(base, &dir))),
                    Cwd::Unknown => Cwd::Unknown,
                };
                let entered = self.checked(entered);
                if push {
                    state.dir_stack.push(state.cwd.clone());
                }
                entered
            }
            DirChange::Pop => state.dir_stack.pop().unwrap_or(Cwd::Unknown),
            DirChange::Home => self
                .ctx
                .home
                .map_or(Cwd::Unknown, |home| Cwd::Known(home.to_owned())),
            DirChange::Back => state.oldpwd.clone(),
            DirChange::Unknown => Cwd::Unknown,
        };
        state.oldpwd = std::mem::replace(&mut state.cwd, next);
    }

    /// A directory `cd` enters: when it does not exist at hook time and the command has not
    /// made it, the `cd` fails and the shell stays where it was, which this reader cannot
    /// pick for it (`cd /nonexistent; rm -rf src`).
    fn checked(&self, entered: Cwd) -> Cwd {
        let (Cwd::Known(dir), Some(fs)) = (&entered, self.ctx.fs) else {
            return entered;
        };
        let absolute = match self.ctx.cwd {
            _ if dir.starts_with('/') => dir.clone(),
            Some(base) => join(base, dir),
            None => return entered,
        };
        let bare = dir.trim_end_matches('/');
        let made_here = self.found.index.contains_key(bare)
            || self.found.index.contains_key(&format!("{bare}/"));
        if made_here || fs.is_dir(&absolute) {
            entered
        } else {
            Cwd::Unknown
        }
    }

    /// The top level of the worktree holding `dir` (relative to where the command is):
    /// the nearest directory with a `.git` in it. When that cannot be looked up, `/`: a
    /// directory holding every worktree, which the guard reads as the whole workspace.
    fn worktree_of(&self, dir: &str, state: &State) -> String {
        let start = state
            .resolve(if dir.is_empty() { "." } else { dir })
            .and_then(|rel| match self.ctx.cwd {
                _ if rel.starts_with('/') => Some(rel),
                Some(base) => Some(join(base, &rel)),
                None => None,
            });
        let (Some(start), Some(fs)) = (start, self.ctx.fs) else {
            return "/".to_owned();
        };
        let mut dir = fold(&start);
        loop {
            if fs.exists(&join(&dir, ".git")) {
                return dir;
            }
            match dir.rsplit_once('/') {
                Some(("", _)) | None => return "/".to_owned(),
                Some((parent, _)) => dir = parent.to_owned(),
            }
        }
    }

    fn record(&mut self, target: Target, state: &mut State) -> Result<(), Unreadable> {
        if let Some(why) = target.dynamic {
            return Err(why);
        }
        if target.text.is_empty() || SINKS.contains(&target.text.as_str()) {
            return Ok(());
        }
        if let Some(dir) = target.text.strip_suffix(git::WORKTREE) {
            let top = self.worktree_of(dir.trim_end_matches('/'), state);
            return self.found.push(top, true, target.named_by.as_ref());
        }
        let path = state
            .resolve(&target.text)
            .ok_or(Unreadable::UnknownDirectory)?;
        if SINKS.contains(&path.as_str()) {
            return Ok(());
        }
        // A link this command makes is itself made where it is spelt; any other path is
        // followed through the links made before it.
        let real = match &target.link_to {
            None => state.through_links(&path),
            Some(_) => None,
        };
        if let Some(to) = &target.link_to
            && let Some(resolved) = state.resolve(to)
        {
            state
                .links
                .insert(path.trim_end_matches('/').to_owned(), resolved);
        }
        self.found
            .push(path, target.whole, target.named_by.as_ref())?;
        match real {
            Some(real) => self
                .found
                .push(real, target.whole, target.named_by.as_ref()),
            None => Ok(()),
        }
    }
}

/// `NAME=value` as a variable and its value (`None` when only known at runtime).
fn assignment(word: &Word, state: &State, ctx: &ShellContext<'_>) -> (String, Option<String>) {
    let name = word.text.split('=').next().unwrap_or_default();
    let name = name.trim_end_matches('+');
    let name = name.split('[').next().unwrap_or(name).to_owned();
    let appends = word.text[..word.text.find('=').unwrap_or(0)].ends_with('+');
    let value = expand::assigned_value(word, state, ctx);
    let value = if appends {
        let before = state.vars.get(&name).cloned().flatten();
        before.zip(value).map(|(a, b)| a + &b)
    } else {
        value
    };
    (name, value)
}

/// The end of an `&&`/`||` list: the list may have stopped at any of its operators.
fn end_list(stops: &mut Option<State>, state: &mut State) {
    if let Some(stopped) = stops.take() {
        state.merge(&stopped);
    }
}

/// `else`, `elif` or the next `case` branch: the branch just read may be the one taken.
fn branch(compound: &mut Compound, state: &mut State) {
    match &mut compound.branches {
        Some(merged) => merged.merge(state),
        None => compound.branches = Some(state.clone()),
    }
    *state = compound.entry.clone();
}

/// `fi`, `done`, `esac`: any branch, or none, may have run.
fn close(compound: Compound, state: &mut State) {
    if let Some(branches) = &compound.branches {
        state.merge(branches);
    }
    state.merge(&compound.entry);
}

/// `a/b/../c` -> `a/c`, textually, as `cd` does by default (it follows the path as spelt,
/// not the links in it). A leading `..` is kept.
fn fold(path: &str) -> String {
    let absolute = path.starts_with('/');
    let mut parts: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." if parts.last().is_some_and(|p| *p != "..") => {
                parts.pop();
            }
            ".." if absolute => {}
            other => parts.push(other),
        }
    }
    let joined = parts.join("/");
    if absolute {
        format!("/{joined}")
    } else {
        joined
    }
}
