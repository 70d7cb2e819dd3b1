//! What the kernel-enforced guard adds to a shell call (not a timed test): medians of whole
//! processes, release build, wall and CPU (`getrusage` of the children: the host may be
//! loaded).
//!
//! - the client's own cost for a trivial command: `bash -c true` (`ACC_BENCH_COMMAND`
//!   names another, such as `/usr/bin/true`, a program the runner execs without its shell);
//! - the runner, as the hook wrote it: `bash -c` of the rewritten line (the hook's layout
//!   of the claims, acc's own paths, the broker for acc's own commands, then `true`), run
//!   by `acc-guard`; and the same line under `acc-hook guard-exec`, alternated with it;
//! - the runner with one `--ro` per claim (the layout before issue 25), for comparison;
//! - the hook: a Claude Code `PreToolUse` `Bash` call in `acceptEdits` (not rewritten) and
//!   in `bypassPermissions` (rewritten).
//!
//! Each for a guarded peer holding 1 claim, 200 claimed trees (`src/module_NNN/**`), 10,000
//! claimed files under 10 trees (`src/tree_K/file_NNNN.rs`) and 10,000 claimed trees in
//! 100 directories (`src/group_GG/module_NNN/**`, beside an unclaimed `README.md` each).
//!
//! Run with `cargo bench -p acc-runtime --bench guard_exec_bench`. Results belong in
//! docs/PERFORMANCE.md ("Confined calls (issue 25)").

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

const RUNS: usize = 60;
/// Fewer runs where one run takes long (10,000 claims).
const FEW_RUNS: usize = 15;
const CONVERSATION: &str = "5b0c6f2e-0000-4000-8000-0000000guard";

fn median(mut xs: Vec<Duration>) -> Duration {
    xs.sort();
    xs[xs.len() / 2]
}

fn ms(d: Duration) -> String {
    format!("{:.2} ms", d.as_secs_f64() * 1000.0)
}

/// CPU time of the children waited for so far (user + system).
fn children_cpu() -> Duration {
    // SAFETY: getrusage writes into a value of its own type.
    let usage = unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        libc::getrusage(libc::RUSAGE_CHILDREN, &mut usage);
        usage
    };
    let tv = |t: libc::timeval| Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1000);
    tv(usage.ru_utime) + tv(usage.ru_stime)
}

/// Median wall and CPU time of `runs` runs of `make()`, each fed `stdin`; every run must
/// succeed and print what `check` accepts.
fn time(
    name: &str,
    runs: usize,
    mut make: impl FnMut() -> Command,
    stdin: &[u8],
    check: impl Fn(&str) -> bool,
) -> (Duration, Duration) {
    let mut walls = Vec::with_capacity(runs);
    let mut cpus = Vec::with_capacity(runs);
    for _ in 0..runs {
        let mut cmd = make();
        cmd.stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let cpu = children_cpu();
        let t = Instant::now();
        let mut child = cmd.spawn().unwrap();
        child.stdin.take().unwrap().write_all(stdin).unwrap();
        let out = child.wait_with_output().unwrap();
        walls.push(t.elapsed());
        cpus.push(children_cpu().saturating_sub(cpu));
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success() && check(&stdout),
            "{name}: {stdout} {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let m = (median(walls), median(cpus));
    println!("{name}: {} wall, {} CPU", ms(m.0), ms(m.1));
    m
}

/// CPU medians of `a` and `b`, run alternately (`runs` each), so that a load that comes and
/// goes on the host weighs on both alike.
fn time_pair(
    name: &str,
    runs: usize,
    mut a: impl FnMut() -> Command,
    mut b: impl FnMut() -> Command,
) -> (Duration, Duration) {
    let mut cpus = [Vec::with_capacity(runs), Vec::with_capacity(runs)];
    for _ in 0..runs {
        for (i, make) in [&mut a as &mut dyn FnMut() -> Command, &mut b]
            .into_iter()
            .enumerate()
        {
            let mut cmd = make();
            cmd.stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null());
            let cpu = children_cpu();
            let status = cmd.status().unwrap();
            assert!(status.success(), "{name}: {status}");
            cpus[i].push(children_cpu().saturating_sub(cpu));
        }
    }
    let [a, b] = cpus;
    let m = (median(a), median(b));
    println!("{name}: {} CPU against {} CPU", ms(m.0), ms(m.1));
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

/// What the peer claims.
#[derive(Clone, Copy)]
enum Layout {
    /// `src/module_NNN/**`, each existing.
    Trees(usize),
    /// `src/tree_K/file_NNNN.rs`: `files` claimed files in 10 directories.
    Files(usize),
    /// `src/group_GG/module_NNN/**` in 100 directories, each beside an unclaimed file.
    Grouped(usize),
}

impl Layout {
    fn claims(self) -> Vec<(String, String)> {
        match self {
            Layout::Trees(n) => (0..n)
                .map(|i| {
                    let dir = format!("src/module_{i:03}");
                    (format!("file:{dir}/**"), dir)
                })
                .collect(),
            Layout::Files(n) => (0..n)
                .map(|i| {
                    let file = format!("src/tree_{}/file_{i:05}.rs", i % 10);
                    (format!("file:{file}"), file)
                })
                .collect(),
            Layout::Grouped(n) => (0..n)
                .map(|i| {
                    let dir = format!("src/group_{:02}/module_{i:05}", i % 100);
                    (format!("file:{dir}/**"), dir)
                })
                .collect(),
        }
    }
}

/// A workspace whose guarded peer holds the claims of `layout`, each existing.
fn room(base: &Path, layout: Layout) -> (PathBuf, PathBuf) {
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
    let claims = layout.claims();
    for (_, path) in &claims {
        let path = ws.join(path);
        if matches!(layout, Layout::Files(_)) {
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, "claimed\n").unwrap();
        } else {
            std::fs::create_dir_all(&path).unwrap();
            if let Layout::Grouped(_) = layout {
                std::fs::write(path.parent().unwrap().join("README.md"), "free\n").unwrap();
            }
        }
    }
    // One snapshot at the end, not one per claim.
    core.deferring_publication(|core| {
        for (resource, _) in &claims {
            let mut req = ClaimRequest::new(Resource::parse(resource).unwrap());
            req.enforcement = Enforcement::Guarded;
            core.claim(&peer, req).unwrap();
        }
    });
    (data, ws)
}

