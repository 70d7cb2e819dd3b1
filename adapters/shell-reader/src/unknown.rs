//! Programs outside the command table: the ones known to be read-only name nothing; the
//! ones known to write into their working directory (archive extractors, `patch`, package
//! managers, scaffolders) write that directory whole; every other program may write any
//! path it names (`chmod 000 src/lib.rs`, `curl -o src/x`, `tar -C src -x`), so each
//! argument and option value is a path it may write. The guard refuses such a path only
//! when it lies inside a peer's guarded claim, with a reason that says acc could not bound
//! the program ([`NamedBy`]).

use super::effect::{Effect, NOTHING, NamedBy, Target, dynamic_reason};
use super::lexer::Word;
use super::options::{OptionSpec, parse};
use super::unreadable::Unreadable;

/// Programs that write no file they are given (their output goes to standard output, which
/// a redirection names). A few with an output option or operand are read apart below.
pub(super) const READ_ONLY: &[&str] = &[
    ":",
    "[",
    "[[",
    "acc",
    "ack",
    "ag",
    "alias",
    "arch",
    "awk",
    "b2sum",
    "base32",
    "base64",
    "basename",
    "bat",
    "batcat",
    "break",
    "cal",
    "cat",
    "cksum",
    "clear",
    "cmp",
    "column",
    "comm",
    "continue",
    "cut",
    "date",
    "df",
    "diff",
    "dirname",
    "du",
    "echo",
    "egrep",
    "env",
    "exa",
    "exit",
    "expr",
    "eza",
    "factor",
    "false",
    "fgrep",
    "fmt",
    "fold",
    "free",
    "gawk",
    "getconf",
    "getopts",
    "grep",
    "groups",
    "hash",
    "head",
    "help",
    "hexdump",
    "history",
    "host",
    "hostname",
    "id",
    "info",
    "jobs",
    "join",
    "jq",
    "kill",
    "less",
    "let",
    "locale",
    "locate",
    "logname",
    "ls",
    "lsblk",
    "lsof",
    "man",
    "mapfile",
    "mawk",
    "md5sum",
    "more",
    "nawk",
    "nl",
    "nproc",
    "numfmt",
    "od",
    "paste",
    "pgrep",
    "pr",
    "printenv",
    "printf",
    "ps",
    "pwd",
    "read",
    "readarray",
    "readlink",
    "realpath",
    "return",
    "rev",
    "rg",
    "seq",
    "set",
    "sha1sum",
    "sha224sum",
    "sha256sum",
    "sha384sum",
    "sha512sum",
    "shift",
    "shopt",
    "sleep",
    "stat",
    "strings",
    "sum",
    "tac",
    "tail",
    "test",
    "tokei",
    "top",
    "tput",
    "tr",
    "trap",
    "true",
    "tty",
    "type",
    "ulimit",
    "umask",
    "unalias",
    "uname",
    "unexpand",
    "uptime",
    "users",
    "wait",
    "wc",
    "whereis",
    "which",
    "who",
    "whoami",
    "yes",
    "cloc",
    "expand",
    "file",
    "tsort",
    "ptx",
    "sha",
    "shasum",
    "tree",
    "fd",
    "fdfind",
    "sort",
    "uniq",
    "xxd",
];

/// Whether `name` is known to write no file it is given.
pub fn is_read_only(name: &str) -> bool {
    READ_ONLY.contains(&name) && !matches!(name, "sort" | "uniq" | "xxd" | "tree" | "fd" | "fdfind")
}

