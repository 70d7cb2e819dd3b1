//! The kernel-enforced guard, run on this machine: `acc-hook guard-exec` keeps the given
//! paths read-only for whatever the command runs, and a Claude Code `Bash` call made while a
//! peer holds a guarded claim is rewritten to run under it. Outcomes, not verdicts: the
//! claimed file's bytes are unchanged while an unclaimed write in the same command lands.
//!
//! Skipped, with the reason printed, only where the kernel refuses the namespace.

mod hook_support;

use hook_support::*;
use serde_json::{Value, json};
use std::path::Path;
use std::process::{Command, Output, Stdio};

const KNOWN: &str = "bytes the peer owns\n";
/// Opaque to any parser: writes the unclaimed file, then the claimed one.
const OPAQUE: &str =
    "python3 -c \"open('free.txt','w').write('ran'); open('src/x','w').write('model')\"";

fn acc_hook() -> Command {
    Command::new(env!("CARGO_BIN_EXE_acc-hook"))
}

/// Runs `acc-hook guard-exec` in `cwd` with `ro` read-only.
fn guard_exec(cwd: &Path, ro: &[&Path], claims: &[[&str; 3]], command: &str) -> Output {
    let mut cmd = acc_hook();
    cmd.current_dir(cwd).arg("guard-exec");
    for path in ro {
        cmd.arg("--ro").arg(path);
    }
    for claim in claims {
        cmd.arg("--claim").args(claim);
    }
    cmd.arg("--").arg(command).stdin(Stdio::null());
    cmd.output().unwrap()
}

/// `None` (and a printed reason) where this kernel refuses user namespaces.
fn namespaces_refused() -> Option<String> {
    let out = guard_exec(Path::new("/"), &[], &[], "true");
    (out.status.code() == Some(125)).then(|| {
        let why = String::from_utf8_lossy(&out.stderr).into_owned();
        eprintln!("skipped: the kernel refuses the namespace here: {why}");
        why
    })
}

fn workspace() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::create_dir(tmp.path().join("src")).unwrap();
    std::fs::write(tmp.path().join("src/x"), KNOWN).unwrap();
    tmp
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn an_opaque_write_into_the_claim_fails_while_the_rest_of_the_command_runs() {
    if namespaces_refused().is_some() {
        return;
    }
    let ws = workspace();
    let src = ws.path().join("src");
    let out = guard_exec(
        ws.path(),
        &[&src],
        &[["file:src/**", "alice", "s-alice"]],
        OPAQUE,
    );
    assert_eq!(std::fs::read_to_string(src.join("x")).unwrap(), KNOWN);
    assert_eq!(
        std::fs::read_to_string(ws.path().join("free.txt")).unwrap(),
        "ran"
    );
    assert_eq!(
        out.status.code(),
        Some(1),
        "python's own failure passes through"
    );
    let err = stderr(&out);
    assert!(err.contains("Read-only file system"), "{err}");
    assert!(
        err.ends_with(
            "acc: file:src/** is read-only in this command: claimed by alice (session s-alice)\n"
        ),
        "{err}"
    );
}

#[test]
fn removing_renaming_creating_or_unmounting_the_claim_fails_too() {
    if namespaces_refused().is_some() {
        return;
    }
    let ws = workspace();
    let src = ws.path().join("src");
    for attack in [
        "rm -rf src",
        "mv src elsewhere",
        "echo new > src/new.rs",
        "ln src/x src/y",
        "umount src; echo x > src/x",
        "umount -l src; echo x > src/x",
        "mount -o remount,rw src; echo x > src/x",
        "mount -o remount,bind,rw src; echo x > src/x",
        "mkdir -p /tmp/acc-guard-$$ && mount --bind . /tmp/acc-guard-$$ && echo x > /tmp/acc-guard-$$/src/x",
        "unshare --user --map-root-user --mount sh -c 'umount src; echo x > src/x'",
    ] {
        let out = guard_exec(ws.path(), &[&src], &[], attack);
        assert_ne!(out.status.code(), Some(0), "{attack}: {}", stderr(&out));
        assert_eq!(
            std::fs::read_to_string(src.join("x")).unwrap(),
            KNOWN,
            "{attack}"
        );
        let names: Vec<_> = std::fs::read_dir(&src)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["x"], "{attack}");
    }
}

#[test]
fn a_command_that_succeeds_passes_its_output_and_status_through_silently() {
    if namespaces_refused().is_some() {
        return;
    }
    let ws = workspace();
    let src = ws.path().join("src");
    let out = guard_exec(
        ws.path(),
        &[&src],
        &[["file:src/**", "alice", "s-alice"]],
        "cat src/x; echo built > out.txt",
    );
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(String::from_utf8_lossy(&out.stdout), KNOWN);
    assert_eq!(stderr(&out), "");
    assert_eq!(
        std::fs::read_to_string(ws.path().join("out.txt")).unwrap(),
        "built\n"
    );
    let out = guard_exec(ws.path(), &[&src], &[], "exit 7");
    assert_eq!(out.status.code(), Some(7));
    // stdin reaches the command.
    let mut child = acc_hook()
        .current_dir(ws.path())
        .args(["guard-exec", "--", "tr a-z A-Z"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    {
        use std::io::Write;
        child.stdin.take().unwrap().write_all(b"piped\n").unwrap();
    }
    let out = child.wait_with_output().unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stdout), "PIPED\n");
}

