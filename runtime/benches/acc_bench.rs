//! acc's benchmark (not a timed test): medians of whole-process `acc status` and `acc claim`
//! against a populated store (100 sessions, 10,000 messages, 1,000 claims), and store-level
//! claim and send throughput through the library.
//!
//! Run with `cargo bench -p acc-runtime`. Results belong in docs/PERFORMANCE.md.

use acc_runtime::core::claims::ClaimRequest;
use acc_runtime::core::messages::SendMessage;
use acc_runtime::core::model::MessageKind;
use acc_runtime::core::resources::Resource;
use acc_runtime::core::sessions::OpenSession;
use acc_runtime::env::Env;
use acc_runtime::ids::ParticipantId;
use acc_runtime::store::OpenMode;
use acc_runtime::{Core, Owner, Ports, workspace};
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

mod watch_measure;

const SESSIONS: usize = 100;
const MESSAGES: usize = 10_000;
const CLAIMS: usize = 1_000;
const PROCESS_RUNS: usize = 60;
const STORE_OPS: usize = 1_000;

fn median(mut xs: Vec<Duration>) -> Duration {
    xs.sort();
    xs[xs.len() / 2]
}

fn ms(d: Duration) -> String {
    format!("{:.2} ms", d.as_secs_f64() * 1000.0)
}

fn open(data: &Path, ws: &Path) -> Core {
    let desc = workspace::discover(ws, &Env::new()).unwrap();
    Core::open(desc, data, OpenMode::ReadWrite, Ports::system()).unwrap()
}

fn populate(core: &mut Core) -> Vec<Owner> {
    let owners: Vec<Owner> = (0..SESSIONS)
        .map(|i| {
            let req = OpenSession::new(
                ParticipantId::parse(&format!("agent-{i:03}")).unwrap(),
                "bench",
                30_000,
            );
            let s = core.open_session(req).unwrap();
            Owner::new(s.session_id, s.generation)
        })
        .collect();
    for i in 0..CLAIMS {
        let owner = &owners[i % SESSIONS];
        let r = Resource::parse(&format!("file:src/module_{i:04}/**")).unwrap();
        core.claim(owner, ClaimRequest::new(r)).unwrap();
    }
    for i in 0..MESSAGES {
        let from = &owners[i % SESSIONS];
        // (7i + 1) mod 100 never equals i mod 100, so nobody writes to itself.
        let to = format!("agent-{:03}", (i * 7 + 1) % SESSIONS);
        let kind = if i % 5 == 0 {
            MessageKind::Question
        } else {
            MessageKind::Note
        };
        core.send(
            from,
            SendMessage {
                to: vec![to],
                kind,
                obligation: None,
                subject: format!("message {i} about module {}", i % CLAIMS),
                body: "a body of a realistic length, ".repeat(8),
                client_message_id: None,
            },
        )
        .unwrap();
    }
    owners
}

