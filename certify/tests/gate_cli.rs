//! `acc-certify gate` end to end, on a disposable copy of the repository: it passes as
//! committed and writes the same reports twice; a changed byte in a fixture or a raw
//! capture and a hand-edited evidence row fail it, naming the file and the check; a
//! baseline expects failures and goes stale; it cannot run without its inputs.

#[path = "gate_support/mod.rs"]
mod support;

use std::path::Path;

use serde_json::Value;
use support::{certify_in, copy_root, first_evidence};

fn gate(root: &Path, out: &Path, extra: &[&str], env: &[(&str, &str)]) -> support::Run {
    let mut args = vec![
        "gate",
        "--root",
        root.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    certify_in(root, &args, env)
}

fn report(out: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(out.join("report.json")).unwrap()).unwrap()
}

fn result<'a>(report: &'a Value, check: &str, adapter: &str) -> &'a Value {
    report["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["check"] == check && r["adapter"] == adapter)
        .unwrap_or_else(|| panic!("no {check} result for {adapter}"))
}

#[test]
fn the_committed_repository_passes_and_the_reports_are_deterministic() {
    let root = copy_root();
    let outs = [tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap()];
    let first = gate(root.path(), outs[0].path(), &[], &[]);
    assert_eq!(first.code, 0, "{}\n{}", first.stdout, first.stderr);
    let second = gate(root.path(), outs[1].path(), &[], &[]);
    assert_eq!(second.code, 0);
    for file in ["report.json", "junit.xml"] {
        let a = std::fs::read(outs[0].path().join(file)).unwrap();
        let b = std::fs::read(outs[1].path().join(file)).unwrap();
        assert_eq!(a, b, "{file} differs between two runs");
    }
    let report = report(outs[0].path());
    assert_eq!(report["schema"], "acc-certify.gate/1");
    assert_eq!(report["passed"], true);
    let results = report["results"].as_array().unwrap();
    let adapters = report["adapters"].as_array().unwrap();
    let per_adapter = acc_conformance::checks().len() + 4;
    assert_eq!(results.len(), adapters.len() * per_adapter + 1);
    let keys: Vec<(String, String)> = results
        .iter()
        .map(|r| {
            (
                r["check"].as_str().unwrap().to_owned(),
                r["adapter"].as_str().unwrap_or("").to_owned(),
            )
        })
        .collect();
    let mut sorted = keys.clone();
    sorted.sort();
    assert_eq!(keys, sorted, "results are sorted by check, then adapter");
    for check in acc_conformance::checks() {
        for adapter in adapters {
            result(&report, check.id.as_str(), adapter.as_str().unwrap());
        }
    }
    let text =
        String::from_utf8(std::fs::read(outs[0].path().join("report.json")).unwrap()).unwrap();
    assert!(!text.contains("/tmp"), "no machine path in the report");

    let junit = std::fs::read_to_string(outs[0].path().join("junit.xml")).unwrap();
    assert_eq!(junit.matches("<testcase ").count(), results.len());
    assert!(junit.contains("failures=\"0\""));

    assert!(first.stderr.contains("gate: codex: "), "{}", first.stderr);
    let stdout = support::redact(&first.stdout, outs[0].path(), "<out>");
    insta::assert_snapshot!("gate_pass_output", stdout);
}

