//! Which `acc claim` takes the store path next (`<store dir>/claims.lock`): a claim that the
//! claims proof ([`super::claims_proof`]) cannot refuse holds this file's `flock` from
//! before it opens the store until its write is published. A racer that finds it held
//! waits for it without spending CPU (the holder's close wakes it through `inotify`) and
//! then judges from the proof that holder published: in a race the loser that arrived while
//! the winner was still writing is refused from the proof instead of opening the store,
//! waiting for the same writer's SQLite lock and being refused there.
//!
//! Nothing depends on the lock for correctness: SQLite's write lock still orders every
//! write, and a refusal is only ever taken from a proof the token vouches for. So the lock
//! is best effort, and never a way to stop claims: a file that is not a regular file (a
//! symlink, a fifo, a directory put in its place), one that cannot be created, or a holder
//! that keeps it past [`WAIT`] (stopped, or another program holding it), and the claim goes
//! to the store as it would have without the lock.

use std::fs::File;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// The file's name, beside `acc.db`.
pub const LOCK_FILE: &str = "claims.lock";

/// How long a claim waits for another claim's turn before it goes to the store without
/// the lock. A turn is one store-path claim (open, write, publication), a few milliseconds
/// of CPU; on a loaded host its wall time is longer. Waiting costs no CPU.
pub const WAIT: Duration = Duration::from_millis(500);

/// `<store dir>/claims.lock` for the store at `store_file`.
pub fn path_for(store_file: &Path) -> PathBuf {
    store_file.with_file_name(LOCK_FILE)
}

/// The lock, held until dropped (or the process ends: the kernel releases it).
#[derive(Debug)]
pub struct ClaimLock {
    _file: File,
}

/// What [`take`] got.
#[derive(Debug)]
pub enum Turn {
    /// Held at once: no other claim was on the store path.
    Free(ClaimLock),
    /// Held after another claim's turn ended: what it wrote is published (or it wrote
    /// nothing), so the caller judges again from the proof.
    AfterAnother(ClaimLock),
    /// Not held and no longer needed: woken by a close, the caller's `settled` found what
    /// it waited for (a publication that answers it).
    Settled,
    /// Not held: no lock can be had here, or another holder kept it past the wait.
    Without { waited: bool },
}

/// Takes the lock of the store at `store_file`, waiting up to `wait` for another holder.
/// The file is created beside an existing store only. While it waits, each close of the
/// file (the holder letting go, or another waiter leaving) asks `settled` first: a waiter
/// that a publication now answers leaves without the lock, so the waiters of one turn do
/// not take the lock one after the other only to be refused.
pub fn take(store_file: &Path, wait: Duration, settled: impl FnMut() -> bool) -> Turn {
    let Some(file) = open(store_file) else {
        return Turn::Without { waited: false };
    };
    if try_lock(&file) {
        return Turn::Free(ClaimLock { _file: file });
    }
    match wait_for(&file, &path_for(store_file), wait, settled) {
        Waited::Locked => Turn::AfterAnother(ClaimLock { _file: file }),
        Waited::Settled => Turn::Settled,
        Waited::TimedOut => Turn::Without { waited: true },
    }
}

enum Waited {
    Locked,
    Settled,
    TimedOut,
}

fn open(store_file: &Path) -> Option<File> {
    // The lock belongs beside a store: never the reason a directory or file is created
    // where no store is.
    std::fs::symlink_metadata(store_file).ok()?;
    let file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .mode(0o600)
        // A symlink is not followed; a fifo put in its place does not block the open.
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_CLOEXEC)
        .open(path_for(store_file))
        .ok()?;
    file.metadata().ok()?.is_file().then_some(file)
}

fn try_lock(file: &File) -> bool {
    // SAFETY: `flock` on a descriptor this function borrows; no memory is passed.
    unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) == 0 }
}

