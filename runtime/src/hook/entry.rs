//! The `acc-hook` process: real stdin, stdout, stderr and environment.

use super::hook_env::HookEnv;
use super::settings::HookSettings;
use std::io::{Read, Write};

/// Runs the hook process and returns its exit code. The caller exits with it at once, which
/// also ends a worker that overran the deadline.
pub fn main() -> i32 {
    one_malloc_arena();
    // A panic is answered by the fail-open line; the default hook would add a second,
    // unbounded stderr message that may quote a payload.
    std::panic::set_hook(Box::new(|_| {}));
    let argv: Vec<String> = std::env::args_os()
        .skip(1)
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let stdin: Box<dyn Read + Send> = if stdin_is_terminal() {
        // Run by hand without a payload: answer at once instead of waiting for the deadline.
        Box::new(std::io::empty())
    } else {
        Box::new(std::io::stdin())
    };
    let settings = HookSettings::system(HookEnv::from_process());
    let stdout = std::io::stdout();
    let stderr = std::io::stderr();
    let (mut out, mut err) = (stdout.lock(), stderr.lock());
    let code = super::capture::run(&argv, stdin, &mut out, &mut err, settings);
    let _ = out.flush();
    let _ = err.flush();
    code
}

fn stdin_is_terminal() -> bool {
    use std::io::IsTerminal;
    std::io::stdin().is_terminal()
}

/// The work runs on a worker thread, and glibc gives a new thread an arena of its own that
/// grows one `mprotect` at a time (over 200 calls in a turn with queued messages, about a
/// tenth of the process's time); the main arena grows in 128 KiB steps. The main thread
/// only waits, so sharing its arena costs no contention.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn one_malloc_arena() {
    // SAFETY: mallopt only changes allocator settings; it runs before any other thread
    // exists.
    unsafe {
        libc::mallopt(libc::M_ARENA_MAX, 1);
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn one_malloc_arena() {}
