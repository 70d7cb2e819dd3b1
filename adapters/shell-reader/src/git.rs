//! What a `git` command writes in the working tree: the subcommands that overwrite or
//! remove the files they name, and those that rewrite the whole worktree when they name
//! none (`stash`, `reset --hard`, `merge`, `pull`, `rebase`, ...). The whole worktree is
//! given as a [`worktree`] target, which the reader turns into the worktree's top level.

use super::effect::{Effect, NOTHING, Target, destination, join, operands, whole};
use super::lexer::Word;
use super::options::{OptionSpec, Parsed, parse};
use super::unreadable::Unreadable;

/// The last component of a target that stands for "the worktree holding the directory
/// before it": not a name any file can have (it holds a NUL).
pub const WORKTREE: &str = "\0worktree";

/// The whole worktree the command runs in.
fn worktree() -> Target {
    Target {
        whole: true,
        ..Target::literal(WORKTREE)
    }
}

/// `git -c KEY=VALUE` settings that make git run a command of their own choosing.
const RUNS_COMMANDS: [&str; 9] = [
    "alias.",
    "core.fsmonitor",
    "core.hookspath",
    "core.pager",
    "core.editor",
    "core.sshcommand",
    "diff.external",
    "filter.",
    "sequence.editor",
];

/// `git [global options] <subcommand> ...`; `-C DIR` moves the paths into DIR.
pub fn git(args: &[Word]) -> Effect {
    let mut dir = String::new();
    let mut i = 0;
    while let Some(word) = args.get(i) {
        if !word.is_flag() {
            break;
        }
        let text = word.text.as_str();
        let takes_next = matches!(text, "-C" | "-c")
            || [
                "--git-dir",
                "--work-tree",
                "--namespace",
                "--super-prefix",
                "--config-env",
            ]
            .contains(&text);
        match (text, args.get(i + 1)) {
            ("-C", Some(d)) if d.substituted => {
                return Effect::Unknown(d.unknown.clone().unwrap_or(Unreadable::Substitution));
            }
            ("-C", Some(d)) => dir = join(&dir, &d.text),
            ("-c", Some(setting)) => {
                let key = setting.text.to_ascii_lowercase();
                if setting.substituted || RUNS_COMMANDS.iter().any(|k| key.starts_with(k)) {
                    return Effect::Unknown(Unreadable::wrapper("git -c"));
                }
            }
            ("--work-tree" | "--git-dir", _) => {
                return Effect::Unknown(Unreadable::wrapper(text));
            }
            _ => {}
        }
        if text.starts_with("--work-tree=") || text.starts_with("--git-dir=") {
            return Effect::Unknown(Unreadable::wrapper("git --work-tree"));
        }
        i += if takes_next { 2 } else { 1 };
    }
    let Some(sub) = args.get(i) else {
        return NOTHING;
    };
    if sub.substituted {
        return Effect::Unknown(sub.unknown.clone().unwrap_or(Unreadable::Substitution));
    }
    let rest = &args[i + 1..];
    let mut effect = subcommand(sub.text.as_str(), rest);
    if let Effect::Writes(targets) = &mut effect {
        targets.extend(output_files(sub.text.as_str(), rest));
    }
    if matches!(&effect, Effect::Writes(t) if !t.is_empty())
        && rest.iter().any(|w| w.substituted && !w.process)
    {
        return Effect::Unknown(Unreadable::dynamic_arguments(&format!("git {}", sub.text)));
    }
    in_dir(effect, &dir)
}

