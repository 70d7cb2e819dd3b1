//! The server's workers: long-lived threads that each run one request at a time.
//!
//! Why not a thread per request: starting one (its stack mapped, its guard page, its signal
//! stack, then all of it unmapped) was paid by every served call. A worker's file-system
//! context (cwd, root, umask) is its own from its first request on; each request detaches
//! it again ([`enter_directory`]), which the kernel makes a no-op unless a thread the last
//! request started (a hook's store thread that outlived its deadline) still shares it: that
//! thread keeps its own request's directory and umask, never the next request's.
//!
//! A slow request (a turn) never holds up another: a request goes to an idle worker, and
//! when none is idle a new one starts for it, as before. A worker that is done waits for
//! the next request only while fewer than [`MAX_IDLE`] wait; otherwise it ends. A request
//! that panicked ends its worker: whatever that request left in the thread (its
//! thread-locals) is not handed to the next one.

use std::sync::mpsc::{Receiver, SyncSender, TrySendError, sync_channel};
use std::sync::{Arc, Mutex};

/// One request's work.
pub type Job = Box<dyn FnOnce() + Send + 'static>;

/// Workers kept waiting at most: more than the requests served at once in the claim race
/// (eight racers, each with a request in flight). At four, as many as the store's warm
/// connections per file, half the race's requests found no idle worker and the server
/// started (and ended) a thread for about one request in seven. A waiting worker costs a
/// parked thread; only a request that reaches the store takes a warm connection, and few
/// do at once (the claims' turn is one writer at a time).
pub const MAX_IDLE: usize = 16;

/// The workers of one server.
#[derive(Clone, Default)]
pub struct Workers {
    idle: Arc<Mutex<Vec<SyncSender<Job>>>>,
}

impl Workers {
    pub fn new() -> Self {
        Self::default()
    }

    /// Runs `job` on an idle worker, or on a new one when none is idle. False when no
    /// thread could be started for it (the job is dropped, not run).
    pub fn run(&self, job: Job) -> bool {
        let mut job = job;
        loop {
            let waiting = self.lock().pop();
            let Some(worker) = waiting else { break };
            // A worker waits on its channel (of one slot, empty while it waits) from before
            // it is listed until it is taken, so only a worker gone away refuses.
            match worker.try_send(job) {
                Ok(()) => return true,
                Err(TrySendError::Full(j) | TrySendError::Disconnected(j)) => job = j,
            }
        }
        self.start(job)
    }

    /// How many workers wait for a request now.
    pub fn idle(&self) -> usize {
        self.lock().len()
    }

