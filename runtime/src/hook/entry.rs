//! The `acc-hook` process: real stdin, stdout, stderr and environment.

use super::hook_env::HookEnv;
use super::settings::HookSettings;
use std::io::{Read, Write};

/// Runs the hook process and returns its exit code. The caller exits with it at once, which
/// also ends a worker that overran the deadline.
pub fn main() -> i32 {
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