/// One row of the results: the layout's hook calls and its confined `true`.
struct Row {
    name: &'static str,
    plain: (Duration, Duration),
    rewritten: (Duration, Duration),
    confined: (Duration, Duration),
    mounts: usize,
    /// CPU of the confined `true` under `acc-guard` and under `acc-hook guard-exec`,
    /// alternated.
    runners: Option<(Duration, Duration)>,
}

/// The command timed: `true` (a builtin, so the runner keeps its inner `bash`), or
/// `ACC_BENCH_COMMAND` (`/usr/bin/true`: a program, which the runner execs without it).
fn command() -> String {
    std::env::var("ACC_BENCH_COMMAND").unwrap_or_else(|_| "true".into())
}

fn measure(base: &Path, name: &'static str, layout: Layout, runs: usize) -> Row {
    let (data, ws) = room(&base.join(name), layout);
    let bash_call = |mode: &str| {
        payload(
            &ws,
            "PreToolUse",
            mode,
            serde_json::json!({
                "tool_name": "Bash",
                "tool_input": {"command": command(), "description": "bench"},
                "tool_use_id": "toolu_bench",
            }),
        )
    };
    // Twice first: the first call of a conversation may refresh its heartbeat and probe.
    for _ in 0..2 {
        let mut c = hook(&data);
        c.stdin(Stdio::piped()).stdout(Stdio::piped());
        let mut child = c.spawn().unwrap();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(&bash_call("bypassPermissions"))
            .unwrap();
        child.wait_with_output().unwrap();
    }
    let plain = time(
        &format!("{name}: hook, acceptEdits (not rewritten)"),
        runs,
        || hook(&data),
        &bash_call("acceptEdits"),
        |out| out.is_empty(),
    );
    let rewritten = time(
        &format!("{name}: hook, bypassPermissions (rewritten)"),
        runs,
        || hook(&data),
        &bash_call("bypassPermissions"),
        |out| out.contains("updatedInput"),
    );
    let mut c = hook(&data);
    let out = c
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .and_then(|mut child| {
            child
                .stdin
                .take()
                .unwrap()
                .write_all(&bash_call("bypassPermissions"))?;
            child.wait_with_output()
        })
        .unwrap();
    let answer: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let line = answer["hookSpecificOutput"]["updatedInput"]["command"]
        .as_str()
        .unwrap()
        .to_owned();
    let mounts = line.matches("'--ro'").count() + line.matches("'--rw'").count();
    std::fs::write(
        base.join(name).join("bypass.json"),
        bash_call("bypassPermissions"),
    )
    .unwrap();
    std::fs::write(
        base.join(name).join("accept.json"),
        bash_call("acceptEdits"),
    )
    .unwrap();
    let confined = time(
        &format!(
            "{name}: bash -c <rewritten line> ({mounts} mounts, {} bytes)",
            line.len()
        ),
        runs,
        || {
            let mut c = Command::new("bash");
            c.arg("-c").arg(&line).current_dir(&ws);
            c
        },
        b"",
        |_| true,
    );
    // The same line under `acc-hook guard-exec`, where the hook spelt `acc-guard`.
    let guard = format!("'{}' ", env!("CARGO_BIN_EXE_acc-guard"));
    let runners = line.strip_prefix(&guard).map(|rest| {
        let hooked = format!("'{}' 'guard-exec' {rest}", env!("CARGO_BIN_EXE_acc-hook"));
        let run = |line: String| {
            let ws = ws.clone();
            move || {
                let mut c = Command::new("bash");
                c.arg("-c").arg(&line).current_dir(&ws);
                c
            }
        };
        time_pair(
            &format!("{name}: confined under acc-guard, under acc-hook guard-exec"),
            runs,
            run(line.clone()),
            run(hooked),
        )
    });
    Row {
        name,
        plain,
        rewritten,
        confined,
        mounts,
        runners,
    }
}

