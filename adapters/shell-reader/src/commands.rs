//! What one simple command (redirections already taken out) writes: the command table (the
//! crate's README.md lists it), the wrappers in front of a command, directory changes, and scripts run
//! through `sh -c` or `eval`.

use super::editors::{PERL, RUBY, SED, in_place, sed_writes};
use super::effect::{
    DirChange, Effect, NOTHING, Target, destination, dynamic_reason, operands, whole,
};
use super::git::git;
use super::lexer::Word;
use super::opaque;
use super::options::{Flag, OptionSpec, Parsed, parse};
use super::unreadable::Unreadable;
use super::wrappers::{Skip, WRAPPERS};
use crate::patch_targets::read_apply_patch;

/// Words that open or continue a compound command; the command proper follows them.
const RESERVED: [&str; 11] = [
    "{", "}", "!", "if", "then", "else", "elif", "do", "while", "until", "fi",
];

/// The effect of one simple command's words; `stdin` is a heredoc body fed to it.
pub fn simple_command(words: &[Word], stdin: Option<&str>) -> Effect {
    let mut extra = Vec::new();
    let mut i = 0;
    loop {
        let Some(word) = words.get(i) else {
            return Effect::Writes(extra);
        };
        if is_assignment(word) || RESERVED.iter().any(|r| word.is_bare(r)) {
            i += 1;
            continue;
        }
        let name = basename(&word.text);
        let args = &words[i + 1..];
        let Some(wrapper) = WRAPPERS.iter().find(|w| w.name == name) else {
            break;
        };
        if let Some(why) = dynamic_reason(word) {
            return Effect::Unknown(why);
        }
        match wrapper.skip(args, &mut extra) {
            Skip::To(next) => i += 1 + next,
            Skip::Done(effect) => return with_extra(effect, extra),
        }
    }
    let word = &words[i];
    if let Some(why) = dynamic_reason(word) {
        return Effect::Unknown(why);
    }
    let name = basename(&word.text);
    let args = &words[i + 1..];
    if let Some(why) = opaque::refusal(name, args) {
        return Effect::Unknown(why);
    }
    // A writer whose arguments are only known at runtime may be told anything, an option
    // that moves its writes included (`cp $OPTS a b` with `OPTS='-t src'`).
    // (git, the shells and apply_patch judge their own runtime-only words.)
    if opaque::is_writer(name)
        && !matches!(
            name,
            "git"
                | "apply_patch"
                | "applypatch"
                | "sh"
                | "bash"
                | "zsh"
                | "dash"
                | "ksh"
                | "mksh"
                | "ash"
        )
        && let Some(dynamic) = args.iter().find(|w| w.substituted && !w.process)
    {
        // A glob or `~` that cannot be resolved says so; anything else may be an option.
        return Effect::Unknown(match &dynamic.unknown {
            Some(
                why @ (Unreadable::Glob | Unreadable::UnknownHome | Unreadable::UnknownDirectory),
            ) => why.clone(),
            _ => Unreadable::dynamic_arguments(name),
        });
    }
    with_extra(command(name, args, stdin), extra)
}

fn with_extra(effect: Effect, mut extra: Vec<Target>) -> Effect {
    match effect {
        Effect::Writes(targets) => {
            extra.extend(targets);
            Effect::Writes(extra)
        }
        other if extra.is_empty() => other,
        // A wrapper wrote a file and the command changes directory or runs a script: keep it
        // simple and honest rather than order the two.
        _ => Effect::Unknown(Unreadable::TooComplex),
    }
}

pub fn basename(text: &str) -> &str {
    text.rsplit('/').next().unwrap_or(text)
}

/// `NAME=value` or `NAME+=value` with the name and `=` unquoted.
pub fn is_assignment(word: &Word) -> bool {
    let Some(eq) = word.text.find('=') else {
        return false;
    };
    let name = word.text[..eq]
        .strip_suffix('+')
        .unwrap_or(&word.text[..eq]);
    let name = name.split_once('[').map_or(
        name,
        |(base, index)| if index.ends_with(']') { base } else { "" },
    );
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c == '_' || c.is_ascii_alphabetic())
        && chars.all(|c| c == '_' || c.is_ascii_alphanumeric())
        && word.unquoted_through(eq + 1)
}