/// Package managers and their subcommands that install, add, remove or scaffold into the
/// directory they run in (or the one `--prefix`/`-C`/`--cwd`/`--dir` gives).
const INSTALLERS: &[(&str, &[&str])] = &[
    (
        "npm",
        &[
            "install",
            "i",
            "in",
            "ins",
            "isntall",
            "add",
            "ci",
            "clean-install",
            "update",
            "up",
            "upgrade",
            "uninstall",
            "un",
            "remove",
            "rm",
            "r",
            "unlink",
            "link",
            "ln",
            "init",
            "create",
            "dedupe",
            "ddp",
            "prune",
            "rebuild",
            "rb",
            "audit",
            "pack",
            "shrinkwrap",
            "version",
            "pkg",
        ],
    ),
    (
        "pnpm",
        &[
            "install",
            "i",
            "add",
            "update",
            "up",
            "upgrade",
            "remove",
            "rm",
            "uninstall",
            "un",
            "link",
            "ln",
            "unlink",
            "init",
            "create",
            "dedupe",
            "prune",
            "rebuild",
            "import",
            "fetch",
            "patch-commit",
            "pack",
            "dlx",
            "audit",
        ],
    ),
    (
        "yarn",
        &[
            "install",
            "add",
            "remove",
            "upgrade",
            "up",
            "upgrade-interactive",
            "init",
            "create",
            "link",
            "unlink",
            "import",
            "dlx",
            "pack",
            "audit",
            "dedupe",
            "patch",
        ],
    ),
    (
        "bun",
        &[
            "install", "i", "add", "a", "remove", "rm", "update", "link", "unlink", "init",
            "create", "c", "pm", "patch",
        ],
    ),
    ("pip", &["install", "uninstall", "download", "wheel"]),
    (
        "uv",
        &[
            "pip", "add", "remove", "sync", "lock", "init", "venv", "tool",
        ],
    ),
    (
        "poetry",
        &[
            "add", "remove", "install", "lock", "update", "init", "new", "sync",
        ],
    ),
    (
        "pdm",
        &["add", "remove", "install", "lock", "update", "init", "sync"],
    ),
    (
        "pipenv",
        &["install", "uninstall", "lock", "sync", "update"],
    ),
    (
        "bundle",
        &["install", "update", "add", "remove", "init", "lock"],
    ),
    (
        "bundler",
        &["install", "update", "add", "remove", "init", "lock"],
    ),
    (
        "composer",
        &[
            "install",
            "update",
            "require",
            "remove",
            "create-project",
            "init",
            "dump-autoload",
        ],
    ),
    ("go", &["mod", "get", "generate", "fmt", "work", "fix"]),
    (
        "cargo",
        &[
            "fmt",
            "fix",
            "add",
            "remove",
            "rm",
            "update",
            "generate-lockfile",
            "vendor",
            "init",
            "new",
        ],
    ),
    ("dotnet", &["new", "add", "remove", "restore", "format"]),
    (
        "deno",
        &["install", "add", "remove", "fmt", "init", "cache"],
    ),
];

/// Scaffolders and extractors that always write into the directory they run in.
const WRITES_INTO_CWD: &[&str] = &["cookiecutter", "yo", "degit", "copier", "giget"];

/// The option names that move an installer's directory.
const DIR_OPTIONS: &[&str] = &[
    "--prefix",
    "-C",
    "--cwd",
    "--dir",
    "--directory",
    "--project",
];

