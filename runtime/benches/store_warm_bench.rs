//! Opens of one store with and without warm connections (issue 30, sixth round): each
//! iteration opens the store as a hook does (read-write, the caller's busy timeout, the
//! whole store mapped), runs a turn's reads (sessions, claims, the queued receipts and
//! their messages, the counters), optionally one write (a heartbeat), and drops the store.
//!
//! `cargo bench -p acc-runtime --bench store_warm_bench -- <store> <cold|warm>
//! <open|read|write> <iterations>` (`open`: the open and the drop alone), where `<store>` is an `acc.db` (the hook bench's, `template.db` under
//! `ACC_BENCH_DIR` after `ACC_BENCH_POPULATE_ONLY=1`); it is copied to a temporary
//! directory first (`hold` instead keeps a warm connection to `<store>` itself for
//! `<iterations>` seconds: a resident server beside the measured process, run with
//! `ACC_WARM_BENCH_IN_PLACE=1` on the same file). Prints the CPU time per iteration (`getrusage`); run it under
//! callgrind with two iteration counts for instructions per iteration.

use acc_runtime::ids::WorkspaceId;
use acc_runtime::store::{Genesis, MMAP_WHOLE_STORE, OpenMode, Store, warm};
use std::time::Duration;

fn cpu() -> Duration {
    let mut u = std::mem::MaybeUninit::<libc::rusage>::uninit();
    // SAFETY: getrusage fills the struct it is given.
    let u = unsafe {
        libc::getrusage(libc::RUSAGE_SELF, u.as_mut_ptr());
        u.assume_init()
    };
    let t = |tv: libc::timeval| Duration::new(tv.tv_sec as u64, tv.tv_usec as u32 * 1000);
    t(u.ru_utime) + t(u.ru_stime)
}

const TURN_READS: &[&str] = &[
    "SELECT value FROM meta WHERE key = 'claims_version'",
    "SELECT session_id, participant_id, generation, state, heartbeat_at, extensions
     FROM sessions WHERE state = 'open' ORDER BY started_at",
    "SELECT count(*) FROM claims WHERE scheme = 'file' AND enforcement = 'guarded'",
    "SELECT claim_id, resource, expires_at FROM claims ORDER BY acquired_at LIMIT 50",
    "SELECT count(*) FROM receipts WHERE state IN ('queued', 'offered')",
    "SELECT r.receipt_id, m.message_id, m.subject, m.body, m.sent_at
     FROM receipts r JOIN messages m ON m.seq = r.message_seq
     WHERE r.state = 'queued' ORDER BY m.seq LIMIT 11",
    "SELECT count(*) FROM messages",
    "SELECT max(sequence) FROM events",
    "SELECT participant_id FROM participants LIMIT 20",
    "SELECT count(*) FROM hook_bindings",
];

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| a != "--bench")
        .collect();
    if args.len() < 4 {
        eprintln!("usage: store_warm_bench <acc.db> <cold|warm> <read|write> <iterations>");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    // `hold`: a warm process beside the measured one (the store given is used in place).
    let path = if args[1] == "hold" || std::env::var_os("ACC_WARM_BENCH_IN_PLACE").is_some() {
        std::path::PathBuf::from(&args[0])
    } else {
        let path = dir.path().join("acc.db");
        std::fs::copy(&args[0], &path).unwrap();
        path
    };
    let ws: String = rusqlite::Connection::open(&path)
        .unwrap()
        .query_row(
            "SELECT value FROM meta WHERE key = 'workspace_id'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    let ws = WorkspaceId::parse(&ws).unwrap();
    if args[1] == "warm" || args[1] == "hold" {
        warm::enable();
    }
    if args[1] == "hold" {
        drop(Store::open(&path, &ws, OpenMode::ReadWrite, || Genesis {
            now_ms: 0,
            event_id: "event_bench".into(),
        }));
        println!("holding {}", warm::idle(&path));
        std::thread::sleep(Duration::from_secs(args[3].parse().unwrap()));
        warm::disable();
        return;
    }
    let write = args[2] == "write";
    let n: u32 = args[3].parse().unwrap();
    let start = cpu();
    let mut rows = 0i64;
    for i in 0..n {
        let mut s = Store::open(&path, &ws, OpenMode::ReadWrite, || Genesis {
            now_ms: 0,
            event_id: "event_bench".into(),
        })
        .unwrap();
        s.set_busy_timeout(Duration::from_secs(5)).unwrap();
        s.set_mmap_size(MMAP_WHOLE_STORE).unwrap();
        if args[2] == "open" {
            continue;
        }
        rows += s
            .read(|c| {
                let mut rows = 0;
                for sql in TURN_READS {
                    let mut st = c.prepare_cached(sql)?;
                    let mut r = st.query([])?;
                    while r.next()?.is_some() {
                        rows += 1;
                    }
                }
                Ok(rows)
            })
            .unwrap();
        if write {
            s.write(|c| {
                c.execute(
                    "UPDATE sessions SET heartbeat_at = ?1 WHERE session_id =
                     (SELECT session_id FROM sessions ORDER BY started_at LIMIT 1)",
                    [i64::from(i)],
                )?;
                Ok(())
            })
            .unwrap();
        }
    }
    let per = (cpu() - start) / n.max(1);
    println!(
        "{} {} x{n}: {:.1} us CPU per open+turn ({rows} rows), reuses {}",
        args[1],
        args[2],
        per.as_secs_f64() * 1e6,
        warm::reuses(&path)
    );
    warm::disable();
}