fn command(name: &str, args: &[Word], stdin: Option<&str>) -> Effect {
    match name {
        "tee" | "unlink" => operands(args, &OptionSpec::NONE),
        "rm" | "rmdir" => whole(operands(args, &OptionSpec::NONE)),
        "touch" => operands(
            args,
            &OptionSpec {
                short_values: "drt",
                long_values: &["date", "reference"],
            },
        ),
        "truncate" => operands(
            args,
            &OptionSpec {
                short_values: "sr",
                long_values: &["size", "reference"],
            },
        ),
        "shred" => operands(
            args,
            &OptionSpec {
                short_values: "ns",
                long_values: &["iterations", "size", "random-source"],
            },
        ),
        "mkdir" => operands(
            args,
            &OptionSpec {
                short_values: "m",
                long_values: &["mode"],
            },
        ),
        "mv" => move_like(args),
        "cp" | "ln" | "install" => copy_like(name, args),
        "rsync" => rsync(args),
        "dd" => Effect::Writes(
            args.iter()
                .filter_map(|w| {
                    let file = w.text.strip_prefix("of=")?;
                    Some(Target {
                        dynamic: dynamic_reason(w),
                        ..Target::literal(file)
                    })
                })
                .collect(),
        ),
        "git" => git(args),
        "sed" => match (in_place(args, &SED), sed_writes(args)) {
            (_, Err(why)) => Effect::Unknown(why),
            (Effect::Writes(mut files), Ok(more)) => {
                files.extend(more);
                Effect::Writes(files)
            }
            (other, Ok(_)) => other,
        },
        "perl" => in_place(args, &PERL),
        "ruby" => in_place(args, &RUBY),
        "cd" => change_dir(args, false),
        "pushd" => change_dir(args, true),
        "popd" => Effect::ChangeDir(DirChange::Pop),
        "sh" | "bash" | "zsh" | "dash" | "ksh" | "mksh" | "ash" => shell(name, args),
        "acc-guard" => guard_runner(name, args),
        "acc-hook" if args.first().is_some_and(|w| w.text == "guard-exec") => {
            guard_runner(name, &args[1..])
        }
        "find" => opaque::find(args),
        "eval" => {
            if args.iter().any(|w| w.substituted) {
                return Effect::Unknown(Unreadable::dynamic_script("eval"));
            }
            Effect::Script {
                script: args
                    .iter()
                    .map(|w| w.text.as_str())
                    .collect::<Vec<_>>()
                    .join(" "),
                child: None,
            }
        }
        "sudoedit" => operands(args, &OptionSpec::NONE),
        "apply_patch" | "applypatch" => apply_patch(args, stdin),
        _ => super::unknown::unknown(name, args),
    }
}

const TARGET_DIR_SPEC: OptionSpec = OptionSpec {
    short_values: "tS",
    long_values: &["target-directory", "suffix"],
};

/// The names of `words` known before the command runs (no substitution, no pipe).
fn static_texts<'a>(words: &[&'a Word]) -> Vec<&'a str> {
    words
        .iter()
        .filter(|w| !w.substituted && !w.process)
        .map(|w| w.text.as_str())
        .collect()
}

fn no_target_directory(parsed: &Parsed<'_>) -> bool {
    parsed.has_short('T') || parsed.has_long("no-target-directory")
}

/// `mv` writes both sides: its sources disappear whole and its destination appears.
fn move_like(args: &[Word]) -> Effect {
    let parsed = parse(args, &TARGET_DIR_SPEC);
    let sources_whole = |sources: &[&Word]| -> Vec<Target> {
        sources
            .iter()
            .filter_map(|w| Target::from_word(w))
            .map(|t| Target { whole: true, ..t })
            .collect()
    };
    let no_t = no_target_directory(&parsed);
    if let Some(dir) = parsed
        .value_of('t', "target-directory")
        .and_then(Target::from_value)
    {
        let sources = &parsed.operands;
        let mut out = destination(dir, &static_texts(sources), false);
        out.extend(sources_whole(sources));
        return Effect::Writes(out);
    }
    match parsed.operands.as_slice() {
        [] => NOTHING,
        [only] => Effect::Writes(sources_whole(&[*only])),
        [sources @ .., last] => {
            let mut out = sources_whole(sources);
            if let Some(dest) = Target::from_word(last) {
                out.extend(destination(dest, &static_texts(sources), no_t));
            }
            Effect::Writes(out)
        }
    }
}