/// The effect of `name args`, a program outside the command table.
pub fn unknown(name: &str, args: &[Word]) -> Effect {
    match name {
        "sort" => return option_values(name, args, 'o', "output"),
        "tree" => return option_values(name, args, 'o', "output"),
        "uniq" | "xxd" => return second_operand(name, args),
        "awk" | "gawk" if args.iter().any(|w| w.text == "inplace") => {
            return Effect::Writes(all_named(name, args));
        }
        "fd" | "fdfind" if args.iter().any(|w| exec_flag(&w.text)) => {
            return Effect::Writes(all_named(name, args));
        }
        // The command it runs was judged by `opaque::refusal`: read-only, or refused.
        "xargs" => return NOTHING,
        "tar" | "bsdtar" | "gtar" => return tar(name, args),
        "unzip" => return unzip(args),
        "7z" | "7za" | "7zr" | "7zz" => return seven_zip(name, args),
        "cpio" => return cpio(args),
        "patch" => return patch(args),
        "vi" | "vim" | "nvim" | "ex" | "view" | "gvim" | "rvim" | "vimdiff" => {
            return vim(name, args);
        }
        "make" | "gmake" if makefile_on_stdin(args) => {
            return Effect::Unknown(Unreadable::script_on_stdin(name));
        }
        "ar" | "jar" | "unrar" | "unar" | "bsdcpio" => return archive(name, args),
        "curl" | "wget" => return fetcher(name, args),
        "npx" | "pnpx" | "bunx" => return runner_of_packages(name, args),
        // GitHub's CLI writes files only where it clones, downloads or checks out; its
        // other arguments are titles and bodies (`--body "$(cat <<EOF …)"`), not paths.
        "gh" => {
            let writes = args.iter().any(|w| {
                matches!(
                    w.text.as_str(),
                    "clone" | "download" | "checkout" | "co" | "sync"
                )
            });
            if !writes {
                return NOTHING;
            }
            let mut out = vec![into(name, ".")];
            out.extend(all_named(name, args));
            return Effect::Writes(out);
        }
        _ => {}
    }
    if READ_ONLY.contains(&name) {
        return NOTHING;
    }
    if let Some(writes) = checker_writes(name, args) {
        return if writes {
            Effect::Writes(all_named(name, args))
        } else {
            NOTHING
        };
    }
    if WRITES_INTO_CWD.contains(&name) || name.starts_with("create-") {
        let mut out = vec![into(name, ".")];
        out.extend(all_named(name, args));
        return Effect::Writes(out);
    }
    if let Some(effect) = installer(name, args) {
        return effect;
    }
    if let Some(rest) = interpreter_arguments(name, args) {
        return rest;
    }
    Effect::Writes(all_named(name, args))
}

/// Vim writes its file operands, and whatever its commands (`-c CMD`, `+CMD`, `--cmd CMD`,
/// `-S FILE`) name: each word of a command is taken as a path it may write.
fn vim(program: &str, args: &[Word]) -> Effect {
    let mut out = all_named(program, args);
    let mut words = args.iter();
    while let Some(word) = words.next() {
        let text = word.text.as_str();
        let command = if matches!(text, "-c" | "--cmd" | "-S") {
            words.next().map(|w| (w.text.as_str(), w))
        } else {
            text.strip_prefix('+').map(|c| (c, word))
        };
        if let Some((command, word)) = command {
            out.extend(
                command
                    .split_whitespace()
                    .filter_map(|w| named(program, w, word)),
            );
        }
    }
    Effect::Writes(out)
}

/// `make -f -` and `make -f /dev/stdin` read the makefile from standard input.
fn makefile_on_stdin(args: &[Word]) -> bool {
    args.windows(2).any(|w| {
        matches!(w[0].text.as_str(), "-f" | "--file" | "--makefile")
            && matches!(w[1].text.as_str(), "-" | "/dev/stdin")
    }) || args.iter().any(|w| {
        matches!(
            w.text.as_str(),
            "-f-" | "-f/dev/stdin" | "--file=-" | "--file=/dev/stdin" | "--makefile=-"
        )
    })
}

/// Linters and formatters: read-only unless told to fix or write in place (`eslint --fix`,
/// `prettier --write`, `gofmt -w`), or, for formatters that write by default (`black`,
/// `rustfmt`, `ruff format`, `isort`), unless told only to check. `None` for any other
/// program.
fn checker_writes(name: &str, args: &[Word]) -> Option<bool> {
    let has = |flags: &[&str]| {
        args.iter()
            .any(|w| flags.contains(&w.text.split('=').next().unwrap_or_default()))
    };
    let checks_only = || has(&["--check", "--diff", "--check-only", "-c", "--dry-run"]);
    Some(match name {
        "eslint" | "stylelint" | "markdownlint" | "markdownlint-cli2" | "biome" => {
            has(&["--fix", "--write", "--apply"])
        }
        "prettier" => has(&["--write", "-w"]),
        "gofmt" | "goimports" => has(&["-w"]),
        "clang-format" => has(&["-i"]),
        "yq" => has(&["-i", "--inplace"]),
        "black" | "rustfmt" | "isort" | "autopep8" | "yapf" => {
            !checks_only() || has(&["-i", "--in-place"])
        }
        "ruff" => match args.iter().find(|w| !w.is_flag()).map(|w| w.text.as_str()) {
            Some("format") => !checks_only(),
            _ => has(&["--fix", "--unsafe-fixes"]),
        },
        "shellcheck" | "mypy" | "flake8" | "pylint" | "pyright" | "yamllint" | "hadolint"
        | "tflint" | "actionlint" | "cppcheck" | "golangci-lint" | "staticcheck" => {
            has(&["--fix", "-fix"])
        }
        _ => return None,
    })
}

