//! Commands whose writes cannot be read from their text: inline interpreter code, scripts
//! fed on standard input, `source`, definitions, deferred commands, and programs that run a
//! writer on files chosen at runtime (`xargs rm`, `find -exec rm`). Each is refused with a
//! reason that says how to rephrase; a command that is none of these stays readable.

use super::effect::{Effect, NOTHING, Target};
use super::lexer::Word;
use super::options::{OptionSpec, leading_options};
use super::unreadable::Unreadable;

/// Programs that write files named on their command line (the command table), shells and
/// the in-place editors: running one of them on runtime-chosen input is unreadable.
const WRITERS: [&str; 25] = [
    "rm",
    "rmdir",
    "unlink",
    "mv",
    "cp",
    "ln",
    "install",
    "touch",
    "truncate",
    "shred",
    "mkdir",
    "tee",
    "dd",
    "rsync",
    "sed",
    "perl",
    "ruby",
    "git",
    "sudoedit",
    "apply_patch",
    "applypatch",
    "patch",
    "chmod",
    "find",
    "xargs",
];

const SHELLS: [&str; 7] = ["sh", "bash", "zsh", "dash", "ksh", "mksh", "ash"];

/// Programs that run another command in a way this reader does not model (a command string
/// run through a shell, another root, a tracer writing its own files).
const OPAQUE_WRAPPERS: [&str; 16] = [
    "watch",
    "su",
    "runuser",
    "script",
    "chroot",
    "unshare",
    "nsenter",
    "systemd-run",
    "firejail",
    "strace",
    "ltrace",
    "flock",
    "sg",
    "expect",
    "parallel",
    "entr",
];

/// Can `name` write files (directly, through a shell, or through inline code)?
pub fn is_writer(name: &str) -> bool {
    WRITERS.contains(&name) || SHELLS.contains(&name) || interpreter(name).is_some()
}

/// The flag that runs inline code, for the interpreters that have one.
fn interpreter(name: &str) -> Option<&'static str> {
    let python = name.starts_with("python") || name.starts_with("pypy");
    Some(match name {
        _ if python => "-c",
        "node" | "nodejs" | "bun" => "-e",
        "perl" | "ruby" | "lua" | "luajit" | "Rscript" | "osascript" => "-e",
        "php" => "-r",
        "deno" => "eval",
        _ => return None,
    })
}

/// Why the command `name args` cannot be read, or `None` when it can (or is not one of
/// these). Checked before the command table.
pub fn refusal(name: &str, args: &[Word]) -> Option<Unreadable> {
    match name {
        "source" | "." => return Some(Unreadable::Source),
        "alias" if args.iter().any(|w| w.text.contains('=')) => {
            return Some(Unreadable::Definition { what: "an alias" });
        }
        "function" => return Some(Unreadable::Definition { what: "a function" }),
        "trap"
            if args
                .first()
                .is_some_and(|w| !matches!(w.text.as_str(), "-l" | "-p")) =>
        {
            return Some(Unreadable::deferred("trap"));
        }
        "coproc" => return Some(Unreadable::deferred("coproc")),
        "xargs" => return runner("xargs", &args[xargs_options(args)..]),
        "awk" | "gawk" | "mawk" | "nawk" => return awk(name, args),
        _ => {}
    }
    if OPAQUE_WRAPPERS.contains(&name) {
        let runs_string = args.iter().any(|w| w.is_bare("-c"));
        return match writer_among(args) {
            Some(runs) if name == "parallel" => Some(Unreadable::runner(name, &runs)),
            Some(_) => Some(Unreadable::wrapper(name)),
            None if runs_string => Some(Unreadable::wrapper(name)),
            None => None,
        };
    }
    if let Some(flag) = interpreter(name) {
        return inline(name, flag, args);
    }
    None
}

/// The first word of `args` (or of a command string among them) that names a writer.
fn writer_among(args: &[Word]) -> Option<String> {
    args.iter().find_map(|w| {
        let first = w.text.split_whitespace().next()?;
        let base = first.rsplit('/').next().unwrap_or(first);
        is_writer(base).then(|| base.to_owned())
    })
}

/// `program` running `command` on files chosen at runtime: refused when the command may
/// write (a writer among its words, or a program not known to be read-only).
fn runner(program: &str, command: &[Word]) -> Option<Unreadable> {
    let unbounded = || {
        let first = command.first()?;
        let base = first.text.rsplit('/').next().unwrap_or(&first.text);
        (!super::unknown::is_read_only(base)).then(|| base.to_owned())
    };
    writer_among(command)
        .or_else(unbounded)
        .map(|runs| Unreadable::runner(program, &runs))
}

