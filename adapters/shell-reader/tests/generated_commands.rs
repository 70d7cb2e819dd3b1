//! The reader's fuzz target, as a property test over generated command lines (no nightly
//! toolchain needed): whatever it is given, it answers (no panic, no endless loop), and a
//! write whose target it cannot name makes the whole command unreadable, never a target
//! list without it. A named write is never dropped either.

use std::sync::mpsc;
use std::time::Duration;

use acc_shell_reader::{ShellContext, ShellTarget, Unreadable, read_shell_command};
use proptest::prelude::*;

/// Far longer than any reading takes; reaching it means the reader loops.
const ANSWER_WITHIN: Duration = Duration::from_secs(20);

/// Reads `command` on a thread of its own, so a reader that never returns fails the test
/// naming the command instead of hanging it.
fn read(command: &str) -> Result<Vec<ShellTarget>, Unreadable> {
    let (tx, rx) = mpsc::channel();
    let owned = command.to_string();
    std::thread::spawn(move || {
        let _ = tx.send(read_shell_command(&owned, &ShellContext::DETACHED));
    });
    match rx.recv_timeout(ANSWER_WITHIN) {
        Ok(answer) => answer,
        Err(mpsc::RecvTimeoutError::Timeout) => panic!("the reader did not answer: {command:?}"),
        Err(mpsc::RecvTimeoutError::Disconnected) => panic!("the reader panicked: {command:?}"),
    }
}

/// Commands that write nothing the reader cannot name, and shell syntax around them.
const HARMLESS: &[&str] = &[
    "true",
    "echo hi",
    "ls -la",
    "cat README.md",
    "cd src",
    "cd ..",
    "grep -rn x .",
    "git status",
    "x=1",
    "export Y=2",
    "test -f a",
    "sort -o out.txt in.txt",
    "cp a b",
    "mkdir -p build/x",
    "echo $(ls)",
    "wc -l < in.txt",
    "printf '%s' \"a b\"",
];

const SEPARATORS: &[&str] = &[" ; ", " && ", " || ", " | ", "\n", " & "];

/// Writes into a target known only when the command runs.
const UNNAMEABLE: &[&str] = &[
    "echo x > \"$TARGET\"",
    "echo x >> ${DIR}/f",
    "cp a \"$(mktemp)\"",
    "touch `pwd`/f",
    "rm -rf \"$D\"",
    "mv a $(cat where)",
    "tee \"$OUT\" < in.txt",
    "sed -i s/a/b/ \"$F\"",
    "ln -s a \"${LINK}\"",
];

/// Pieces of shell text chosen to reach the lexer's corners: quotes, substitutions,
/// heredocs, groups, escapes, keywords.
const SHARDS: &[&str] = &[
    "'",
    "\"",
    "`",
    "$(",
    ")",
    "${",
    "}",
    "<<",
    "EOF",
    "\n",
    "\\",
    "(",
    "{",
    ";",
    ";;",
    "&",
    "|",
    ">",
    ">>",
    "<",
    "<(",
    ">(",
    "$((",
    "))",
    "if",
    "then",
    "fi",
    "case",
    "in",
    "esac",
    "do",
    "done",
    "for",
    "sh -c",
    "bash -lc",
    "eval",
    "cd",
    "rm -rf",
    "cp",
    "mv",
    "sed -i",
    "apply_patch",
    "*** Begin Patch",
    "*** Add File: a",
    "*** End Patch",
    "~",
    "$HOME",
    " ",
    "a",
    "src/",
    "..",
    "-",
    "--",
    "=",
    "#",
    "\t",
    "é",
    "\u{0}",
];

fn harmless_list() -> impl Strategy<Value = String> {
    prop::collection::vec(
        (
            prop::sample::select(HARMLESS),
            prop::sample::select(SEPARATORS),
        ),
        0..6,
    )
    .prop_map(|parts| {
        parts
            .into_iter()
            .map(|(command, sep)| format!("{command}{sep}"))
            .collect()
    })
}

/// Where a write sits: as it is, in a subshell, a substitution, or a script read in turn.
fn wrap(write: &str, how: u8) -> String {
    match how % 5 {
        0 => write.to_string(),
        1 => format!("( {write} )"),
        2 => format!("echo $( {write} )"),
        3 => format!("sh -c '{write}'"),
        _ => format!("if true; then {write}; fi"),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(192))]

    #[test]
    fn any_text_is_answered(shards in prop::collection::vec(prop::sample::select(SHARDS), 0..40)) {
        let command: String = shards.concat();
        let _ = read(&command);
    }

    #[test]
    fn any_string_is_answered(command in any::<String>()) {
        let _ = read(&command);
    }

    #[test]
    fn a_target_it_cannot_name_makes_the_command_unreadable(
        before in harmless_list(),
        write in prop::sample::select(UNNAMEABLE),
        how in any::<u8>(),
        after in harmless_list(),
    ) {
        let command = format!("{before}{}\n{after}true", wrap(write, how));
        let answer = read(&command);
        prop_assert!(
            answer.is_err(),
            "a runtime-built target was dropped from {command:?}: {answer:?}"
        );
    }

    #[test]
    fn a_named_target_is_never_dropped(
        before in harmless_list(),
        n in 0u32..1000,
        how in any::<u8>(),
        after in harmless_list(),
    ) {
        let target = format!("written-{n}.txt");
        let command = format!("{before}{}\n{after}true", wrap(&format!("echo x > {target}"), how));
        // Unreadable is a safe answer (a `cd` the reader cannot follow comes before it); a
        // reading that names targets must name this one.
        if let Ok(found) = read(&command) {
            prop_assert!(
                found.iter().any(|t| t.path.ends_with(&target)),
                "{target} was dropped from {command:?}: {found:?}"
            );
        }
    }
}

#[test]
fn the_properties_can_fail() {
    // The checks above are only worth their cases if they see a dropped target: a plain
    // write is named, a runtime one is not.
    let named = read("echo x > written-1.txt").unwrap();
    assert_eq!(named[0].path, "written-1.txt");
    assert!(read("echo x > \"$TARGET\"").is_err());
    assert!(
        read("echo x > out.txt")
            .unwrap()
            .iter()
            .all(|t| !t.path.ends_with("written-1.txt"))
    );
}

#[test]
fn the_readme_example_reads_as_it_says() {
    let found = read("rm -rf gen; cp a.rs out/").unwrap();
    let paths: Vec<(&str, bool)> = found.iter().map(|t| (t.path.as_str(), t.whole)).collect();
    assert_eq!(paths, [("gen", true), ("out/", false), ("out/a.rs", false)]);
}
