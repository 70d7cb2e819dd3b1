//! Warm store connections (issue 30, sixth round): in a process that enabled them, an open
//! reuses an idle connection to the same file, and a store changed between two uses is
//! judged as a fresh open judges it. Each attack is played on two stores: `warm`, whose
//! connection was handed back before the attack, and `fresh`, whose connections were all
//! closed; both are then opened and their judgments compared, file names aside.
//!
//! Every test here enables warm connections, for this test binary only: the store's other
//! tests run in processes that never do. The sweep, which closes every test's idle
//! connections, is tested in `store_warm_sweep.rs`.

mod store_warm_support;
use store_warm_support::{genesis, put, ws};

use acc_runtime::error::ErrorCode;
use acc_runtime::ids::WorkspaceId;
use acc_runtime::store::engine::OptionalExtension;
use acc_runtime::store::{MMAP_WHOLE_STORE, OpenMode, Store, warm};
use std::io::{Seek, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

fn open(path: &Path, mode: OpenMode) -> acc_runtime::error::Result<Store> {
    warm::enable();
    Store::open(path, &ws(), mode, genesis)
}

fn rw(path: &Path) -> Store {
    open(path, OpenMode::ReadWrite).unwrap()
}

fn meta(store: &mut Store, key: &str) -> Option<String> {
    store
        .read(|c| {
            Ok(
                c.query_row("SELECT value FROM meta WHERE key = ?1", [key], |r| r.get(0))
                    .optional()?,
            )
        })
        .unwrap()
}

/// Leaves a mark only this connection has (a temporary table lives and dies with it).
fn mark(store: &mut Store) {
    store
        .read(|c| Ok(c.execute_batch("CREATE TEMP TABLE warm_mark (x)")?))
        .unwrap();
}

fn marked(store: &mut Store) -> bool {
    store
        .read(|c| {
            Ok(c.query_row(
                "SELECT count(*) FROM temp.sqlite_master WHERE name = 'warm_mark'",
                [],
                |r| r.get::<_, i64>(0),
            )? == 1)
        })
        .unwrap()
}

fn pragma(store: &mut Store, name: &str) -> i64 {
    store
        .read(|c| Ok(c.query_row(&format!("PRAGMA {name}"), [], |r| r.get(0))?))
        .unwrap()
}

/// What an open of `path` concluded, with the file's name taken out.
fn judged(path: &Path, mode: OpenMode) -> String {
    let name = path.display().to_string();
    match open(path, mode) {
        Ok(mut s) => {
            let events: i64 = s
                .read(|c| Ok(c.query_row("SELECT count(*) FROM events", [], |r| r.get(0))?))
                .unwrap();
            format!(
                "open ephemeral={} k={:?} events={events} schema={} user_version={}",
                s.is_ephemeral(),
                meta(&mut s, "k"),
                pragma(&mut s, "schema_version"),
                pragma(&mut s, "user_version"),
            )
        }
        Err(e) => format!(
            "{:?} exit {}: {} {}",
            e.code,
            e.exit_code(),
            e.message.replace(&name, "<store>"),
            serde_json::to_string(&e.details)
                .unwrap()
                .replace(&name, "<store>")
        ),
    }
}

/// Two stores with the same history: `warm`'s connection is idle in the pool, `fresh`'s
/// are all closed. `template` is a third store of the same workspace with `k = template`.
struct Pair {
    _dir: tempfile::TempDir,
    warm: PathBuf,
    fresh: PathBuf,
    template: PathBuf,
}

fn pair() -> Pair {
    let dir = tempfile::tempdir().unwrap();
    let path = |d: &str| dir.path().join(d).join("acc.db");
    let (warm, fresh, template) = (path("warm"), path("fresh"), path("template"));
    for p in [&warm, &fresh, &template] {
        let mut s = rw(p);
        put(&mut s, "k", if p == &template { "template" } else { "v1" });
    }
    warm::close_idle(&fresh);
    warm::close_idle(&template);
    assert_eq!(warm::idle(&warm), 1);
    assert_eq!(warm::idle(&fresh), 0);
    Pair {
        _dir: dir,
        warm,
        fresh,
        template,
    }
}

impl Pair {
    /// Plays `attack` on both stores and returns what each open concluded, `warm`'s first,
    /// and how many of `warm`'s opens reused a connection.
    fn judge(&self, mode: OpenMode, attack: impl Fn(&Path, &Path)) -> (String, String, u64) {
        attack(&self.warm, &self.template);
        attack(&self.fresh, &self.template);
        let before = warm::reuses(&self.warm);
        let warm = judged(&self.warm, mode);
        let reused = warm::reuses(&self.warm) - before;
        warm::close_idle(&self.fresh);
        let fresh = judged(&self.fresh, mode);
        (warm, fresh, reused)
    }
}

#[test]
fn a_second_open_reuses_the_connection_with_its_schema() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("acc.db");
    let mut s = rw(&path);
    put(&mut s, "k", "v1");
    mark(&mut s);
    drop(s);
    assert_eq!(warm::idle(&path), 1);
    assert_eq!(warm::reuses(&path), 0);
    let mut s = rw(&path);
    assert_eq!(warm::reuses(&path), 1);
    assert_eq!(warm::idle(&path), 0, "checked out, not shared");
    assert!(
        marked(&mut s),
        "the same connection: its schema parsed, its statements compiled"
    );
    assert_eq!(meta(&mut s, "k").as_deref(), Some("v1"));
    drop(s);
    // A read-only open of a writable store takes the same connection, as it opens the same
    // kind of connection fresh.
    let mut s = open(&path, OpenMode::ReadOnly).unwrap();
    assert_eq!(warm::reuses(&path), 2);
    assert!(marked(&mut s));
}