/// A lone simple command runs without the inner shell (as `bash -c` would exec it): the
/// guard holds the same, output and status pass through, and what bash alone can say
/// (a program not found) is still bash's.
#[test]
fn a_plain_command_run_without_the_inner_shell_is_confined_the_same() {
    if namespaces_refused().is_some() {
        return;
    }
    let ws = workspace();
    let src = ws.path().join("src");
    std::fs::write(ws.path().join("free.txt"), "model\n").unwrap();
    let claim = [["file:src/**", "alice", "s-alice"]];
    let out = guard_exec(ws.path(), &[&src], &claim, "cp free.txt src/x");
    assert_eq!(std::fs::read_to_string(src.join("x")).unwrap(), KNOWN);
    assert_eq!(out.status.code(), Some(1), "cp's own failure: {out:?}");
    assert!(stderr(&out).contains("Read-only file system"), "{out:?}");
    assert!(
        stderr(&out).contains("file:src/** is read-only in this command: claimed by alice"),
        "{out:?}"
    );
    let out = guard_exec(ws.path(), &[&src], &claim, "cp src/x copied.txt");
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert_eq!(
        std::fs::read_to_string(ws.path().join("copied.txt")).unwrap(),
        KNOWN
    );
    let out = guard_exec(ws.path(), &[&src], &claim, "cat src/x");
    assert_eq!(String::from_utf8_lossy(&out.stdout), KNOWN);
    assert_eq!(stderr(&out), "");
    let out = guard_exec(ws.path(), &[&src], &[], "no-such-program-acc");
    assert_eq!(out.status.code(), Some(127));
    assert!(
        stderr(&out).contains("no-such-program-acc: command not found"),
        "{out:?}"
    );
}

#[test]
fn a_guard_that_cannot_be_set_up_does_not_run_the_command() {
    let ws = workspace();
    let missing = ws.path().join("no-such-dir");
    let out = guard_exec(ws.path(), &[&missing], &[], "echo ran > ran.txt");
    assert_eq!(out.status.code(), Some(125));
    assert!(!ws.path().join("ran.txt").exists());
    assert!(
        stderr(&out).starts_with("acc: the command did not run"),
        "{}",
        stderr(&out)
    );
    let out = guard_exec(ws.path(), &[Path::new("relative")], &[], "true");
    assert_eq!(out.status.code(), Some(125));
    assert!(stderr(&out).contains("is not absolute"), "{}", stderr(&out));
}

/// The Claude Code hook through the real binary.
fn claude_hook(sb: &Sandbox, payload: &Value) -> HookRun {
    let event = payload["hook_event_name"].as_str().unwrap().to_owned();
    let mut child = acc_hook()
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("ACC_DATA_HOME", sb.data())
        .env("ACC_TEST_CLOCK", FIXED_CLOCK)
        .args(["claude-code", &event])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    {
        use std::io::Write;
        let mut stdin = child.stdin.take().unwrap();
        stdin.write_all(payload.to_string().as_bytes()).unwrap();
    }
    let out = child.wait_with_output().unwrap();
    HookRun {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8(out.stdout).unwrap(),
        stderr: String::from_utf8(out.stderr).unwrap(),
    }
}

fn claude_payload(sb: &Sandbox, event: &str, mode: &str) -> Value {
    json!({
        "session_id": "0b6d5d0e-1111-4222-8333-944445555666",
        "cwd": sb.ws().display().to_string(),
        "hook_event_name": event,
        "permission_mode": mode,
        "source": "startup",
    })
}

fn bash_call(sb: &Sandbox, mode: &str, command: &str) -> Value {
    let mut p = claude_payload(sb, "PreToolUse", mode);
    p["tool_name"] = json!("Bash");
    p["tool_input"] = json!({"command": command, "description": "scripted", "timeout": 60000});
    p
}

