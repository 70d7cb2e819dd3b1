fn main() {
    let stdout = std::io::stdout();
    let stderr = std::io::stderr();
    let code = acc_certify::cli::run(std::env::args_os(), &mut stdout.lock(), &mut stderr.lock());
    std::process::exit(code);
}