#[test]
fn per_open_settings_are_set_again_at_each_checkout() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("acc.db");
    drop(rw(&path));
    let mut s = rw(&path);
    s.set_busy_timeout(Duration::from_millis(1234)).unwrap();
    s.set_mmap_size(MMAP_WHOLE_STORE).unwrap();
    // A lone writer commits under synchronous = OFF with SQLite's auto-checkpoint off.
    put(&mut s, "a", "1");
    put(&mut s, "b", "2");
    assert_eq!(pragma(&mut s, "synchronous"), 0);
    mark(&mut s);
    drop(s);
    let mut s = rw(&path);
    assert!(marked(&mut s), "reused");
    // The 1,234 ms are gone: the open's wait is `store::busy_wait`'s handler again (SQLite
    // reports no timeout of its own for it), so a lock let go during it is waited for
    // (below).
    assert_eq!(pragma(&mut s, "busy_timeout"), 0);
    assert_eq!(pragma(&mut s, "mmap_size"), 0);
    assert_eq!(pragma(&mut s, "synchronous"), 1);
    assert_eq!(pragma(&mut s, "wal_autocheckpoint"), 1000);
    assert_eq!(pragma(&mut s, "foreign_keys"), 1);
    // The hand-back checkpointed: the next write finds an empty WAL and commits under OFF.
    put(&mut s, "c", "3");
    assert_eq!(pragma(&mut s, "synchronous"), 0);
    let other = rusqlite::Connection::open(&path).unwrap();
    other.execute_batch("BEGIN IMMEDIATE").unwrap();
    let letting_go = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(30));
        other.execute_batch("COMMIT").unwrap();
    });
    put(&mut s, "w", "0");
    letting_go.join().unwrap();
}

#[test]
fn a_store_deleted_and_created_anew_is_opened_anew() {
    let p = pair();
    let (warm, fresh, reused) = p.judge(OpenMode::ReadWrite, |path, template| {
        std::fs::remove_file(path).unwrap();
        std::fs::copy(template, path).unwrap();
    });
    assert_eq!(warm, fresh);
    assert!(warm.contains("k=Some(\"template\")"), "{warm}");
    assert_eq!(reused, 0);
}

#[test]
fn a_store_moved_aside_is_judged_absent() {
    for mode in [OpenMode::ReadOnly, OpenMode::ReadWrite] {
        let p = pair();
        let (warm, fresh, reused) = p.judge(mode, |path, _| {
            std::fs::rename(path, path.with_file_name("aside.db")).unwrap();
        });
        assert_eq!(warm, fresh);
        assert!(warm.contains("k=None"), "{warm}");
        assert_eq!(reused, 0);
    }
}

