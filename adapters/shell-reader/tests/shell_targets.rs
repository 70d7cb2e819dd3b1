//! `shell_write_targets` and `parse_shell_write_targets` against a table of commands agents
//! really run, including the awkward ones, plus a no-panic sweep over random input; and
//! `read_shell_command` in a context (a fake file system, a cwd and a home) for what bash
//! would expand, with the reason for every command that cannot be read.

use std::collections::BTreeSet;

use acc_shell_reader::{
    MAX_COMMAND_BYTES, ShellContext, ShellFs, ShellTarget, Unreadable, parse_shell_write_targets,
    read_shell_command, shell_write_targets,
};

/// (command, expected targets). Every row is a separate assertion.
const CASES: &[(&str, &[&str])] = &[
    // The real Codex payload (docs/research/real-clients-run.md): tool_input.command of a Bash
    // call.
    ("printf 'hello\\n' > hello.txt", &["hello.txt"]),
    // Redirections.
    ("echo hi > out.txt", &["out.txt"]),
    ("echo hi >> log.txt", &["log.txt"]),
    ("echo hi >| forced.txt", &["forced.txt"]),
    ("echo hi>tight.txt", &["tight.txt"]),
    ("make 2> errors.log", &["errors.log"]),
    ("make 2>>errors.log 1>out.log", &["errors.log", "out.log"]),
    ("make &> all.log", &["all.log"]),
    ("make &>> all.log", &["all.log"]),
    ("make > build.log 2>&1", &["build.log"]),
    ("make >& both.log", &["both.log"]),
    ("exec 3<> rw.bin", &["rw.bin"]),
    ("cmd 2>&-", &[]),
    ("echo x > /dev/null", &[]),
    (
        "echo x > /dev/stderr; echo y >/dev/stdout; echo z > /dev/tty",
        &[],
    ),
    ("> created.txt", &["created.txt"]),
    ("2>err.txt rm -f a", &["err.txt", "a"]),
    ("echo x > 'my file.txt'", &["my file.txt"]),
    ("echo x > '$HOME'", &["$HOME"]),
    ("echo x > &2", &[]),
    ("cat < input.txt", &[]),
    ("cat <<< 'x > y'", &[]),
    ("sort < in.txt > out.txt", &["out.txt"]),
    ("echo 'a > b'", &[]),
    ("echo a\\> b", &[]),
    ("echo hi # > not-a-target", &[]),
    ("echo x >out.txt; echo y > out.txt", &["out.txt"]),
    // Splitting.
    (
        "rm a && rm b || rm c; rm d & rm e | tee f |& tee g",
        &["a", "b", "c", "d", "e", "f", "g"],
    ),
    ("touch a\ntouch b", &["a", "b"]),
    ("ls | tee -a listing.txt", &["listing.txt"]),
    ("tee --append out1 out2 < in", &["out1", "out2"]),
    // Command table.
    ("rm -rf build dist", &["build", "dist"]),
    ("rm -- -weird-name", &["-weird-name"]),
    ("rm - ", &["-"]),
    ("rm \"-quoted\"", &["-quoted"]),
    ("unlink old.sock", &["old.sock"]),
    ("rmdir -p a/b/c", &["a/b/c"]),
    ("touch -d yesterday stamp", &["stamp"]),
    ("touch -r reference.txt new.txt", &["new.txt"]),
    ("touch -t 202401010000 f1 f2", &["f1", "f2"]),
    ("truncate -s 0 big.log", &["big.log"]),
    ("truncate --size=0 a.log", &["a.log"]),
    ("shred -n 3 -u secret.txt", &["secret.txt"]),
    ("mkdir -p -m 755 out/dir", &["out/dir"]),
    (
        "mv old.txt new.txt",
        &["old.txt", "new.txt", "new.txt/old.txt"],
    ),
    ("mv -t dest a b", &["dest", "dest/a", "dest/b", "a", "b"]),
    ("cp a b c dest/", &["dest/", "dest/a", "dest/b", "dest/c"]),
    ("cp -r src backup", &["backup", "backup/src"]),
    // `-T`: the destination is never a directory to copy into.
    ("cp -T a b", &["b"]),
    ("cp /etc/hosts src/", &["src/", "src/hosts"]),
    ("cp -t DIR a b", &["DIR", "DIR/a", "DIR/b"]),
    ("cp --target-directory=DIR a", &["DIR", "DIR/a"]),
    ("cp -S .orig a b", &["b", "b/a"]),
    ("cp only-one", &[]),
    ("ln -sf ../target link", &["link", "link/target"]),
    // A link made earlier in the command is followed by later targets.
    (
        "ln -s src l && echo x > l/a.rs",
        &["l", "l/src", "l/a.rs", "src/a.rs"],
    ),
    (
        "ln -sfn ../src sub/l; rm -rf sub/l/",
        &["sub/l", "sub/l/src", "sub/l/", "sub/../src"],
    ),
    (
        "ln src/a.rs hard && echo x >> hard",
        &["hard", "hard/a.rs", "src/a.rs"],
    ),
    ("ln -s /opt/tool/bin/tool", &["tool"]),
    (
        "install -m 755 build/acc /usr/local/bin/acc",
        &["/usr/local/bin/acc", "/usr/local/bin/acc/acc"],
    ),
    ("install -d a b", &["a", "b"]),
    ("rsync -av --exclude .git src/ backup/", &["backup/"]),
    ("rsync -e ssh -av src/ host:/srv/", &[]),
    ("dd if=/dev/zero of=disk.img bs=1M count=1", &["disk.img"]),
    ("git restore src/lib.rs", &["src/lib.rs"]),
    ("git restore --source HEAD~1 a.rs b.rs", &["a.rs", "b.rs"]),
    ("git restore -s main -- c.rs", &["c.rs"]),
    ("git restore --staged only-index.rs", &[]),
    ("git checkout -- f", &["f"]),
    ("git checkout -- f -- g", &["f", "g"]),
    ("git checkout main -- a -- b", &["a", "b"]),
    ("git checkout -- '--'", &["--"]),
    ("git checkout main -- a b", &["a", "b"]),
    // A lone operand may be a branch or a path (`git checkout src/lib.rs` restores it):
    // only the repository knows, so it counts as a path.
    ("git checkout feature", &["feature"]),
    ("git checkout -b feature", &[]),
    ("git -C sub checkout -- f", &["sub/f"]),
    ("git rm old.rs", &["old.rs"]),
    ("git rm --cached keep.rs", &[]),
    ("git mv a.rs b.rs", &["a.rs", "b.rs", "b.rs/a.rs"]),
    ("git status > status.txt", &["status.txt"]),
    // In-place editors.
    ("sed -i 's/a/b/' file.txt", &["file.txt"]),
    ("sed -i.bak 's/a/b/' file.txt", &["file.txt"]),
    ("sed -i '' 's/a/b/' mac.txt", &["mac.txt"]),
    ("sed -i .bak 's/a/b/' mac.txt", &["mac.txt"]),
    ("sed -e s/a/b/ -i .env", &[".env"]),
    (
        "sed --in-place=.orig -e 's/x/y/' -e 's/p/q/' one two",
        &["one", "two"],
    ),
    ("sed -E -i 's/(a)/\\1/' ere.txt", &["ere.txt"]),
    ("sed -n 's/a/b/p' read-only.txt", &[]),
    ("sed -f script.sed -i data.txt", &["data.txt"]),
    ("sed -ie 's/a/b/' gotcha.txt", &["gotcha.txt"]),
    // sed's own `w` command and flag write files too.
    ("sed -n 'w src/copy' in.txt", &["src/copy"]),
    (
        "sed -i 's/a/b/w changes.log' f.txt",
        &["f.txt", "changes.log"],
    ),
    ("perl -pie 's/a/b/' s.txt", &["s.txt"]),
    ("perl script.pl t.txt", &[]),
    ("ruby -i script.rb v.txt", &["v.txt"]),
    // Command word: assignments, wrappers, paths.
    ("sudo env X=1 tee f", &["f"]),
    ("sudo -u deploy -E tee /etc/app.conf", &["/etc/app.conf"]),
    ("sudo -- rm x", &["x"]),
    ("FOO=1 BAR=\"a b\" rm y", &["y"]),
    ("env -i PATH=/bin rm z", &["z"]),
    ("nice -n 5 rm n1", &["n1"]),
    ("nice -10 rm n2", &["n2"]),
    ("nohup tee out.log", &["out.log"]),
    ("time rm t1", &["t1"]),
    ("command rm c1", &["c1"]),
    ("command -v rm", &[]),
    ("timeout 5 rm slow", &["slow"]),
    ("/bin/rm abs", &["abs"]),
    ("\\rm quoted-name", &["quoted-name"]),
    ("sudo -e /etc/hosts", &["/etc/hosts"]),
    ("if true; then rm x1; fi", &["x1"]),
    ("{ rm b1; rm b2; }", &["b1", "b2"]),
    ("for f in a b; do echo \"$f\"; done > list", &["list"]),
    // Heredocs.
    ("cat <<EOF > f\nrm -rf /\necho x > y\nEOF", &["f"]),
    (
        "cat > notes.md <<'EOF'\n> quoted line\nEOF\ntouch after",
        &["notes.md", "after"],
    ),
    (
        "cat <<-EOF >tabbed\n\trm inside\n\tEOF\nrm outside",
        &["tabbed", "outside"],
    ),
    ("cat <<A <<B > two\nrm a\nA\nrm b\nB\nrm c", &["two", "c"]),
    ("cat <<EOF > unterminated\nrm never", &["unterminated"]),
    // Directories.
    ("cd src && sed -i 's/a/b/' main.rs", &["src/main.rs"]),
    ("cd /tmp && touch abs-dir", &["/tmp/abs-dir"]),
    ("(cd sub && rm inner) && rm outer", &["sub/inner", "outer"]),
    (
        "pushd lib && rm l.rs && popd && rm top.rs",
        &["lib/l.rs", "top.rs"],
    ),
    ("cd a; cd b; touch c", &["a/b/c"]),
    ("cd a/b/.. && touch c", &["a/c"]),
    ("cd a && cd - && touch c", &["c"]),
    ("pushd a && pushd b && popd && touch c", &["a/c"]),
    // Nested scripts.
    ("bash -lc 'echo hi > nested.txt'", &["nested.txt"]),
    ("sh -c \"rm -f x && touch y\"", &["x", "y"]),
    ("eval 'touch evaluated'", &["evaluated"]),
    ("bash script.sh > out", &["out"]),
    // Positional arguments of `sh -c`.
    ("sh -c 'rm -rf \"$1\"' _ src", &["src"]),
    ("bash -c 'touch $0.rs \"$@\"' lib a b", &["lib.rs", "a b"]),
    ("sh -c 'echo > \"$2\"' _ a", &[]),
    // acc's own runner runs its last word as `bash -c` would.
    (
        "acc-guard --ro /w/src -- 'rm -f src/lib.rs'",
        &["src/lib.rs"],
    ),
    (
        "/opt/acc/acc-hook guard-exec --rw /w/a -- 'echo x > src/a && touch b'",
        &["src/a", "b"],
    ),
    // Assignments earlier in the same command, and what bash expands statically.
    ("D=src; echo x > $D/a", &["src/a"]),
    ("D=src && echo x > \"${D}/a\"", &["src/a"]),
    ("export D=src; rm -rf $D", &["src"]),
    ("D=src; D+=/x; touch $D", &["src/x"]),
    ("D=src sh -c 'touch $D/a'", &["src/a"]),
    ("export D=lib; sh -c 'touch $D/a'", &["lib/a"]),
    ("F='a b'; rm $F \"$F\"", &["a", "b", "a b"]),
    ("echo x > $'\\x73rc'/a", &["src/a"]),
    ("echo x > $'\\163rc'/b", &["src/b"]),
    ("echo x > $'s\\u0072c'/c", &["src/c"]),
    (
        "touch {a,b}.rs src/{c,d/{e,f}}",
        &["a.rs", "b.rs", "src/c", "src/d/e", "src/d/f"],
    ),
    (
        "touch f{1..3} g{a..c} h{08..10}",
        &["f1", "f2", "f3", "ga", "gb", "gc", "h08", "h09", "h10"],
    ),
    ("touch '{a,b}' x{y}", &["{a,b}", "x{y}"]),
    // Substitutions.
    // A substitution's command runs wherever it stands.
    ("y=$(rm inside) && touch outside", &["inside", "outside"]),
    ("echo `rm inside` > out", &["inside", "out"]),
    (
        "tee >(gzip > inner.gz) plain.txt",
        &["inner.gz", "plain.txt"],
    ),
    ("echo > >(tee pf)", &["pf"]),
    ("make 2> >(tee -a err.log >&2)", &["err.log"]),
    ("cat <(rm -f gone) ok", &["gone"]),
    ("diff <(sort a) <(sort b) > d.txt", &["d.txt"]),
    // Codex's patch tool run through the shell.
    (
        "apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: patched.txt\n+x\n*** Update File: src/a.rs\n*** Move to: src/b.rs\n@@\n-a\n+b\n*** End Patch\nEOF",
        &["patched.txt", "src/a.rs", "src/b.rs"],
    ),
    (
        "apply_patch '*** Begin Patch\n*** Delete File: gone.rs\n*** End Patch'",
        &["gone.rs"],
    ),
    (
        "cd sub && apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: n.txt\n*** End Patch\nEOF",
        &["sub/n.txt"],
    ),
    (
        "apply_patch '  *** Begin Patch\n  *** Delete File: lead.rs\n*** End Patch'",
        &["lead.rs"],
    ),
    // find, xargs and interpreters running nothing that writes.
    ("find . -name '*.tmp' -delete", &["."]),
    ("find src build -type f -delete", &["src", "build"]),
    ("find . -name '*.rs' -fprint list.txt", &["list.txt"]),
    ("find . -name '*.rs' -exec grep -l x {} +", &[]),
    ("find . -name '*.tmp' | xargs grep x", &[]),
    ("python3 script.py", &[]),
    ("python3 -m pytest -q", &[]),
    ("node --version", &[]),
    ("awk '{print $1}' data.txt", &[]),
    ("awk '$3 > 100 {n++} END {print n}' data.txt", &[]),
    ("cat README.md", &[]),
    ("", &[]),
    ("   \n\t ", &[]),
];

