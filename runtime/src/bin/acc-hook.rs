//! `acc-hook`: the hook runtime installed client hooks run. All behaviour lives in
//! `acc_runtime::hook`; `acc-hook guard-exec` is the read-only runner of
//! `acc_runtime::guard_exec`; `acc-hook serve` the resident server of
//! `acc_runtime::serve`.

fn main() {
    let first = std::env::args_os().nth(1);
    if acc_runtime::guard_exec::selected(first.as_deref()) {
        // Before anything starts a thread: a new user namespace needs a single thread.
        let rest: Vec<_> = std::env::args_os().skip(2).collect();
        std::process::exit(acc_runtime::guard_exec::main(&rest));
    }
    if first.as_deref()
        == Some(std::ffi::OsStr::new(
            acc_runtime::store::shared_listener::SUBCOMMAND,
        ))
    {
        let rest: Vec<_> = std::env::args_os().skip(2).collect();
        std::process::exit(acc_runtime::store::shared_listener::main(&rest));
    }
    if first.as_deref() == Some(std::ffi::OsStr::new(acc_runtime::serve::SUBCOMMAND)) {
        let rest: Vec<_> = std::env::args_os().skip(2).collect();
        std::process::exit(acc_runtime::serve::server::main(&rest));
    }
    // Exiting here (rather than returning) also ends a worker thread that overran the
    // deadline, so a stuck store can never hold the client's hook open.
    std::process::exit(acc_runtime::hook::entry::main());
}
