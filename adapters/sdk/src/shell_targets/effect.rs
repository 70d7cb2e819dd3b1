//! What a simple command does, as far as writes go, and the small helpers every command
//! rule shares.

use super::lexer::Word;
use super::options::{OptionSpec, Value, parse};

/// A path a command writes, relative to the directory the command runs in (or absolute).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    pub text: String,
    /// Built by a command substitution: only known at runtime.
    pub dynamic: bool,
    /// The command removes, moves away or restores this path whole (`rm -r`, `mv`'s
    /// sources, `git restore`): when it is a directory, everything under it is written.
    /// Other targets write the path itself (a destination directory only gains an entry).
    pub whole: bool,
}

impl Target {
    pub fn from_word(word: &Word) -> Option<Target> {
        // A process substitution is a pipe, never a file on disk.
        (!word.process).then(|| Target {
            text: word.text.clone(),
            dynamic: word.substituted,
            whole: false,
        })
    }

    pub fn from_value(value: &Value<'_>) -> Option<Target> {
        match value {
            Value::Word(word) => Target::from_word(word),
            Value::Attached(_) => Some(Target {
                text: value.text().to_owned(),
                dynamic: value.substituted(),
                whole: false,
            }),
        }
    }
}

/// A change of the shell's working directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DirChange {
    /// `cd DIR` or `pushd DIR` (which also remembers where it was).
    Enter { dir: String, push: bool },
    /// `popd`.
    Pop,
    /// A directory only known at runtime (`cd`, `cd -`, `cd ~/x`, `cd "$D"`).
    Unknown,
}

/// What a simple command does, as far as writes go.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Effect {
    Writes(Vec<Target>),
    ChangeDir(DirChange),
    /// A shell script to read in turn (`sh -c '…'`, `eval …`).
    Script(String),
    /// The command's writes cannot be known (a command name built at runtime, say).
    Unknown,
}

pub const NOTHING: Effect = Effect::Writes(Vec::new());

/// Every operand of `args`, read with `spec`, as a target.
pub fn operands(args: &[Word], spec: &OptionSpec) -> Effect {
    Effect::Writes(
        parse(args, spec)
            .operands
            .into_iter()
            .filter_map(Target::from_word)
            .collect(),
    )
}

/// `effect` with every target it writes marked [`Target::whole`].
pub fn whole(effect: Effect) -> Effect {
    match effect {
        Effect::Writes(targets) => Effect::Writes(
            targets
                .into_iter()
                .map(|t| Target { whole: true, ..t })
                .collect(),
        ),
        other => other,
    }
}

/// A destination and, unless `-T` rules it out, the entry each source would become if the
/// destination is a directory (`cp a.rs src/` writes `src/a.rs`). Which one it is only the
/// file system knows, so both are targets: an entry under a plain file names nothing.
pub fn destination(dest: Target, sources: &[&str], no_target_directory: bool) -> Vec<Target> {
    let entries: Vec<Target> = if no_target_directory || dest.dynamic {
        Vec::new()
    } else {
        sources
            .iter()
            .filter_map(|source| {
                let trimmed = source.trim_end_matches('/');
                let name = trimmed.rsplit('/').next().unwrap_or(trimmed);
                (!name.is_empty() && name != "." && name != "..").then(|| Target {
                    text: join(&dest.text, name),
                    dynamic: false,
                    whole: false,
                })
            })
            .collect()
    };
    std::iter::once(dest).chain(entries).collect()
}

/// Join a relative path onto a directory, textually.
pub fn join(dir: &str, path: &str) -> String {
    if path.starts_with('/') || dir.is_empty() {
        path.to_owned()
    } else if dir.ends_with('/') {
        format!("{dir}{path}")
    } else {
        format!("{dir}/{path}")
    }
}
