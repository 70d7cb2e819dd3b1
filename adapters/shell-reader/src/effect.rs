//! What a simple command does, as far as writes go, and the small helpers every command
//! rule shares.

use super::lexer::Word;
use super::options::{OptionSpec, Value, parse};
use super::unreadable::Unreadable;

/// A path a command writes, relative to the directory the command runs in (or absolute).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    pub text: String,
    /// Only known at runtime (a substitution, a variable this reader does not know), and
    /// why.
    pub dynamic: Option<Unreadable>,
    /// The command removes, moves away or restores this path whole (`rm -r`, `mv`'s
    /// sources, `git restore`): when it is a directory, everything under it is written.
    /// Other targets write the path itself (a destination directory only gains an entry).
    pub whole: bool,
    /// The target is a link made to this path (`ln -s src l`: `l` leads to `src`, relative
    /// to where the command runs); later targets through the link are followed.
    pub link_to: Option<String>,
    /// Not a file the command is known to write: a program acc does not know to be
    /// read-only names it, or writes into it as its working directory.
    pub named_by: Option<NamedBy>,
}

/// A program whose writes acc cannot bound, and how it reaches a path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NamedBy {
    /// The program's name, as short as a reason shows it.
    pub program: String,
    /// The program writes into this directory as its working directory (an archive
    /// extracted, a package installed), rather than naming it as an argument.
    pub into: bool,
}

impl Target {
    /// A path known as written.
    pub fn literal(text: impl Into<String>) -> Target {
        Target {
            text: text.into(),
            dynamic: None,
            whole: false,
            link_to: None,
            named_by: None,
        }
    }

    pub fn from_word(word: &Word) -> Option<Target> {
        // A process substitution is a pipe, never a file on disk.
        (!word.process).then(|| Target {
            dynamic: dynamic_reason(word),
            ..Target::literal(word.text.clone())
        })
    }

    pub fn from_value(value: &Value<'_>) -> Option<Target> {
        match value {
            Value::Word(word) => Target::from_word(word),
            Value::Attached(_) => Some(Target {
                dynamic: value.substituted().then_some(Unreadable::Substitution),
                ..Target::literal(value.text())
            }),
        }
    }
}

/// Why `word` is only known at runtime, or `None` when it is known.
pub fn dynamic_reason(word: &Word) -> Option<Unreadable> {
    word.substituted
        .then(|| word.unknown.clone().unwrap_or(Unreadable::Substitution))
}

/// A change of the shell's working directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DirChange {
    /// `cd DIR` or `pushd DIR` (which also remembers where it was).
    Enter { dir: String, push: bool },
    /// `popd`.
    Pop,
    /// `cd` alone: the home directory.
    Home,
    /// `cd -`: the previous directory.
    Back,
    /// A directory only known at runtime (`cd "$(…)"`, `pushd +1`).
    Unknown,
}

/// What a simple command does, as far as writes go.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Effect {
    Writes(Vec<Target>),
    ChangeDir(DirChange),
    /// A shell script to read in turn: `eval …` in this shell, `sh -c '…' $0 $1 …` in a
    /// child shell with those positional arguments.
    Script {
        script: String,
        child: Option<Vec<String>>,
    },
    /// The command's writes cannot be known, and why.
    Unknown(Unreadable),
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
    let entries: Vec<Target> = if no_target_directory || dest.dynamic.is_some() {
        Vec::new()
    } else {
        sources
            .iter()
            .filter_map(|source| {
                let trimmed = source.trim_end_matches('/');
                let name = trimmed.rsplit('/').next().unwrap_or(trimmed);
                (!name.is_empty() && name != "." && name != "..")
                    .then(|| Target::literal(join(&dest.text, name)))
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
