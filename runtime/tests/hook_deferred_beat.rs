//! A guard call whose heartbeat is due (the first after 30 s) is still answered from the
//! published snapshot when that proves an allow; the heartbeat is written after the answer
//! by an `acc-hook --beat` process the call starts and does not wait for (issue 30). A
//! covered write with the heartbeat due is refused from the snapshot the same way: its
//! event spooled, its heartbeat written after the answer. The writer is a copy of the
//! answering process: it holds none of the client's pipes, changes nothing in the answer,
//! and does not outlive its own deadline on a store that is locked or corrupt.

mod hook_support;

use hook_support::*;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn fixture(rel: &str) -> String {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../fixtures/payloads")
        .join(rel);
    std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .lines()
        .next()
        .expect("one payload per line")
        .to_string()
}

fn payload(sb: &Sandbox, event: &str) -> String {
    fixture(&format!("claude-code/plain/{event}.jsonl"))
        .replace("/sandbox/ws", &sb.ws().display().to_string())
}

/// When a writer started now must have ended: the hook's budget, and a margin.
fn within_its_budget() -> Instant {
    Instant::now() + acc_runtime::hook::DEFAULT_BUDGET + GENEROUS
}

fn run(sb: &Sandbox, event: &str, body: &str) -> HookRun {
    run_marked(sb, event, body, "")
}

/// [`run`], with `mark` in the process's environment: what the writer it starts (a copy
/// of it, or a program it runs) inherits, so that the test finds it among all processes.
fn run_marked(sb: &Sandbox, event: &str, body: &str, mark: &str) -> HookRun {
    run_as(sb, "claude-code", event, body, &[(MARK_VAR, mark)])
}

/// One `acc-hook <adapter> <event>` process with `env` beside the data home.
fn run_as(sb: &Sandbox, adapter: &str, event: &str, body: &str, env: &[(&str, &str)]) -> HookRun {
    let mut child = Command::new(env!("CARGO_BIN_EXE_acc-hook"))
        .env_clear()
        .env("ACC_DATA_HOME", sb.data())
        .envs(env.iter().copied())
        .args([adapter, event])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    {
        use std::io::Write;
        let mut stdin = child.stdin.take().unwrap();
        stdin.write_all(body.as_bytes()).unwrap();
    }
    let out = child.wait_with_output().unwrap();
    HookRun {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8(out.stdout).unwrap(),
        stderr: String::from_utf8(out.stderr).unwrap(),
    }
}

/// A sandbox whose core runs at the time the `acc-hook` processes see (the system's).
fn sandbox() -> Sandbox {
    let sb = Sandbox::new();
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap();
    sb.clock.set(now.as_millis() as i64);
    sb
}

/// A [`sandbox`] in which the conversation has started, and its `SessionStart` payload.
fn started() -> (Sandbox, String) {
    let sb = sandbox();
    let start = payload(&sb, "SessionStart");
    assert_eq!(run(&sb, "SessionStart", &start).code, 0);
    (sb, start)
}

fn heartbeats(sb: &Sandbox) -> PathBuf {
    sb.data().join("acc").join("heartbeats")
}

