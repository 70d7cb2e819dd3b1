//! The `acc` command-line interface. All behaviour lives in `acc_runtime::cli`.

use acc_runtime::env::Env;
use std::io::Write;
use std::process::ExitCode;

fn main() -> ExitCode {
    let started = std::time::Instant::now();
    let env = Env::from_process();
    let cwd = std::env::current_dir().unwrap_or_else(|_| std::path::PathBuf::from("/"));
    let stdout = std::io::stdout();
    let stderr = std::io::stderr();
    let (mut out, mut err) = (stdout.lock(), stderr.lock());
    // Inside a confined call acc's data home is read-only: the guard's runner, outside,
    // runs this same command for it.
    let argv: Vec<std::ffi::OsString> = std::env::args_os().collect();
    if let Some(reply) = acc_runtime::guard_exec::broker::forward(&argv, &cwd) {
        let _ = out.write_all(reply.stdout.as_bytes());
        let _ = err.write_all(reply.stderr.as_bytes());
        let _ = out.flush();
        return ExitCode::from(reply.code as u8);
    }
    // With ACC_SERVE=1, a resident server runs the command (its connections stay warm).
    if let Some(code) =
        acc_runtime::serve::client::acc(&argv, &env, &cwd, &mut out, &mut err, started)
    {
        let _ = out.flush();
        return ExitCode::from(code as u8);
    }
    let code = acc_runtime::cli::run(argv, &env, &cwd, &mut out, &mut err);
    let _ = out.flush();
    let _ = err.flush();
    acc_runtime::serve::client::start_if_missing();
    ExitCode::from(code as u8)
}