#[test]
fn a_changed_byte_in_a_fixture_fails_naming_the_file_and_the_check() {
    let root = copy_root();
    let out = tempfile::tempdir().unwrap();
    let (id, _, row) = first_evidence(root.path());
    let fixture_rel = row["fixture"].as_str().unwrap();
    let fixture = root.path().join("adapters").join(&id).join(fixture_rel);
    let mut bytes = std::fs::read(&fixture).unwrap();
    let at = bytes.iter().position(u8::is_ascii_lowercase).unwrap();
    bytes[at] = bytes[at].to_ascii_uppercase();
    std::fs::write(&fixture, bytes).unwrap();

    let run = gate(root.path(), out.path(), &[], &[("GITHUB_ACTIONS", "true")]);
    assert_eq!(run.code, 1, "{}", run.stdout);
    let line = run
        .stdout
        .lines()
        .find(|l| l.starts_with(&format!("FAIL     cert.validate [{id}]")))
        .unwrap_or_else(|| panic!("no cert.validate failure:\n{}", run.stdout));
    assert!(
        line.contains(&format!("adapters/{id}/")) && line.contains(fixture_rel),
        "{line}"
    );
    assert!(line.contains("digest_mismatch"), "{line}");
    let report = report(out.path());
    assert_eq!(report["passed"], false);
    let validate = result(&report, "cert.validate", &id);
    assert_eq!(validate["status"], "fail");
    assert!(validate["message"].as_str().unwrap().contains(fixture_rel));
    assert_eq!(
        result(&report, "conf.manifest.valid", &id)["status"],
        "fail"
    );
    assert!(
        run.stdout.contains(&format!(
            "::error file=adapters/{id}/fixtures/certification-provenance.json,title=cert.validate::[{id}] "
        )),
        "a GitHub annotation names the file and the check:\n{}",
        run.stdout
    );
    let junit = std::fs::read_to_string(out.path().join("junit.xml")).unwrap();
    assert!(junit.contains("<failure type=\"fail\""));
}

#[test]
fn a_changed_byte_in_a_raw_capture_fails_the_evidence_replay() {
    let root = copy_root();
    let out = tempfile::tempdir().unwrap();
    let (id, _, row) = first_evidence(root.path());
    let fixture: Value = serde_json::from_slice(
        &std::fs::read(
            root.path()
                .join("adapters")
                .join(&id)
                .join(row["fixture"].as_str().unwrap()),
        )
        .unwrap(),
    )
    .unwrap();
    let bundle = fixture["bundle"].as_str().unwrap();
    let observations = root.path().join(bundle).join("observations.json");
    let mut text = std::fs::read_to_string(&observations).unwrap();
    text.push(' ');
    std::fs::write(&observations, text).unwrap();

    let run = gate(root.path(), out.path(), &[], &[]);
    assert_eq!(run.code, 1);
    let replay = result(&report(out.path()), "cert.evidence.replay", &id).clone();
    assert_eq!(replay["status"], "fail");
    let message = replay["message"].as_str().unwrap();
    assert!(
        message.contains(&format!("{bundle}/observations.json hashes to")),
        "{message}"
    );
}

#[test]
fn a_hand_edited_evidence_row_fails_naming_the_file_and_the_row() {
    let root = copy_root();
    let out = tempfile::tempdir().unwrap();
    let (id, index, _) = first_evidence(root.path());
    let file = root
        .path()
        .join("adapters")
        .join(&id)
        .join("certification.json");
    let mut cert: Value = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
    cert["evidence"][index]["result"] = Value::from("fail");
    std::fs::write(&file, serde_json::to_string_pretty(&cert).unwrap()).unwrap();

    let run = gate(root.path(), out.path(), &[], &[]);
    assert_eq!(run.code, 1);
    let line = run
        .stdout
        .lines()
        .find(|l| l.starts_with(&format!("FAIL     cert.evidence.replay [{id}]")))
        .unwrap_or_else(|| panic!("no replay failure:\n{}", run.stdout));
    assert!(
        line.contains(&format!(
            "adapters/{id}/certification.json evidence[{index}]"
        )),
        "{line}"
    );
    assert!(line.contains("says fail but judging"), "{line}");
    let replay = result(&report(out.path()), "cert.evidence.replay", &id).clone();
    assert_eq!(
        replay["file"],
        Value::from(format!("adapters/{id}/certification.json"))
    );
}

