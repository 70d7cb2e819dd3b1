//! `acc-certify matrix`: docs/CAPABILITIES.md is generated from the evidence, never by
//! hand; `--check` fails on drift, and so does the gate.

#[path = "gate_support/mod.rs"]
mod support;

use support::{certify, certify_in, copy_root};

#[test]
fn the_committed_matrix_matches_the_evidence() {
    let run = certify(&["matrix", "--check"]);
    assert_eq!(
        (run.code, run.stdout.as_str()),
        (0, "docs/CAPABILITIES.md matches the evidence\n"),
        "regenerate it with `cargo run -p acc-certify -- matrix`: {}",
        run.stderr
    );
}

#[test]
fn writing_is_deterministic_and_check_finds_drift() {
    let root = copy_root();
    let doc = root.path().join("docs/CAPABILITIES.md");
    std::fs::remove_file(&doc).unwrap();
    let root_arg = root.path().to_str().unwrap();
    let run = certify_in(root.path(), &["matrix", "--check", "--root", root_arg], &[]);
    assert_eq!(run.code, 1);
    assert_eq!(
        run.stdout,
        "docs/CAPABILITIES.md is missing; generate it with acc-certify matrix\n"
    );

    let run = certify_in(root.path(), &["matrix", "--root", root_arg], &[]);
    assert_eq!(run.code, 0);
    assert!(
        run.stdout
            .starts_with("wrote docs/CAPABILITIES.md: 9 adapters x 14 capabilities")
    );
    let written = std::fs::read_to_string(&doc).unwrap();
    assert_eq!(
        written,
        std::fs::read_to_string(support::repo().join("docs/CAPABILITIES.md")).unwrap()
    );
    let run = certify_in(root.path(), &["matrix", "--root", root_arg], &[]);
    assert!(
        run.stdout.starts_with("unchanged docs/CAPABILITIES.md"),
        "{}",
        run.stdout
    );

    std::fs::write(&doc, written.replacen("yes (", "yes(", 1)).unwrap();
    let run = certify_in(
        root.path(),
        &["matrix", "--check", "--root", root_arg, "--json"],
        &[],
    );
    assert_eq!(run.code, 1);
    let v = run.json();
    assert_eq!(v["error"]["code"], 1);
    let message = v["error"]["message"].as_str().unwrap();
    assert!(
        message.starts_with("docs/CAPABILITIES.md differs from the evidence at line "),
        "{message}"
    );

    let out = tempfile::tempdir().unwrap();
    let run = certify_in(
        root.path(),
        &[
            "gate",
            "--root",
            root_arg,
            "--out",
            out.path().to_str().unwrap(),
        ],
        &[],
    );
    assert_eq!(run.code, 1);
    assert!(
        run.stdout.contains(
            "FAIL     cert.matrix.drift: docs/CAPABILITIES.md differs from the evidence at line "
        ),
        "{}",
        run.stdout
    );
}