/// Runs a hook answer's `updatedInput.command` as the client would (`bash -c` in the
/// workspace).
fn run_rewritten(sb: &Sandbox, answer: &str) -> Output {
    let answer: Value = serde_json::from_str(answer).unwrap();
    let out = &answer["hookSpecificOutput"];
    assert_eq!(out["permissionDecision"], "allow");
    assert_eq!(out["updatedInput"]["description"], "scripted");
    assert_eq!(out["updatedInput"]["timeout"], 60000);
    let command = out["updatedInput"]["command"].as_str().unwrap();
    Command::new("bash")
        .arg("-c")
        .arg(command)
        .current_dir(sb.ws())
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

#[test]
fn a_claude_code_bash_call_under_a_peer_claim_runs_with_the_claim_read_only() {
    if namespaces_refused().is_some() {
        return;
    }
    let sb = Sandbox::new();
    let ws = sb.ws();
    std::fs::write(ws.join("src/x"), KNOWN).unwrap();
    let mode = "bypassPermissions";
    // No peer claim yet: the call is left alone.
    assert_eq!(
        claude_hook(&sb, &claude_payload(&sb, "SessionStart", mode)).code,
        0
    );
    let before = claude_hook(&sb, &bash_call(&sb, mode, OPAQUE));
    assert_eq!((before.code, before.stdout.as_str()), (0, ""), "{before:?}");

    let mut core = sb.core();
    let peer = attach(&mut core, "peer", true);
    claim(&mut core, &peer, "file:src/**", true);
    drop(core);

    let run = claude_hook(&sb, &bash_call(&sb, mode, OPAQUE));
    assert_eq!(run.code, 0, "{run:?}");
    let out = run_rewritten(&sb, &run.stdout);
    assert_eq!(std::fs::read_to_string(ws.join("src/x")).unwrap(), KNOWN);
    assert_eq!(std::fs::read_to_string(ws.join("free.txt")).unwrap(), "ran");
    assert_ne!(out.status.code(), Some(0));
    let err = stderr(&out);
    assert!(
        err.contains(&format!(
            "acc: file:src/** is read-only in this command: claimed by peer (session {})",
            peer.session
        )),
        "{err}"
    );

    // A readable write into the claim is still denied outright, never rewritten.
    let denied = claude_hook(&sb, &bash_call(&sb, mode, "echo x > src/x"));
    let answer: Value = serde_json::from_str(&denied.stdout).unwrap();
    assert_eq!(answer["hookSpecificOutput"]["permissionDecision"], "deny");

    // A program acc cannot bound, naming the claim, runs confined where the call can be
    // rewritten, and is refused where it cannot.
    std::fs::create_dir_all(ws.join("tools")).unwrap();
    std::fs::write(
        ws.join("tools/w.py"),
        "import sys\nopen('free2.txt','w').write('ran')\nopen(sys.argv[1],'w').write('model')\n",
    )
    .unwrap();
    // Plain words naming a program: the runner execs it without its inner shell.
    let named = "python3 tools/w.py src/x";
    let run = claude_hook(&sb, &bash_call(&sb, mode, named));
    let out = run_rewritten(&sb, &run.stdout);
    assert_eq!(std::fs::read_to_string(ws.join("src/x")).unwrap(), KNOWN);
    assert_ne!(out.status.code(), Some(0), "{out:?}");
    assert!(
        stderr(&out).contains("file:src/** is read-only in this command: claimed by peer"),
        "{out:?}"
    );
    assert_eq!(
        std::fs::read_to_string(ws.join("free2.txt")).unwrap(),
        "ran"
    );
    let denied = claude_hook(&sb, &bash_call(&sb, "default", named));
    let answer: Value = serde_json::from_str(&denied.stdout).unwrap();
    let out = &answer["hookSpecificOutput"];
    assert_eq!(out["permissionDecision"], "deny");
    assert!(
        out["permissionDecisionReason"]
            .as_str()
            .unwrap()
            .contains("`python3` is not known to be read-only and names file:src/x"),
        "{answer}"
    );

    // Where an allow would skip the client's own prompt, the call is not rewritten.
    for other in ["default", "acceptEdits", "auto"] {
        let run = claude_hook(&sb, &bash_call(&sb, other, "make"));
        assert_eq!(run.stdout, "", "{other}");
    }
    // Other tools are never rewritten.
    let mut write = claude_payload(&sb, "PreToolUse", mode);
    write["tool_name"] = json!("Write");
    write["tool_input"] = json!({"file_path": ws.join("free.txt"), "content": "x"});
    assert_eq!(claude_hook(&sb, &write).stdout, "");

    // The person's own shell rules would be matched against the runner line: where the
    // project's settings hold one, the call is not rewritten, and Claude Code judges the
    // command as written.
    std::fs::create_dir_all(ws.join(".claude")).unwrap();
    std::fs::write(
        ws.join(".claude/settings.local.json"),
        r#"{"permissions": {"deny": ["Bash(curl:*)"]}}"#,
    )
    .unwrap();
    let kept = claude_hook(&sb, &bash_call(&sb, mode, "make"));
    assert_eq!(kept.stdout, "", "{kept:?}");
}

/// acc's own data home is read-only in a confined command too, and the command's own `acc`
/// still works: the runner serves it from outside (issue 24 §1).
#[test]
fn acc_s_data_home_is_read_only_inside_and_acc_commands_still_work() {
    if namespaces_refused().is_some() {
        return;
    }
    let ws = workspace();
    let data = tempfile::tempdir().unwrap();
    let data_home = data.path().canonicalize().unwrap();
    let bin = Path::new(env!("CARGO_BIN_EXE_acc")).parent().unwrap();
    let acc = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_acc"))
            .args(args)
            .current_dir(ws.path())
            .env("ACC_DATA_HOME", &data_home)
            .stdin(Stdio::null())
            .output()
            .unwrap()
    };
    let attached = acc(&["attach", "--participant", "agent"]);
    assert!(attached.status.success(), "{attached:?}");
    let line = String::from_utf8(attached.stdout).unwrap();
    let (session, generation) = line.trim().split_once(' ').unwrap();
    let acc_dir = data_home.join("acc");
    let store: Vec<_> = walkdir::WalkDir::new(&acc_dir)
        .into_iter()
        .flatten()
        .filter(|e| e.file_name() == "acc.db")
        .map(|e| e.path().to_path_buf())
        .collect();
    let store = store.first().expect("a store").clone();
    let command = format!(
        "rm -f '{store}'; python3 -c \"open('{dir}/planted','w').write('x')\"; \
         acc claim --resource 'file:docs/**' --session {session} --generation {generation}; \
         echo \"claim exit $?\"",
        store = store.display(),
        dir = acc_dir.display(),
    );
    let mut cmd = acc_hook();
    cmd.current_dir(ws.path())
        .env("ACC_DATA_HOME", &data_home)
        .env(
            "PATH",
            format!("{}:{}", bin.display(), std::env::var("PATH").unwrap()),
        )
        .args(["guard-exec", "--own"])
        .arg(&acc_dir)
        .arg("--")
        .arg(&command)
        .stdin(Stdio::null());
    let out = cmd.output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(store.exists(), "the store was removed: {out:?}");
    assert!(!acc_dir.join("planted").exists(), "{out:?}");
    assert!(stdout.contains("claim exit 0"), "{out:?}");
    assert!(stdout.contains("claimed file:docs/**"), "{out:?}");
    let status = acc(&["status", "--json"]);
    assert!(
        String::from_utf8_lossy(&status.stdout).contains("file:docs/**"),
        "{status:?}"
    );
    assert_ne!(std::fs::read(&store).unwrap(), Vec::<u8>::new());
    // `acc` as a lone simple command is exec'd without the inner shell; the broker serves
    // it all the same.
    let mut direct = acc_hook();
    direct
        .current_dir(ws.path())
        .env("ACC_DATA_HOME", &data_home)
        .env(
            "PATH",
            format!("{}:{}", bin.display(), std::env::var("PATH").unwrap()),
        )
        .args(["guard-exec", "--own"])
        .arg(&acc_dir)
        .args(["--", "acc status --json"])
        .stdin(Stdio::null());
    let out = direct.output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("file:docs/**"),
        "{out:?}"
    );
}

