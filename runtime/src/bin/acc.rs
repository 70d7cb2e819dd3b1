//! The `acc` command-line interface. All behaviour lives in `acc_runtime::cli`.

use acc_runtime::env::Env;
use std::io::Write;
use std::process::ExitCode;

fn main() -> ExitCode {
    let env = Env::from_process();
    let cwd = std::env::current_dir().unwrap_or_else(|_| std::path::PathBuf::from("/"));
    let stdout = std::io::stdout();
    let stderr = std::io::stderr();
    let (mut out, mut err) = (stdout.lock(), stderr.lock());
    let code = acc_runtime::cli::run(
        std::env::args_os().collect(),
        &env,
        &cwd,
        &mut out,
        &mut err,
    );
    let _ = out.flush();
    ExitCode::from(code as u8)
}
