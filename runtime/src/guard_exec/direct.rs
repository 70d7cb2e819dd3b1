//! Which commands the runner may start without its inner `bash -c`.
//!
//! `bash -c 'make -j4'` does not fork for a lone simple command: it looks the program up
//! in `PATH` and execs it in place of itself. For a command of plain words naming a
//! program, starting that program directly is therefore what bash would have done, minus
//! bash's own start (about 0.9 ms CPU per confined call). Everything bash would read
//! differently takes the shell: any character that quotes, expands or redirects, an
//! assignment, a builtin or keyword (it runs inside bash), an exported function of the
//! program's name, `BASH_ENV` (sourced first), `SHELLOPTS`/`BASHOPTS`, or a program not
//! found as a regular executable file (bash's own message and status, 126 or 127, stay
//! bash's). A `#!` script or an ELF file is exec'd as bash would exec it; other files
//! (which bash would run as a shell script) take the shell too.

use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

/// bash 5's builtins and reserved words (`compgen -b; compgen -k`): they run inside bash,
/// so the shell must stay.
const SHELL_NAMES: &[&str] = &[
    ".",
    ":",
    "[",
    "alias",
    "bg",
    "bind",
    "break",
    "builtin",
    "caller",
    "cd",
    "command",
    "compgen",
    "complete",
    "compopt",
    "continue",
    "declare",
    "dirs",
    "disown",
    "echo",
    "enable",
    "eval",
    "exec",
    "exit",
    "export",
    "false",
    "fc",
    "fg",
    "getopts",
    "hash",
    "help",
    "history",
    "jobs",
    "kill",
    "let",
    "local",
    "logout",
    "mapfile",
    "popd",
    "printf",
    "pushd",
    "pwd",
    "read",
    "readarray",
    "readonly",
    "return",
    "set",
    "shift",
    "shopt",
    "source",
    "suspend",
    "test",
    "times",
    "trap",
    "true",
    "type",
    "typeset",
    "ulimit",
    "umask",
    "unalias",
    "unset",
    "wait",
    "if",
    "then",
    "else",
    "elif",
    "fi",
    "case",
    "esac",
    "for",
    "select",
    "while",
    "until",
    "do",
    "done",
    "in",
    "function",
    "time",
    "{",
    "}",
    "!",
    "[[",
    "]]",
    "coproc",
];

/// Environment variables that change what `bash -c` does before or instead of the exec.
const SHELL_VARS: &[&str] = &["BASH_ENV", "ENV", "SHELLOPTS", "BASHOPTS"];

/// A program to exec in place of `bash -c COMMAND`, and its arguments (`argv[1..]`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Direct {
    /// The word as written (bash passes it as `argv[0]`).
    pub arg0: OsString,
    pub program: PathBuf,
    pub args: Vec<OsString>,
}

/// The words of `command` when it is one simple command of plain words, else `None`.
pub fn plain_words(command: &OsStr) -> Option<Vec<&str>> {
    let text = command.to_str()?;
    let plain = |c: char| c.is_ascii_alphanumeric() || "_-./,:+@%=".contains(c);
    if !text.chars().all(|c| c == ' ' || c == '\t' || plain(c)) {
        return None;
    }
    let words: Vec<&str> = text.split([' ', '\t']).filter(|w| !w.is_empty()).collect();
    let first = words.first()?;
    // `NAME=value cmd` is an assignment; `%1`-like words are job specs only for builtins.
    if first.contains('=') || SHELL_NAMES.contains(first) {
        return None;
    }
    Some(words)
}

/// What to exec instead of `bash -c command` under `env` (the runner's environment), or
/// `None` when the shell must run it.
pub fn resolve<'a>(
    command: &OsStr,
    env: impl Fn(&str) -> Option<OsString>,
    functions: impl IntoIterator<Item = &'a OsStr>,
) -> Option<Direct> {
    let words = plain_words(command)?;
    if SHELL_VARS.iter().any(|v| env(v).is_some()) {
        return None;
    }
    let name = words[0];
    let exported = format!("BASH_FUNC_{name}%%");
    if functions
        .into_iter()
        .any(|k| k.as_bytes() == exported.as_bytes())
    {
        return None;
    }
    let program = if name.contains('/') {
        PathBuf::from(name)
    } else {
        search(name, &env("PATH")?)?
    };
    if !execs_as_bash_would(&program) {
        return None;
    }
    Some(Direct {
        arg0: name.into(),
        program,
        args: words[1..].iter().map(OsString::from).collect(),
    })
}

/// bash's `PATH` search: the first regular executable file; an empty entry is the working
/// directory.
fn search(name: &str, path: &OsStr) -> Option<PathBuf> {
    path.as_bytes().split(|&b| b == b':').find_map(|dir| {
        let dir = if dir.is_empty() {
            Path::new(".")
        } else {
            Path::new(OsStr::from_bytes(dir))
        };
        let candidate = dir.join(name);
        executable_file(&candidate).then_some(candidate)
    })
}