/// The runner's working directory is held below any mount made over it: a command started
/// inside a claimed directory writes through the read-only mount, not beside it.
#[test]
fn a_command_started_inside_the_claim_cannot_write_relative_to_its_directory() {
    if namespaces_refused().is_some() {
        return;
    }
    let ws = workspace();
    let src = ws.path().join("src");
    let out = guard_exec(&src, &[&src], &[], "echo changed > x; echo new > y; pwd");
    assert!(stderr(&out).contains("Read-only file system"), "{out:?}");
    assert_eq!(std::fs::read_to_string(src.join("x")).unwrap(), KNOWN);
    assert!(!src.join("y").exists());
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        src.display().to_string()
    );
}

/// `--rw` re-opens a path under a read-only directory: its contents are writable, while
/// the directory itself stays read-only (nothing created, renamed or removed in it).
#[test]
fn a_writable_path_under_a_read_only_directory_is_writable_and_nothing_else() {
    if namespaces_refused().is_some() {
        return;
    }
    let ws = workspace();
    let src = ws.path().join("src");
    std::fs::write(src.join("free.rs"), "free\n").unwrap();
    std::fs::create_dir(src.join("gen")).unwrap();
    let mut cmd = acc_hook();
    cmd.current_dir(ws.path())
        .arg("guard-exec")
        .arg("--ro")
        .arg(&src)
        .arg("--rw")
        .arg(src.join("free.rs"))
        .arg("--rw")
        .arg(src.join("gen"))
        .arg("--")
        .arg(
            "echo ok > src/free.rs; echo ok > src/gen/out.rs; mkdir src/gen/sub; \
             echo x > src/x; echo x > src/new.rs; mv src/free.rs src/moved.rs; mv src/gen src/moved; \
             chmod 000 src/x; ln src/x src/gen/hard; echo done",
        )
        .stdin(Stdio::null());
    let out = cmd.output().unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stdout), "done\n", "{out:?}");
    assert_eq!(
        std::fs::read_to_string(src.join("free.rs")).unwrap(),
        "ok\n"
    );
    assert_eq!(
        std::fs::read_to_string(src.join("gen/out.rs")).unwrap(),
        "ok\n"
    );
    assert!(src.join("gen/sub").is_dir());
    assert_eq!(std::fs::read_to_string(src.join("x")).unwrap(), KNOWN);
    let mut names: Vec<_> = std::fs::read_dir(&src)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    assert_eq!(names, ["free.rs", "gen", "x"]);
    assert!(!src.join("gen/hard").exists());
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(src.join("x"))
        .unwrap()
        .permissions()
        .mode();
    assert_ne!(mode & 0o777, 0);
}