#[test]
fn a_baseline_expects_failures_and_fails_when_stale() {
    let root = copy_root();
    let out = tempfile::tempdir().unwrap();
    let (id, _, row) = first_evidence(root.path());
    let fixture = root
        .path()
        .join("adapters")
        .join(&id)
        .join(row["fixture"].as_str().unwrap());
    let mut text = std::fs::read_to_string(&fixture).unwrap();
    text.push('\n');
    std::fs::write(&fixture, text).unwrap();

    // Every failure the broken fixture causes, as a baseline.
    let run = gate(root.path(), out.path(), &[], &[]);
    assert_eq!(run.code, 1);
    let failing: Vec<String> = report(out.path())["results"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["status"] == "fail")
        .map(|r| {
            format!(
                "{}:{}",
                r["check"].as_str().unwrap(),
                r["adapter"].as_str().unwrap()
            )
        })
        .collect();
    assert!(
        failing.contains(&format!("cert.validate:{id}")),
        "{failing:?}"
    );
    let listed = format!("# known until re-recorded\n{}\n", failing.join("\n"));
    let baseline = root.path().join("baseline.txt");
    std::fs::write(&baseline, &listed).unwrap();
    let path = baseline.to_str().unwrap();
    let run = gate(root.path(), out.path(), &["--baseline", path], &[]);
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert!(run.stdout.contains(&format!(
        "EXPECTED cert.validate [{id}]: expected by {path}:"
    )));
    assert_eq!(
        result(&report(out.path()), "cert.validate", &id)["status"],
        "expected-failure"
    );
    assert_eq!(report(out.path())["baseline"], path);

    std::fs::write(&baseline, format!("{listed}cert.wire:{id}\n")).unwrap();
    let run = gate(root.path(), out.path(), &["--baseline", path], &[]);
    assert_eq!(run.code, 1, "{}", run.stdout);
    let stale = result(&report(out.path()), "cert.wire", &id).clone();
    assert_eq!(stale["status"], "stale-baseline");
    assert_eq!(
        stale["message"],
        Value::from(format!(
            "{path}:{} lists cert.wire:{id} as an expected failure, but it does not fail now: remove the line",
            failing.len() + 2
        ))
    );
}

#[test]
fn json_is_one_envelope_carrying_the_report() {
    let root = copy_root();
    let out = tempfile::tempdir().unwrap();
    let run = gate(
        root.path(),
        out.path(),
        &["--json"],
        &[("GITHUB_ACTIONS", "true")],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let v = run.json();
    assert_eq!(v["ok"], true);
    assert_eq!(v["data"]["report"]["schema"], "acc-certify.gate/1");
    assert_eq!(v["data"]["report"], report(out.path()));
}

#[test]
fn it_could_not_run_without_adapters_a_readable_baseline_or_acc_hook() {
    let root = copy_root();
    let out = tempfile::tempdir().unwrap();
    let empty = tempfile::tempdir().unwrap();
    let run = gate(empty.path(), out.path(), &[], &[]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.contains("has no adapters/ directory"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.ends_with("[certify.no-adapters]\n"),
        "{}",
        run.stderr
    );

    let run = gate(
        root.path(),
        out.path(),
        &["--baseline", "/nonexistent/baseline"],
        &[],
    );
    assert_eq!(run.code, 2);
    assert!(
        run.stderr
            .contains("cannot read the baseline /nonexistent/baseline")
    );

    let bad = root.path().join("bad-baseline");
    std::fs::write(&bad, "conf.ok\nnot a check id\n").unwrap();
    let run = gate(
        root.path(),
        out.path(),
        &["--baseline", bad.to_str().unwrap()],
        &[],
    );
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("bad-baseline:2:"), "{}", run.stderr);

    let run = gate(
        root.path(),
        out.path(),
        &["--json"],
        &[("ACC_HOOK_EXECUTABLE", "/nonexistent/acc-hook")],
    );
    assert_eq!(run.code, 2);
    let v = run.json();
    assert_eq!(v["error"]["code"], 2);
    assert!(
        v["error"]["message"]
            .as_str()
            .unwrap()
            .contains("build it: cargo build -p acc-runtime")
    );
}

#[test]
fn help_documents_the_exit_codes() {
    let run = support::certify(&["gate", "--help"]);
    assert_eq!(run.code, 0);
    insta::assert_snapshot!("gate_help", run.stdout);
}
