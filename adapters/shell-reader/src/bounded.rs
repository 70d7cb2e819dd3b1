//! Programs whose every write the reader sees: they write no file they are not redirected
//! into and start no other program, whatever their arguments. A command that runs only
//! these (and builtins) writes nothing but the targets the reader reports, so the guard,
//! having judged those, need not watch the claimed files around it (issue 30): the
//! fingerprints that catch what `make` or a script writes have nothing to catch.
//!
//! Deliberately narrower than the read-only list of [`super::unknown`]: no program with a
//! script language or an option that writes or runs something (`awk`'s `print >` and
//! `system()`, `sort -o`, `uniq IN OUT`, `find -delete`, `rg --pre`, `file -C`, `less`'s
//! `!`), and no wrapper (`sudo cat`, `xargs cat`), whose command the list would not cover.

/// The programs, by the name the shell looks up on its `PATH`.
const PROGRAMS: &[&str] = &[
    ":",
    "[",
    "[[",
    "b2sum",
    "base32",
    "base64",
    "basename",
    "cat",
    "cd",
    "cksum",
    "cmp",
    "column",
    "comm",
    "cut",
    "date",
    "df",
    "diff",
    "dirname",
    "du",
    "echo",
    "egrep",
    "expr",
    "false",
    "fgrep",
    "fold",
    "grep",
    "head",
    "id",
    "jq",
    "ls",
    "md5sum",
    "nl",
    "nproc",
    "od",
    "paste",
    "popd",
    "printenv",
    "printf",
    "pushd",
    "pwd",
    "readlink",
    "realpath",
    "rev",
    "seq",
    "sha1sum",
    "sha224sum",
    "sha256sum",
    "sha384sum",
    "sha512sum",
    "sleep",
    "stat",
    "strings",
    "tail",
    "test",
    "tr",
    "true",
    "uname",
    "wc",
    "which",
    "whoami",
];

/// Whether `program`, the command word as the shell will look it up, is one of them. A
/// word with a `/` names a file that could be anything (`./cat`).
pub fn writes_only_what_is_read(program: &str) -> bool {
    !program.contains('/') && PROGRAMS.contains(&program)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_plain_names_of_the_listed_programs_count() {
        assert!(writes_only_what_is_read("cat"));
        assert!(writes_only_what_is_read("grep"));
        for other in [
            "./cat", "/tmp/cat", "awk", "sort", "sudo", "xargs", "sh", "make", "",
        ] {
            assert!(!writes_only_what_is_read(other), "{other}");
        }
    }

    fn reading(command: &str) -> Option<(Vec<String>, bool)> {
        let reading =
            super::super::read_shell_command_whole(command, &super::super::ShellContext::DETACHED)
                .ok()?;
        let paths = reading.targets.into_iter().map(|t| t.path).collect();
        Some((paths, reading.writes_only_targets))
    }

    #[test]
    fn a_command_of_known_readers_writes_only_its_targets() {
        for (command, targets) in [
            ("cat src/lib.rs | grep -c x", vec![]),
            ("cat a b > out.txt 2>/dev/null", vec!["out.txt"]),
            ("LC_ALL=C grep -rn x src | head -5", vec![]),
            ("cd src && ls -la && wc -l *.rs", vec![]),
            ("echo $(cat VERSION) | tr -d v >> log", vec!["log"]),
            ("test -f x && echo yes || echo no", vec![]),
        ] {
            let want: Vec<String> = targets.into_iter().map(String::from).collect();
            assert_eq!(reading(command), Some((want, true)), "{command}");
        }
    }

    #[test]
    fn any_other_program_may_write_what_the_reader_does_not_see() {
        for command in [
            "make",
            "cargo test",
            "python3 x.py",
            "awk '{print > \"src/x\"}' a",
            "sort -o src/x a",
            "sudo cat x",
            "xargs cat < list",
            "sh -c 'cat x'",
            "./cat x",
            "PATH=. cat x",
            "export PATH=.:$PATH; cat x",
            "cat $(make)",
            "cat <(python3 x.py)",
            "diff a b | patch",
            "grep x a; rm -f b",
            "$CAT x",
        ] {
            if let Some((_, only)) = reading(command) {
                assert!(!only, "{command}");
            }
        }
    }

    #[test]
    fn the_list_is_sorted_and_within_the_read_only_programs_or_the_directory_changes() {
        let mut sorted = PROGRAMS.to_vec();
        sorted.sort_unstable();
        assert_eq!(sorted, PROGRAMS);
        for program in PROGRAMS {
            assert!(
                super::super::unknown::READ_ONLY.contains(program)
                    || ["cd", "pushd", "popd"].contains(program),
                "{program} is not known to be read-only"
            );
        }
    }
}
