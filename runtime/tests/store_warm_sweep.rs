//! The sweep of warm store connections (issue 30, sixth round), in its own test binary: it
//! closes every idle connection of the process, which `store_warm.rs`'s tests count on.
//! Cross-process: a process keeping a warm connection beside another that writes the store
//! as acc processes do today.

mod store_warm_support;
use store_warm_support::{genesis, put, ws};

use acc_runtime::store::engine::OptionalExtension;
use acc_runtime::store::{OpenMode, Store, warm};
use std::io::{BufRead, Seek, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

fn rw(path: &Path) -> Store {
    Store::open(path, &ws(), OpenMode::ReadWrite, genesis).unwrap()
}

fn wal(path: &Path) -> PathBuf {
    let mut p = path.as_os_str().to_owned();
    p.push("-wal");
    PathBuf::from(p)
}

/// `key` as a copy of `acc.db` alone holds it (a snapshot, a backup).
fn in_copy_of_acc_db(path: &Path, key: &str) -> Option<String> {
    let copy = path.with_file_name(format!("copy-{}.db", std::process::id()));
    std::fs::copy(path, &copy).unwrap();
    let c = rusqlite::Connection::open(&copy).unwrap();
    let v = c
        .query_row("SELECT value FROM meta WHERE key = ?1", [key], |r| r.get(0))
        .optional()
        .unwrap();
    drop(c);
    std::fs::remove_file(&copy).unwrap();
    v
}
#[test]
fn after_a_write_acc_db_alone_holds_the_store_and_sweep_deletes_the_wal() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("acc.db");
    warm::enable();
    let mut s = rw(&path);
    put(&mut s, "k", "kept");
    drop(s);
    assert_eq!(warm::idle(&path), 1);
    assert_eq!(
        std::fs::metadata(wal(&path)).unwrap().len(),
        0,
        "checkpointed and truncated"
    );
    // A copy of acc.db alone (a snapshot, a backup) holds the commit.
    let copy = dir.path().join("copy.db");
    std::fs::copy(&path, &copy).unwrap();
    let c = rusqlite::Connection::open(&copy).unwrap();
    let k: String = c
        .query_row("SELECT value FROM meta WHERE key = 'k'", [], |r| r.get(0))
        .unwrap();
    assert_eq!(k, "kept");
    drop(c);
    warm::sweep(Duration::from_secs(3600));
    assert_eq!(warm::idle(&path), 1, "not idle long enough");
    std::thread::sleep(Duration::from_millis(20));
    warm::sweep(Duration::from_millis(10));
    assert_eq!(warm::idle(&path), 0);
    assert!(!wal(&path).exists(), "the last close deleted the WAL");
}

#[test]
fn sweep_closes_a_connection_whose_file_was_moved_or_written() {
    let dir = tempfile::tempdir().unwrap();
    let moved = dir.path().join("m/acc.db");
    let written = dir.path().join("w/acc.db");
    warm::enable();
    drop(rw(&moved));
    drop(rw(&written));
    assert_eq!(warm::idle(&moved), 1);
    assert_eq!(warm::idle(&written), 1);
    std::fs::rename(&moved, dir.path().join("m/aside.db")).unwrap();
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .open(&written)
        .unwrap();
    f.seek(std::io::SeekFrom::Start(200)).unwrap();
    f.write_all(b"x").unwrap();
    drop(f);
    warm::sweep(Duration::from_secs(3600));
    assert_eq!(warm::idle(&moved), 0);
    assert_eq!(warm::idle(&written), 0);
}