/// Waits for the holder's close (every close of the file wakes the wait; it then tries
/// again), up to `wait`. The watch is set before the lock is tried again, so a close
/// between the two is not missed.
fn wait_for(file: &File, path: &Path, wait: Duration, mut settled: impl FnMut() -> bool) -> Waited {
    use std::os::unix::ffi::OsStrExt;
    let deadline = Instant::now() + wait;
    // SAFETY: `inotify_init1` takes flags and returns a new descriptor or -1.
    let raw = unsafe { libc::inotify_init1(libc::IN_CLOEXEC | libc::IN_NONBLOCK) };
    if raw < 0 {
        return Waited::TimedOut;
    }
    // SAFETY: `raw` is a descriptor this process just opened and owns alone.
    let notify = unsafe { OwnedFd::from_raw_fd(raw) };
    let Ok(name) = std::ffi::CString::new(path.as_os_str().as_bytes()) else {
        return Waited::TimedOut;
    };
    // SAFETY: a valid descriptor and a NUL-terminated path that outlives the call.
    let watch = unsafe {
        libc::inotify_add_watch(
            notify.as_raw_fd(),
            name.as_ptr(),
            libc::IN_CLOSE | libc::IN_DONT_FOLLOW,
        )
    };
    if watch < 0 {
        return Waited::TimedOut;
    }
    let mut events = [0u8; 1024];
    loop {
        if try_lock(file) {
            return Waited::Locked;
        }
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Waited::TimedOut;
        }
        let mut poll = libc::pollfd {
            fd: notify.as_raw_fd(),
            events: libc::POLLIN,
            revents: 0,
        };
        let ms = left.as_millis().clamp(1, i32::MAX as u128) as i32;
        // SAFETY: one pollfd that lives across the call.
        let ready = unsafe { libc::poll(&mut poll, 1, ms) };
        if ready < 0 && std::io::Error::last_os_error().kind() != std::io::ErrorKind::Interrupted {
            return Waited::TimedOut;
        }
        if ready > 0 {
            // Drained, so the next poll waits for the next close. SAFETY: reads into a
            // buffer this function owns, within its length.
            unsafe {
                libc::read(notify.as_raw_fd(), events.as_mut_ptr().cast(), events.len());
            }
            if settled() {
                return Waited::Settled;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn store() -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let store = dir.path().join("acc.db");
        std::fs::write(&store, b"x").unwrap();
        (dir, store)
    }

    #[test]
    fn a_second_taker_waits_for_the_first_to_let_go() {
        let (_dir, store) = store();
        let first = take(&store, WAIT, || false);
        assert!(matches!(first, Turn::Free(_)), "{first:?}");
        let waiter = {
            let store = store.clone();
            std::thread::spawn(move || take(&store, Duration::from_secs(30), || false))
        };
        std::thread::sleep(Duration::from_millis(50));
        assert!(!waiter.is_finished(), "it waits while the lock is held");
        drop(first);
        let second = waiter.join().unwrap();
        assert!(matches!(second, Turn::AfterAnother(_)), "{second:?}");
    }

    #[test]
    fn a_waiter_that_a_close_settles_leaves_without_the_lock() {
        let (_dir, store) = store();
        let held = take(&store, WAIT, || false);
        let waiter = {
            let store = store.clone();
            std::thread::spawn(move || take(&store, Duration::from_secs(30), || true))
        };
        std::thread::sleep(Duration::from_millis(50));
        assert!(!waiter.is_finished(), "nothing closed yet");
        // Another opener's close wakes it, the holder still holding.
        drop(std::fs::File::open(path_for(&store)).unwrap());
        let t = waiter.join().unwrap();
        assert!(matches!(t, Turn::Settled), "{t:?}");
        drop(held);
    }

    #[test]
    fn a_holder_that_keeps_it_is_waited_for_no_longer_than_the_wait() {
        let (_dir, store) = store();
        let _held = take(&store, WAIT, || false);
        let t = take(&store, Duration::from_millis(20), || false);
        assert!(matches!(t, Turn::Without { waited: true }), "{t:?}");
    }

    #[test]
    fn no_lock_where_there_is_no_store_or_no_regular_file() {
        let dir = tempfile::tempdir().unwrap();
        let absent = dir.path().join("none/acc.db");
        assert!(matches!(
            take(&absent, WAIT, || false),
            Turn::Without { waited: false }
        ));
        assert!(!dir.path().join("none").exists(), "nothing was created");

        let (dir, store) = store();
        let target = dir.path().join("elsewhere");
        std::os::unix::fs::symlink(&target, path_for(&store)).unwrap();
        assert!(matches!(
            take(&store, WAIT, || false),
            Turn::Without { waited: false }
        ));
        assert!(!target.exists(), "a symlink is not followed");

        std::fs::remove_file(path_for(&store)).unwrap();
        let fifo = std::ffi::CString::new(path_for(&store).to_str().unwrap()).unwrap();
        // SAFETY: a NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o600) }, 0);
        assert!(matches!(
            take(&store, WAIT, || false),
            Turn::Without { waited: false }
        ));
    }
}
