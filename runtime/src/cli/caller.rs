//! Whose command this is. The CLI's rule that an agent acts only as itself
//! ([`super::agent`], [`super::takeover`], [`super::person`]) walks the ancestry of the
//! process that asked; when `acc` runs its command itself that is this process, and when the
//! resident server ([`crate::serve`]) runs it for a client, it is that client, never the
//! server (whose ancestry is nobody's).
//!
//! Carried per thread: the server runs each request on a thread of its own, and the CLI's
//! judges run on the thread that runs the command.

use std::cell::Cell;

thread_local! {
    static CALLER: Cell<Option<u32>> = const { Cell::new(None) };
}

/// The pid whose ancestry the CLI judges: the client a served request came from, else this
/// process.
pub fn pid() -> u32 {
    CALLER.with(Cell::get).unwrap_or_else(std::process::id)
}

/// Runs `f` on behalf of the process `pid` (this thread only; restored after, even on a
/// panic).
pub fn on_behalf_of<T>(pid: u32, f: impl FnOnce() -> T) -> T {
    struct Restore(Option<u32>);
    impl Drop for Restore {
        fn drop(&mut self) {
            CALLER.with(|c| c.set(self.0));
        }
    }
    let _restore = Restore(CALLER.with(|c| c.replace(Some(pid))));
    f()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_caller_is_this_process_unless_a_request_names_another() {
        assert_eq!(pid(), std::process::id());
        let inside = on_behalf_of(4242, pid);
        assert_eq!(inside, 4242);
        assert_eq!(pid(), std::process::id());
        let seen = std::thread::scope(|s| on_behalf_of(7, || s.spawn(pid).join().unwrap()));
        assert_eq!(
            seen,
            std::process::id(),
            "another thread is not the request's"
        );
    }
}