/// Not a test of its own: the other process of
/// `a_local_process_beside_a_warm_one_leaves_frames_the_warm_one_checkpoints`, run from this
/// binary (`ACC_WARM_ROLE`: `holder` keeps a warm connection and obeys stdin; `local`
/// writes once as an acc process does today).
#[test]
fn other_process() {
    let (Ok(role), Ok(path)) = (
        std::env::var("ACC_WARM_ROLE"),
        std::env::var("ACC_WARM_STORE"),
    ) else {
        return;
    };
    let path = PathBuf::from(path);
    if role == "local" {
        let value = std::env::var("ACC_WARM_VALUE").unwrap();
        put(&mut rw(&path), "local", &value);
        return;
    }
    warm::enable();
    put(&mut rw(&path), "holder", "1");
    println!("warm: ready");
    for line in std::io::stdin().lock().lines() {
        match line.unwrap().as_str() {
            "reopen" => {
                let mut s = rw(&path);
                let local: Option<String> = s
                    .read(|c| {
                        Ok(
                            c.query_row("SELECT value FROM meta WHERE key = 'local'", [], |r| {
                                r.get(0)
                            })
                            .optional()?,
                        )
                    })
                    .unwrap();
                drop(s);
                println!("warm: reuses={} local={local:?}", warm::reuses(&path));
            }
            "sweep" => {
                warm::sweep(Duration::from_secs(3600));
                println!("warm: swept idle={}", warm::idle(&path));
            }
            _ => {
                warm::disable();
                println!("warm: closed");
                return;
            }
        }
    }
}

struct Holder {
    child: std::process::Child,
    out: std::io::Lines<std::io::BufReader<std::process::ChildStdout>>,
}

impl Holder {
    fn say(&mut self, line: &str) -> String {
        let stdin = self.child.stdin.as_mut().unwrap();
        writeln!(stdin, "{line}").unwrap();
        stdin.flush().unwrap();
        self.answer()
    }

    fn answer(&mut self) -> String {
        for line in &mut self.out {
            // The first answer shares its line with the test harness's own words.
            let line = line.unwrap();
            if let Some(at) = line.find("warm: ") {
                return line[at + "warm: ".len()..].to_string();
            }
        }
        panic!("the holder ended without answering");
    }
}

fn other(role: &str, path: &Path, value: &str) -> Command {
    let mut c = Command::new(std::env::current_exe().unwrap());
    c.args([
        "--exact",
        "other_process",
        "--nocapture",
        "--test-threads=1",
    ])
    .env("ACC_WARM_ROLE", role)
    .env("ACC_WARM_STORE", path)
    .env("ACC_WARM_VALUE", value);
    c
}

fn local_write(path: &Path, value: &str) {
    let out = other("local", path, value).output().unwrap();
    assert!(out.status.success(), "{out:?}");
}

fn wal_len(path: &Path) -> u64 {
    std::fs::metadata(wal(path)).map_or(0, |m| m.len())
}

#[test]
fn a_local_process_beside_a_warm_one_leaves_frames_the_warm_one_checkpoints() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("acc.db");
    let mut child = other("holder", &path, "")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let out = std::io::BufReader::new(child.stdout.take().unwrap()).lines();
    let mut holder = Holder { child, out };
    assert_eq!(holder.answer(), "ready");
    assert_eq!(wal_len(&path), 0);

    // The local process's close cannot checkpoint while the warm connection holds the file:
    // its commit is in the WAL, where every reader finds it, and not yet in acc.db alone.
    local_write(&path, "2");
    assert!(wal_len(&path) > 0);
    assert_eq!(in_copy_of_acc_db(&path, "local"), None);
    let read: String = rusqlite::Connection::open(&path)
        .unwrap()
        .query_row("SELECT value FROM meta WHERE key = 'local'", [], |r| {
            r.get(0)
        })
        .unwrap();
    assert_eq!(read, "2");

    // The warm connection is reused (acc.db was not written), sees the commit, and its
    // hand-back checkpoints it into acc.db.
    assert_eq!(holder.say("reopen"), "reuses=1 local=Some(\"2\")");
    assert_eq!(in_copy_of_acc_db(&path, "local").as_deref(), Some("2"));
    assert_eq!(wal_len(&path), 0);

    // With no request to hand a connection back, the sweep does the same.
    local_write(&path, "3");
    assert_eq!(in_copy_of_acc_db(&path, "local").as_deref(), Some("2"));
    assert_eq!(holder.say("sweep"), "swept idle=1");
    assert_eq!(in_copy_of_acc_db(&path, "local").as_deref(), Some("3"));
    assert_eq!(wal_len(&path), 0);

    // Closed as today: the last connection deletes the WAL.
    assert_eq!(holder.say("exit"), "closed");
    assert!(holder.child.wait().unwrap().success());
    assert!(!wal(&path).exists());
}
