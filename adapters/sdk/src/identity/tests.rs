use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use super::*;
use crate::define::testing::TestBehaviour;
use crate::manifest::{ClientSpec, Variant};

fn entry(pid: u32, ppid: u32, comm: &str, args: &[&str]) -> ProcessEntry {
    ProcessEntry {
        pid,
        ppid,
        comm: comm.to_owned(),
        args: args.iter().map(|s| s.to_string()).collect(),
        exe: None,
    }
}

fn client(command: &str) -> ClientSpec {
    ClientSpec {
        command: command.to_owned(),
        certification_name: Some(format!("{command}-cli")),
        version_args: vec!["--version".into()],
        variants: vec![Variant {
            certification_name: "desk".into(),
            display_name: "Desk".into(),
        }],
    }
}

fn strings(words: &[&str]) -> Vec<String> {
    words.iter().map(|s| s.to_string()).collect()
}

#[test]
fn executable_names() {
    for (path, want) in [
        ("/usr/local/bin/gemini", "gemini"),
        ("C:\\Tools\\Codex.EXE", "codex"),
        ("claude", "claude"),
        ("/x/y/", ""),
        ("node.exe", "node"),
    ] {
        assert_eq!(executable_name(path), want, "{path}");
    }
}

#[test]
fn node_script_candidates_follow_option_values() {
    let cases: Vec<(Vec<&str>, Vec<&str>)> = vec![
        (
            vec!["node", "--require", "./preload.cjs", "/x/gemini.js"],
            vec!["preload", "gemini"],
        ),
        (
            vec!["node", "/x/bundle/gemini.js", "--yolo"],
            vec!["gemini"],
        ),
        (
            vec!["node", "--max-old-space-size=4096", "/x/gemini.mjs"],
            vec!["gemini"],
        ),
        (
            vec!["node", "--inspect", "script.cjs", "other.js"],
            vec!["script", "other"],
        ),
        (vec!["node", "a.js", "b.js"], vec!["a"]),
        (vec!["node"], vec![]),
        (vec!["node", "--version"], vec![]),
        (vec!["node", "C:\\x\\Gemini.JS"], vec!["gemini"]),
    ];
    for (args, want) in cases {
        assert_eq!(
            node_script_candidates(&strings(&args)),
            strings(&want),
            "{args:?}"
        );
    }
}

#[test]
fn command_matching() {
    let cases = [
        (entry(5, 4, "claude", &[]), "claude", true),
        (
            entry(5, 4, "/Applications/Claude.app/Contents/MacOS/claude", &[]),
            "claude",
            true,
        ),
        (entry(5, 4, "codex.exe", &[]), "Codex", true),
        (entry(5, 4, "claude-helper", &[]), "claude", false),
        (
            entry(5, 4, "node", &["node", "/x/gemini.js"]),
            "gemini",
            true,
        ),
        (
            entry(
                5,
                4,
                "node",
                &["node", "--require", "./gemini.cjs", "/x/main.js"],
            ),
            "gemini",
            true,
        ),
        (
            entry(5, 4, "node", &["node", "/x/main.js", "/x/gemini.js"]),
            "gemini",
            false,
        ),
        (
            entry(5, 4, "bash", &["bash", "/x/gemini.js"]),
            "gemini",
            false,
        ),
        // comm is truncated on Linux; argv[0] still names the binary.
        (
            entry(5, 4, "very-long-clien", &["/opt/very-long-client-name"]),
            "very-long-client-name",
            true,
        ),
    ];
    for (e, command, want) in cases {
        assert_eq!(matches_command(&e, command), want, "{e:?} {command}");
    }
}

fn chain() -> StaticTable {
    StaticTable::new([
        entry(
            100,
            90,
            "acc-hook",
            &["acc-hook", "example", "sessionStart"],
        ),
        entry(90, 80, "sh", &["sh", "-c", "acc-hook"]),
        entry(80, 70, "example", &["example", "--yolo"]),
        entry(70, 1, "zsh", &["-zsh"]),
    ])
}

#[test]
fn the_walk_finds_the_first_matching_ancestor() {
    let found = resolve_client(&chain(), 100, &client("example"), &TestBehaviour::new()).unwrap();
    assert_eq!(
        (found.pid, found.certification_name.as_str(), found.version),
        (80, "example-cli", None)
    );
    assert_eq!(
        resolve_client(&chain(), 100, &client("missing"), &TestBehaviour::new()),
        None
    );
    // The hook process itself is not a candidate.
    assert_eq!(
        resolve_client(&chain(), 80, &client("example"), &TestBehaviour::new()),
        None
    );
}

/// Counts the reads of each pid (every read is several system calls under `/proc`).
struct Counting(StaticTable, std::cell::RefCell<BTreeMap<u32, usize>>);