/// The hook lays the claims out in few mounts: a directory most of whose entries are
/// claimed (or that holds a claimed path not there yet) is read-only whole with its other
/// entries re-opened, and a claimed file among unclaimed ones is mounted alone. Each is
/// then tried by a command that writes everywhere.
#[test]
fn the_hook_covers_claimed_directories_once_and_keeps_the_rest_writable() {
    if namespaces_refused().is_some() {
        return;
    }
    let sb = Sandbox::new();
    let ws = sb.ws();
    let mode = "bypassPermissions";
    std::fs::create_dir_all(ws.join("docs")).unwrap();
    std::fs::create_dir_all(ws.join("lib")).unwrap();
    for name in ["a.rs", "b.rs", "c.rs", "d.rs", "main.rs"] {
        std::fs::write(ws.join("src").join(name), KNOWN).unwrap();
    }
    std::fs::write(ws.join("docs/only.md"), KNOWN).unwrap();
    std::fs::write(ws.join("docs/other.md"), "free\n").unwrap();
    for i in 0..20 {
        std::fs::create_dir_all(ws.join(format!("lib/m{i:02}"))).unwrap();
        std::fs::write(ws.join(format!("lib/m{i:02}/mod.rs")), KNOWN).unwrap();
    }
    assert_eq!(
        claude_hook(&sb, &claude_payload(&sb, "SessionStart", mode)).code,
        0
    );
    let mut core = sb.core();
    let peer = attach(&mut core, "peer", true);
    for file in ["a.rs", "b.rs", "c.rs", "d.rs", "new.rs"] {
        claim(&mut core, &peer, &format!("file:src/{file}"), true);
    }
    claim(&mut core, &peer, "file:docs/only.md", true);
    for i in 0..20 {
        claim(&mut core, &peer, &format!("file:lib/m{i:02}/**"), true);
    }
    drop(core);
    let claimed = |ws: &Path| -> Vec<(String, Vec<u8>)> {
        let mut out: Vec<(String, Vec<u8>)> = ["src", "lib", "docs/only.md"]
            .iter()
            .flat_map(|d| walkdir::WalkDir::new(ws.join(d)).into_iter().flatten())
            .filter(|e| !e.path().starts_with(ws.join("src/main.rs")))
            .map(|e| {
                let bytes = if e.file_type().is_file() {
                    std::fs::read(e.path()).unwrap()
                } else {
                    Vec::new()
                };
                (e.path().display().to_string(), bytes)
            })
            .collect();
        out.sort();
        out
    };
    let before = claimed(&ws);

    // A script fed to a shell: no reader sees what it writes, so only the kernel stops it.
    std::fs::create_dir_all(ws.join("tools")).unwrap();
    std::fs::write(
        ws.join("tools/everywhere.sh"),
        "echo x > src/a.rs; echo x > src/new.rs; mv src/b.rs src/z.rs; rm -f src/c.rs; \
         chmod 000 src/d.rs; ln src/a.rs src/hard.rs; ln -sf /etc/hostname src/a.rs; \
         echo x > lib/m03/mod.rs; mkdir lib/m99; rm -rf lib/m05; echo x > docs/only.md; \
         echo ok > src/main.rs; echo ok > docs/other.md; echo ok > docs/new.md; \
         mkdir -p target && echo ok > target/out; echo done\n",
    )
    .unwrap();
    let run = claude_hook(&sb, &bash_call(&sb, mode, "bash tools/everywhere.sh"));
    assert_eq!(run.code, 0, "{run:?}");
    let answer: Value = serde_json::from_str(&run.stdout).unwrap();
    let line = answer["hookSpecificOutput"]["updatedInput"]["command"]
        .as_str()
        .unwrap()
        .to_owned();
    // Three read-only mounts for 26 claims, and the one unclaimed entry of `src/` re-opened.
    let mount = |opt: &str, rel: &str| format!("'{opt}' '{}'", ws.join(rel).display());
    for (opt, rel) in [
        ("--ro", "docs/only.md"),
        ("--ro", "lib"),
        ("--ro", "src"),
        ("--rw", "src/main.rs"),
    ] {
        assert!(line.contains(&mount(opt, rel)), "{opt} {rel}: {line}");
    }
    assert_eq!(line.matches("'--ro' '").count(), 3, "{line}");
    assert_eq!(line.matches("'--rw' '").count(), 1, "{line}");

    let out = run_rewritten(&sb, &run.stdout);
    assert_eq!(String::from_utf8_lossy(&out.stdout), "done\n", "{out:?}");
    assert_eq!(claimed(&ws), before);
    assert!(!ws.join("src/new.rs").exists() && !ws.join("lib/m99").exists());
    assert_eq!(
        std::fs::read_to_string(ws.join("src/main.rs")).unwrap(),
        "ok\n"
    );
    assert_eq!(
        std::fs::read_to_string(ws.join("docs/other.md")).unwrap(),
        "ok\n"
    );
    assert_eq!(
        std::fs::read_to_string(ws.join("docs/new.md")).unwrap(),
        "ok\n"
    );
    assert_eq!(
        std::fs::read_to_string(ws.join("target/out")).unwrap(),
        "ok\n"
    );
}