/// `fd -x`/`-X`: runs a command on what it finds.
fn exec_flag(text: &str) -> bool {
    matches!(text, "-x" | "-X" | "--exec" | "--exec-batch")
}

/// A path `program` names: written whole, for all acc can tell (`chmod -R`, `tar -C`).
fn named(program: &str, text: &str, word: &Word) -> Option<Target> {
    if text.is_empty() || text == "-" || text.contains("://") || word.process {
        return None;
    }
    Some(Target {
        dynamic: dynamic_reason(word),
        whole: true,
        named_by: Some(by(program, false)),
        ..Target::literal(text)
    })
}

fn by(program: &str, into: bool) -> NamedBy {
    NamedBy {
        program: super::unreadable::shown(program),
        into,
    }
}

/// The directory `program` writes into, whole.
fn into(program: &str, dir: &str) -> Target {
    Target {
        whole: true,
        named_by: Some(by(program, true)),
        ..Target::literal(if dir.is_empty() { "." } else { dir })
    }
}

/// Every argument and option value of `args` as a path `program` may write: operands,
/// `--opt=VALUE`, `-oVALUE` (a short option's attached value, or the rest of a cluster),
/// and `NAME=VALUE`. A word that is only an option's value is an operand here, since which
/// options take one is unknown.
pub fn all_named(program: &str, args: &[Word]) -> Vec<Target> {
    let mut out = Vec::new();
    for word in args {
        let text = word.text.as_str();
        if word.is_bare("--") {
            continue;
        }
        if word.is_flag() {
            if let Some(long) = text.strip_prefix("--") {
                if let Some((_, value)) = long.split_once('=') {
                    out.extend(named(program, value, word));
                } else if word.substituted {
                    out.extend(named(program, text, word));
                }
            } else if let Some(rest) = text.get(2..) {
                out.extend(named(program, rest, word));
            }
            continue;
        }
        out.extend(named(program, text, word));
        if let Some((_, value)) = text.split_once('=') {
            out.extend(named(program, value, word));
        }
    }
    out
}

/// `sort -o FILE`, `tree -o FILE`: the output option's value.
fn option_values(program: &str, args: &[Word], short: char, long: &str) -> Effect {
    let spec = OptionSpec {
        short_values: if short == 'o' { "oktST" } else { "" },
        long_values: &[
            "output",
            "key",
            "field-separator",
            "buffer-size",
            "temporary-directory",
        ],
    };
    let parsed = parse(args, &spec);
    let targets = parsed
        .values
        .iter()
        .filter(|(f, _)| {
            matches!(f, super::options::Flag::Short(c) if *c == short)
                || matches!(f, super::options::Flag::Long(n) if n == long)
        })
        .filter_map(|(_, v)| {
            let mut t = Target::from_value(v)?;
            t.named_by = Some(by(program, false));
            Some(t)
        })
        .collect();
    Effect::Writes(targets)
}

/// `uniq IN OUT`, `xxd IN OUT`: the second operand is written.
fn second_operand(program: &str, args: &[Word]) -> Effect {
    let spec = OptionSpec {
        short_values: "fswcglos",
        long_values: &[
            "skip-fields",
            "skip-chars",
            "check-chars",
            "group",
            "all-repeated",
        ],
    };
    let parsed = parse(args, &spec);
    Effect::Writes(
        parsed
            .operands
            .get(1)
            .and_then(|w| named(program, &w.text, w))
            .into_iter()
            .collect(),
    )
}

