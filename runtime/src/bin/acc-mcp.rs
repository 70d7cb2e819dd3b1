//! `acc-mcp`: the MCP server. It takes no arguments when a client starts it; all behaviour
//! lives in `acc_runtime::mcp`.

use acc_runtime::env::Env;
use std::io::Write;
use std::process::ExitCode;

const HELP: &str = "acc-mcp: acc as an MCP server (newline-delimited JSON-RPC over stdio)

Usage: acc-mcp

An MCP client starts it; it takes no arguments. Its session closes when its input ends or
on SIGINT, SIGTERM or SIGHUP (exit 128 + the signal's number). Environment:
  ACC_MCP_PARTICIPANT  the participant this server acts as (default: mcp)
  ACC_MCP_WORKSPACE    absolute directory whose workspace it joins (default: its cwd)
  ACC_DATA_HOME        where acc keeps its state (default: the platform data directory)

Registration for a generic MCP client:
  {\"command\": \"/abs/path/acc-mcp\", \"env\": {\"ACC_MCP_PARTICIPANT\": \"...\", \"ACC_MCP_WORKSPACE\": \"/abs/project\"}}

Options:
  -h, --help     Print this help
  -V, --version  Print the version
";

fn main() -> ExitCode {
    // args_os: a non-UTF-8 argument must be refused, not panic.
    let args: Vec<String> = std::env::args_os()
        .skip(1)
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    match args.first().map(String::as_str) {
        None => {}
        Some("-h" | "--help") => {
            let _ = write!(std::io::stdout(), "{HELP}");
            return ExitCode::SUCCESS;
        }
        Some("-V" | "--version") => {
            let _ = writeln!(std::io::stdout(), "acc-mcp {}", env!("CARGO_PKG_VERSION"));
            return ExitCode::SUCCESS;
        }
        Some(other) => {
            let _ = writeln!(
                std::io::stderr(),
                "acc-mcp takes no arguments, got {other:?}; see `acc-mcp --help`"
            );
            return ExitCode::from(2);
        }
    }
    // First, before any thread starts: every thread inherits the blocked end signals, and
    // only the watcher takes them.
    let signals = match acc_runtime::mcp::signals::EndSignals::block() {
        Ok(s) => Some(s),
        Err(e) => {
            let _ = writeln!(
                std::io::stderr(),
                "acc-mcp: could not block SIGINT/SIGTERM/SIGHUP ({e}); a signal will leave the session to the next reader"
            );
            None
        }
    };
    let env = Env::from_process();
    let cwd = std::env::current_dir().unwrap_or_else(|_| std::path::PathBuf::from("/"));
    let stdin = std::io::stdin();
    let stdout = std::io::stdout();
    let (mut input, mut output) = (stdin.lock(), stdout.lock());
    let ending = acc_runtime::mcp::serve_until(&mut input, &mut output, &env, &cwd, signals);
    ExitCode::from(ending.exit_code() as u8)
}