/// `cp`, `ln` and `install` write their destination: `-t DIR`, else the last operand.
fn copy_like(name: &str, args: &[Word]) -> Effect {
    let effect = copy_like_targets(name, args);
    // `cp -s` and `cp -l` make links, not copies: writing through one writes the source.
    let parsed = parse(args, &TARGET_DIR_SPEC);
    let links = name == "cp"
        && (parsed.has_short('s')
            || parsed.has_short('l')
            || parsed.has_long("symbolic-link")
            || parsed.has_long("link"));
    match effect {
        Effect::Writes(mut out) if links => {
            out.extend(
                parsed
                    .operands
                    .iter()
                    .filter_map(|w| Target::from_word(w))
                    .map(|t| Target { whole: true, ..t }),
            );
            Effect::Writes(out)
        }
        other => other,
    }
}

fn copy_like_targets(name: &str, args: &[Word]) -> Effect {
    let spec = if name == "install" {
        OptionSpec {
            short_values: "tSmog",
            long_values: &[
                "target-directory",
                "suffix",
                "mode",
                "owner",
                "group",
                "strip-program",
            ],
        }
    } else {
        TARGET_DIR_SPEC
    };
    let parsed = parse(args, &spec);
    if let Some(dir) = parsed
        .value_of('t', "target-directory")
        .and_then(Target::from_value)
    {
        return Effect::Writes(destination(dir, &static_texts(&parsed.operands), false));
    }
    if name == "install" && (parsed.has_short('d') || parsed.has_long("directory")) {
        return Effect::Writes(
            parsed
                .operands
                .into_iter()
                .filter_map(Target::from_word)
                .collect(),
        );
    }
    match parsed.operands.as_slice() {
        // `ln -s /a/b` makes `./b`.
        [only] if name == "ln" => Effect::Writes(
            Target::from_word(only)
                .map(|t| Target {
                    text: basename(&t.text).to_owned(),
                    link_to: Some(link_target(&parsed, &t.text, basename(&t.text))),
                    ..t
                })
                .into_iter()
                .collect(),
        ),
        [sources @ .., last] if !sources.is_empty() => {
            let Some(dest) = Target::from_word(last) else {
                return NOTHING;
            };
            let mut out = destination(dest, &static_texts(sources), no_target_directory(&parsed));
            if name == "ln" {
                // `ln [-s] SRC DEST`: DEST (or DEST/SRC's name, when DEST is a directory)
                // now leads to SRC; either may be the one, so both are remembered.
                let texts = static_texts(sources);
                for target in &mut out {
                    let source = texts
                        .iter()
                        .find(|s| target.text.ends_with(&format!("/{}", basename(s))))
                        .or((texts.len() == 1).then(|| &texts[0]));
                    if let Some(source) = source {
                        target.link_to = Some(link_target(&parsed, source, &target.text));
                    }
                }
            }
            Effect::Writes(out)
        }
        _ => NOTHING,
    }
}

fn rsync(args: &[Word]) -> Effect {
    let spec = OptionSpec {
        short_values: "efTBM",
        long_values: &[
            "rsh",
            "exclude",
            "include",
            "filter",
            "exclude-from",
            "include-from",
            "files-from",
            "temp-dir",
            "block-size",
            "remote-option",
            "rsync-path",
            "partial-dir",
            "backup-dir",
            "compare-dest",
            "copy-dest",
            "link-dest",
            "chmod",
            "chown",
            "timeout",
            "port",
            "password-file",
            "bwlimit",
            "max-size",
            "min-size",
            "suffix",
            "log-file",
            "out-format",
        ],
    };
    let parsed = parse(args, &spec);
    match parsed.operands.as_slice() {
        // `host:path` and `rsync://` destinations are on another machine.
        [_, .., last] if !is_remote(&last.text) => {
            Effect::Writes(Target::from_word(last).into_iter().collect())
        }
        _ => NOTHING,
    }
}

fn is_remote(spec: &str) -> bool {
    spec.starts_with("rsync://")
        || spec
            .find(':')
            .is_some_and(|colon| !spec[..colon].contains('/'))
}