/// The hook remembers its layout of the claims (`<store dir>/guard-layout`) while the
/// listed directories are unchanged. A claim taken since, an entry created since, or an
/// entry written by hand that drops or re-opens a claim never lets a write into a claim
/// through: the layout is made again, and the claimed bytes stay.
#[test]
fn a_stale_or_forged_layout_cache_never_lets_a_write_into_a_claim() {
    if namespaces_refused().is_some() {
        return;
    }
    let sb = Sandbox::new();
    let ws = sb.ws();
    let mode = "bypassPermissions";
    for name in ["a.rs", "b.rs", "free.rs"] {
        std::fs::write(ws.join("src").join(name), KNOWN).unwrap();
    }
    assert_eq!(
        claude_hook(&sb, &claude_payload(&sb, "SessionStart", mode)).code,
        0
    );
    let mut core = sb.core();
    let peer = attach(&mut core, "peer", true);
    // `new.rs` is not there yet: `src/` is read-only whole, its other entries re-opened.
    claim(&mut core, &peer, "file:src/a.rs", true);
    claim(&mut core, &peer, "file:src/new.rs", true);
    let rewrite = |command: &str| -> String {
        let run = claude_hook(&sb, &bash_call(&sb, mode, command));
        assert_eq!(run.code, 0, "{run:?}");
        run.stdout
    };
    let line = |answer: &str| -> String {
        let v: Value = serde_json::from_str(answer).unwrap();
        v["hookSpecificOutput"]["updatedInput"]["command"]
            .as_str()
            .unwrap()
            .to_owned()
    };
    let cache = || {
        walkdir::WalkDir::new(sb.data())
            .into_iter()
            .flatten()
            .find(|e| e.file_name() == "guard-layout")
            .map(|e| e.into_path())
    };
    // A script: no reader sees what it writes, so only the kernel stops it.
    std::fs::create_dir_all(ws.join("tools")).unwrap();
    std::fs::write(
        ws.join("tools/everywhere.sh"),
        "echo x > src/a.rs; echo x > src/b.rs; echo x > src/new.rs; \
         echo ok > src/free.rs; echo ok > src/later.rs; echo done\n",
    )
    .unwrap();
    let write_everywhere = "bash tools/everywhere.sh";
    let a = ws.join("src/a.rs");
    let b = ws.join("src/b.rs");
    let held = |out: &Output, b_claimed: bool| {
        assert_eq!(String::from_utf8_lossy(&out.stdout), "done\n", "{out:?}");
        assert_eq!(std::fs::read_to_string(&a).unwrap(), KNOWN);
        assert!(!ws.join("src/new.rs").exists());
        assert_eq!(
            std::fs::read_to_string(&b).unwrap() == KNOWN,
            b_claimed,
            "{out:?}"
        );
        std::fs::write(&b, KNOWN).unwrap();
    };
    // A directory changed within a clock tick of its listing is not remembered.
    std::thread::sleep(std::time::Duration::from_millis(250));
    let first = rewrite("true");
    let cache = cache().expect("the layout is remembered");
    assert_eq!(line(&rewrite("true")), line(&first));

    // An unclaimed entry created since: the directory changed, so it is re-opened too.
    std::fs::write(ws.join("src/later.rs"), "free\n").unwrap();
    held(&run_rewritten(&sb, &rewrite(write_everywhere)), false);
    assert_eq!(
        std::fs::read_to_string(ws.join("src/later.rs")).unwrap(),
        "ok\n"
    );

    // A claim taken after the layout was remembered.
    claim(&mut core, &peer, "file:src/b.rs", true);
    drop(core);
    held(&run_rewritten(&sb, &rewrite(write_everywhere)), true);

    // Entries written by hand, their directories' identities kept: one that drops every
    // mount, one that re-opens the claimed files, one that moves the read-only mount.
    std::thread::sleep(std::time::Duration::from_millis(250));
    rewrite("true");
    let src = ws.join("src").display().to_string();
    let forged_mounts = [
        json!([]),
        json!([
            {"path": src, "rw": false},
            {"path": format!("{src}/a.rs"), "rw": true},
            {"path": format!("{src}/b.rs"), "rw": true},
        ]),
        json!([{"path": format!("{}/docs", ws.display()), "rw": false}]),
        json!([
            {"path": src, "rw": false},
            {"path": format!("{src}/free.rs/../a.rs"), "rw": true},
        ]),
    ];
    for mounts in forged_mounts {
        let mut file: Value = serde_json::from_slice(&std::fs::read(&cache).unwrap()).unwrap();
        let entries = file["entries"].as_array_mut().unwrap();
        assert!(!entries.is_empty());
        for entry in entries {
            entry["mounts"] = mounts.clone();
        }
        std::fs::write(&cache, serde_json::to_vec(&file).unwrap()).unwrap();
        let answer = rewrite(write_everywhere);
        assert!(
            line(&answer).contains(&format!("'--ro' '{src}'")),
            "{mounts}: {answer}"
        );
        held(&run_rewritten(&sb, &answer), true);
    }
}