impl ProcessTable for Counting {
    fn entry(&self, pid: u32) -> Option<ProcessEntry> {
        *self.1.borrow_mut().entry(pid).or_default() += 1;
        self.0.entry(pid)
    }
}

#[test]
fn the_walk_reads_each_process_once() {
    let table = Counting(chain(), Default::default());
    let found = resolve_client(&table, 100, &client("example"), &TestBehaviour::new());
    assert_eq!(found.map(|r| r.pid), Some(80));
    assert_eq!(
        table.1.into_inner(),
        BTreeMap::from([(100, 1), (90, 1), (80, 1)])
    );
}

#[test]
fn the_walk_stops_at_missing_entries_cycles_init_and_sixteen_hops() {
    let missing = StaticTable::new([
        entry(100, 90, "acc-hook", &[]),
        entry(80, 70, "example", &[]),
    ]);
    assert_eq!(
        resolve_client(&missing, 100, &client("example"), &TestBehaviour::new()),
        None
    );
    let cycle = StaticTable::new([
        entry(100, 90, "h", &[]),
        entry(90, 91, "a", &[]),
        entry(91, 90, "b", &[]),
    ]);
    assert_eq!(
        resolve_client(&cycle, 100, &client("example"), &TestBehaviour::new()),
        None
    );
    let self_parent = StaticTable::new([entry(100, 100, "h", &[])]);
    assert_eq!(
        resolve_client(&self_parent, 100, &client("h"), &TestBehaviour::new()),
        None
    );
    let init = StaticTable::new([entry(100, 1, "h", &[]), entry(1, 0, "example", &[])]);
    assert_eq!(
        resolve_client(&init, 100, &client("example"), &TestBehaviour::new()),
        None
    );

    let deep = |depth: u32| {
        let mut entries: Vec<ProcessEntry> = (0..depth)
            .map(|i| entry(1000 - i, 999 - i, "sh", &[]))
            .collect();
        entries.push(entry(1000 - depth, 1, "example", &[]));
        StaticTable::new(entries)
    };
    assert_eq!(
        resolve_client(&deep(16), 1000, &client("example"), &TestBehaviour::new()).map(|r| r.pid),
        Some(984)
    );
    assert_eq!(
        resolve_client(&deep(17), 1000, &client("example"), &TestBehaviour::new()),
        None
    );
}

fn identify_desk(e: &ProcessEntry) -> Option<ClientIdentity> {
    (e.comm == "language_server").then(|| ClientIdentity {
        certification_name: "desk".into(),
        version: Some("2.19.1".into()),
    })
}

fn identify_stranger(e: &ProcessEntry) -> Option<ClientIdentity> {
    (e.comm == "example").then(|| ClientIdentity {
        certification_name: "stranger".into(),
        version: Some("9.9.9".into()),
    })
}

fn identify_panics(_: &ProcessEntry) -> Option<ClientIdentity> {
    panic!("identifier bug")
}

#[test]
fn the_identifier_runs_first_and_its_failures_are_a_no() {
    let table = StaticTable::new([
        entry(100, 90, "acc-hook", &[]),
        entry(90, 80, "language_server", &[]),
        entry(80, 70, "example", &[]),
        entry(70, 1, "zsh", &[]),
    ]);
    let found = resolve_client(
        &table,
        100,
        &client("example"),
        &TestBehaviour::new().identify(identify_desk),
    )
    .unwrap();
    assert_eq!(
        (
            found.pid,
            found.certification_name.as_str(),
            found.version.as_deref()
        ),
        (90, "desk", Some("2.19.1"))
    );
    // An undeclared product is ignored, name and version; the command match still applies.
    let found = resolve_client(
        &table,
        100,
        &client("example"),
        &TestBehaviour::new().identify(identify_stranger),
    )
    .unwrap();
    assert_eq!(
        (found.pid, found.certification_name.as_str(), found.version),
        (80, "example-cli", None)
    );
    let found = resolve_client(
        &table,
        100,
        &client("example"),
        &TestBehaviour::new().identify(identify_panics),
    )
    .unwrap();
    assert_eq!(found.pid, 80);
}

#[test]
fn the_real_proc_walk_sees_this_process_and_its_parent() {
    if !std::path::Path::new("/proc/self/stat").exists() {
        return;
    }
    let table = ProcTable::default();
    let me = table.entry(std::process::id()).expect("own entry");
    // SAFETY: getppid has no preconditions and cannot fail.
    let parent_pid = unsafe { libc::getppid() } as u32;
    assert_eq!(me.ppid, parent_pid);
    assert!(!me.args.is_empty());
    assert!(me.exe.as_ref().is_some_and(|e| e.is_absolute()));
    let parent = table.entry(parent_pid).expect("parent entry");
    assert!(!parent.comm.is_empty());
    let found = resolve_client(
        &table,
        std::process::id(),
        &client(&parent.comm),
        &TestBehaviour::new(),
    )
    .unwrap();
    assert_eq!(found.pid, parent_pid);
}