#[test]
fn a_granted_cell_names_its_evidence_and_a_recorded_failure_shows() {
    let root = copy_root();
    let (id, index, row) = support::first_evidence(root.path());
    let doc = std::fs::read_to_string(support::repo().join("docs/CAPABILITIES.md")).unwrap();
    let capability = row["capability"].as_str().unwrap();
    let line = doc
        .lines()
        .find(|l| l.starts_with(&format!("| `{capability}` |")))
        .unwrap();
    let adapter = acc_runtime::registry::find(&id).unwrap();
    if adapter
        .manifest()
        .capabilities
        .get(acc_sdk::capabilities::Capability::parse(capability).unwrap())
    {
        assert!(
            line.contains(&format!(
                "yes ({}, {})",
                row["version"].as_str().unwrap(),
                row["platform"].as_str().unwrap()
            )),
            "{line}"
        );
    }
    // A failure recorded at a newer version wins: the cell says so, with the version.
    let file = root
        .path()
        .join("adapters")
        .join(&id)
        .join("certification.json");
    let mut cert: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
    let mut newer = cert["evidence"][index].clone();
    newer["version"] = "999.0.0".into();
    newer["result"] = "fail".into();
    cert["evidence"].as_array_mut().unwrap().push(newer);
    std::fs::write(&file, cert.to_string()).unwrap();
    let out = root.path().join("docs/CAPABILITIES.md");
    let run = certify_in(
        root.path(),
        &["matrix", "--root", root.path().to_str().unwrap()],
        &[],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let regenerated = std::fs::read_to_string(out).unwrap();
    let line = regenerated
        .lines()
        .find(|l| l.starts_with(&format!("| `{capability}` |")))
        .unwrap();
    assert!(line.contains("no: recorded-failure (999.0.0)"), "{line}");
}

#[test]
fn help_and_snapshot() {
    let run = certify(&["matrix", "--help"]);
    assert_eq!(run.code, 0);
    insta::assert_snapshot!("matrix_help", run.stdout);
}

#[test]
fn the_kernel_guard_section_is_judged_again_from_the_committed_captures() {
    let root = copy_root();
    let regenerate = || {
        let run = certify_in(
            root.path(),
            &["matrix", "--root", root.path().to_str().unwrap()],
            &[],
        );
        assert_eq!(run.code, 0, "{}", run.stderr);
        std::fs::read_to_string(root.path().join("docs/CAPABILITIES.md")).unwrap()
    };
    let line_of = |doc: &str, id: &str| {
        doc.lines()
            .skip_while(|l| *l != "## Kernel guard")
            .find(|l| l.starts_with(&format!("- `{id}` (")))
            .unwrap_or_default()
            .to_string()
    };
    let doc = regenerate();
    assert!(line_of(&doc, "claude-code").contains("): held: "), "{doc}");
    assert!(
        line_of(&doc, "codex").contains("): not used; the claimed file kept its bytes: "),
        "{doc}"
    );
    // The capture as it would read had the command's write reached the claim.
    let bundle = std::fs::read_dir(root.path().join("captures"))
        .unwrap()
        .flatten()
        .map(|e| e.path().join("guard-opaque/observations.json"))
        .find(|p| {
            p.exists()
                && std::fs::read_to_string(p)
                    .unwrap()
                    .contains("\"adapter\": \"claude-code\"")
        })
        .expect("Claude Code's guard-opaque capture");
    let mut obs: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&bundle).unwrap()).unwrap();
    for file in obs["files"].as_array_mut().unwrap() {
        if file["path"] == "src/x" {
            file["sha256"] = "0".repeat(64).into();
        }
    }
    std::fs::write(&bundle, serde_json::to_vec_pretty(&obs).unwrap()).unwrap();
    let line = line_of(&regenerate(), "claude-code");
    assert!(
        line.contains("did not hold; the claimed file was changed")
            && line.contains("the opaque command's write reached the claim"),
        "{line}"
    );
}

#[test]
fn the_index_counts_are_generated_and_a_hand_edit_is_drift() {
    let root = copy_root();
    let root_arg = root.path().to_str().unwrap();
    let index = root.path().join("docs/index.md");
    let committed = std::fs::read_to_string(&index).unwrap();
    let claude = committed
        .lines()
        .find(|l| l.starts_with("- [Claude Code]"))
        .expect("the index has a generated Claude Code line")
        .to_owned();
    assert!(claude.contains(" of 14 capabilities certified"), "{claude}");

    // A count written by hand is drift, for `matrix --check` and for the gate alike.
    let edited = committed.replacen(
        &claude,
        "- [Claude Code](x): six capabilities certified.",
        1,
    );
    std::fs::write(&index, &edited).unwrap();
    let run = certify_in(root.path(), &["matrix", "--check", "--root", root_arg], &[]);
    assert_eq!(run.code, 1, "{}", run.stdout);
    assert!(
        run.stdout.starts_with(
            "docs/index.md's per-client lines differ from the evidence: expected \"- [Claude Code]"
        ),
        "{}",
        run.stdout
    );

    // Regenerating restores the committed bytes and touches nothing outside the markers.
    let run = certify_in(root.path(), &["matrix", "--root", root_arg], &[]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stdout
            .contains("wrote docs/index.md: its per-client lines"),
        "{}",
        run.stdout
    );
    assert_eq!(std::fs::read_to_string(&index).unwrap(), committed);

    // Without its markers the index cannot be regenerated, and the message says what to do.
    std::fs::write(&index, "# Documentation map\n").unwrap();
    let run = certify_in(root.path(), &["matrix", "--check", "--root", root_arg], &[]);
    assert_eq!(run.code, 1);
    assert!(run.stdout.contains("put them back"), "{}", run.stdout);
}