fn change_dir(args: &[Word], push: bool) -> Effect {
    let parsed = parse(args, &OptionSpec::NONE);
    let Some(dir) = parsed.operands.first() else {
        // `cd` alone goes home; `pushd` alone swaps with the stack.
        return Effect::ChangeDir(if push {
            DirChange::Unknown
        } else {
            DirChange::Home
        });
    };
    if dir.text == "-" && !push {
        return Effect::ChangeDir(DirChange::Back);
    }
    let runtime_only = dir.substituted
        || dir.process
        || (push && (dir.text.starts_with('+') || dir.text.starts_with('-')));
    if runtime_only || dir.text.is_empty() {
        return Effect::ChangeDir(DirChange::Unknown);
    }
    Effect::ChangeDir(DirChange::Enter {
        dir: dir.text.clone(),
        push,
    })
}

/// What a link made by `ln` leads to, spelled relative to where the command runs: a
/// relative symlink target is relative to the link's own directory.
fn link_target(parsed: &Parsed<'_>, source: &str, link: &str) -> String {
    let symbolic = parsed.has_short('s') || parsed.has_long("symbolic");
    if !symbolic || source.starts_with('/') {
        return source.to_owned();
    }
    match link.trim_end_matches('/').rsplit_once('/') {
        Some((dir, _)) if !dir.is_empty() => super::effect::join(dir, source),
        _ => source.to_owned(),
    }
}

/// Codex's patch tool as a command: the patch is the first argument or standard input.
fn apply_patch(args: &[Word], stdin: Option<&str>) -> Effect {
    let patch = match args.first() {
        Some(word) if word.substituted => {
            return Effect::Unknown(Unreadable::Patch {
                why: "the patch is only known at runtime",
            });
        }
        Some(word) => word.text.as_str(),
        None => stdin.unwrap_or_default(),
    };
    match read_apply_patch(patch) {
        Ok(paths) => Effect::Writes(paths.into_iter().map(Target::literal).collect()),
        Err(why) => Effect::Unknown(why),
    }
}

/// `sh -c SCRIPT [$0 [$1 …]]` runs SCRIPT; `sh FILE` runs a file this reader cannot see
/// (like `make` or `python script.py`); a shell with neither reads its script from
/// standard input (`bash <<EOF`, `sh < x.sh`, `… | bash`).
/// acc's own runner (`acc-guard …`, `acc-hook guard-exec …`) runs the word after `--` as
/// `bash -c` would: read as that script. What its options make read-only is not counted
/// on (an agent may spell the line itself, with no claim named).
fn guard_runner(name: &str, args: &[Word]) -> Effect {
    let Some(dash) = args.iter().position(|w| w.text == "--") else {
        return Effect::Unknown(Unreadable::dynamic_script(name));
    };
    match &args[dash + 1..] {
        [script] if !script.substituted && !script.process => Effect::Script {
            script: script.text.clone(),
            child: Some(vec!["bash".to_owned()]),
        },
        _ => Effect::Unknown(Unreadable::dynamic_script(name)),
    }
}

fn shell(name: &str, args: &[Word]) -> Effect {
    let parsed = parse(
        args,
        &OptionSpec {
            short_values: "oO",
            long_values: &["rcfile", "init-file"],
        },
    );
    let has_c = parsed.flags.iter().any(|f| matches!(f, Flag::Short('c')));
    if !has_c {
        if parsed.operands.is_empty() || parsed.has_short('s') {
            return Effect::Unknown(Unreadable::script_on_stdin(name));
        }
        if parsed.operands[0].substituted {
            return Effect::Unknown(Unreadable::dynamic_script(name));
        }
        // What the script writes is seen after it runs; the paths it is given may be written.
        let rest: Vec<Word> = parsed.operands[1..].iter().map(|w| (*w).clone()).collect();
        return Effect::Writes(super::unknown::all_named(name, &rest));
    }
    match parsed.operands.split_first() {
        Some((script, _)) if script.substituted => {
            Effect::Unknown(Unreadable::dynamic_script(&format!("{name} -c")))
        }
        Some((script, rest)) => {
            if rest.iter().any(|w| w.substituted) {
                return Effect::Unknown(Unreadable::dynamic_script(&format!("{name} -c")));
            }
            let mut positional: Vec<String> = rest.iter().map(|w| w.text.clone()).collect();
            if positional.is_empty() {
                positional.push(name.to_owned());
            }
            Effect::Script {
                script: script.text.clone(),
                child: Some(positional),
            }
        }
        None => Effect::Unknown(Unreadable::script_on_stdin(name)),
    }
}