#[test]
fn stat_lines_with_odd_comms_parse() {
    assert_eq!(
        table::parse_stat("42 (a) b) S 7 42 42 0"),
        Some(("a) b".to_owned(), 7))
    );
    assert_eq!(
        table::parse_stat("42 (node) S 1 1"),
        Some(("node".to_owned(), 1))
    );
    assert_eq!(table::parse_stat("garbage"), None);
}

#[test]
fn a_synthetic_proc_root_reads_like_proc() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("55");
    std::fs::create_dir_all(&p).unwrap();
    std::fs::write(p.join("stat"), "55 (node) S 44 55 55").unwrap();
    std::fs::write(
        p.join("cmdline"),
        b"node\0--require\0./x.cjs\0/y/gemini.js\0",
    )
    .unwrap();
    let e = ProcTable::at(dir.path()).entry(55).unwrap();
    assert_eq!((e.pid, e.ppid, e.comm.as_str()), (55, 44, "node"));
    assert_eq!(
        e.args,
        strings(&["node", "--require", "./x.cjs", "/y/gemini.js"])
    );
    assert_eq!(e.exe, None);
    assert!(ProcTable::at(dir.path()).entry(56).is_none());
}

#[test]
fn ps_listings_parse() {
    let comm = "  1     0 /sbin/launchd\n 80     1 /Applications/Example.app/Contents/MacOS/example\n 90    80 node\nbad line\n";
    let args = "  1 /sbin/launchd\n 80 /Applications/Example.app/Contents/MacOS/example --flag\n 90 node /x/gemini.js\n";
    let t = PsTable::parse(comm, args);
    let e = t.entry(80).unwrap();
    assert_eq!(e.ppid, 1);
    assert_eq!(
        e.exe,
        Some(PathBuf::from(
            "/Applications/Example.app/Contents/MacOS/example"
        ))
    );
    assert_eq!(e.args.len(), 2);
    let n = t.entry(90).unwrap();
    assert_eq!((n.comm.as_str(), n.exe.clone()), ("node", None));
    assert_eq!(n.args, strings(&["node", "/x/gemini.js"]));
    assert!(t.entry(7).is_none());
}

fn script(dir: &std::path::Path, name: &str, body: &str) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let path = dir.join(name);
    std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

fn version_of_record(
    _pid: u32,
    _e: &ProcessEntry,
    env: &BTreeMap<String, String>,
) -> Option<String> {
    env.get("RECORDED_VERSION").cloned()
}

fn version_of_panics(
    _pid: u32,
    _e: &ProcessEntry,
    _env: &BTreeMap<String, String>,
) -> Option<String> {
    panic!("reader bug")
}