#[test]
fn a_due_heartbeat_is_written_after_an_allow_answered_from_the_snapshot() {
    let (sb, start) = started();
    let me = me_of(&sb, &start);
    let before = sb
        .core()
        .session(&me.session)
        .unwrap()
        .unwrap()
        .heartbeat_at;
    // Due: no marker says when the last heartbeat was.
    std::fs::remove_dir_all(heartbeats(&sb)).unwrap();
    std::thread::sleep(Duration::from_millis(20));

    let tool = payload(&sb, "PreToolUse");
    let allowed = run(&sb, "PreToolUse", &tool);
    assert_silent_allow(&allowed);
    // The marker is set at once, so the calls that follow stay on the fast path.
    assert_eq!(std::fs::read_dir(heartbeats(&sb)).unwrap().count(), 1);
    // The heartbeat reaches the store from the process the call started.
    let until = Instant::now() + GENEROUS;
    loop {
        let now = sb
            .core()
            .session(&me.session)
            .unwrap()
            .unwrap()
            .heartbeat_at;
        if now > before {
            break;
        }
        assert!(Instant::now() < until, "no heartbeat after {before}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn a_covered_write_with_the_heartbeat_due_is_still_refused() {
    let (sb, start) = started();
    let tool = payload(&sb, "PreToolUse");
    let v: serde_json::Value = serde_json::from_str(&tool).unwrap();
    let target = v["tool_input"]["file_path"]
        .as_str()
        .expect("a write payload names its file");
    let rel = std::path::Path::new(target)
        .strip_prefix(sb.ws())
        .expect("the payload writes inside the workspace")
        .to_path_buf();
    peer_holds(&sb, &format!("file:{}", rel.display()));
    let me = me_of(&sb, &start);
    let before = sb
        .core()
        .session(&me.session)
        .unwrap()
        .unwrap()
        .heartbeat_at;
    std::fs::remove_dir_all(heartbeats(&sb)).unwrap();
    std::thread::sleep(Duration::from_millis(20));
    let denied = run(&sb, "PreToolUse", &tool);
    assert!(
        denied.stdout.contains("deny") || denied.code == 2,
        "{denied:?}"
    );
    // Answered from the snapshot (the store path's deny sets no marker): the marker is set
    // at once, so the denies that follow (an agent retrying its write) stay there too.
    assert_eq!(std::fs::read_dir(heartbeats(&sb)).unwrap().count(), 1);
    // The heartbeat reaches the store from the process the call started.
    let until = Instant::now() + GENEROUS;
    loop {
        let now = sb
            .core()
            .session(&me.session)
            .unwrap()
            .unwrap()
            .heartbeat_at;
        if now > before {
            break;
        }
        assert!(Instant::now() < until, "no heartbeat after {before}");
        std::thread::sleep(Duration::from_millis(50));
    }
    let status = sb.core().status(None, false).unwrap();
    assert_eq!(
        status.refused_writes.total, 1,
        "{:?}",
        status.refused_writes
    );
}

/// Not a variable acc reads: a tag that marks the processes one test started.
const MARK_VAR: &str = "ACC_TEST_BEAT_WRITER";

/// The processes whose environment carries `mark` (the hook's and what it started).
fn marked(mark: &str) -> Vec<u32> {
    let needle = format!("{MARK_VAR}={mark}");
    let mut pids = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<u32>().ok())
        else {
            continue;
        };
        // A zombie has no environment left: it holds nothing and waits for nothing.
        let Ok(environ) = std::fs::read(entry.path().join("environ")) else {
            continue;
        };
        if environ.split(|b| *b == 0).any(|v| v == needle.as_bytes()) {
            pids.push(pid);
        }
    }
    pids
}

/// Where each of `pid`'s descriptors leads.
fn descriptors(pid: u32) -> Vec<(i32, String)> {
    let mut fds = Vec::new();
    for entry in std::fs::read_dir(format!("/proc/{pid}/fd"))
        .unwrap()
        .flatten()
    {
        let fd = entry.file_name().to_str().unwrap().parse().unwrap();
        if let Ok(to) = std::fs::read_link(entry.path()) {
            fds.push((fd, to.display().to_string()));
        }
    }
    fds
}

fn store_of(sb: &Sandbox) -> PathBuf {
    sb.core().store_path().to_path_buf()
}

fn heartbeat_at(sb: &Sandbox, me: &acc_runtime::Owner) -> String {
    sb.core()
        .session(&me.session)
        .unwrap()
        .unwrap()
        .heartbeat_at
}

/// Every file of the workspace (`.git` included) and its bytes.
fn tree(dir: &std::path::Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if entry.file_type().unwrap().is_dir() {
            files.extend(tree(&path));
        } else {
            files.push((path.clone(), std::fs::read(&path).unwrap_or_default()));
        }
    }
    files.sort();
    files
}

