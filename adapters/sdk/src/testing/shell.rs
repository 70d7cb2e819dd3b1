//! One table of shell commands every adapter with a shell tool is tested against, through
//! its own payload shape and normaliser: what bash would expand is read where the command
//! runs (a real directory), opaque commands are unreadable with a reason, and read-only
//! commands write nothing.

use std::path::Path;

use serde_json::Value;

use crate::adapter::AdapterBehaviour;
use crate::event::{Targets, ToolClass};

/// The targets `behaviour` reads from its client's shell-tool `payload`, which must
/// normalise to a shell call (`what` names it in a failure).
pub fn shell_call_targets(
    behaviour: &dyn AdapterBehaviour,
    payload: &Value,
    what: &str,
) -> Targets {
    let tool = behaviour
        .normalize_hook(payload, &[])
        .expect("a shell payload normalises")
        .tool
        .expect("a tool call");
    assert_eq!(tool.class, ToolClass::Shell, "{what}");
    tool.targets
}

/// Lays out the workspace the table expects under `dir`: a git worktree with `src/a.rs`,
/// `src/b.rs` and `docs/x.md`. Returns `dir` as the client would report it (canonical).
pub fn shell_workspace(dir: &Path) -> String {
    for (path, body) in [
        ("src/a.rs", "a\n"),
        ("src/b.rs", "b\n"),
        ("docs/x.md", "x\n"),
    ] {
        let file = dir.join(path);
        std::fs::create_dir_all(file.parent().expect("a parent")).expect("a directory");
        std::fs::write(file, body).expect("a file");
    }
    std::fs::create_dir_all(dir.join(".git")).expect("a .git directory");
    dir.canonicalize()
        .expect("a canonical path")
        .display()
        .to_string()
}

/// What a case expects.
enum Want {
    Paths(Vec<String>),
    Nothing,
    /// Unreadable, with a reason holding this text.
    Refused(&'static str),
}

/// Runs the table: `targets(cwd, command)` normalises the client's shell-tool payload for
/// `command` run in `cwd` and returns its targets. Every failing case is named.
#[track_caller]
pub fn assert_shell_reading(dir: &Path, targets: impl Fn(&str, &str) -> Targets) {
    let cwd = shell_workspace(dir);
    let paths = |p: &[&str]| Want::Paths(p.iter().map(|s| s.to_string()).collect());
    let cases: Vec<(&str, Want)> = vec![
        // `rm` removes what it names whole (`/**`).
        ("rm src/*", paths(&["src/a.rs/**", "src/b.rs/**"])),
        ("rm -rf s?c", paths(&["src/**"])),
        ("rm -rf [s]rc", paths(&["src/**"])),
        ("echo x > src/*.py", paths(&["src/*.py"])),
        ("touch src/{c,d}.rs", paths(&["src/c.rs", "src/d.rs"])),
        ("D=src; echo x > $D/a.rs", paths(&["src/a.rs"])),
        ("echo x > $'\\x73rc'/a.rs", paths(&["src/a.rs"])),
        ("sh -c 'rm -rf \"$1\"' _ src", paths(&["src/**"])),
        (
            "echo x > \"$PWD/src/a.rs\"",
            Want::Paths(vec![format!("{cwd}/src/a.rs")]),
        ),
        (
            "cd src && git stash",
            Want::Paths(vec![format!("{cwd}/**")]),
        ),
        ("git checkout main -- src", paths(&["src/**"])),
        (
            "ln -s src l && echo x > l/a.rs",
            paths(&["l", "l/src", "l/a.rs", "src/a.rs"]),
        ),
        (
            "python3 -c 'open(\"src/x\", \"w\")'",
            Want::Refused("`python3 -c`"),
        ),
        ("node -e 'x'", Want::Refused("`node -e`")),
        (
            "bash <<EOF\nrm -rf src\nEOF",
            Want::Refused("standard input"),
        ),
        (
            "find . -name '*.rs' | xargs rm",
            Want::Refused("`xargs … rm`"),
        ),
        ("echo x > \"$(date)\"", Want::Refused("substitution")),
        ("cat src/a.rs", Want::Nothing),
        ("grep -rn x src", Want::Nothing),
        ("ls src/*.rs", Want::Nothing),
        ("cd src && ls", Want::Nothing),
        ("git status && git diff && git log -1", Want::Nothing),
        ("sed -n '1p' src/a.rs", Want::Nothing),
        ("cargo build", Want::Nothing),
        ("npm test", Want::Nothing),
        ("make", Want::Nothing),
    ];
    let mut failures = Vec::new();
    for (command, want) in cases {
        let got = targets(&cwd, command);
        let ok = match (&want, &got) {
            (Want::Paths(p), Targets::Paths(g)) => p == g,
            (Want::Nothing, Targets::None) => true,
            // Paths a program acc cannot bound names are judged, but it writes nothing known.
            (Want::Nothing, Targets::Named { paths, .. }) => paths.is_empty(),
            (Want::Refused(text), Targets::Unreadable { reason }) => reason.contains(text),
            _ => false,
        };
        if !ok {
            failures.push(format!("{command:?}: got {got:?}"));
        }
    }
    assert!(
        failures.is_empty(),
        "{} shell case(s) failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
