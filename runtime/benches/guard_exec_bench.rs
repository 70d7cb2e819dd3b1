//! What the kernel-enforced guard adds to a shell call (not a timed test): medians of whole
//! processes, release build.
//!
//! - the client's own cost for a trivial command: `bash -c true`;
//! - the runner: `acc-hook guard-exec --ro … -- true` with 1 and with 200 read-only paths
//!   (process start, two namespaces, the bind mounts, then the same `bash -c true`);
//! - the hook: a Claude Code `PreToolUse` `Bash` call while a guarded peer holds 200 claims
//!   on existing trees, in `acceptEdits` (not rewritten: the target rules only) and in
//!   `bypassPermissions` (claims read, namespace probed for the 200 paths, rewritten), and
//!   the same rewrite with one claim.
//!
//! Run with `cargo bench -p acc-runtime --bench guard_exec_bench`. Results belong in
//! docs/PERFORMANCE.md ("Kernel-enforced guard").

use acc_runtime::core::claims::ClaimRequest;
use acc_runtime::core::model::Enforcement;
use acc_runtime::core::resources::Resource;
use acc_runtime::core::sessions::OpenSession;
use acc_runtime::env::Env;
use acc_runtime::ids::ParticipantId;
use acc_runtime::store::OpenMode;
use acc_runtime::{Core, Owner, Ports, workspace};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const CLAIMS: usize = 200;
const RUNS: usize = 60;
const CONVERSATION: &str = "5b0c6f2e-0000-4000-8000-0000000guard";

fn median(mut xs: Vec<Duration>) -> Duration {
    xs.sort();
    xs[xs.len() / 2]
}

fn ms(d: Duration) -> String {
    format!("{:.2} ms", d.as_secs_f64() * 1000.0)
}

/// Median wall time of `RUNS` runs of `make()`, each fed `stdin`; every run must succeed
/// and print what `check` accepts.
fn time(
    name: &str,
    mut make: impl FnMut() -> Command,
    stdin: &[u8],
    check: impl Fn(&str) -> bool,
) -> Duration {
    let mut walls = Vec::with_capacity(RUNS);
    for _ in 0..RUNS {
        let mut cmd = make();
        cmd.stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let t = Instant::now();
        let mut child = cmd.spawn().unwrap();
        child.stdin.take().unwrap().write_all(stdin).unwrap();
        let out = child.wait_with_output().unwrap();
        walls.push(t.elapsed());
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success() && check(&stdout),
            "{name}: {stdout} {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let m = median(walls);
    println!("{name}: {}", ms(m));
    m
}

fn hook(data: &Path) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_acc-hook"));
    c.env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("ACC_DATA_HOME", data)
        .args(["claude-code", "PreToolUse"]);
    c
}

fn payload(ws: &Path, event: &str, mode: &str, extra: serde_json::Value) -> Vec<u8> {
    let mut p = serde_json::json!({
        "session_id": CONVERSATION,
        "transcript_path": "/nonexistent/transcript.jsonl",
        "cwd": ws.display().to_string(),
        "permission_mode": mode,
        "hook_event_name": event,
    });
    for (k, v) in extra.as_object().unwrap() {
        p[k] = v.clone();
    }
    p.to_string().into_bytes()
}

/// A workspace whose guarded peer holds `claims` trees, each existing.
fn room(base: &Path, claims: usize) -> (PathBuf, PathBuf) {
    let data = base.join("data");
    let ws = base.join("project");
    std::fs::create_dir_all(ws.join(".git")).unwrap();
    std::fs::write(ws.join(".git/HEAD"), "ref: refs/heads/main\n").unwrap();
    let ws = ws.canonicalize().unwrap();
    let start = payload(
        &ws,
        "SessionStart",
        "bypassPermissions",
        serde_json::json!({"source": "startup"}),
    );
    let mut c = Command::new(env!("CARGO_BIN_EXE_acc-hook"));
    c.env_clear()
        .env("ACC_DATA_HOME", &data)
        .args(["claude-code", "SessionStart"])
        .stdin(Stdio::piped())
        .stdout(Stdio::null());
    let mut child = c.spawn().unwrap();
    child.stdin.take().unwrap().write_all(&start).unwrap();
    assert!(child.wait().unwrap().success());

    let desc = workspace::discover(&ws, &Env::new()).unwrap();
    let mut core = Core::open(desc, &data, OpenMode::ReadWrite, Ports::system()).unwrap();
    let mut req = OpenSession::new(ParticipantId::parse("peer").unwrap(), "bench", 600_000);
    req.enforcement = Enforcement::Guarded;
    let s = core.open_session(req).unwrap();
    let peer = Owner::new(s.session_id, s.generation);
    for i in 0..claims {
        let dir = format!("src/module_{i:03}");
        std::fs::create_dir_all(ws.join(&dir)).unwrap();
        let mut req = ClaimRequest::new(Resource::parse(&format!("file:{dir}/**")).unwrap());
        req.enforcement = Enforcement::Guarded;
        core.claim(&peer, req).unwrap();
    }
    (data, ws)
}