#[test]
fn table() {
    assert!(CASES.len() >= 60, "the issue asks for at least 60 cases");
    let mut failures = Vec::new();
    for (command, expected) in CASES {
        let got = shell_write_targets(command);
        if got != *expected {
            failures.push(format!(
                "{command:?}\n    expected {expected:?}\n    got      {got:?}"
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} case(s) failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn readable_commands_parse_to_the_same_targets() {
    for (command, expected) in CASES {
        let expected: Vec<String> = expected.iter().map(|s| s.to_string()).collect();
        assert_eq!(
            parse_shell_write_targets(command),
            Some(expected),
            "{command:?}"
        );
    }
}

/// Commands whose targets cannot be read, with the code of the reason: `None` from the
/// parser (the guard refuses them while a peer holds a guarded claim) and `[]` from the
/// lenient form. Read with no context: no directory, home or file system is known.
const UNREADABLE: &[(&str, &str)] = &[
    ("echo 'unclosed > x", "shell.syntax"),
    ("echo \"unclosed > x", "shell.syntax"),
    ("echo $(unbalanced > x", "shell.syntax"),
    ("echo `unbalanced > x", "shell.syntax"),
    ("echo ${unbalanced > x", "shell.syntax"),
    ("cat << ; rm x", "shell.syntax"),
    ("cat <<", "shell.syntax"),
    // Substitutions and variables whose value is known only at runtime.
    ("echo x > $(date +%s).log", "shell.substitution"),
    ("echo x > `mktemp`", "shell.substitution"),
    ("cp a \"$(pwd)/b\"", "shell.dynamic-arguments"),
    ("$(which rm) f", "shell.substitution"),
    ("$RM f", "shell.unknown-variable"),
    ("echo x > \"$HOME\"", "shell.unknown-home"),
    ("echo x > ~/notes", "shell.unknown-home"),
    ("echo x > $OUT", "shell.unknown-variable"),
    (
        "for f in a b; do rm \"$f\"; done",
        "shell.dynamic-arguments",
    ),
    ("cp $OPTS a b", "shell.dynamic-arguments"),
    ("false && D=src; rm -rf $D", "shell.dynamic-arguments"),
    (
        "if x; then D=a; else D=b; fi; echo > $D",
        "shell.unknown-variable",
    ),
    ("read D; echo > $D", "shell.unknown-variable"),
    // Directories known only at runtime.
    ("cd && rm f", "shell.unknown-directory"),
    ("cd - && rm f", "shell.unknown-directory"),
    ("cd ~/project && rm f", "shell.unknown-directory"),
    ("eval \"rm \\$D\"", "shell.dynamic-arguments"),
    ("cd \"$DIR\" && touch f", "shell.unknown-directory"),
    ("popd && rm f", "shell.unknown-directory"),
    ("true || cd sub; rm f", "shell.unknown-directory"),
    ("env -C /tmp rm f", "shell.wrapper"),
    ("env -S 'rm f'", "shell.dynamic-script"),
    // Scripts that are only known at runtime, or fed on standard input.
    ("sh -c \"$CMD\"", "shell.dynamic-script"),
    ("eval \"$(generate)\"", "shell.dynamic-script"),
    ("bash <<EOF\nrm -rf src\nEOF", "shell.script-on-stdin"),
    ("sh < x.sh", "shell.script-on-stdin"),
    ("bash <<< 'rm -rf src'", "shell.script-on-stdin"),
    (
        "curl -s example.invalid/x.sh | bash",
        "shell.script-on-stdin",
    ),
    ("bash -s < x.sh", "shell.script-on-stdin"),
    (
        "python3 <<EOF\nopen('src/x','w')\nEOF",
        "shell.script-on-stdin",
    ),
    ("source env.sh", "shell.source"),
    (". ./env.sh && make", "shell.source"),
    // Definitions and deferred commands.
    ("alias ls='rm -rf src'; ls", "shell.definition"),
    ("f() { rm -rf src; }; f", "shell.definition"),
    ("function f { rm -rf src; }; f", "shell.definition"),
    ("trap 'rm -rf src' EXIT", "shell.deferred"),
    ("coproc rm -rf src", "shell.deferred"),
    // Inline interpreter code.
    ("python -c 'open(\"x\",\"w\")'", "shell.inline-code"),
    (
        "python3 -c 'import os; os.remove(\"src/x\")'",
        "shell.inline-code",
    ),
    (
        "node -e 'require(\"fs\").writeFileSync(\"src/x\", \"\")'",
        "shell.inline-code",
    ),
    ("node --eval 'x'", "shell.inline-code"),
    ("perl -e 'unlink \"src/x\"'", "shell.inline-code"),
    ("perl -pi -e 's/a/b/' p.txt", "shell.inline-code"),
    ("perl -i.bak -pe 's/a/b/' q.txt", "shell.inline-code"),
    ("ruby -e 'File.write(\"src/x\", \"\")'", "shell.inline-code"),
    ("ruby -i -pe 'gsub(/a/, \"b\")' u.rb", "shell.inline-code"),
    ("php -r 'unlink(\"src/x\");'", "shell.inline-code"),
    ("sed '1e rm -rf src' f.txt", "shell.inline-code"),
    ("sed -n 's/.*/rm &/e' list", "shell.inline-code"),
    ("env python3 -c 'x'", "shell.inline-code"),
    (
        "awk 'BEGIN { system(\"rm -rf src\") }'",
        "shell.inline-code",
    ),
    ("awk '{ print > \"src/out\" }' in.txt", "shell.inline-code"),
    ("awk '{ print | \"sh\" }' in.txt", "shell.inline-code"),
    // Runners of writers on runtime-chosen files, and unknown wrappers.
    ("find . -name '*.tmp' | xargs rm", "shell.runner"),
    ("xargs -I{} cp {} src/ < list", "shell.runner"),
    ("find . -name '*.rs' -exec rm {} \\;", "shell.runner"),
    ("find . -execdir sed -i s/a/b/ {} +", "shell.runner"),
    ("parallel rm ::: a b", "shell.runner"),
    ("watch 'rm -rf src'", "shell.wrapper"),
    ("su -c 'rm -rf src' bob", "shell.wrapper"),
    ("flock /tmp/l rm -rf src", "shell.wrapper"),
    ("git -c alias.x='!rm -rf src' x", "shell.wrapper"),
    ("git --work-tree=../other checkout -- .", "shell.wrapper"),
    ("git -C \"$(pwd)\" checkout -- f", "shell.substitution"),
    ("git checkout -- \"$F\"", "shell.dynamic-arguments"),
    // Globs with no file system to match them against.
    ("rm src/*", "shell.glob"),
    ("rm -rf *", "shell.glob"),
    // Codex patches Codex itself would refuse.
    ("apply_patch \"$PATCH\"", "patch.unreadable"),
    ("apply_patch <<'EOF'\nnot a patch\nEOF", "patch.unreadable"),
    (
        "apply_patch <<'EOF'\n*** Begin Patch\n*** Update File: src/a.rs\n*** End Patch\nEOF",
        "patch.unreadable",
    ),
];

#[test]
fn unreadable_commands() {
    let mut failures = Vec::new();
    for (command, code) in UNREADABLE {
        match read_shell_command(command, &ShellContext::DETACHED) {
            Err(why) if why.code() == *code => {
                assert!(why.to_string().len() > 30, "{command:?}: {why}");
                assert_eq!(parse_shell_write_targets(command), None, "{command:?}");
                assert_eq!(
                    shell_write_targets(command),
                    Vec::<String>::new(),
                    "{command:?}"
                );
            }
            other => failures.push(format!(
                "{command:?}\n    expected {code}\n    got      {other:?}"
            )),
        }
    }
    assert!(
        failures.is_empty(),
        "{} case(s) failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn reasons_say_how_to_rephrase() {
    let why = |c: &str| {
        read_shell_command(c, &ShellContext::DETACHED)
            .unwrap_err()
            .to_string()
    };
    assert_eq!(
        why("python3 -c 'open(\"src/x\", \"w\")'"),
        "acc cannot tell what `python3 -c` writes; write the file with the file tool, or run a \
         script whose written files are named in the command"
    );
    assert!(why("xargs rm < list").contains("name the files"));
    assert!(why("bash <<EOF\nrm x\nEOF").contains("run the commands directly"));
    assert!(why("echo > $OUT").contains("$OUT"));
    // Only a short, printable program name from the command ever shows.
    let long = format!("{}x -c 'secret'", "python".repeat(30));
    assert!(!why(&long).contains("secret"));
}

#[test]
fn an_unknown_directory_does_not_hide_absolute_targets() {
    assert_eq!(
        parse_shell_write_targets("cd ~ && touch /tmp/abs"),
        Some(vec!["/tmp/abs".to_owned()])
    );
}

#[test]
fn nesting_is_bounded() {
    // `eval` inside `eval` inside ...: the reader gives up rather than recurse without end.
    let mut command = "touch deep".to_owned();
    for _ in 0..10 {
        command = format!("eval {}", shell_quote(&command));
    }
    assert_eq!(parse_shell_write_targets(&command), None);
    let mut shallow = "touch deep".to_owned();
    for _ in 0..3 {
        shallow = format!("eval {}", shell_quote(&shallow));
    }
    assert_eq!(
        parse_shell_write_targets(&shallow),
        Some(vec!["deep".to_owned()])
    );
}

fn shell_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "'\\''"))
}

/// A tiny deterministic generator: no new crate for one sweep.
struct XorShift(u64);

impl XorShift {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

const SOUP: &[&str] = &[
    "rm",
    "tee",
    "cp",
    "mv",
    "sed",
    "-i",
    "-i.bak",
    "''",
    "\"",
    "'",
    "\\",
    ">",
    ">>",
    "2>",
    ">&",
    "&>",
    "<",
    "<<",
    "<<-",
    "<<<",
    "EOF",
    "\n",
    ";",
    "&&",
    "||",
    "|",
    "&",
    "(",
    ")",
    "$(",
    "`",
    "${",
    "}",
    "{",
    "--",
    "-t",
    "cd",
    "sudo",
    "env",
    "X=1",
    "bash",
    "-c",
    "eval",
    "git",
    "checkout",
    "restore",
    "of=",
    "dd",
    "pushd",
    "popd",
    "#",
    "é",
    "\u{0}",
    "\r\n",
    "a",
    "b/c",
    "/dev/null",
    "$'",
    "$\"",
    "<(",
    ">(",
    " ",
    "\t",
];

#[test]
fn never_panics_on_random_bytes() {
    let mut rng = XorShift(0x9E37_79B9_7F4A_7C15);
    for _ in 0..4000 {
        let len = rng.below(64);
        let bytes: Vec<u8> = (0..len).map(|_| rng.next() as u8).collect();
        let text = String::from_utf8_lossy(&bytes);
        let lenient = shell_write_targets(&text);
        let strict = parse_shell_write_targets(&text);
        assert_eq!(strict.clone().unwrap_or_default(), lenient, "{text:?}");
        assert_unique(&lenient, &text);
    }
}

#[test]
fn never_panics_on_token_soup() {
    let mut rng = XorShift(0xD1B5_4A32_D192_ED03);
    for _ in 0..6000 {
        let parts = 1 + rng.below(24);
        let mut text = String::new();
        for _ in 0..parts {
            text.push_str(SOUP[rng.below(SOUP.len())]);
            if rng.below(3) > 0 {
                text.push(' ');
            }
        }
        let lenient = shell_write_targets(&text);
        assert_eq!(
            parse_shell_write_targets(&text).unwrap_or_default(),
            lenient,
            "{text:?}"
        );
        assert_unique(&lenient, &text);
        assert!(
            lenient.iter().all(|t| !t.is_empty() && t != "/dev/null"),
            "{text:?} gave {lenient:?}"
        );
    }
}

fn assert_unique(targets: &[String], input: &str) {
    let mut sorted = targets.to_vec();
    sorted.sort();
    sorted.dedup();
    assert_eq!(
        sorted.len(),
        targets.len(),
        "duplicates for {input:?}: {targets:?}"
    );
}

#[test]
fn hostile_depth_does_not_exhaust_the_stack() {
    let deep = format!("echo {}", "$(".repeat(200_000));
    assert_eq!(parse_shell_write_targets(&deep), None);
    let parens = format!("{} rm x", "(".repeat(200_000));
    assert_eq!(
        parse_shell_write_targets(&parens),
        Some(vec!["x".to_owned()])
    );
}

/// A file system made of a list of paths (directories end in `/`), for glob and `cd`
/// tests that must not depend on the machine.
struct FakeFs(BTreeSet<String>);

impl FakeFs {
    fn new(paths: &[&str]) -> FakeFs {
        let mut all = BTreeSet::new();
        for path in paths {
            // Every ancestor is a directory.
            let mut at = 0;
            while let Some(slash) = path[at + 1..].find('/') {
                at += slash + 1;
                all.insert(path[..=at].to_owned());
            }
            all.insert((*path).to_owned());
        }
        FakeFs(all)
    }
}

impl ShellFs for FakeFs {
    fn list_dir(&self, dir: &str) -> Option<Vec<String>> {
        let dir = format!("{}/", dir.trim_end_matches('/'));
        self.0.contains(&dir).then(|| {
            self.0
                .range(dir.clone()..)
                .take_while(|p| p.starts_with(&dir))
                .filter_map(|p| {
                    let rest = &p[dir.len()..];
                    let name = rest.trim_end_matches('/');
                    (!name.is_empty() && !name.contains('/')).then(|| name.to_owned())
                })
                .collect()
        })
    }

    fn is_dir(&self, path: &str) -> bool {
        self.0.contains(&format!("{}/", path.trim_end_matches('/')))
    }

    fn exists(&self, path: &str) -> bool {
        let path = path.trim_end_matches('/');
        self.0.contains(path) || self.is_dir(path)
    }
}

fn workspace_fs() -> FakeFs {
    FakeFs::new(&[
        "/w/.git/",
        "/w/.hidden",
        "/w/Cargo.toml",
        "/w/src/a.rs",
        "/w/src/b.rs",
        "/w/src/.keep",
        "/w/docs/x.md",
        "/w/tools/",
        "/home/u/",
    ])
}

fn read_in(command: &str, cwd: &str) -> Result<Vec<ShellTarget>, Unreadable> {
    let fs = workspace_fs();
    let ctx = ShellContext {
        cwd: Some(cwd),
        home: Some("/home/u"),
        fs: Some(&fs),
    };
    read_shell_command(command, &ctx)
}

/// Read in `/w` with the fake file system: what bash expands before the command runs.
const IN_CONTEXT: &[(&str, &[&str])] = &[
    // Globs at hook time, including the issue's spellings of `src`.
    ("rm src/*", &["src/a.rs", "src/b.rs"]),
    ("rm -rf *", &["Cargo.toml", "docs", "src", "tools"]),
    ("rm -rf .* 2>/dev/null", &[".git", ".hidden"]),
    ("rm -rf s?c", &["src"]),
    ("rm -rf [s]rc", &["src"]),
    ("rm -rf [!a-r]rc", &["src"]),
    ("echo x > s*/a.rs", &["src/a.rs"]),
    ("rm */*.md", &["docs/x.md"]),
    ("rm */a.rs", &["src/a.rs"]),
    ("rm */nothing", &["*/nothing"]),
    ("rm /w/src/*.rs", &["/w/src/a.rs", "/w/src/b.rs"]),
    // A glob that matches nothing is the literal word (bash's default).
    ("rm src/*.py", &["src/*.py"]),
    ("rm 'src/*'", &["src/*"]),
    ("cd src && rm *", &["src/a.rs", "src/b.rs"]),
    // $PWD, ~ and $HOME.
    ("echo x > $PWD/src/a.rs", &["/w/src/a.rs"]),
    ("echo x > ${PWD}/src/b.rs", &["/w/src/b.rs"]),
    ("cd src && echo x > \"$PWD\"/c.rs", &["/w/src/c.rs"]),
    ("echo x > ~/notes", &["/home/u/notes"]),
    ("echo x > ~+/src/a.rs", &["/w/src/a.rs"]),
    ("echo x > $HOME/notes", &["/home/u/notes"]),
    ("cd src && cd /w && echo x > ~-/d.rs", &["/w/src/d.rs"]),
    ("D=~/x; touch $D", &["/home/u/x"]),
    // cd to a directory that exists, or that the command made first.
    ("cd ~ && touch notes", &["/home/u/notes"]),
    ("cd && touch notes", &["/home/u/notes"]),
    ("mkdir -p out && cd out && touch f", &["out", "out/f"]),
    ("cd src; cd -; rm -rf src", &["src"]),
    // The whole worktree, for git commands that rewrite it.
    ("git stash", &["/w"]),
    ("cd src && git reset --hard", &["/w"]),
    ("git -C tools checkout -f", &["/w"]),
];

#[test]
fn in_context() {
    let mut failures = Vec::new();
    for (command, expected) in IN_CONTEXT {
        let got = read_in(command, "/w").map(|t| t.into_iter().map(|t| t.path).collect::<Vec<_>>());
        if got.as_deref()
            != Ok(expected
                .iter()
                .map(|s| s.to_string())
                .collect::<Vec<_>>()
                .as_slice())
        {
            failures.push(format!(
                "{command:?}\n    expected {expected:?}\n    got      {got:?}"
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} case(s) failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn globs_and_removals_keep_their_reach() {
    let got = read_in("rm -rf s?c; cp f docs/", "/w").unwrap();
    assert_eq!(
        got,
        [
            ShellTarget {
                path: "src".into(),
                whole: true,
                named_by: None
            },
            ShellTarget {
                path: "docs/".into(),
                whole: false,
                named_by: None
            },
            ShellTarget {
                path: "docs/f".into(),
                whole: false,
                named_by: None
            },
        ]
    );
    let got = read_in("git stash pop", "/w/src").unwrap();
    assert_eq!(
        got,
        [ShellTarget {
            path: "/w".into(),
            whole: true,
            named_by: None
        }]
    );
}

/// In context, but still unreadable: what even the file system cannot tell.
const UNREADABLE_IN_CONTEXT: &[(&str, &str)] = &[
    // The `cd` fails (no such directory), so the shell stays where it was.
    (
        "cd /nonexistent 2>/dev/null; rm -rf src",
        "shell.unknown-directory",
    ),
    ("false && cd src; rm -rf a.rs", "shell.unknown-directory"),
    ("echo x > ~bob/notes", "shell.unknown-home"),
    ("echo x > $OLDPWD/a", "shell.unknown-directory"),
];

#[test]
fn unreadable_in_context() {
    for (command, code) in UNREADABLE_IN_CONTEXT {
        match read_in(command, "/w") {
            Err(why) => assert_eq!(why.code(), *code, "{command:?}: {why}"),
            Ok(found) => panic!("{command:?} read as {found:?}"),
        }
    }
}

/// git commands that rewrite the working tree: the paths they name, whole, or the whole
/// worktree (`/` when no file system says where its top level is).
const GIT: &[(&str, &[&str])] = &[
    ("git stash", &["/"]),
    ("git stash push", &["/"]),
    ("git stash push -m wip -- src/a.rs", &["src/a.rs"]),
    ("git stash -- src", &["src"]),
    ("git stash pop", &["/"]),
    ("git stash apply stash@{1}", &["/"]),
    ("git stash list", &[]),
    ("git stash show -p", &[]),
    ("git reset --hard", &["/"]),
    ("git reset --hard HEAD~1", &["/"]),
    ("git reset --keep", &["/"]),
    ("git reset HEAD src/a.rs", &[]),
    ("git reset --soft HEAD~1", &[]),
    ("git clean -fdx", &["/"]),
    ("git clean -f src", &["src"]),
    ("git clean -n", &[]),
    ("git checkout main -- src", &["src"]),
    ("git checkout main src/a.rs", &["main", "src/a.rs"]),
    ("git checkout .", &["."]),
    ("git checkout -f", &["/"]),
    ("git checkout -f main", &["main", "/"]),
    ("git switch -f main", &["/"]),
    ("git switch --discard-changes main", &["/"]),
    ("git switch main", &[]),
    ("git read-tree -u -m HEAD", &["/"]),
    ("git read-tree HEAD", &[]),
    ("git checkout-index -a -f", &["/"]),
    ("git checkout-index -f -- src/a.rs", &["src/a.rs"]),
    ("git apply fix.patch", &["/"]),
    ("git apply --check fix.patch", &[]),
    ("git apply --cached fix.patch", &[]),
    ("git apply --index fix.patch", &["/"]),
    ("git am < mbox", &["/"]),
    ("git merge feature", &["/"]),
    ("git pull --rebase", &["/"]),
    ("git rebase -i HEAD~3", &["/"]),
    ("git cherry-pick abc123", &["/"]),
    ("git revert HEAD", &["/"]),
    ("git sparse-checkout set docs", &["/"]),
    ("git sparse-checkout list", &[]),
    ("git restore --source main src", &["src"]),
    ("git -C sub stash", &["/"]),
    ("git worktree add ../wt2", &["../wt2"]),
    ("git clone https://example.invalid/r.git", &["r"]),
    ("git clone ../r copy", &["copy"]),
    // Reading git commands write nothing.
    ("git status", &[]),
    ("git diff HEAD~1 -- src", &[]),
    ("git log --oneline -5", &[]),
    ("git blame src/a.rs", &[]),
    ("git show HEAD:src/a.rs", &[]),
    ("git fetch origin", &[]),
];

#[test]
fn git_rewrites_of_the_working_tree() {
    let mut failures = Vec::new();
    for (command, expected) in GIT {
        let got = parse_shell_write_reach_paths(command);
        let want: Vec<String> = expected.iter().map(|s| s.to_string()).collect();
        if got.as_ref() != Some(&want) {
            failures.push(format!(
                "{command:?}\n    expected {expected:?}\n    got      {got:?}"
            ));
        }
        // Everything git rewrites is rewritten whole.
        if let Ok(found) = read_shell_command(command, &ShellContext::DETACHED) {
            assert!(found.iter().all(|t| t.whole), "{command:?}: {found:?}");
        }
    }
    assert!(
        failures.is_empty(),
        "{} case(s) failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

fn parse_shell_write_reach_paths(command: &str) -> Option<Vec<String>> {
    parse_shell_write_targets(command)
}

/// Read-only and ordinary build commands: readable, writing nothing, in context or not.
const READ_ONLY: &[&str] = &[
    "cat src/a.rs",
    "grep -rn foo src",
    "rg -n 'fn main' src",
    "ls -la src",
    "ls src/*.rs",
    "git status",
    "git diff",
    "git log -p src/a.rs",
    "git blame src/a.rs",
    "sed -n '1,20p' src/a.rs",
    "sed 's/a/b/' src/a.rs",
    "awk '{print $1}' src/a.rs",
    "awk -F: '$3 > 100' /etc/passwd",
    "cd src && ls",
    "cd src && cat a.rs | head -5",
    "cargo build",
    "cargo test -p acc-sdk",
    "npm test",
    "make",
    "head -n 5 src/a.rs; wc -l src/*.rs",
    "find . -name '*.rs'",
    "find src -type f | xargs grep -l foo",
    "echo $HOME $PWD $(date)",
    "for f in src/*.rs; do echo $f; done",
    "python3 script.py --check",
    "node scripts/build.js",
    "diff <(sort a) <(sort b)",
    "test -f src/a.rs && echo yes",
    "command -v cargo",
    "true || echo no",
    "tail -f log.txt | grep ERROR",
];

#[test]
fn read_only_commands_stay_readable_and_write_nothing() {
    // A program acc does not know may name paths (`npm test` names `test`), none of them
    // under `src`, which these commands only read.
    let known = |found: Result<Vec<ShellTarget>, Unreadable>| {
        found.map(|found| {
            for t in found.iter().filter(|t| t.named_by.is_some()) {
                assert!(!t.path.contains("src"), "{t:?}");
            }
            found
                .into_iter()
                .filter(|t| t.named_by.is_none())
                .collect::<Vec<_>>()
        })
    };
    for command in READ_ONLY {
        assert_eq!(
            known(read_shell_command(command, &ShellContext::DETACHED)),
            Ok(vec![]),
            "{command:?} (no context)"
        );
        assert_eq!(
            known(read_in(command, "/w")),
            Ok(vec![]),
            "{command:?} (in /w)"
        );
    }
}

#[test]
fn sixty_thousand_targets_are_read_and_a_larger_command_is_refused() {
    // The issue's shape: a `mv` with 60,000 padded names (about 130 KB), then the write
    // that matters at the end of the same command.
    let names: Vec<String> = (0..60_000).map(|i| format!("{i:05}")).collect();
    let command = format!("mv {} dest && rm -rf src", names.join(" "));
    assert!(command.len() > 350_000 || command.len() > 130_000);
    let found = read_shell_command(&command, &ShellContext::DETACHED).unwrap();
    assert_eq!(found.len(), 60_000 * 2 + 2);
    assert_eq!(
        found.last(),
        Some(&ShellTarget {
            path: "src".into(),
            whole: true,
            named_by: None
        })
    );
    let huge = format!("touch {}", "a".repeat(MAX_COMMAND_BYTES));
    assert_eq!(
        read_shell_command(&huge, &ShellContext::DETACHED),
        Err(Unreadable::TooLarge)
    );
    assert_eq!(
        Unreadable::TooLarge.to_string(),
        "the command is too large to judge; split it"
    );
    // Brace expansion cannot multiply past the cap either.
    let bomb = format!("touch {}", "{a,b,c,d,e,f,g,h,i,j}".repeat(6));
    assert_eq!(
        read_shell_command(&bomb, &ShellContext::DETACHED),
        Err(Unreadable::TooLarge)
    );
}

/// How a form reaches a path: known to write it, named by a program acc cannot bound, or
/// written into as that program's working directory.
#[derive(Debug, Clone, Copy, PartialEq)]
enum By {
    Known,
    Names(&'static str),
    Into(&'static str),
}

/// Issue 25's forms, each with a path it must reach (written whole when `true`).
const UNBOUNDED: &[(&str, &str, bool, By)] = &[
    ("echo $(rm src/lib.rs)", "src/lib.rs", true, By::Known),
    ("x=$(rm src/a)", "src/a", true, By::Known),
    ("cat <(rm src/a)", "src/a", true, By::Known),
    ("echo \"$(rm src/a)\"", "src/a", true, By::Known),
    ("echo `rm src/a`", "src/a", true, By::Known),
    ("echo `echo \\`rm src/a\\``", "src/a", true, By::Known),
    ("echo ${x:-$(rm src/a)}", "src/a", true, By::Known),
    ("echo $((1 + $(rm src/a)))", "src/a", true, By::Known),
    ("cat <<EOF\n$(rm src/a)\nEOF", "src/a", true, By::Known),
    ("echo x > \"$(echo f)\"; ls", "", false, By::Known),
    (
        "chmod 000 src/lib.rs",
        "src/lib.rs",
        true,
        By::Names("chmod"),
    ),
    (
        "chown me:me src/lib.rs",
        "src/lib.rs",
        true,
        By::Names("chown"),
    ),
    (
        "curl -o src/lib.rs http://127.0.0.1/x",
        "src/lib.rs",
        true,
        By::Names("curl"),
    ),
    (
        "curl --output=src/lib.rs http://127.0.0.1/x",
        "src/lib.rs",
        true,
        By::Names("curl"),
    ),
    (
        "curl -O http://127.0.0.1/a/lib.rs",
        "lib.rs",
        true,
        By::Names("curl"),
    ),
    (
        "wget -Osrc/x http://127.0.0.1/x",
        "src/x",
        true,
        By::Names("wget"),
    ),
    ("tar -C src -xf a.tar", "src", true, By::Into("tar")),
    (
        "tar --directory=src -x -f a.tar",
        "src",
        true,
        By::Into("tar"),
    ),
    ("tar xf a.tar", ".", true, By::Into("tar")),
    (
        "tar czf src/out.tgz docs",
        "src/out.tgz",
        true,
        By::Names("tar"),
    ),
    ("unzip a.zip", ".", true, By::Into("unzip")),
    ("unzip -d src a.zip", "src", true, By::Into("unzip")),
    ("7z x a.7z -osrc", "src", true, By::Into("7z")),
    ("cpio -idv < a.cpio", ".", true, By::Into("cpio")),
    ("patch -p1 < x.diff", ".", true, By::Into("patch")),
    ("patch -d src -p1 < x.diff", "src", true, By::Into("patch")),
    ("npm install", ".", true, By::Into("npm")),
    ("pnpm -C src add left-pad", "src", true, By::Into("pnpm")),
    ("yarn", ".", true, By::Into("yarn")),
    ("pip install -e .", ".", true, By::Into("pip")),
    ("python3 -m pip install x", ".", true, By::Into("pip")),
    ("cargo fmt", ".", true, By::Into("cargo")),
    ("npx create-vite app", ".", true, By::Into("npx")),
    ("truncate -s0 src/lib.rs", "src/lib.rs", false, By::Known),
    ("dd of=src/lib.rs", "src/lib.rs", false, By::Known),
    ("shred src/lib.rs", "src/lib.rs", false, By::Known),
    ("rsync a src/", "src/", false, By::Known),
    ("install -m644 a src/a", "src/a", false, By::Known),
    ("split -b1 a src/x", "src/x", true, By::Names("split")),
    ("touch src/a", "src/a", false, By::Known),
    ("ln -sf a src/a", "src/a", false, By::Known),
    ("sqlite3 src/db", "src/db", true, By::Names("sqlite3")),
    ("sort -o src/a b", "src/a", false, By::Names("sort")),
    ("uniq a src/a", "src/a", true, By::Names("uniq")),
    ("make -C src", "src", true, By::Names("make")),
    ("make PREFIX=src install", "src", true, By::Names("make")),
    ("./build.sh src", "src", true, By::Names("build.sh")),
    (
        "python3 tools/gen.py src/a",
        "src/a",
        true,
        By::Names("python3"),
    ),
    (
        "cargo build --target-dir src",
        "src",
        true,
        By::Names("cargo"),
    ),
    ("sh tools/gen.sh src/a", "src/a", true, By::Names("sh")),
    ("gh repo clone o/r", ".", true, By::Into("gh")),
    ("prettier --write src", "src", true, By::Names("prettier")),
    ("eslint --fix src", "src", true, By::Names("eslint")),
    ("black src", "src", true, By::Names("black")),
    ("ruff format src", "src", true, By::Names("ruff")),
    ("gofmt -w src", "src", true, By::Names("gofmt")),
    (
        "yq -i '.a = 1' src/a.yaml",
        "src/a.yaml",
        true,
        By::Names("yq"),
    ),
];

#[test]
fn what_acc_cannot_bound_is_named_with_the_program() {
    let mut failures = Vec::new();
    for (command, path, whole, by) in UNBOUNDED {
        let found = read_shell_command(command, &ShellContext::DETACHED);
        if path.is_empty() {
            if found.is_ok() {
                failures.push(format!("{command:?}: readable: {found:?}"));
            }
            continue;
        }
        let hit = found.as_ref().ok().and_then(|found| {
            found.iter().find(|t| {
                let named = match &t.named_by {
                    None => By::Known,
                    Some(n) if n.into => By::Into(leak(&n.program)),
                    Some(n) => By::Names(leak(&n.program)),
                };
                t.path == *path && t.whole == *whole && named == *by
            })
        });
        if hit.is_none() {
            failures.push(format!("{command:?}: want {path:?} {by:?}, got {found:?}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

fn leak(s: &str) -> &'static str {
    Box::leak(s.to_owned().into_boxed_str())
}

/// Known read-only programs name nothing, whatever their arguments; an interpreter running
/// a script with no arguments names nothing (what the script writes is seen after it runs),
/// and an unreadable inline script stays unreadable.
#[test]
fn read_only_programs_and_plain_scripts_name_nothing() {
    for command in [
        "cat src/lib.rs",
        "grep -rn x src",
        "rg x src",
        "ls -la src",
        "head src/a; tail src/a",
        "wc -l src/*",
        "diff src/a src/b",
        "echo src/a; printf '%s' src/a",
        "test -f src/a",
        "stat src/a; file src/a",
        "sort src/a",
        "uniq src/a",
        "jq . src/a.json",
        "tar tf a.tar",
        "unzip -l a.zip",
        "python3 tools/gen.py",
        "node scripts/build.js",
        "cargo test -p acc-sdk",
        "go test ./...",
        "acc release --resource 'file:src/**'",
        "find src -type f | xargs grep -l x",
        "echo $(cat src/a) `ls src`",
        "cat $(ls src/a)",
        "sh tools/gen.sh",
        "prettier --check src",
        "eslint src",
        "black --check src",
        "ruff check src",
        "ruff format --check src",
        "gofmt -l src",
        "mypy src",
        "shellcheck src/a.sh",
        "yq '.a' src/a.yaml",
        "git commit -m \"$(cat <<'EOF'\nmsg\nEOF\n)\"",
        "gh pr create --title t --body \"$(cat <<'EOF'\nbody\nEOF\n)\"",
    ] {
        let found = read_shell_command(command, &ShellContext::DETACHED)
            .unwrap_or_else(|e| panic!("{command:?}: {e}"));
        assert!(
            found.iter().all(|t| !t.path.starts_with("src")),
            "{command:?}: {found:?}"
        );
    }
    for command in [
        "python3 - <<EOF\nprint(1)\nEOF",
        "find src | xargs chmod 000",
        "find src | xargs unknown-tool",
        "find src -exec unknown-tool {} +",
        "echo $(python3 -c 'print(1)')",
    ] {
        assert!(
            read_shell_command(command, &ShellContext::DETACHED).is_err(),
            "{command:?}"
        );
    }
}

/// The commands the recorder's model doubles run against real clients (CI compares their
/// verdicts with the committed evidence): each reads as it did before programs acc cannot
/// bound were named.
#[test]
fn the_recorders_commands_read_as_before() {
    for (command, want) in [
        ("echo x > src/y", &["src/y"][..]),
        ("echo ok > free.txt", &["free.txt"]),
        ("echo ok > after.txt", &["after.txt"]),
        ("echo a > a", &["a"]),
        ("ls", &[]),
        ("python3 tools/gen.py", &[]),
        (
            "acc claim --resource 'file:src/**' --enforcement guarded --reason 'the peer owns src' --session-key k --cwd /w",
            &[],
        ),
        (
            "acc message --to peer --type question --subject 'May I?' --body 'Please release src' --session-key k",
            &[],
        ),
        (
            "acc reply --message m-1 --body 'Released.' --session-key k",
            &[],
        ),
        ("acc release --resource 'file:src/**' --session-key k", &[]),
    ] {
        let found = read_shell_command(command, &ShellContext::DETACHED).unwrap();
        let got: Vec<&str> = found.iter().map(|t| t.path.as_str()).collect();
        assert_eq!(got, want, "{command:?}");
        assert!(found.iter().all(|t| t.named_by.is_none()), "{command:?}");
    }
    let opaque =
        "python3 -c \"open('free.txt','w').write('ran'); open('src/x','w').write('model')\"";
    assert_eq!(
        read_shell_command(opaque, &ShellContext::DETACHED).map_err(|e| e.code()),
        Err("shell.inline-code")
    );
}