fn executable_file(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    let Ok(meta) = std::fs::metadata(path) else {
        return false;
    };
    if !meta.is_file() || meta.permissions().mode() & 0o111 == 0 {
        return false;
    }
    let Ok(c) = std::ffi::CString::new(path.as_os_str().as_bytes()) else {
        return false;
    };
    // SAFETY: `c` is a valid NUL-terminated path for the duration of the call.
    unsafe { libc::access(c.as_ptr(), libc::X_OK) == 0 }
}

/// An ELF file or a `#!` script: the kernel runs it as it would from bash. Anything else
/// bash runs as a shell script itself, so it keeps the shell.
fn execs_as_bash_would(program: &Path) -> bool {
    use std::io::Read;
    if !executable_file(program) {
        return false;
    }
    let mut head = [0u8; 4];
    let Ok(mut file) = std::fs::File::open(program) else {
        return false;
    };
    match file.read(&mut head) {
        Ok(n) if n >= 2 && head[..2] == *b"#!" => true,
        Ok(4) => head == *b"\x7fELF",
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn path_env(path: &'static str) -> impl Fn(&str) -> Option<OsString> {
        move |k| (k == "PATH").then(|| path.into())
    }

    #[test]
    fn only_plain_words_naming_no_builtin_are_plain() {
        assert_eq!(
            plain_words(OsStr::new("cargo test -p acc-runtime")),
            Some(vec!["cargo", "test", "-p", "acc-runtime"])
        );
        assert_eq!(
            plain_words(OsStr::new("ls\t./src,x a=b")),
            Some(vec!["ls", "./src,x", "a=b"])
        );
        for shell in [
            "true",
            "cd src",
            "echo hi",
            "A=1 make",
            "make > log",
            "make && ls",
            "make; ls",
            "ls $HOME",
            "ls *.rs",
            "ls ~",
            "ls 'a b'",
            "ls \"a\"",
            "ls a\\ b",
            "ls {a,b}",
            "make # note",
            "ls\nrm x",
            "(ls)",
            "ls `x`",
            "ls a|b",
            "ls &",
            "[[ -e x ]]",
            "",
            "   ",
        ] {
            assert_eq!(plain_words(OsStr::new(shell)), None, "{shell:?}");
        }
    }

    #[test]
    fn resolves_as_bash_would_or_leaves_it_to_bash() {
        let dir = tempfile::tempdir().unwrap();
        let bin = dir.path().join("bin");
        let other = dir.path().join("other");
        std::fs::create_dir_all(&bin).unwrap();
        std::fs::create_dir_all(&other).unwrap();
        let write = |p: &Path, bytes: &[u8], mode: u32| {
            use std::os::unix::fs::PermissionsExt;
            std::fs::write(p, bytes).unwrap();
            std::fs::set_permissions(p, std::fs::Permissions::from_mode(mode)).unwrap();
        };
        // The first match in PATH is not executable: bash skips it, and so do we.
        write(&bin.join("tool"), b"#!/bin/sh\n", 0o644);
        write(&other.join("tool"), b"#!/bin/sh\n", 0o755);
        write(&other.join("noshebang"), b"echo hi\n", 0o755);
        let path: &'static str =
            Box::leak(format!("{}:{}", bin.display(), other.display()).into_boxed_str());
        let none = std::iter::empty::<&OsStr>();
        assert_eq!(
            resolve(OsStr::new("tool a b"), path_env(path), none),
            Some(Direct {
                arg0: "tool".into(),
                program: other.join("tool"),
                args: vec!["a".into(), "b".into()],
            })
        );
        // A file without `#!` is a shell script to bash: bash runs it.
        assert_eq!(
            resolve(
                OsStr::new("noshebang"),
                path_env(path),
                std::iter::empty::<&OsStr>()
            ),
            None
        );
        // Not found: bash says so, with its status.
        assert_eq!(
            resolve(
                OsStr::new("missing"),
                path_env(path),
                std::iter::empty::<&OsStr>()
            ),
            None
        );
        // An exported function of that name runs instead of the program.
        let f = OsString::from("BASH_FUNC_tool%%");
        assert_eq!(
            resolve(OsStr::new("tool"), path_env(path), [f.as_os_str()]),
            None
        );
        // BASH_ENV is sourced first.
        let with_bash_env = move |k: &str| match k {
            "PATH" => Some(path.into()),
            "BASH_ENV" => Some("/tmp/rc".into()),
            _ => None,
        };
        assert_eq!(
            resolve(
                OsStr::new("tool"),
                with_bash_env,
                std::iter::empty::<&OsStr>()
            ),
            None
        );
        // A path is exec'd as given.
        let given = other.join("tool");
        assert_eq!(
            resolve(given.as_os_str(), |_| None, std::iter::empty::<&OsStr>()),
            Some(Direct {
                arg0: given.clone().into_os_string(),
                program: given.clone(),
                args: vec![],
            })
        );
    }
}