fn main() {
    let tmp = tempfile::tempdir().unwrap();
    let bash = time(
        "bash -c true",
        || {
            let mut c = Command::new("bash");
            c.args(["-c", "true"]);
            c
        },
        b"",
        |_| true,
    );

    let (data, ws) = room(&tmp.path().join("many"), CLAIMS);
    let runner = |paths: usize| {
        let ws = ws.clone();
        move || {
            let mut c = Command::new(env!("CARGO_BIN_EXE_acc-hook"));
            c.arg("guard-exec");
            for i in 0..paths {
                c.arg("--ro").arg(ws.join(format!("src/module_{i:03}")));
            }
            c.args(["--", "true"]);
            c
        }
    };
    let one = time("guard-exec, 1 read-only path", runner(1), b"", |_| true);
    let many = time(
        "guard-exec, 200 read-only paths",
        runner(CLAIMS),
        b"",
        |_| true,
    );

    let bash_call = |mode: &str| {
        payload(
            &ws,
            "PreToolUse",
            mode,
            serde_json::json!({
                "tool_name": "Bash",
                "tool_input": {"command": "true", "description": "bench"},
                "tool_use_id": "toolu_bench",
            }),
        )
    };
    let plain = time(
        "hook, Bash, 200 peer claims, acceptEdits (not rewritten)",
        || hook(&data),
        &bash_call("acceptEdits"),
        |out| out.is_empty(),
    );
    let rewritten = time(
        "hook, Bash, 200 peer claims, bypassPermissions (rewritten)",
        || hook(&data),
        &bash_call("bypassPermissions"),
        |out| out.contains("updatedInput"),
    );
    let (data1, ws1) = room(&tmp.path().join("one"), 1);
    let one_call = payload(
        &ws1,
        "PreToolUse",
        "bypassPermissions",
        serde_json::json!({
            "tool_name": "Bash",
            "tool_input": {"command": "true"},
            "tool_use_id": "toolu_bench",
        }),
    );
    let rewritten_one = time(
        "hook, Bash, 1 peer claim, bypassPermissions (rewritten)",
        || hook(&data1),
        &one_call,
        |out| out.contains("updatedInput"),
    );
    println!();
    println!("| measurement | median wall |");
    println!("|---|---|");
    for (name, d) in [
        ("`bash -c true` (what the client runs anyway)", bash),
        ("`acc-hook guard-exec`, 1 read-only path, `-- true`", one),
        (
            "`acc-hook guard-exec`, 200 read-only paths, `-- true`",
            many,
        ),
        (
            "hook `PreToolUse` `Bash`, 200 peer claims, not rewritten",
            plain,
        ),
        (
            "hook `PreToolUse` `Bash`, 200 peer claims, rewritten",
            rewritten,
        ),
        (
            "hook `PreToolUse` `Bash`, 1 peer claim, rewritten",
            rewritten_one,
        ),
    ] {
        println!("| {name} | {} |", ms(d));
    }
    println!(
        "added per call, 1 claim: {} (hook rewrite {} + runner {} over bash)",
        ms((rewritten_one.saturating_sub(plain)) + one.saturating_sub(bash)),
        ms(rewritten_one.saturating_sub(plain)),
        ms(one.saturating_sub(bash))
    );
    println!(
        "added per call, 200 claims: {} (hook rewrite {} + runner {} over bash)",
        ms(rewritten.saturating_sub(plain) + many.saturating_sub(bash)),
        ms(rewritten.saturating_sub(plain)),
        ms(many.saturating_sub(bash))
    );
}
