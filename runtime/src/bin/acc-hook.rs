//! `acc-hook`: the hook runtime installed client hooks run. All behaviour lives in
//! `acc_runtime::hook`.

fn main() {
    // Exiting here (rather than returning) also ends a worker thread that overran the
    // deadline, so a stuck store can never hold the client's hook open.
    std::process::exit(acc_runtime::hook::entry::main());
}
