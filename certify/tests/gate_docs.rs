//! docs/CERTIFY.md documents every check the gate reports, by id, and every command.

#[path = "gate_support/mod.rs"]
mod support;

#[test]
fn every_check_id_and_command_is_documented() {
    let doc = std::fs::read_to_string(support::repo().join("docs/CERTIFY.md")).unwrap();
    let conformance = acc_conformance::checks().iter().map(|c| c.id.as_str());
    let gate = acc_certify::gate::GATE_CHECKS.iter().copied();
    for id in conformance.chain(gate) {
        assert!(
            doc.contains(&format!("| `{id}` |")),
            "docs/CERTIFY.md does not document {id}"
        );
    }
    for command in [
        "validate",
        "explain",
        "native",
        "record",
        "diff-install",
        "wire",
        "matrix",
        "gate",
    ] {
        assert!(
            doc.contains(&format!("\n## {command}\n")),
            "docs/CERTIFY.md has no section for {command}"
        );
    }
}