/// A runner line written by hand (or from a forged layout) cannot use a symbolic link to
/// widen what is writable: a link re-opened writable, or reached through one, stays
/// read-only, and a read-only link whose directory is writable (its name could be pointed
/// elsewhere) stops the command.
#[test]
fn a_link_never_re_opens_a_claim_nor_leaves_its_name_free() {
    if namespaces_refused().is_some() {
        return;
    }
    let ws = workspace();
    let src = ws.path().join("src");
    std::os::unix::fs::symlink("x", src.join("evil")).unwrap();
    std::os::unix::fs::symlink("src", ws.path().join("alias")).unwrap();
    std::fs::write(src.join("free.rs"), "free\n").unwrap();
    let mut cmd = acc_hook();
    cmd.current_dir(ws.path())
        .arg("guard-exec")
        .args(["--ro".as_ref(), src.as_os_str()])
        .args(["--rw".as_ref(), src.join("evil").as_os_str()])
        .args(["--rw".as_ref(), ws.path().join("alias/x").as_os_str()])
        .args(["--rw".as_ref(), src.join("free.rs").as_os_str()])
        .arg("--")
        .arg(
            "echo x > src/evil; echo x > src/x; echo x > alias/x; echo ok > src/free.rs; echo done",
        )
        .stdin(Stdio::null());
    let out = cmd.output().unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stdout), "done\n", "{out:?}");
    assert_eq!(std::fs::read_to_string(src.join("x")).unwrap(), KNOWN);
    assert_eq!(
        std::fs::read_to_string(src.join("free.rs")).unwrap(),
        "ok\n"
    );

    // A claimed link mounted alone, its directory writable: the command does not run.
    let out = guard_exec(ws.path(), &[&src.join("evil")], &[], "echo ran > free.txt");
    assert_eq!(out.status.code(), Some(125), "{out:?}");
    assert!(
        stderr(&out).contains("read-only path #1"),
        "{}",
        stderr(&out)
    );
    assert!(!ws.path().join("free.txt").exists());
}

/// `acc-guard` is the same runner in a program of its own (what the hook rewrites to where
/// it is installed beside `acc-hook`): a write into the read-only claim fails while the
/// rest of the command runs, the status passes through, the claim is named, acc's data
/// home is read-only, and the command's own `acc` is served from outside.
#[test]
fn acc_guard_keeps_the_claim_read_only_and_serves_acc_as_acc_hook_guard_exec_does() {
    if namespaces_refused().is_some() {
        return;
    }
    let ws = workspace();
    let src = ws.path().join("src");
    let data = tempfile::tempdir().unwrap();
    let data_home = data.path().canonicalize().unwrap();
    let acc_dir = data_home.join("acc");
    std::fs::create_dir_all(&acc_dir).unwrap();
    std::fs::write(acc_dir.join("state"), "acc's\n").unwrap();
    let bin = Path::new(env!("CARGO_BIN_EXE_acc-guard")).parent().unwrap();
    let run = |command: &str| {
        Command::new(env!("CARGO_BIN_EXE_acc-guard"))
            .current_dir(ws.path())
            .env("ACC_DATA_HOME", &data_home)
            .env(
                "PATH",
                format!("{}:{}", bin.display(), std::env::var("PATH").unwrap()),
            )
            .arg("--ro")
            .arg(&src)
            .arg("--own")
            .arg(&acc_dir)
            .args(["--claim", "file:src/**", "alice", "s-alice", "--", command])
            .stdin(Stdio::null())
            .output()
            .unwrap()
    };
    let out = run(&format!(
        "{OPAQUE}; echo x > '{}/state'; rm -rf src; exit 7",
        acc_dir.display()
    ));
    assert_eq!(std::fs::read_to_string(src.join("x")).unwrap(), KNOWN);
    assert_eq!(
        std::fs::read_to_string(acc_dir.join("state")).unwrap(),
        "acc's\n"
    );
    assert_eq!(
        std::fs::read_to_string(ws.path().join("free.txt")).unwrap(),
        "ran"
    );
    assert_eq!(out.status.code(), Some(7), "{out:?}");
    assert!(
        stderr(&out).contains(
            "acc: file:src/** is read-only in this command: claimed by alice (session s-alice)"
        ),
        "{out:?}"
    );
    // A program run without the inner shell, and `acc` through the broker.
    let out = run("acc --version");
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert!(
        String::from_utf8_lossy(&out.stdout).contains(env!("CARGO_PKG_VERSION")),
        "{out:?}"
    );
    // The subcommand spelling is accepted too.
    let out = Command::new(env!("CARGO_BIN_EXE_acc-guard"))
        .current_dir(ws.path())
        .args(["guard-exec", "--ro"])
        .arg(&src)
        .args(["--", "echo y > src/x"])
        .output()
        .unwrap();
    assert_ne!(out.status.code(), Some(0), "{out:?}");
    assert_eq!(std::fs::read_to_string(src.join("x")).unwrap(), KNOWN);
}

