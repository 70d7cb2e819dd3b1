//! The served delivering turn in one process, for callgrind (not a timed test).
//!
//! `acc-hook serve` cannot run under valgrind (its watchdog sees valgrind as its executable
//! and exits), so this bench calls what a server's worker calls for each request,
//! [`acc_runtime::serve::server::run`], with the request a served `acc-hook claude-code
//! UserPromptSubmit` client sends, in this process, with the server's warm connections on
//! (`store::warm::enable`), as `acc-hook serve` turns them on. The socket, the handshake and
//! the watchdog are left out: they are the client's and the server's framing, measured by
//! `hook_bench` with `ACC_BENCH_SERVE=1`.
//!
//! It needs the data home `hook_bench` keeps (`ACC_BENCH_DIR=<dir> ACC_BENCH_POPULATE_ONLY=1
//! ACC_BENCH_POPULATION=small cargo bench -p acc-runtime --bench hook_bench`): with
//! `ACC_BENCH_DIR=<dir>`, `<dir>/data-template` is copied to a temporary data home, a
//! `SessionStart` and a withheld turn warm it, then `ACC_SERVE_TURN_WARM` (default 3) turns
//! and `ACC_SERVE_TURN_RUNS` (default 10) measured turns run one after another, each a
//! delivering one (its bodies shown: asserted), each offering the queue's next page. The
//! measured ones go through [`measured_turn`], which a profile collects alone:
//!
//! ```sh
//! valgrind --tool=callgrind --toggle-collect='serve_turn_bench::measured_turn' \
//!   target/release/deps/serve_turn_bench-<hash>
//! ```
//!
//! `ACC_SERVE_TURN_COLD=1` leaves warm connections off: every request opens the store and
//! compiles its statements as a fresh process does (the served turn before warm
//! connections). Printed: the process's CPU per measured turn (median) and how many opens
//! took a warm connection.

use acc_runtime::serve::protocol::{Kind, Request, build};
use acc_runtime::serve::server;
use std::collections::BTreeMap;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::time::Duration;

fn env_number(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn process_cpu() -> Duration {
    let mut ts: libc::timespec = unsafe { std::mem::zeroed() };
    // SAFETY: clock_gettime only writes the struct it is given.
    unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut ts) };
    Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

/// The request a served `acc-hook claude-code <event>` sends from `cwd`.
fn request(data: &Path, cwd: &Path, event: &str, candidates: bool) -> Request {
    let mut env = BTreeMap::new();
    env.insert("ACC_DATA_HOME".into(), data.display().to_string());
    env.insert("ACC_SERVE".into(), "1".into());
    if candidates {
        env.insert("ACC_CERTIFY_CANDIDATES".into(), "delivery.nextTurn".into());
    }
    Request {
        build: build(),
        kind: Kind::Hook,
        argv: vec![
            b"acc-hook".to_vec(),
            b"claude-code".to_vec(),
            event.as_bytes().to_vec(),
        ],
        env,
        cwd: cwd.as_os_str().as_bytes().to_vec(),
        umask: 0o022,
        pid: std::process::id(),
        elapsed_ms: 1,
    }
}

/// One measured turn: the function a profile collects (`--toggle-collect`).
#[inline(never)]
fn measured_turn(request: &Request, stdin: &[u8]) -> acc_runtime::serve::protocol::Answer {
    server::run(request, std::process::id(), stdin.to_vec())
}

fn main() {
    let Some(base) = std::env::var_os("ACC_BENCH_DIR").map(PathBuf::from) else {
        eprintln!(
            "serve_turn_bench: set ACC_BENCH_DIR to a directory hook_bench populated (ACC_BENCH_POPULATE_ONLY=1)"
        );
        return;
    };
    let template = base.join("data-template");
    let payloads = base.join("payloads");
    assert!(
        template.is_dir(),
        "{} is missing: populate it with hook_bench",
        template.display()
    );
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let copied = std::process::Command::new("cp")
        .arg("-a")
        .arg(&template)
        .arg(&data)
        .status()
        .unwrap();
    assert!(copied.success());
    let turn = std::fs::read(payloads.join("turn.json")).unwrap();
    let start = std::fs::read(payloads.join("start.json")).unwrap();
    let cwd: PathBuf = serde_json::from_slice::<serde_json::Value>(&turn).unwrap()["cwd"]
        .as_str()
        .unwrap()
        .into();
    let cold = std::env::var_os("ACC_SERVE_TURN_COLD").is_some();
    if !cold {
        acc_runtime::store::warm::enable();
    }
    acc_runtime::cli::args::keep_parser();
    let warm_up = env_number("ACC_SERVE_TURN_WARM", 3);
    let runs = env_number("ACC_SERVE_TURN_RUNS", 10);

    let started = server::run(
        &request(&data, &cwd, "SessionStart", false),
        std::process::id(),
        start,
    );
    assert_eq!(started.code, 0);
    let withheld = server::run(
        &request(&data, &cwd, "UserPromptSubmit", false),
        std::process::id(),
        turn.clone(),
    );
    assert!(
        String::from_utf8_lossy(&withheld.stdout).contains("withheld"),
        "{}",
        String::from_utf8_lossy(&withheld.stderr)
    );
    let delivering = request(&data, &cwd, "UserPromptSubmit", true);
    for _ in 0..warm_up {
        let a = server::run(&delivering, std::process::id(), turn.clone());
        assert!(String::from_utf8_lossy(&a.stdout).contains("acc-peer-message"));
    }
    let mut cpu = Vec::new();
    for _ in 0..runs {
        let before = process_cpu();
        let a = measured_turn(&delivering, &turn);
        cpu.push(process_cpu() - before);
        assert_eq!(a.code, 0);
        assert!(
            String::from_utf8_lossy(&a.stdout).contains("acc-peer-message"),
            "bodies shown: {}",
            String::from_utf8_lossy(&a.stderr)
        );
        assert!(
            a.stderr.is_empty(),
            "{}",
            String::from_utf8_lossy(&a.stderr)
        );
    }
    cpu.sort();
    let store = std::fs::read_dir(data.join("acc").join("workspaces"))
        .unwrap()
        .flatten()
        .map(|e| e.path().join("acc.db"))
        .find(|p| p.is_file());
    println!(
        "served turn in process ({}): {runs} turns, CPU median {:.3} ms; warm checkouts of the store: {}",
        if cold { "cold" } else { "warm" },
        cpu.get(cpu.len() / 2)
            .map_or(0.0, |d| d.as_secs_f64() * 1000.0),
        store.map_or(0, |s| acc_runtime::store::warm::reuses(&s))
    );
    acc_runtime::store::warm::disable();
}