/// `tar`: extracting writes the `-C` directory (or the working one) whole; creating writes
/// the archive; listing writes nothing. Any other form names every argument.
fn tar(program: &str, args: &[Word]) -> Effect {
    let mut modes = String::new();
    let mut dirs: Vec<Target> = Vec::new();
    let mut archive: Vec<Target> = Vec::new();
    // Old-style `tar xzf a.tar`: the first word is a cluster without a dash.
    let mut i = 0;
    let mut pending_values: Vec<char> = Vec::new();
    if let Some(first) = args.first()
        && !first.text.starts_with('-')
        && first.text.chars().all(|c| c.is_ascii_alphabetic())
    {
        modes.push_str(&first.text);
        pending_values.extend(first.text.chars().filter(|c| matches!(c, 'f' | 'C')));
        i = 1;
    }
    while let Some(word) = args.get(i) {
        i += 1;
        let text = word.text.as_str();
        if let Some(c) = pending_values.first().copied() {
            pending_values.remove(0);
            let t = if c == 'C' {
                Some(into(program, text))
            } else {
                named(program, text, word)
            };
            if c == 'C' {
                dirs.extend(t);
            } else {
                archive.extend(t);
            }
            continue;
        }
        if let Some(long) = text.strip_prefix("--") {
            let (name, value) = match long.split_once('=') {
                Some((n, v)) => (n, Some(v.to_owned())),
                None => (long, None),
            };
            let value_of = |i: &mut usize| -> Option<String> {
                value.clone().or_else(|| {
                    let v = args.get(*i).map(|w| w.text.clone());
                    *i += 1;
                    v
                })
            };
            match name {
                "extract" | "get" => modes.push('x'),
                "list" => modes.push('t'),
                "create" => modes.push('c'),
                "append" => modes.push('r'),
                "update" => modes.push('u'),
                "directory" => dirs.extend(value_of(&mut i).map(|d| into(program, &d))),
                "file" => {
                    if let Some(f) = value_of(&mut i) {
                        archive.extend(named(program, &f, word));
                    }
                }
                _ => {}
            }
            continue;
        }
        if word.is_flag() {
            let letters: Vec<char> = text[1..].chars().collect();
            for (at, c) in letters.iter().enumerate() {
                modes.push(*c);
                if matches!(c, 'f' | 'C') {
                    let rest: String = letters[at + 1..].iter().collect();
                    if rest.is_empty() {
                        pending_values.push(*c);
                    } else if *c == 'C' {
                        dirs.push(into(program, &rest));
                    } else {
                        archive.extend(named(program, &rest, word));
                    }
                    break;
                }
            }
        }
    }
    // `--remove-files` removes what it archived.
    if args.iter().any(|w| w.text == "--remove-files") {
        return Effect::Writes(all_named(program, args));
    }
    if modes.contains('x') {
        if dirs.is_empty() {
            dirs.push(into(program, "."));
        }
        return Effect::Writes(dirs);
    }
    if modes.contains('t') {
        return NOTHING;
    }
    if modes.contains(['c', 'r', 'u', 'A']) {
        return Effect::Writes(archive);
    }
    Effect::Writes(all_named(program, args))
}

/// `unzip a.zip` writes the working directory, or `-d DIR`; `-l`, `-v`, `-t`, `-Z` only
/// list or test.
fn unzip(args: &[Word]) -> Effect {
    if args
        .iter()
        .any(|w| w.is_flag() && matches!(w.text.as_str(), "-l" | "-v" | "-t" | "-Z" | "-z"))
    {
        return NOTHING;
    }
    let parsed = parse(
        args,
        &OptionSpec {
            short_values: "dxP",
            long_values: &[],
        },
    );
    let dir = parsed
        .value_of('d', "")
        .map_or(".".to_owned(), |v| v.text().to_owned());
    Effect::Writes(vec![into("unzip", &dir)])
}

/// `7z x|e` writes `-oDIR` or the working directory; `7z a|u|d|rn` writes its archive;
/// `7z l|t|h|i` writes nothing.
fn seven_zip(program: &str, args: &[Word]) -> Effect {
    let operands: Vec<&Word> = args.iter().filter(|w| !w.is_flag()).collect();
    match operands.first().map(|w| w.text.as_str()) {
        Some("x" | "e") => {
            let dir = args
                .iter()
                .find_map(|w| w.text.strip_prefix("-o"))
                .unwrap_or(".");
            Effect::Writes(vec![into(program, dir)])
        }
        Some("l" | "t" | "h" | "i" | "b") => NOTHING,
        _ => Effect::Writes(all_named(program, args)),
    }
}