fn subcommand(sub: &str, rest: &[Word]) -> Effect {
    match sub {
        "restore" => {
            let parsed = parse(
                rest,
                &OptionSpec {
                    short_values: "sU",
                    long_values: &["source", "pathspec-from-file", "conflict", "unified"],
                },
            );
            let index_only = (parsed.has_short('S') || parsed.has_long("staged"))
                && !(parsed.has_short('W') || parsed.has_long("worktree"));
            if index_only {
                NOTHING
            } else {
                paths_or_worktree(&parsed, false)
            }
        }
        "checkout" => checkout(rest),
        "switch" => {
            let parsed = parse(
                rest,
                &OptionSpec {
                    short_values: "cC",
                    long_values: &["create", "force-create", "orphan", "conflict"],
                },
            );
            if parsed.has_short('f')
                || parsed.has_long("force")
                || parsed.has_long("discard-changes")
            {
                Effect::Writes(vec![worktree()])
            } else {
                NOTHING
            }
        }
        "stash" => stash(rest),
        "reset" => {
            let parsed = parse(rest, &OptionSpec::NONE);
            if ["hard", "merge", "keep"].iter().any(|m| parsed.has_long(m)) {
                Effect::Writes(vec![worktree()])
            } else {
                NOTHING
            }
        }
        "clean" => {
            let parsed = parse(
                rest,
                &OptionSpec {
                    short_values: "e",
                    long_values: &["exclude"],
                },
            );
            if parsed.has_short('n') || parsed.has_long("dry-run") {
                NOTHING
            } else {
                paths_or_worktree(&parsed, true)
            }
        }
        "read-tree" => {
            let parsed = parse(rest, &OptionSpec::NONE);
            if parsed.has_short('u') {
                Effect::Writes(vec![worktree()])
            } else {
                NOTHING
            }
        }
        "checkout-index" => {
            let parsed = parse(rest, &OptionSpec::NONE);
            let everything = parsed.has_short('a')
                || parsed.has_long("all")
                || parsed.has_long("stdin")
                || parsed.has_long("prefix");
            if everything {
                Effect::Writes(vec![worktree()])
            } else {
                whole(operands(rest, &OptionSpec::NONE))
            }
        }
        "apply" => {
            let parsed = parse(
                rest,
                &OptionSpec {
                    short_values: "pC",
                    long_values: &[
                        "exclude",
                        "include",
                        "directory",
                        "whitespace",
                        "build-fake-ancestor",
                    ],
                },
            );
            let reads_only = ["check", "stat", "numstat", "summary", "cached"]
                .iter()
                .any(|m| parsed.has_long(m))
                && !parsed.has_long("index")
                && !parsed.has_long("apply");
            if reads_only {
                NOTHING
            } else {
                Effect::Writes(vec![worktree()])
            }
        }
        "am" | "merge" | "pull" | "rebase" | "cherry-pick" | "revert" => {
            Effect::Writes(vec![worktree()])
        }
        "sparse-checkout" => match rest.iter().find(|w| !w.is_flag()) {
            Some(action) if action.text == "list" || action.text == "check-rules" => NOTHING,
            _ => Effect::Writes(vec![worktree()]),
        },
        "rm" => {
            let parsed = parse(
                rest,
                &OptionSpec {
                    short_values: "",
                    long_values: &["pathspec-from-file"],
                },
            );
            if parsed.has_long("cached") {
                NOTHING
            } else {
                paths_or_worktree(&parsed, false)
            }
        }
        "mv" => moved(operands(rest, &OptionSpec::NONE)),
        "worktree" => match rest.first().map(|w| w.text.as_str()) {
            Some("add") => {
                let parsed = parse(
                    &rest[1..],
                    &OptionSpec {
                        short_values: "bB",
                        long_values: &["reason"],
                    },
                );
                whole(Effect::Writes(
                    parsed
                        .operands
                        .first()
                        .and_then(|w| Target::from_word(w))
                        .into_iter()
                        .collect(),
                ))
            }
            _ => NOTHING,
        },
        "clone" => {
            let parsed = parse(
                rest,
                &OptionSpec {
                    short_values: "obujc",
                    long_values: &[
                        "origin",
                        "branch",
                        "upload-pack",
                        "template",
                        "reference",
                        "separate-git-dir",
                        "depth",
                        "config",
                        "jobs",
                        "filter",
                    ],
                },
            );
            let dest = match parsed.operands.as_slice() {
                [_, dir, ..] => Target::from_word(dir),
                [url] => {
                    let name = url.text.trim_end_matches('/').trim_end_matches(".git");
                    let name = name.rsplit(['/', ':']).next().unwrap_or(name);
                    Some(Target {
                        dynamic: super::effect::dynamic_reason(url),
                        ..Target::literal(name)
                    })
                }
                [] => None,
            };
            whole(Effect::Writes(dest.into_iter().collect()))
        }
        _ => NOTHING,
    }
}

/// What a command writes besides the worktree: the diff family's `--output=FILE`, and
/// `format-patch`'s output directory (`-o DIR`, `--output-directory DIR`).
fn output_files(sub: &str, rest: &[Word]) -> Vec<Target> {
    let mut out = Vec::new();
    let mut words = rest.iter();
    while let Some(word) = words.next() {
        if word.is_bare("--") {
            break;
        }
        let text = word.text.as_str();
        let dir_option = sub == "format-patch";
        let attached = |v: &str| Target {
            dynamic: super::effect::dynamic_reason(word),
            ..Target::literal(v)
        };
        let value =
            if text == "--output" || (dir_option && matches!(text, "-o" | "--output-directory")) {
                words.next().and_then(Target::from_word)
            } else {
                text.strip_prefix("--output=")
                    .or_else(|| {
                        text.strip_prefix("--output-directory=")
                            .filter(|_| dir_option)
                    })
                    .or_else(|| {
                        text.strip_prefix("-o")
                            .filter(|v| dir_option && !v.is_empty())
                    })
                    .map(attached)
            };
        out.extend(value.map(|t| Target { whole: true, ..t }));
    }
    out
}