#[test]
fn a_store_replaced_by_a_copy_is_read_from_the_copy() {
    // Copied over the file (the same inode, rewritten) and copied beside it then renamed
    // over it (a new inode).
    let p = pair();
    let (warm, fresh, reused) = p.judge(OpenMode::ReadOnly, |path, template| {
        std::fs::copy(template, path).unwrap();
    });
    assert_eq!(warm, fresh);
    assert!(warm.contains("k=Some(\"template\")"), "{warm}");
    assert_eq!(reused, 0);
    let p = pair();
    let (warm, fresh, reused) = p.judge(OpenMode::ReadOnly, |path, template| {
        let tmp = path.with_file_name("new.db");
        std::fs::copy(template, &tmp).unwrap();
        std::fs::rename(&tmp, path).unwrap();
    });
    assert_eq!(warm, fresh);
    assert!(warm.contains("k=Some(\"template\")"), "{warm}");
    assert_eq!(reused, 0);
}

#[test]
fn a_store_zeroed_or_damaged_in_place_fails_closed_as_fresh() {
    let p = pair();
    let (warm, fresh, reused) = p.judge(OpenMode::ReadOnly, |path, _| {
        let len = std::fs::metadata(path).unwrap().len() as usize;
        let mut f = std::fs::OpenOptions::new().write(true).open(path).unwrap();
        f.write_all(&vec![0u8; len]).unwrap();
    });
    assert_eq!(warm, fresh);
    assert!(warm.starts_with("StoreCorrupt exit 4"), "{warm}");
    assert_eq!(reused, 0);
    let warm_bytes = std::fs::read(&p.warm).unwrap();
    assert!(warm_bytes.iter().all(|b| *b == 0), "never recreated");

    // The header kept, the schema's page destroyed: SQLite's own check fails at the parse
    // a fresh connection makes, which a warm one would not make again.
    let p = pair();
    let (warm, fresh, reused) = p.judge(OpenMode::ReadOnly, |path, _| {
        let mut f = std::fs::OpenOptions::new().write(true).open(path).unwrap();
        f.seek(std::io::SeekFrom::Start(100)).unwrap();
        f.write_all(&[0xA5; 3000]).unwrap();
    });
    assert_eq!(warm, fresh);
    assert!(warm.contains("exit 4"), "{warm}");
    assert_eq!(reused, 0);
}

/// SQL through another program's own connection (a `sqlite3` shell, a script).
fn sql(path: &Path, statements: &str) {
    let c = rusqlite::Connection::open(path).unwrap();
    c.execute_batch(statements).unwrap();
}

#[test]
fn a_store_written_by_another_program_is_judged_as_fresh() {
    let cases: [(&str, &str); 4] = [
        (
            "UPDATE meta SET value = 'ws2' WHERE key = 'workspace_id'",
            "StoreForeign exit 4",
        ),
        ("PRAGMA user_version = 99", "StoreSchemaNewer exit 4"),
        (
            "DELETE FROM meta WHERE key = 'workspace_id'",
            "StoreCorrupt",
        ),
        (
            "UPDATE meta SET value = 'edited' WHERE key = 'k'; CREATE TABLE extra (x)",
            "open ephemeral=false k=Some(\"edited\")",
        ),
    ];
    for (statements, expect) in cases {
        for mode in [OpenMode::ReadOnly, OpenMode::ReadWrite] {
            let p = pair();
            let (warm, fresh, _) = p.judge(mode, |path, _| sql(path, statements));
            assert_eq!(warm, fresh, "{statements}");
            assert!(warm.starts_with(expect), "{statements}: {warm}");
        }
    }
}

#[test]
fn a_change_that_reached_only_the_wal_is_seen_by_the_warm_connection() {
    // The warm connection's shared lock keeps the other program's close from checkpointing,
    // so acc.db is unchanged and the connection is reused: SQLite's WAL index tells it
    // what changed, and the changed schema cookie makes it parse the schema again.
    let p = pair();
    let (warm, fresh, reused) = p.judge(OpenMode::ReadOnly, |path, _| {
        sql(
            path,
            "UPDATE meta SET value = 'via-wal' WHERE key = 'k'; CREATE TABLE extra (x)",
        )
    });
    assert_eq!(warm, fresh);
    assert!(warm.contains("k=Some(\"via-wal\")"), "{warm}");
    assert_eq!(reused, 1, "the warm path judged it");
    let mut s = open(&p.warm, OpenMode::ReadOnly).unwrap();
    let n: i64 = s
        .read(|c| Ok(c.query_row("SELECT count(*) FROM extra", [], |r| r.get(0))?))
        .unwrap();
    assert_eq!(
        n, 0,
        "the new table is in the schema the warm connection knows"
    );
}