/// How many leading words are `xargs`' own options.
fn xargs_options(args: &[Word]) -> usize {
    leading_options(
        args,
        &OptionSpec {
            short_values: "adEILnPsi",
            long_values: &[
                "arg-file",
                "delimiter",
                "eof",
                "replace",
                "max-lines",
                "max-args",
                "max-procs",
                "max-chars",
                "process-slot-var",
            ],
        },
    )
}

/// Inline code (`python3 -c`, `node -e`, `perl -pi -e`), or a script on standard input (the
/// interpreter with no script operand, or `-`).
fn inline(name: &str, flag: &'static str, args: &[Word]) -> Option<Unreadable> {
    if flag == "eval" {
        return args
            .first()
            .filter(|w| w.text == "eval")
            .map(|_| Unreadable::inline_code(name, "eval"));
    }
    let letter = flag.chars().nth(1)?;
    // Asking for the version or help runs nothing.
    if args.iter().any(|w| {
        matches!(
            w.text.as_str(),
            "-V" | "-v" | "--version" | "-h" | "--help" | "-VV"
        )
    }) && !args.iter().any(|w| !w.is_flag())
    {
        return None;
    }
    let python = name.starts_with("python") || name.starts_with("pypy");
    // Letters that take a value, after which the rest of a cluster is that value.
    let value_letters = if python { "mWXQ" } else { "iIMmlx0CdDVrF" };
    for word in args {
        if word.is_bare("--") || !word.is_flag() {
            // The first operand is a script file, or `-` (standard input).
            return (word.text == "-").then(|| Unreadable::script_on_stdin(name));
        }
        if let Some(long) = word.text.strip_prefix("--") {
            if matches!(long.split('=').next(), Some("eval" | "print")) {
                return Some(Unreadable::inline_code(name, &word.text));
            }
            continue;
        }
        for c in word.text[1..].chars() {
            if c == letter || (name == "perl" && c == 'E') || (name.starts_with("node") && c == 'p')
            {
                return Some(Unreadable::inline_code(name, &format!("-{c}")));
            }
            if value_letters.contains(c) {
                break;
            }
        }
        if python && word.text == "-m" {
            return None;
        }
    }
    Some(Unreadable::script_on_stdin(name))
}

/// `awk` runs a program: one that calls `system()`, pipes to or from a command, or redirects
/// `print` into a file writes what this reader cannot see.
fn awk(name: &str, args: &[Word]) -> Option<Unreadable> {
    let spec = OptionSpec {
        short_values: "Fvf",
        long_values: &["field-separator", "assign", "file", "source", "include"],
    };
    let n = leading_options(args, &spec);
    let from_file = args[..n]
        .iter()
        .any(|w| w.text.starts_with("-f") || w.text.starts_with("--file"));
    if from_file {
        return None;
    }
    let program = args.get(n)?;
    let text = &program.text;
    let pipes = text.contains("|&")
        || text.contains("| \"")
        || text.contains("|\"")
        || (text.contains("getline") && text.contains('|'));
    let redirects = text.match_indices("print").any(|(at, _)| {
        text[at..]
            .split([';', '}', '\n'])
            .next()
            .is_some_and(|s| s.contains('>'))
    });
    (program.substituted || text.contains("system") || pipes || redirects)
        .then(|| Unreadable::inline_code(name, "program"))
}

/// `find`: `-delete` removes what it finds under each starting point, `-fprint FILE` writes
/// FILE, and `-exec`/`-ok` running a writer writes files chosen at runtime.
pub fn find(args: &[Word]) -> Effect {
    let starts: Vec<&Word> = args
        .iter()
        .take_while(|w| !(w.text.starts_with('-') || w.text == "(" || w.text == "!"))
        .collect();
    let mut out = Vec::new();
    let mut i = starts.len();
    while let Some(word) = args.get(i) {
        i += 1;
        match word.text.as_str() {
            "-delete" => {
                if starts.is_empty() {
                    out.push(Target {
                        whole: true,
                        ..Target::literal(".")
                    });
                }
                for start in &starts {
                    out.extend(Target::from_word(start).map(|t| Target { whole: true, ..t }));
                }
            }
            "-fprint" | "-fprint0" | "-fls" | "-fprintf" => {
                out.extend(args.get(i).and_then(Target::from_word));
                i += 1;
            }
            "-exec" | "-execdir" | "-ok" | "-okdir" => {
                let end = args[i..]
                    .iter()
                    .position(|w| w.text == ";" || w.text == "+")
                    .map_or(args.len(), |p| i + p);
                if let Some(why) = runner("find -exec", &args[i..end]) {
                    return Effect::Unknown(why);
                }
                i = end + 1;
            }
            _ => {}
        }
    }
    if out.is_empty() {
        NOTHING
    } else {
        Effect::Writes(out)
    }
}