fn acc_process(data: &Path, ws: &Path, owner: Option<&Owner>, args: &[&str]) -> Duration {
    let mut c = Command::new(env!("CARGO_BIN_EXE_acc"));
    c.env_clear()
        .env("ACC_DATA_HOME", data)
        .arg("--cwd")
        .arg(ws)
        .args(args);
    if let Some(o) = owner {
        c.env("ACC_SESSION", o.session.as_str())
            .env("ACC_GENERATION", o.generation.as_str());
    }
    let t = Instant::now();
    let out = c.output().unwrap();
    let d = t.elapsed();
    assert!(
        out.status.success(),
        "acc {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    d
}

fn main() {
    // ACC_BENCH_DIR keeps the populated store for profiling; by default it is temporary.
    let tmp = tempfile::tempdir().unwrap();
    let base = std::env::var_os("ACC_BENCH_DIR")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| tmp.path().to_path_buf());
    let data = base.join("data");
    let ws = base.join("project");
    std::fs::create_dir_all(&ws).unwrap();

    let t = Instant::now();
    let mut core = open(&data, &ws);
    let owners = populate(&mut core);
    println!(
        "populated {SESSIONS} sessions, {CLAIMS} claims, {MESSAGES} messages in {:.1} s",
        t.elapsed().as_secs_f64()
    );

    let status: Vec<Duration> = (0..PROCESS_RUNS)
        .map(|_| acc_process(&data, &ws, None, &["status"]))
        .collect();
    let status_json: Vec<Duration> = (0..PROCESS_RUNS)
        .map(|_| acc_process(&data, &ws, None, &["status", "--json"]))
        .collect();
    let status_owner: Vec<Duration> = (0..PROCESS_RUNS)
        .map(|_| acc_process(&data, &ws, Some(&owners[1]), &["status"]))
        .collect();
    let claims: Vec<Duration> = (0..PROCESS_RUNS)
        .map(|i| {
            let r = format!("file:bench/process_{i}.rs");
            acc_process(&data, &ws, Some(&owners[0]), &["claim", "--resource", &r])
        })
        .collect();
    let inbox: Vec<Duration> = (0..PROCESS_RUNS)
        .map(|_| acc_process(&data, &ws, Some(&owners[1]), &["inbox"]))
        .collect();

    let mut claim_ops = Vec::with_capacity(STORE_OPS);
    let started = Instant::now();
    for i in 0..STORE_OPS {
        let r = Resource::parse(&format!("file:store/{i}.rs")).unwrap();
        let t = Instant::now();
        core.claim(&owners[2], ClaimRequest::new(r)).unwrap();
        claim_ops.push(t.elapsed());
    }
    let claim_rate = STORE_OPS as f64 / started.elapsed().as_secs_f64();

    let mut send_ops = Vec::with_capacity(STORE_OPS);
    let started = Instant::now();
    for i in 0..STORE_OPS {
        let t = Instant::now();
        core.send(
            &owners[3],
            SendMessage {
                to: vec!["agent-004".into()],
                kind: MessageKind::Note,
                obligation: None,
                subject: format!("throughput {i}"),
                body: "x".repeat(200),
                client_message_id: None,
            },
        )
        .unwrap();
        send_ops.push(t.elapsed());
    }
    let send_rate = STORE_OPS as f64 / started.elapsed().as_secs_f64();

    println!("| measurement | median |");
    println!("|---|---|");
    println!("| `acc status` (process) | {} |", ms(median(status)));
    println!(
        "| `acc status --json` (process) | {} |",
        ms(median(status_json))
    );
    println!(
        "| `acc status` as a session, with attention (process) | {} |",
        ms(median(status_owner))
    );
    println!("| `acc claim` (process) | {} |", ms(median(claims)));
    println!("| `acc inbox` (process) | {} |", ms(median(inbox)));
    println!(
        "| store claim | {} ({claim_rate:.0} claims/s) |",
        ms(median(claim_ops))
    );
    println!(
        "| store send | {} ({send_rate:.0} sends/s) |",
        ms(median(send_ops))
    );

    let watch = watch_measure::measure(Path::new(env!("CARGO_BIN_EXE_acc")), &data, &ws);
    println!("| `acc watch` room read | {} |", ms(watch.read));
    println!("| `acc watch` rows | {} |", ms(watch.rows));
    println!(
        "| `acc watch` frame (read, rows, render 120x40) | {} |",
        ms(watch.frame)
    );
    match watch.commit_to_frame {
        Some(d) => println!("| `acc watch` commit to frame (tmux) | {} |", ms(d)),
        None => println!("| `acc watch` commit to frame (tmux) | not measured: no tmux |"),
    }
    match watch.idle_cpu_percent {
        Some(p) => println!("| `acc watch` idle CPU | {p:.2} % |"),
        None => println!("| `acc watch` idle CPU | not measured |"),
    }
}