#[test]
fn a_python_script_that_rewrites_the_store_is_judged_as_fresh() {
    if std::process::Command::new("python3")
        .arg("--version")
        .output()
        .is_err()
    {
        return;
    }
    let p = pair();
    let (warm, fresh, _) = p.judge(OpenMode::ReadOnly, |path, _| {
        let out = std::process::Command::new("python3")
            .arg("-c")
            .arg(
                "import sqlite3, sys\n\
                 c = sqlite3.connect(sys.argv[1])\n\
                 c.execute(\"UPDATE meta SET value = 'ws9' WHERE key = 'workspace_id'\")\n\
                 c.commit()\n\
                 c.close()\n",
            )
            .arg(path)
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
    });
    assert_eq!(warm, fresh);
    assert!(warm.starts_with("StoreForeign exit 4"), "{warm}");
}

#[test]
fn a_failed_write_is_rolled_back_before_its_connection_is_kept() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("acc.db");
    let mut s = rw(&path);
    mark(&mut s);
    let r: acc_runtime::error::Result<()> = s.write(|c| {
        c.execute("INSERT INTO meta (key, value) VALUES ('half', 'x')", [])?;
        Err(acc_runtime::error::AccError::usage("stop"))
    });
    assert!(r.is_err());
    drop(s);
    // Another connection can take the write lock: nothing holds it.
    sql(&path, "BEGIN IMMEDIATE; ROLLBACK;");
    let mut s = rw(&path);
    assert!(marked(&mut s), "reused");
    assert_eq!(meta(&mut s, "half"), None);
    put(&mut s, "after", "1");
    assert_eq!(meta(&mut s, "after").as_deref(), Some("1"));
}

#[test]
fn a_run_that_panics_mid_write_leaves_no_connection_kept() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("acc.db");
    drop(rw(&path));
    warm::close_idle(&path);
    let p = path.clone();
    let joined = std::thread::spawn(move || {
        let mut s = rw(&p);
        let _ = s.write(|c| -> acc_runtime::error::Result<()> {
            c.execute("INSERT INTO meta (key, value) VALUES ('half', 'x')", [])?;
            panic!("the run died mid-write");
        });
    })
    .join();
    assert!(joined.is_err());
    assert_eq!(warm::idle(&path), 0, "closed, not kept");
    let mut s = rw(&path);
    assert_eq!(meta(&mut s, "half"), None);
}

#[test]
fn two_threads_each_get_their_own_connection() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("acc.db");
    drop(rw(&path));
    let mut first = rw(&path);
    mark(&mut first);
    let p = path.clone();
    let second_marked = std::thread::spawn(move || {
        let mut second = rw(&p);
        let m = marked(&mut second);
        put(&mut second, "from", "second");
        m
    })
    .join()
    .unwrap();
    assert!(
        !second_marked,
        "the second open did not get the first's connection"
    );
    assert_eq!(meta(&mut first, "from").as_deref(), Some("second"));
    drop(first);
    assert_eq!(warm::idle(&path), 2);
    // Kept up to the bound per file.
    let stores: Vec<Store> = (0..warm::MAX_IDLE_PER_FILE + 2)
        .map(|_| rw(&path))
        .collect();
    drop(stores);
    assert_eq!(warm::idle(&path), warm::MAX_IDLE_PER_FILE);
}

#[test]
fn absent_stores_and_failed_opens_keep_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("acc.db");
    let s = open(&path, OpenMode::ReadOnly).unwrap();
    assert!(s.is_ephemeral());
    drop(s);
    assert_eq!(warm::idle(&path), 0);
    drop(rw(&path));
    warm::close_idle(&path);
    let other = WorkspaceId::parse("ws2").unwrap();
    let err = Store::open(&path, &other, OpenMode::ReadOnly, genesis).unwrap_err();
    assert_eq!(err.code, ErrorCode::StoreForeign);
    assert_eq!(warm::idle(&path), 0, "a refused open keeps nothing");
}
