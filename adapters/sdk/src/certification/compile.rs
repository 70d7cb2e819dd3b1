//! Build-time half of the [`super::table`]: a shipped adapter's `build.rs` validates its
//! `certification.json` with the same rules as [`Certification::from_bytes`] and writes the
//! resolution table as Rust source into `OUT_DIR`, where
//! [`shipped_adapter!`](macro@crate::shipped_adapter) includes it. A file that fails
//! validation fails the build, so a binary never carries a table of an invalid file.

use std::fmt::Write as _;
use std::path::Path;

use super::Certification;
use crate::error::{CERTIFICATION_FILE, Problem};

/// The file, under `OUT_DIR`, that [`shipped_adapter!`](macro@crate::shipped_adapter)
/// includes.
pub const TABLE_FILE: &str = "evidence_table.rs";

/// The Rust expression (a slice of `EvidenceEntry`) for a valid certification file, or
/// every problem the file has.
pub fn table_source(certification_json: &[u8]) -> Result<String, Vec<Problem>> {
    let certification = Certification::from_bytes(certification_json)?;
    let mut out = String::from("&[\n");
    for row in &certification.evidence {
        // `{:?}` of a `str` is a valid Rust string literal, escapes included.
        let _ = writeln!(
            out,
            "    ::acc_sdk::certification::table::EvidenceEntry::compiled({:?}, {:?}, {:?}, {:?}, \
             ::acc_sdk::certification::EvidenceResult::{:?}),",
            row.client, row.version, row.platform, row.capability, row.result
        );
    }
    out.push(']');
    Ok(out)
}

/// What the build prints when the file is invalid: the file's path, then each problem.
pub fn failure_message(path: &Path, problems: &[Problem]) -> String {
    let mut out = format!("{} is not valid evidence:", path.display());
    for p in problems {
        let _ = write!(out, "\n  {p}");
    }
    out
}

/// The whole of a shipped adapter crate's `build.rs`: reads `certification.json` at the
/// crate's root and writes [`TABLE_FILE`], or fails the build naming the file and every
/// problem.
pub fn build_script() {
    let dir = std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    let out = std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR");
    let path = Path::new(&dir).join(CERTIFICATION_FILE);
    println!("cargo::rerun-if-changed={}", path.display());
    let bytes = std::fs::read(&path)
        .unwrap_or_else(|e| fail(&format!("{} cannot be read: {e}", path.display())));
    let source =
        table_source(&bytes).unwrap_or_else(|problems| fail(&failure_message(&path, &problems)));
    let target = Path::new(&out).join(TABLE_FILE);
    std::fs::write(&target, source)
        .unwrap_or_else(|e| fail(&format!("{} cannot be written: {e}", target.display())));
}

/// Cargo shows a failing build script's stderr; a panic would bury the message in a
/// backtrace hint.
fn fail(message: &str) -> ! {
    eprintln!("error: {message}");
    std::process::exit(1)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::capabilities::Capability;
    use crate::define::testing::{certification_json, evidence_row};
    use crate::error::ProblemCode;

    fn bytes(rows: Vec<serde_json::Value>) -> Vec<u8> {
        serde_json::to_vec(&certification_json(rows)).unwrap()
    }

    #[test]
    fn a_valid_file_becomes_one_entry_per_row_in_file_order() {
        let file = bytes(vec![
            evidence_row("x-cli", "1.2.0", "linux-x64", Capability::BeforeShell, true),
            evidence_row(
                "x-cli",
                "1.0.0",
                "darwin-arm64",
                Capability::NextTurn,
                false,
            ),
        ]);
        let source = table_source(&file).unwrap();
        assert_eq!(
            source,
            "&[\n    ::acc_sdk::certification::table::EvidenceEntry::compiled(\"x-cli\", \"1.2.0\", \
             \"linux-x64\", \"guards.beforeShell\", ::acc_sdk::certification::EvidenceResult::Pass),\n    \
             ::acc_sdk::certification::table::EvidenceEntry::compiled(\"x-cli\", \"1.0.0\", \
             \"darwin-arm64\", \"delivery.nextTurn\", ::acc_sdk::certification::EvidenceResult::Fail),\n]"
        );
    }

    #[test]
    fn text_that_needs_escapes_stays_a_single_literal() {
        let mut row = evidence_row("x-cli", "1.2.0", "linux-x64", Capability::BeforeShell, true);
        row["client"] = json!("a\"b\\c");
        let source = table_source(&bytes(vec![row])).unwrap();
        assert!(
            source.contains(r#"compiled("a\"b\\c", "1.2.0""#),
            "{source}"
        );
    }

    #[test]
    fn an_invalid_file_yields_the_problems_full_validation_reports() {
        let mut row = evidence_row("x-cli", "1.2.0", "linux-x64", Capability::BeforeShell, true);
        row["version"] = json!("latest");
        row["limitations"] = json!("none");
        let file = bytes(vec![row]);
        let problems = table_source(&file).unwrap_err();
        assert_eq!(problems, Certification::from_bytes(&file).unwrap_err());
        let codes: Vec<ProblemCode> = problems.iter().map(|p| p.code).collect();
        assert_eq!(
            codes,
            [
                ProblemCode::EvidenceInexactVersion,
                ProblemCode::EvidenceInvalidLimitations
            ]
        );
        assert_eq!(
            table_source(b"{").unwrap_err()[0].code,
            ProblemCode::InvalidJson
        );
    }

    #[test]
    fn the_build_failure_names_the_file_and_every_problem() {
        let mut row = evidence_row("x-cli", "1.2.0", "linux-x64", Capability::BeforeShell, true);
        row["version"] = json!("latest");
        let problems = table_source(&bytes(vec![row.clone(), row])).unwrap_err();
        let message = failure_message(Path::new("/a/codex/certification.json"), &problems);
        insta::assert_snapshot!(message, @r"
        /a/codex/certification.json is not valid evidence:
          certification.json: evidence[0].version: certification evidence 0 version must be an exact client version [evidence_inexact_version]
          certification.json: evidence[1].version: certification evidence 1 version must be an exact client version [evidence_inexact_version]
          certification.json: evidence[1]: duplicate certification tuple at evidence 1 [duplicate_tuple]
        ");
    }
}