fn main() {
    let tmp = tempfile::tempdir().unwrap();
    // `ACC_BENCH_DIR` keeps the rooms (stores, workspaces) for profiling one process.
    let kept = std::env::var_os("ACC_BENCH_DIR").map(PathBuf::from);
    let base = kept.as_deref().unwrap_or(tmp.path());
    let bash = time(
        &format!("bash -c {}", command()),
        RUNS,
        || {
            let mut c = Command::new("bash");
            c.args(["-c", &command()]);
            c
        },
        b"",
        |_| true,
    );
    let mut rows = vec![
        measure(base, "1 claimed tree", Layout::Trees(1), RUNS),
        measure(base, "200 claimed trees", Layout::Trees(200), RUNS),
    ];
    // `ACC_BENCH_SMALL=1` leaves out the 10,000-claim rooms (an `acc-hook` from before
    // issue 25 cannot run them: its runner line is longer than Linux allows one argument).
    if std::env::var_os("ACC_BENCH_SMALL").is_none() {
        rows.push(measure(
            base,
            "10,000 claimed files in 10 directories",
            Layout::Files(10_000),
            FEW_RUNS,
        ));
        rows.push(measure(
            base,
            "10,000 claimed trees in 100 directories",
            Layout::Grouped(10_000),
            FEW_RUNS,
        ));
    }
    // The layout before issue 25: one read-only mount per claimed tree.
    let ws = base
        .join("200 claimed trees/project")
        .canonicalize()
        .unwrap();
    let per_claim = time(
        &format!("guard-exec, one --ro per claim (200), -- {}", command()),
        RUNS,
        || {
            let mut c = Command::new(env!("CARGO_BIN_EXE_acc-hook"));
            c.arg("guard-exec");
            for i in 0..200 {
                c.arg("--ro").arg(ws.join(format!("src/module_{i:03}")));
            }
            c.args(["--", &command()]);
            c
        },
        b"",
        |_| true,
    );
    println!();
    println!(
        "`bash -c {}`: {} wall, {} CPU",
        command(),
        ms(bash.0),
        ms(bash.1)
    );
    println!(
        "`acc-hook guard-exec` with one `--ro` per claim (200), `-- {}`: {} wall, {} CPU",
        command(),
        ms(per_claim.0),
        ms(per_claim.1)
    );
    println!();
    println!(
        "| peer's claims | mounts | hook, not rewritten | hook, rewritten | confined `true` | added per call |"
    );
    println!("|---|---|---|---|---|---|");
    let pair = |d: (Duration, Duration)| format!("{} / {}", ms(d.0), ms(d.1));
    for row in &rows {
        let added = (
            row.rewritten.0.saturating_sub(row.plain.0) + row.confined.0.saturating_sub(bash.0),
            row.rewritten.1.saturating_sub(row.plain.1) + row.confined.1.saturating_sub(bash.1),
        );
        println!(
            "| {} | {} | {} | {} | {} | {} |",
            row.name,
            row.mounts,
            pair(row.plain),
            pair(row.rewritten),
            pair(row.confined),
            pair(added)
        );
    }
    println!("(each cell: median wall / median CPU)");
    println!();
    println!(
        "| peer's claims | confined, `acc-guard` (CPU) | confined, `acc-hook guard-exec` (CPU) |"
    );
    println!("|---|---|---|");
    for row in &rows {
        if let Some((guard, hooked)) = row.runners {
            println!("| {} | {} | {} |", row.name, ms(guard), ms(hooked));
        }
    }
}