/// The command's process is created in its namespaces and shares the runner's memory until
/// it execs (`guard_exec::spawn`): every path that ends before the exec (a mount that fails,
/// no `bash` to run), and what the command inherits, checked where acc's own paths make the
/// runner keep a broker outside.
#[test]
fn a_command_started_inside_its_namespaces_keeps_every_guarantee() {
    if namespaces_refused().is_some() {
        return;
    }
    let ws = workspace();
    let src = ws.path().join("src");
    let data = tempfile::tempdir().unwrap();
    let own = data.path().canonicalize().unwrap().join("acc");
    std::fs::create_dir_all(&own).unwrap();
    std::fs::write(own.join("state"), "acc's\n").unwrap();
    let run = |ro: &Path, path_var: Option<&str>, command: &str| {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_acc-guard"));
        cmd.current_dir(ws.path())
            .env("ACC_GUARD_TEST_VAR", "kept")
            .arg("--ro")
            .arg(ro)
            .arg("--own")
            .arg(&own)
            .args(["--claim", "file:src/**", "alice", "s-alice", "--", command])
            .stdin(Stdio::null());
        if let Some(p) = path_var {
            cmd.env("PATH", p);
        }
        cmd.output().unwrap()
    };
    for attack in [
        "rm -rf src",
        "echo new > src/new.rs",
        "umount src; echo x > src/x",
        "umount -l src; echo x > src/x",
        "mount -o remount,rw src; echo x > src/x",
        "mount -o remount,bind,rw src; echo x > src/x",
        "unshare --user --map-root-user --mount sh -c 'umount src; echo x > src/x'",
        "unshare --user --map-root-user --mount sh -c 'umount -l src; echo x > src/x'",
    ] {
        let attack = format!("{attack}; echo y > '{}/state'", own.display());
        let out = run(&src, None, &attack);
        assert_ne!(out.status.code(), Some(0), "{attack}: {}", stderr(&out));
        assert_eq!(std::fs::read_to_string(src.join("x")).unwrap(), KNOWN);
        assert_eq!(
            std::fs::read_to_string(own.join("state")).unwrap(),
            "acc's\n"
        );
        let names: Vec<_> = std::fs::read_dir(&src)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["x"], "{attack}");
    }

    // Inherited as from `bash -c`: the environment with the broker's address, `_` as bash
    // sets it for a program it execs, SIGPIPE at its default, the caller's ids.
    let env_path = String::from_utf8(
        Command::new("bash")
            .args(["-c", "command -v env"])
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap();
    let out = run(&src, None, "env");
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let vars = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        vars.lines().any(|l| l == "ACC_GUARD_TEST_VAR=kept"),
        "{vars}"
    );
    assert!(
        vars.lines()
            .any(|l| l.starts_with("ACC_GUARD_BROKER=@acc-guard-")),
        "{vars}"
    );
    assert!(
        vars.lines().any(|l| l == format!("_={}", env_path.trim())),
        "{vars}"
    );
    let out = run(&src, None, "trap -p PIPE; id -u; id -g");
    // SAFETY: getuid and getgid cannot fail.
    let ids = unsafe { format!("{}\n{}\n", libc::getuid(), libc::getgid()) };
    assert_eq!(String::from_utf8_lossy(&out.stdout), ids, "{out:?}");
    // A pipeline's writer ends by SIGPIPE, as outside.
    let out = run(
        &src,
        None,
        "yes | head -n 1 >/dev/null; echo \"${PIPESTATUS[0]}\"",
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout), "141\n", "{out:?}");

    // No `bash` to run the command: 127 and why, nothing ran, the claim named.
    let out = run(&src, Some("/nonexistent"), "echo ran > ran.txt");
    assert_eq!(out.status.code(), Some(127), "{out:?}");
    assert!(
        stderr(&out).starts_with("acc: the command did not run: bash: "),
        "{out:?}"
    );
    assert!(stderr(&out).contains("claimed by alice"), "{out:?}");
    assert!(!ws.path().join("ran.txt").exists());

    // A mount that fails in the child: 125, why, and nothing ran.
    let out = run(&ws.path().join("no-such-dir"), None, "echo ran > ran.txt");
    assert_eq!(out.status.code(), Some(125), "{out:?}");
    assert!(
        stderr(&out).starts_with("acc: the command did not run: the read-only guard"),
        "{out:?}"
    );
    assert!(!stderr(&out).contains("claimed by alice"), "{out:?}");
    assert!(!ws.path().join("ran.txt").exists());
}