    fn start(&self, job: Job) -> bool {
        let (tx, rx) = sync_channel::<Job>(1);
        let idle = Arc::clone(&self.idle);
        std::thread::Builder::new()
            .name("acc-serve".into())
            .spawn(move || work(job, rx, tx, idle))
            .is_ok()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<SyncSender<Job>>> {
        self.idle.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// A worker's life: its own file-system context, then requests until it is not wanted.
fn work(
    first: Job,
    rx: Receiver<Job>,
    tx: SyncSender<Job>,
    idle: Arc<Mutex<Vec<SyncSender<Job>>>>,
) {
    let mut job = first;
    loop {
        if std::panic::catch_unwind(std::panic::AssertUnwindSafe(job)).is_err() {
            return;
        }
        {
            let mut waiting = idle.lock().unwrap_or_else(|e| e.into_inner());
            if waiting.len() >= MAX_IDLE {
                return;
            }
            waiting.push(tx.clone());
        }
        match rx.recv() {
            Ok(next) => job = next,
            Err(_) => return,
        }
    }
}

/// Gives this thread (and the threads it starts) the client's working directory and umask:
/// a relative path resolves, and a file is created, as in the client. The thread's
/// file-system context is detached first: from the process's on a worker's first request,
/// and from any thread an earlier request started that still runs (when none does, the
/// kernel keeps the context as it is and allocates nothing). When it cannot be detached,
/// nothing changes (a `chdir` would move other threads). The directory is entered anew for
/// every request, even when the last one named the same path: the directory at that path
/// may have been replaced since.
pub fn enter_directory(cwd: &std::path::Path, umask: u32) {
    // SAFETY: unshare(CLONE_FS) only detaches this thread's cwd, root and umask from the
    // other threads'; umask then changes this thread's copy.
    unsafe {
        if libc::unshare(libc::CLONE_FS) != 0 {
            return;
        }
        libc::umask(umask as libc::mode_t);
    }
    if std::env::set_current_dir(cwd).is_err() {
        let _ = std::env::set_current_dir("/");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc::channel;
    use std::time::Duration;

    fn ask(workers: &Workers, f: impl FnOnce() -> String + Send + 'static) -> String {
        let (tx, rx) = channel();
        workers
            .run(Box::new(move || tx.send(f()).unwrap()))
            .then_some(())
            .expect("a worker");
        rx.recv_timeout(Duration::from_secs(10)).unwrap()
    }

    fn thread_name_and_id() -> String {
        format!("{:?}", std::thread::current().id())
    }

    fn settle(workers: &Workers, n: usize) {
        for _ in 0..1000 {
            if workers.idle() == n {
                return;
            }
            std::thread::sleep(Duration::from_millis(2));
        }
        panic!("{} idle, expected {n}", workers.idle());
    }

    #[test]
    fn a_done_worker_takes_the_next_request() {
        let workers = Workers::new();
        let first = ask(&workers, thread_name_and_id);
        settle(&workers, 1);
        let second = ask(&workers, thread_name_and_id);
        assert_eq!(first, second);
        assert_ne!(first, thread_name_and_id());
    }

    #[test]
    fn a_busy_worker_does_not_hold_up_the_next_request() {
        let workers = Workers::new();
        let (release, blocked) = channel::<()>();
        let (started, is_started) = channel();
        workers
            .run(Box::new(move || {
                started.send(()).unwrap();
                let _ = blocked.recv();
            }))
            .then_some(())
            .expect("a worker");
        is_started.recv().unwrap();
        // The first worker is still busy: the second request gets a thread of its own.
        let answer = ask(&workers, || "done".to_string());
        assert_eq!(answer, "done");
        release.send(()).unwrap();
        settle(&workers, 2);
    }

    #[test]
    fn a_request_that_panicked_ends_its_worker() {
        let workers = Workers::new();
        let before = ask(&workers, thread_name_and_id);
        settle(&workers, 1);
        let prior = std::panic::take_hook();
        std::panic::set_hook(Box::new(|_| {}));
        workers
            .run(Box::new(|| panic!("request")))
            .then_some(())
            .expect("a worker");
        let after = ask(&workers, thread_name_and_id);
        std::panic::set_hook(prior);
        assert_ne!(before, after);
    }

    #[test]
    fn no_more_than_max_idle_wait() {
        let workers = Workers::new();
        let (release, blocked) = channel::<()>();
        let blocked = Arc::new(Mutex::new(blocked));
        let n = MAX_IDLE + 2;
        let (started, is_started) = channel();
        for _ in 0..n {
            let (blocked, started) = (Arc::clone(&blocked), started.clone());
            workers
                .run(Box::new(move || {
                    started.send(()).unwrap();
                    let _ = blocked.lock().unwrap().recv();
                }))
                .then_some(())
                .expect("a worker");
        }
        for _ in 0..n {
            is_started.recv().unwrap();
        }
        for _ in 0..n {
            release.send(()).unwrap();
        }
        settle(&workers, MAX_IDLE);
    }

    /// The claim race's shape: eight requests at once, again and again, are served by the
    /// same eight workers (no thread started after the first wave).
    #[test]
    fn a_race_of_eight_reuses_its_workers() {
        let workers = Workers::new();
        let wave = |workers: &Workers| -> std::collections::BTreeSet<String> {
            let (release, blocked) = channel::<()>();
            let blocked = Arc::new(Mutex::new(blocked));
            let (seen_tx, seen) = channel();
            for _ in 0..8 {
                let (blocked, seen_tx) = (Arc::clone(&blocked), seen_tx.clone());
                workers
                    .run(Box::new(move || {
                        seen_tx.send(thread_name_and_id()).unwrap();
                        let _ = blocked.lock().unwrap().recv();
                    }))
                    .then_some(())
                    .expect("a worker");
            }
            let ids = (0..8).map(|_| seen.recv().unwrap()).collect();
            for _ in 0..8 {
                release.send(()).unwrap();
            }
            settle(workers, 8);
            ids
        };
        let first = wave(&workers);
        assert_eq!(first.len(), 8, "eight requests at once, eight workers");
        for _ in 0..3 {
            assert_eq!(
                wave(&workers),
                first,
                "the same workers serve the next wave"
            );
        }
    }

    #[test]
    fn each_request_runs_in_its_own_directory_and_umask() {
        let workers = Workers::new();
        let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let look = |dir: std::path::PathBuf, mask: u32| {
            move || {
                enter_directory(&dir, mask);
                // SAFETY: reads and restores this worker's own umask.
                let m = unsafe {
                    let m = libc::umask(0o022);
                    libc::umask(m);
                    m
                };
                format!("{} {:o}", std::env::current_dir().unwrap().display(), m)
            }
        };
        let real = |d: &tempfile::TempDir| d.path().canonicalize().unwrap();
        let process_cwd = std::env::current_dir().unwrap();
        assert_eq!(
            ask(&workers, look(real(&a), 0o077)),
            format!("{} 77", real(&a).display())
        );
        settle(&workers, 1);
        assert_eq!(
            ask(&workers, look(real(&b), 0o027)),
            format!("{} 27", real(&b).display())
        );
        settle(&workers, 1);
        // The same path again, but another directory there now: the new one is entered.
        let again = real(&a);
        std::fs::remove_dir(&again).unwrap();
        std::fs::create_dir(&again).unwrap();
        std::fs::write(again.join("marker"), "").unwrap();
        let seen = ask(&workers, move || {
            enter_directory(&again, 0o022);
            std::path::Path::new("marker").exists().to_string()
        });
        assert_eq!(seen, "true");
        // The process's own directory never moved.
        assert_eq!(std::env::current_dir().unwrap(), process_cwd);
    }

    /// A thread a request started that outlives the request keeps that request's directory
    /// and umask while the same worker serves the next one elsewhere.
    #[test]
    fn a_thread_left_running_keeps_its_own_requests_directory() {
        let workers = Workers::new();
        let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let (a_path, b_path) = (
            a.path().canonicalize().unwrap(),
            b.path().canonicalize().unwrap(),
        );
        let (go, wait) = channel::<()>();
        let (seen_tx, seen) = channel::<String>();
        let first = ask(&workers, move || {
            enter_directory(&a_path, 0o077);
            std::thread::spawn(move || {
                let _ = wait.recv();
                // SAFETY: reads and restores this thread's umask.
                let m = unsafe {
                    let m = libc::umask(0o022);
                    libc::umask(m);
                    m
                };
                let cwd = std::env::current_dir().unwrap();
                seen_tx.send(format!("{} {m:o}", cwd.display())).unwrap();
            });
            thread_name_and_id()
        });
        settle(&workers, 1);
        let second = ask(&workers, move || {
            enter_directory(&b_path, 0o027);
            format!(
                "{} {}",
                thread_name_and_id(),
                std::env::current_dir().unwrap().display()
            )
        });
        assert_eq!(
            second,
            format!("{first} {}", b.path().canonicalize().unwrap().display()),
            "the same worker, in the second directory"
        );
        go.send(()).unwrap();
        assert_eq!(
            seen.recv_timeout(Duration::from_secs(10)).unwrap(),
            format!("{} 77", a.path().canonicalize().unwrap().display())
        );
    }
}