/// The pathspecs a command names, written whole, or the whole worktree when it names none.
fn paths_or_worktree(parsed: &Parsed<'_>, worktree_when_none: bool) -> Effect {
    let paths: Vec<Target> = parsed
        .operands
        .iter()
        .filter(|w| !w.is_bare("--"))
        .filter_map(|w| Target::from_word(w))
        .map(|t| Target { whole: true, ..t })
        .collect();
    if paths.is_empty() && (worktree_when_none || parsed.has_long("pathspec-from-file")) {
        Effect::Writes(vec![worktree()])
    } else {
        Effect::Writes(paths)
    }
}

/// `git checkout`: every operand may be a path (`git checkout src/lib.rs` restores it, and
/// which operand is a revision only the repository knows), `--` makes the rest paths, and
/// `-f` rewrites the worktree.
fn checkout(rest: &[Word]) -> Effect {
    let parsed = parse(
        rest,
        &OptionSpec {
            short_values: "bB",
            long_values: &["orphan", "conflict", "pathspec-from-file"],
        },
    );
    let new_branch = parsed.has_short('b') || parsed.has_short('B') || parsed.has_long("orphan");
    let mut out: Vec<Target> = match rest.iter().position(|w| w.is_bare("--")) {
        // A repeated `--` separates nothing more (agents write `-- f -- g`).
        Some(dash) => rest[dash + 1..]
            .iter()
            .filter(|w| !w.is_bare("--"))
            .filter_map(Target::from_word)
            .map(|t| Target { whole: true, ..t })
            .collect(),
        None if new_branch => Vec::new(),
        None => parsed
            .operands
            .iter()
            .filter_map(|w| Target::from_word(w))
            .map(|t| Target { whole: true, ..t })
            .collect(),
    };
    if parsed.has_short('f') || parsed.has_long("force") || parsed.has_long("pathspec-from-file") {
        out.push(worktree());
    }
    Effect::Writes(out)
}

/// `git stash [push [-- pathspec]]` stashes what it names, or the whole worktree;
/// `pop`, `apply` and `branch` write the stashed files back.
fn stash(rest: &[Word]) -> Effect {
    let action = rest.first().filter(|w| !w.is_flag());
    match action.map(|w| w.text.as_str()) {
        None | Some("push") => {
            let args = if action.is_some() { &rest[1..] } else { rest };
            let parsed = parse(
                args,
                &OptionSpec {
                    short_values: "m",
                    long_values: &["message", "pathspec-from-file"],
                },
            );
            paths_or_worktree(&parsed, true)
        }
        Some("save" | "pop" | "apply" | "branch") => Effect::Writes(vec![worktree()]),
        _ => NOTHING,
    }
}

/// `git mv a b dest`: the sources go whole; the destination (the last path) appears, or
/// gains an entry per source when it is a directory.
fn moved(effect: Effect) -> Effect {
    match effect {
        Effect::Writes(mut targets) => match targets.pop() {
            Some(dest) if !targets.is_empty() => {
                let names: Vec<String> = targets
                    .iter()
                    .filter(|t| t.dynamic.is_none())
                    .map(|t| t.text.clone())
                    .collect();
                let names: Vec<&str> = names.iter().map(String::as_str).collect();
                let mut out: Vec<Target> = targets
                    .into_iter()
                    .map(|t| Target { whole: true, ..t })
                    .collect();
                out.extend(destination(dest, &names, false));
                Effect::Writes(out)
            }
            Some(only) => Effect::Writes(vec![Target {
                whole: true,
                ..only
            }]),
            None => NOTHING,
        },
        other => other,
    }
}

/// Relative targets of a `git -C DIR` command, moved into DIR.
fn in_dir(effect: Effect, dir: &str) -> Effect {
    match effect {
        Effect::Writes(targets) if !dir.is_empty() => Effect::Writes(
            targets
                .into_iter()
                .map(|t| Target {
                    text: if t.text.starts_with('/') {
                        t.text
                    } else {
                        join(dir, &t.text)
                    },
                    ..t
                })
                .collect(),
        ),
        other => other,
    }
}
