//! Development driver: serves one model double in the foreground, for pointing a client at
//! it by hand (research on a client whose wire protocol is not yet known).
//!
//! ```text
//! cargo run -p acc-certify --example serve_double -- <protocol> <log.jsonl> <seconds> [write-path]
//! ```
//! Prints the port, serves for `<seconds>`, then writes the request log and a summary. With
//! `write-path` the script asks for one file write there; without it, every answer is text.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use acc_certify::doubles::{ModelDouble, Protocol, Script};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(protocol), Some(log), Some(seconds)) = (
        args.first().and_then(|name| name.parse::<Protocol>().ok()),
        args.get(1).map(PathBuf::from),
        args.get(2).and_then(|text| text.parse::<u64>().ok()),
    ) else {
        eprintln!(
            "usage: serve_double <anthropic-messages|openai-responses|gemini-generate-content> <log.jsonl> <seconds> [write-path]"
        );
        return ExitCode::from(2);
    };
    let script = match args.get(3) {
        Some(path) => {
            match Script::write_file(std::path::Path::new(path), "written by the double\n") {
                Ok(script) => script,
                Err(err) => {
                    eprintln!("{err}");
                    return ExitCode::from(2);
                }
            }
        }
        None => Script::text_only("Done."),
    };
    let mut double = match ModelDouble::start(protocol, script) {
        Ok(double) => double,
        Err(err) => {
            eprintln!("cannot start the double: {err}");
            return ExitCode::FAILURE;
        }
    };
    println!("{}", double.port());
    std::thread::sleep(Duration::from_secs(seconds));
    double.stop();
    if let Err(err) = double.write_log(&log) {
        eprintln!("cannot write {}: {err}", log.display());
        return ExitCode::FAILURE;
    }
    for request in double.requests() {
        eprintln!(
            "#{} {} {}{} -> {}",
            request.n,
            request.method,
            request.path,
            request
                .query
                .map(|query| format!("?{query}"))
                .unwrap_or_default(),
            request.answered
        );
    }
    ExitCode::SUCCESS
}