#[test]
fn session_version_order() {
    let dir = tempfile::tempdir().unwrap();
    let bin = dir.path().join("bin");
    let own = dir.path().join("own");
    std::fs::create_dir_all(&bin).unwrap();
    std::fs::create_dir_all(&own).unwrap();
    script(&bin, "example", "echo \"example $1 4.0.0\"");
    let own_exe = script(&own, "example", "echo 'example v3.1.0-beta.2 (own build)'");
    let path_env = BTreeMap::from([("PATH".to_owned(), bin.display().to_string())]);
    let spec = client("example");
    let resolved = |version: Option<&str>, exe: Option<PathBuf>, name: &str| ResolvedClient {
        pid: 80,
        entry: ProcessEntry {
            exe,
            ..entry(80, 70, "example", &[])
        },
        certification_name: name.to_owned(),
        version: version.map(str::to_owned),
    };
    let t = Duration::from_secs(5);
    let plain = TestBehaviour::new();
    let recorded = TestBehaviour::new().version_of(version_of_record);
    let mut rec_env = path_env.clone();
    rec_env.insert("RECORDED_VERSION".into(), "2.0.0".into());

    // 1. The identifier's version wins.
    assert_eq!(
        session_version(
            &resolved(Some("1.0.0"), Some(own_exe.clone()), "example-cli"),
            &spec,
            &recorded,
            &rec_env,
            t
        )
        .as_deref(),
        Some("1.0.0")
    );
    // 2. Then the client's own records.
    assert_eq!(
        session_version(
            &resolved(None, Some(own_exe.clone()), "example-cli"),
            &spec,
            &recorded,
            &rec_env,
            t
        )
        .as_deref(),
        Some("2.0.0")
    );
    // A non-version answer or a panic is ignored.
    let mut junk_env = path_env.clone();
    junk_env.insert("RECORDED_VERSION".into(), "latest".into());
    assert_eq!(
        session_version(
            &resolved(None, Some(own_exe.clone()), "example-cli"),
            &spec,
            &recorded,
            &junk_env,
            t
        )
        .as_deref(),
        Some("3.1.0-beta.2")
    );
    let panics = TestBehaviour::new().version_of(version_of_panics);
    assert_eq!(
        session_version(
            &resolved(None, Some(own_exe.clone()), "example-cli"),
            &spec,
            &panics,
            &path_env,
            t
        )
        .as_deref(),
        Some("3.1.0-beta.2")
    );
    // 3. The absolute executable the table names, run with versionArgs.
    assert_eq!(
        session_version(
            &resolved(None, Some(own_exe.clone()), "example-cli"),
            &spec,
            &plain,
            &path_env,
            t
        )
        .as_deref(),
        Some("3.1.0-beta.2")
    );
    // An executable named otherwise is not the client's.
    let other = script(&own, "helper", "echo 7.7.7");
    // 4. Then `command` on PATH, with versionArgs passed through.
    assert_eq!(
        session_version(
            &resolved(None, Some(other), "example-cli"),
            &spec,
            &plain,
            &path_env,
            t
        )
        .as_deref(),
        Some("4.0.0")
    );
    assert_eq!(
        session_version(
            &resolved(None, None, "example-cli"),
            &spec,
            &plain,
            &path_env,
            t
        )
        .as_deref(),
        Some("4.0.0")
    );
    // A variant never takes the primary command's version.
    assert_eq!(
        session_version(
            &resolved(None, Some(own_exe), "desk"),
            &spec,
            &plain,
            &path_env,
            t
        ),
        None
    );
    // Nothing on PATH.
    assert_eq!(
        session_version(
            &resolved(None, None, "example-cli"),
            &spec,
            &plain,
            &BTreeMap::new(),
            t
        ),
        None
    );
}

#[test]
fn version_commands_are_bounded_by_their_timeout() {
    let dir = tempfile::tempdir().unwrap();
    let slow = script(dir.path(), "slow", "exec sleep 30");
    let env = BTreeMap::from([("PATH".to_owned(), "/bin:/usr/bin".to_owned())]);
    assert_eq!(
        run_version_command(&slow, &[], &env, Duration::from_millis(200)),
        None
    );
    let fast = script(dir.path(), "fast", "echo \"tool $1\" 1.2.3");
    assert_eq!(
        run_version_command(&fast, &["--version".into()], &env, Duration::from_secs(5)).as_deref(),
        Some("1.2.3")
    );
    let missing = dir.path().join("absent");
    assert_eq!(
        run_version_command(&missing, &[], &env, Duration::from_secs(1)),
        None
    );
}

#[test]
fn the_hook_version_probe_reads_past_a_lingering_child_and_kills_a_hung_one() {
    let dir = tempfile::tempdir().unwrap();
    let env = BTreeMap::from([("PATH".to_owned(), "/bin:/usr/bin".to_owned())]);
    let lingering_pid = dir.path().join("lingering.pid");
    let lingering = script(
        dir.path(),
        "lingering",
        &format!(
            "/bin/sleep 30 &\necho $! > '{}'\necho 'tool 4.5.6'",
            lingering_pid.display()
        ),
    );
    let version = run_version_command(&lingering, &[], &env, Duration::from_secs(5));
    let pid = std::fs::read_to_string(&lingering_pid).unwrap();
    let _ = std::process::Command::new("/bin/kill")
        .args(["-9", pid.trim()])
        .status();
    assert_eq!(version.as_deref(), Some("4.5.6"));

    let hung_pid = dir.path().join("hung.pid");
    let hung = script(
        dir.path(),
        "hung",
        &format!("/bin/sleep 30 &\necho $! > '{}'\nwait", hung_pid.display()),
    );
    assert_eq!(
        run_version_command(&hung, &[], &env, Duration::from_millis(300)),
        None
    );
    let pid = std::fs::read_to_string(&hung_pid).unwrap();
    let alive = |pid: &str| {
        std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
            stat.rsplit_once(") ")
                .is_some_and(|(_, rest)| !rest.starts_with('Z') && !rest.starts_with('X'))
        })
    };
    let mut gone = false;
    for _ in 0..200 {
        if !alive(pid.trim()) {
            gone = true;
            break;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    if !gone {
        let _ = std::process::Command::new("/bin/kill")
            .args(["-9", pid.trim()])
            .status();
    }
    assert!(gone, "the hung probe's child {} outlived it", pid.trim());
}
