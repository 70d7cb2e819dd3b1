//! What a `git` command writes in the working tree: the subcommands that overwrite or
//! remove named files.

use super::effect::{Effect, NOTHING, Target, destination, join, operands, whole};
use super::lexer::Word;
use super::options::{OptionSpec, parse};

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
        if text == "-C" {
            match args.get(i + 1) {
                Some(d) if !d.substituted => dir = join(&dir, &d.text),
                _ => return Effect::Unknown,
            }
        }
        i += if takes_next { 2 } else { 1 };
    }
    let Some(sub) = args.get(i) else {
        return NOTHING;
    };
    let rest = &args[i + 1..];
    // What these subcommands name is removed or restored whole: a directory pathspec
    // rewrites every file under it.
    let effect = whole(match sub.text.as_str() {
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
                Effect::Writes(
                    parsed
                        .operands
                        .into_iter()
                        .filter_map(Target::from_word)
                        .collect(),
                )
            }
        }
        "checkout" => match rest.iter().position(|w| w.is_bare("--")) {
            // A repeated `--` separates nothing more (agents write `-- f -- g`).
            Some(dash) => Effect::Writes(
                rest[dash + 1..]
                    .iter()
                    .filter(|w| !w.is_bare("--"))
                    .filter_map(Target::from_word)
                    .collect(),
            ),
            None => NOTHING,
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
                Effect::Writes(
                    parsed
                        .operands
                        .into_iter()
                        .filter_map(Target::from_word)
                        .collect(),
                )
            }
        }
        "mv" => return moved(operands(rest, &OptionSpec::NONE), &dir),
        _ => NOTHING,
    });
    in_dir(effect, &dir)
}

/// `git mv a b dest`: the sources go whole; the destination (the last path) appears, or
/// gains an entry per source when it is a directory.
fn moved(effect: Effect, dir: &str) -> Effect {
    let effect = match effect {
        Effect::Writes(mut targets) => match targets.pop() {
            Some(dest) if !targets.is_empty() => {
                let names: Vec<String> = targets
                    .iter()
                    .filter(|t| !t.dynamic)
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
    };
    in_dir(effect, dir)
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