/// Waits until no process carries `mark`; `false` if one still does at `until`.
fn all_gone(mark: &str, until: Instant) -> bool {
    while !marked(mark).is_empty() {
        if Instant::now() > until {
            return false;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    true
}

#[test]
fn a_writer_held_by_a_locked_store_holds_none_of_the_clients_pipes_and_ends_at_its_deadline() {
    let (sb, start) = started();
    let me = me_of(&sb, &start);
    let before = heartbeat_at(&sb, &me);
    let ws_before = tree(&sb.ws());
    // Another process holds the store's write lock for longer than any hook's budget.
    let locker = rusqlite::Connection::open(store_of(&sb)).unwrap();
    locker.execute_batch("BEGIN EXCLUSIVE").unwrap();
    std::fs::remove_dir_all(heartbeats(&sb)).unwrap();
    let mark = format!("locked-{}", std::process::id());

    let allowed = run_marked(&sb, "PreToolUse", &payload(&sb, "PreToolUse"), &mark);
    assert_silent_allow(&allowed);
    // The client read its answer to the end and saw the hook exit while the writer waits
    // for the lock: the writer holds neither end of the client's pipes.
    let writers = marked(&mark);
    assert_eq!(
        writers.len(),
        1,
        "one writer waits for the lock: {writers:?}"
    );
    let writer = writers[0];
    let cmdline = std::fs::read(format!("/proc/{writer}/cmdline")).unwrap_or_default();
    assert!(
        !cmdline.split(|b| *b == 0).any(|a| a == b"--beat"),
        "the writer is a copy of the hook, not a program it started"
    );
    // A batch task: the fork's wake-up did not run it before the hook's exit, and it does
    // not preempt the client either.
    // SAFETY: sched_getscheduler only reads another process's policy.
    assert_eq!(
        unsafe { libc::sched_getscheduler(writer as libc::pid_t) },
        libc::SCHED_BATCH,
        "the writer runs as a batch task"
    );
    let fds = descriptors(writer);
    for fd in 0..=2 {
        assert!(
            fds.contains(&(fd, "/dev/null".to_string())),
            "descriptor {fd} of the writer is /dev/null: {fds:?}"
        );
    }
    // Its only pipe is the one it awaited the hook's exit on, closed once it runs again.
    let until = Instant::now() + GENEROUS;
    while descriptors(writer)
        .iter()
        .any(|(_, to)| to.starts_with("pipe:"))
    {
        assert!(
            Instant::now() < until,
            "the writer holds a pipe: {:?}",
            descriptors(writer)
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    // Bounded by its own deadline (the hook's budget), whatever the lock's holder does.
    assert!(
        all_gone(&mark, within_its_budget()),
        "the writer outlived its deadline"
    );
    locker.execute_batch("ROLLBACK").unwrap();
    assert_eq!(
        heartbeat_at(&sb, &me),
        before,
        "the locked store took no heartbeat"
    );
    assert_eq!(
        tree(&sb.ws()),
        ws_before,
        "nothing written in the workspace"
    );
}

#[test]
fn a_writer_on_a_corrupt_store_leaves_nothing_behind_and_the_answer_unchanged() {
    let (sb, _) = started();
    let tool = payload(&sb, "PreToolUse");
    let steady = run(&sb, "PreToolUse", &tool);
    let ws_before = tree(&sb.ws());
    let store = store_of(&sb);
    let mut bytes = std::fs::read(&store).unwrap();
    for b in bytes.iter_mut().skip(100).take(4096) {
        *b = 0xA5;
    }
    std::fs::write(&store, &bytes).unwrap();
    std::fs::remove_dir_all(heartbeats(&sb)).unwrap();
    let mark = format!("corrupt-{}", std::process::id());

    let due = run_marked(&sb, "PreToolUse", &tool, &mark);
    assert_eq!(due, steady, "the answer does not depend on the writer");
    // Answered from the snapshot, its writer started (the marker is set at once).
    assert_eq!(std::fs::read_dir(heartbeats(&sb)).unwrap().count(), 1);
    assert!(
        all_gone(&mark, within_its_budget()),
        "the writer outlived its deadline"
    );
    assert_eq!(
        tree(&sb.ws()),
        ws_before,
        "nothing written in the workspace"
    );
}

#[test]
fn every_call_answered_from_the_snapshot_answers_the_same_with_the_heartbeat_due() {
    let (sb, start) = started();
    let me = me_of(&sb, &start);
    peer_holds(&sb, "file:claimed.txt");
    let tool = payload(&sb, "PreToolUse");
    let mut v: serde_json::Value = serde_json::from_str(&tool).unwrap();
    let ws = sb.ws().display().to_string();
    v["tool_input"]["file_path"] = format!("{ws}/claimed.txt").into();
    let deny = v.to_string();
    v["tool_input"]["file_path"] = format!("{ws}/free.txt").into();
    let allow = v.to_string();
    v["tool_name"] = "Bash".into();
    v["tool_input"] = serde_json::json!({"command": "cat src/lib.rs | grep -c x"});
    let reads = v.to_string();
    let ws_before = tree(&sb.ws());

    for (kind, body) in [
        ("deny", &deny),
        ("allow", &allow),
        ("readable call", &reads),
    ] {
        let before = heartbeat_at(&sb, &me);
        std::fs::remove_dir_all(heartbeats(&sb)).unwrap();
        std::thread::sleep(Duration::from_millis(20));
        let due = run(&sb, "PreToolUse", body);
        // Answered from the snapshot: the marker is set at once.
        assert_eq!(
            std::fs::read_dir(heartbeats(&sb)).unwrap().count(),
            1,
            "{kind}: {due:?}"
        );
        let until = Instant::now() + GENEROUS;
        while heartbeat_at(&sb, &me) <= before {
            assert!(
                Instant::now() < until,
                "{kind}: no heartbeat after {before}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        let steady = run(&sb, "PreToolUse", body);
        assert_eq!(due, steady, "{kind}: the same answer, byte for byte");
        assert_eq!(is_deny(&due), kind == "deny", "{kind}: {due:?}");
    }
    assert_eq!(
        tree(&sb.ws()),
        ws_before,
        "nothing written in the workspace"
    );
}

/// Waits for the session's heartbeat to pass `before`.
fn await_heartbeat(sb: &Sandbox, me: &acc_runtime::Owner, before: &str, what: &str) {
    let until = Instant::now() + GENEROUS;
    while heartbeat_at(sb, me).as_str() <= before {
        assert!(
            Instant::now() < until,
            "{what}: no heartbeat after {before}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The owner `start`'s conversation was bound to.
fn me_of(sb: &Sandbox, start: &str) -> acc_runtime::Owner {
    let conv: serde_json::Value = serde_json::from_str(start).unwrap();
    bound_owner(&mut sb.core(), conv["session_id"].as_str().unwrap())
}

/// A peer session holds `resource`, guarded.
fn peer_holds(sb: &Sandbox, resource: &str) {
    let mut core = sb.core();
    let peer = attach(&mut core, "peer", true);
    claim(&mut core, &peer, resource, true);
}

/// The marker of the conversation `start` began.
fn marker_of(sb: &Sandbox, start: &str) -> PathBuf {
    let conv: serde_json::Value = serde_json::from_str(start).unwrap();
    let key = acc_runtime::core::bindings::binding_key(conv["session_id"].as_str().unwrap());
    heartbeats(sb).join(key)
}

/// Sets the modification time of `path` itself (a link's own) a minute back, as a pause
/// of 30 s and more leaves a marker.
fn set_back_a_minute(path: &std::path::Path) {
    use std::os::unix::ffi::OsStrExt;
    let ago = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        - Duration::from_secs(60);
    let times = [
        libc::timespec {
            tv_sec: ago.as_secs() as libc::time_t,
            tv_nsec: 0,
        },
        libc::timespec {
            tv_sec: ago.as_secs() as libc::time_t,
            tv_nsec: 0,
        },
    ];
    let c = std::ffi::CString::new(path.as_os_str().as_bytes()).unwrap();
    // SAFETY: a NUL-terminated path and two timespecs, owned here.
    let rc = unsafe {
        libc::utimensat(
            libc::AT_FDCWD,
            c.as_ptr(),
            times.as_ptr(),
            libc::AT_SYMLINK_NOFOLLOW,
        )
    };
    assert_eq!(rc, 0, "{}", std::io::Error::last_os_error());
}

#[test]
fn a_capture_run_records_the_due_call_as_the_steady_one_and_the_heartbeat_lands() {
    let (sb, start) = started();
    let me = me_of(&sb, &start);
    let captures = tempfile::tempdir().unwrap();
    let dir = captures.path().display().to_string();
    let capture = [("ACC_HOOK_CAPTURE_DIR", dir.as_str())];
    let tool = payload(&sb, "PreToolUse");
    let file = captures.path().join("hooks.jsonl");
    let lines = || -> Vec<String> {
        std::fs::read_to_string(&file)
            .unwrap_or_default()
            .lines()
            .map(str::to_owned)
            .collect()
    };

    let before = heartbeat_at(&sb, &me);
    set_back_a_minute(&marker_of(&sb, &start));
    let due = run_as(&sb, "claude-code", "PreToolUse", &tool, &capture);
    assert_silent_allow(&due);
    // Recorded before the process ended: the client saw the exit with the line written.
    let recorded = lines();
    assert_eq!(recorded.len(), 1, "{recorded:?}");
    let line: serde_json::Value = serde_json::from_str(&recorded[0]).unwrap();
    assert_eq!(line["outcome"]["stdout"], due.stdout.as_str());
    assert_eq!(line["outcome"]["stderr"], due.stderr.as_str());
    assert_eq!(line["outcome"]["exitCode"], due.code);
    assert_eq!(line["kind"], "beforeTool", "{line}");
    await_heartbeat(&sb, &me, &before, "captured");

    let steady = run_as(&sb, "claude-code", "PreToolUse", &tool, &capture);
    assert_eq!(due, steady, "the same answer, byte for byte");
    let recorded = lines();
    assert_eq!(recorded.len(), 2, "{recorded:?}");
    assert_eq!(
        recorded[0], recorded[1],
        "the due call is recorded byte for byte as the steady one"
    );
}

#[test]
fn a_due_refusal_by_exit_code_leaves_with_that_code_and_its_reason() {
    let sb = sandbox();
    let fixture = |event: &str| {
        std::fs::read_to_string(
            PathBuf::from(env!("CARGO_MANIFEST_DIR"))
                .join("../fixtures/payloads/codex/run3-deny-exit2-apply_patch")
                .join(format!("{event}.jsonl")),
        )
        .unwrap()
        .lines()
        .next()
        .unwrap()
        .replace("/sandbox/ws", &sb.ws().display().to_string())
    };
    let start = fixture("SessionStart");
    assert_eq!(run_as(&sb, "codex", "SessionStart", &start, &[]).code, 0);
    let me = me_of(&sb, &start);
    peer_holds(&sb, "file:hello.txt");
    let patch = fixture("PreToolUse");
    let steady = run_as(&sb, "codex", "PreToolUse", &patch, &[]);
    assert_eq!(steady.code, 2, "refused by exit code: {steady:?}");
    assert!(steady.stdout.is_empty(), "{steady:?}");

    let before = heartbeat_at(&sb, &me);
    let marker = marker_of(&sb, &start);
    set_back_a_minute(&marker);
    let due = run_as(&sb, "codex", "PreToolUse", &patch, &[]);
    // Answered from the snapshot: the marker is set at once.
    let age = marker.metadata().unwrap().modified().unwrap().elapsed();
    assert!(
        age.is_err() || age.unwrap() < Duration::from_secs(30),
        "the marker is fresh after the due call"
    );
    assert_eq!(due, steady, "the exit code and the reason, byte for byte");
    await_heartbeat(&sb, &me, &before, "refused");
}

#[test]
fn a_link_at_the_markers_name_leaves_the_claimed_file_it_leads_to_untouched() {
    let (sb, start) = started();
    let me = me_of(&sb, &start);
    peer_holds(&sb, "file:claimed.txt");
    let claimed = sb.ws().join("claimed.txt");
    std::fs::write(&claimed, "the peer's work\n").unwrap();
    let modified = claimed.metadata().unwrap().modified().unwrap();
    // The agent (same user) puts a link to the claimed file at its marker's name, a minute
    // old, so that the next guard call finds the heartbeat due.
    let marker = marker_of(&sb, &start);
    std::fs::remove_file(&marker).unwrap();
    std::os::unix::fs::symlink(&claimed, &marker).unwrap();
    set_back_a_minute(&marker);
    let before = heartbeat_at(&sb, &me);

    let tool = payload(&sb, "PreToolUse");
    let allowed = run(&sb, "PreToolUse", &tool);
    assert_silent_allow(&allowed);
    await_heartbeat(&sb, &me, &before, "linked marker");
    assert_eq!(
        std::fs::read(&claimed).unwrap(),
        b"the peer's work\n",
        "the claimed file's bytes"
    );
    assert_eq!(
        claimed.metadata().unwrap().modified().unwrap(),
        modified,
        "the claimed file's time"
    );
}