/// `cpio -i` writes the working directory (or `-D DIR`); `cpio -p DIR` writes DIR; `cpio
/// -o` writes its standard output.
fn cpio(args: &[Word]) -> Effect {
    let has = |letter: char, long: &str| {
        args.iter().any(|w| {
            w.text == long
                || (w.is_flag() && !w.text.starts_with("--") && w.text[1..].contains(letter))
        })
    };
    let dir = args
        .iter()
        .position(|w| w.text == "-D" || w.text == "--directory")
        .and_then(|at| args.get(at + 1))
        .map_or(".", |w| w.text.as_str());
    if has('i', "--extract") {
        return Effect::Writes(vec![into("cpio", dir)]);
    }
    if has('p', "--pass-through") {
        return Effect::Writes(all_named("cpio", args));
    }
    if has('o', "--create") {
        let file = args
            .iter()
            .position(|w| matches!(w.text.as_str(), "-O" | "-F" | "--file"))
            .and_then(|at| args.get(at + 1));
        return Effect::Writes(
            file.and_then(|w| named("cpio", &w.text, w))
                .into_iter()
                .collect(),
        );
    }
    Effect::Writes(all_named("cpio", args))
}

/// `patch` writes the files its patch names, under the working directory or `-d DIR`;
/// `--dry-run` writes nothing.
fn patch(args: &[Word]) -> Effect {
    if args.iter().any(|w| w.text == "--dry-run") {
        return NOTHING;
    }
    let parsed = parse(
        args,
        &OptionSpec {
            short_values: "dpiorFBDVYzgx",
            long_values: &[
                "directory",
                "strip",
                "input",
                "output",
                "reject-file",
                "fuzz",
                "prefix",
                "suffix",
            ],
        },
    );
    let dir = parsed
        .value_of('d', "directory")
        .map_or(".".to_owned(), |v| v.text().to_owned());
    let mut out = vec![into("patch", &dir)];
    out.extend(all_named("patch", args));
    Effect::Writes(out)
}

/// `ar x`, `jar x`, `unrar x|e`, `unar`: extraction writes the working directory; anything
/// else names its arguments.
fn archive(program: &str, args: &[Word]) -> Effect {
    let first = args
        .iter()
        .find(|w| !w.text.is_empty())
        .map_or("", |w| w.text.trim_start_matches('-'));
    let extracts = match program {
        "unar" | "bsdcpio" => true,
        "unrar" => first == "x" || first == "e",
        _ => first.starts_with('x') || (program == "ar" && first.contains('x')),
    };
    let mut out = all_named(program, args);
    if extracts {
        out.insert(0, into(program, "."));
    }
    Effect::Writes(out)
}

/// `curl -O URL` and `wget URL` write the URL's last name in the working directory; every
/// argument is named too (`curl -o FILE`, `wget -O FILE`, `wget -P DIR`).
fn fetcher(program: &str, args: &[Word]) -> Effect {
    let remote_name = program == "wget"
        || args.iter().any(|w| {
            w.text.starts_with("--remote-name")
                || (w.is_flag() && !w.text.starts_with("--") && w.text[1..].contains('O'))
        });
    let mut out = all_named(program, args);
    if remote_name {
        for word in args.iter().filter(|w| w.text.contains("://")) {
            let path = word.text.split(['?', '#']).next().unwrap_or_default();
            let name = path.rsplit('/').next().unwrap_or_default();
            let is_host = path.matches('/').count() < 3;
            if !is_host && !name.is_empty() && name != "." && name != ".." {
                out.extend(named(program, name, word));
            }
        }
    }
    Effect::Writes(out)
}

/// `npx create-app`, `npx degit`: a scaffolder writes the working directory; any other
/// package run names its arguments.
fn runner_of_packages(name: &str, args: &[Word]) -> Effect {
    let package = args.iter().find(|w| !w.is_flag());
    let mut out = all_named(name, args);
    if let Some(package) = package {
        let base = package.text.rsplit('/').next().unwrap_or_default();
        let base = base.split('@').next().unwrap_or_default();
        if base.starts_with("create-") || WRITES_INTO_CWD.contains(&base) {
            out.insert(0, into(name, "."));
        }
    }
    Effect::Writes(out)
}

/// A package manager: installing, adding, removing or scaffolding writes the directory it
/// runs in (or the one an option gives); other subcommands name their arguments, except
/// the build and test runs of `cargo` and `go`, which name only their output options.
fn installer(name: &str, args: &[Word]) -> Option<Effect> {
    let program = match name {
        "pip3" | "pip2" => "pip",
        _ if name.starts_with("pip3.") => "pip",
        other => other,
    };
    let (_, writes) = INSTALLERS.iter().find(|(p, _)| *p == program)?;
    // The subcommand: the first operand that is not a directory option's value.
    let sub = args
        .iter()
        .enumerate()
        .find(|(at, w)| {
            let a_directory = *at > 0 && DIR_OPTIONS.contains(&args[at - 1].text.as_str());
            !w.is_flag() && !a_directory
        })
        .map(|(_, w)| w.text.as_str());
    // `yarn` and `bun` alone install.
    let installs = match sub {
        Some(sub) => writes.contains(&sub),
        None => matches!(program, "yarn" | "bun"),
    };
    let checks_only = args
        .iter()
        .any(|w| matches!(w.text.as_str(), "--check" | "--dry-run" | "-n"))
        && matches!(sub, Some("fmt" | "format"));
    let fixes = args.iter().any(|w| w.text == "--fix");
    if (installs && !checks_only) || (program == "cargo" && sub == Some("clippy") && fixes) {
        let dirs: Vec<Target> = args
            .windows(2)
            .filter(|pair| DIR_OPTIONS.contains(&pair[0].text.as_str()))
            .map(|pair| into(name, &pair[1].text))
            .collect();
        let mut out = if dirs.is_empty() {
            vec![into(name, ".")]
        } else {
            dirs
        };
        out.extend(all_named(name, args));
        return Some(Effect::Writes(out));
    }
    if matches!(program, "cargo" | "go") {
        // Builds and tests write their own output directory, which only an option moves.
        let outputs = ["--target-dir", "--out-dir", "--artifact-dir", "-o"];
        let mut out = Vec::new();
        for (at, word) in args.iter().enumerate() {
            if let Some((opt, value)) = word.text.split_once('=')
                && outputs.contains(&opt)
            {
                out.extend(named(name, value, word));
            } else if outputs.contains(&word.text.as_str())
                && let Some(value) = args.get(at + 1)
            {
                out.extend(named(name, &value.text, value));
            }
        }
        return Some(Effect::Writes(out));
    }
    Some(Effect::Writes(all_named(name, args)))
}

/// An interpreter running a script file (`python3 tools/gen.py ARGS`): what the script
/// writes is seen after it runs, as before, but the arguments it is given are paths it may
/// write. `None` when `name` is no interpreter.
fn interpreter_arguments(name: &str, args: &[Word]) -> Option<Effect> {
    let python = name.starts_with("python") || name.starts_with("pypy");
    let known = python
        || matches!(
            name,
            "node"
                | "nodejs"
                | "ruby"
                | "perl"
                | "php"
                | "lua"
                | "luajit"
                | "Rscript"
                | "tsx"
                | "ts-node"
        );
    if !known {
        return None;
    }
    let mut i = 0;
    while let Some(word) = args.get(i) {
        if !word.is_flag() {
            break;
        }
        i += 1;
        // `python3 -m MODULE ARGS`: the module runs with the rest.
        if python && word.text == "-m" {
            let module = args.get(i).map(|w| w.text.as_str());
            let rest = args.get(i + 1..).unwrap_or_default();
            if let Some(module) = module
                && let Some(effect) = installer(module, rest)
            {
                return Some(effect);
            }
            return Some(Effect::Writes(all_named(name, rest)));
        }
    }
    let rest = args.get(i + 1..).unwrap_or_default();
    Some(Effect::Writes(all_named(name, rest)))
}
