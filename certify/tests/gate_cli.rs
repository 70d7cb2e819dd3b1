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

/// The `time="..."` attribute of one XML element, as seconds.
fn time_of(element: &str) -> Option<f64> {
    let at = element.find(" time=\"")? + " time=\"".len();
    let end = element[at..].find('"')?;
    element[at..at + end].parse().ok()
}

/// Every test case (and suite) carries `time` in seconds, and the times are measured: the
/// sandboxed installs of diff-install and wire take more than a millisecond.
fn assert_every_testcase_is_timed(junit: &str) {
    let mut total = 0.0;
    let mut cases = 0;
    for element in junit
        .lines()
        .map(str::trim_start)
        .filter(|l| l.starts_with("<testcase ") || l.starts_with("<testsuite"))
    {
        let seconds = time_of(element).unwrap_or_else(|| panic!("no time: {element}"));
        assert!(seconds >= 0.0, "{element}");
        if element.starts_with("<testcase ") {
            total += seconds;
            cases += 1;
        }
    }
    assert!(cases > 0, "{junit}");
    assert!(
        total > 0.0,
        "times are measured, not written as zero: {junit}"
    );
}

/// `junit.xml` with every measured time blanked.
fn without_times(junit: &str) -> String {
    let mut out = String::new();
    let mut rest = junit;
    while let Some(at) = rest.find(" time=\"") {
        let value = at + " time=\"".len();
        let end = value + rest[value..].find('"').unwrap();
        out.push_str(&rest[..value]);
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
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
    let a = std::fs::read(outs[0].path().join("report.json")).unwrap();
    let b = std::fs::read(outs[1].path().join("report.json")).unwrap();
    assert_eq!(a, b, "report.json differs between two runs");
    let junits: Vec<String> = outs
        .iter()
        .map(|o| std::fs::read_to_string(o.path().join("junit.xml")).unwrap())
        .collect();
    assert_eq!(
        without_times(&junits[0]),
        without_times(&junits[1]),
        "junit.xml differs between two runs beyond its measured times"
    );
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

    let junit = &junits[0];
    assert_eq!(junit.matches("<testcase ").count(), results.len());
    assert!(junit.contains("failures=\"0\""));
    assert_every_testcase_is_timed(junit);

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

/// The failures of a gate run, by `check:adapter`.
fn failures(report: &Value) -> Vec<(String, Value)> {
    report["results"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["status"] == "fail")
        .map(|r| {
            let key = format!(
                "{}:{}",
                r["check"].as_str().unwrap(),
                r["adapter"].as_str().unwrap_or("")
            );
            (key, r.clone())
        })
        .collect()
}

/// One hand-edited evidence row breaks the validation, the manifest check, the replay of
/// that row and the matrix: the gate reports one root cause and names the others it
/// implies, counted apart from root causes.
#[test]
fn a_hand_edited_evidence_row_is_one_root_cause_naming_what_it_implies() {
    let before_root = copy_root();
    let before_out = tempfile::tempdir().unwrap();
    assert!(gate(before_root.path(), before_out.path(), &[], &[]).code <= 1);
    let before = report(before_out.path());

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

    let run = gate(root.path(), out.path(), &[], &[("GITHUB_ACTIONS", "true")]);
    assert_eq!(run.code, 1);
    let after = report(out.path());
    let validate_key = format!("cert.validate:{id}");
    let cert_file = format!("adapters/{id}/certification.json");

    // Exactly one new root cause: cert.validate, naming the edited file.
    assert_eq!(
        after["summary"]["rootCauses"].as_u64().unwrap(),
        before["summary"]["rootCauses"].as_u64().unwrap() + 1,
        "{}",
        run.stdout
    );
    let validate = result(&after, "cert.validate", &id);
    assert_eq!(validate["impliedBy"], Value::Null);
    assert_eq!(validate["file"], Value::from(cert_file.clone()));
    assert!(
        validate["message"]
            .as_str()
            .unwrap()
            .contains(&format!("evidence[{index}].result")),
        "{validate}"
    );

    // Every other failure the edit added is implied by it, and says so.
    let was_failing: Vec<String> = failures(&before).into_iter().map(|(k, _)| k).collect();
    let added: Vec<(String, Value)> = failures(&after)
        .into_iter()
        .filter(|(k, _)| !was_failing.contains(k) && *k != validate_key)
        .collect();
    let added_keys: Vec<&str> = added.iter().map(|(k, _)| k.as_str()).collect();
    assert!(
        added_keys.contains(&format!("conf.manifest.valid:{id}").as_str())
            && added_keys.contains(&"cert.matrix.drift:"),
        "{added_keys:?}"
    );
    for (key, r) in &added {
        let causes = r["impliedBy"]["causes"]
            .as_array()
            .unwrap_or_else(|| panic!("{key} is not implied: {r}"));
        assert!(
            causes.iter().any(|c| c["check"] == "cert.validate"
                && c["adapter"] == id.as_str()
                && c["file"] == cert_file.as_str()),
            "{key}: {r}"
        );
        let label = match r["adapter"].as_str() {
            Some(a) => format!("{} [{a}]", r["check"].as_str().unwrap()),
            None => r["check"].as_str().unwrap().to_owned(),
        };
        let line = format!("IMPLIED  {label}: implied by cert.validate [{id}] ({cert_file}): ");
        assert!(run.stdout.contains(&line), "{line}\n{}", run.stdout);
    }
    assert_eq!(
        after["summary"]["implied"].as_u64().unwrap(),
        before["summary"]["implied"].as_u64().unwrap()
            + added.len() as u64
            + u64::from(
                result(&after, "cert.evidence.replay", &id)["impliedBy"] != Value::Null
                    && result(&before, "cert.evidence.replay", &id)["status"] == "fail"
            )
    );

    // The replay's finding on the edited row is not a second root cause: either the whole
    // replay is implied, or it keeps only findings of its own and points at the root.
    let replay = result(&after, "cert.evidence.replay", &id);
    assert_eq!(replay["status"], "fail");
    let row_line = format!("{cert_file} evidence[{index}] (");
    match replay["impliedBy"].as_object() {
        Some(implied) => assert!(
            implied["why"]
                .as_str()
                .unwrap()
                .starts_with(&format!("evidence[{index}] of certification.json")),
            "{replay}"
        ),
        None => {
            let message = replay["message"].as_str().unwrap();
            assert!(!message.contains(&row_line), "{message}");
            assert!(
                message.contains(&format!(
                    "1 finding implied by cert.validate [{id}] ({cert_file}): evidence[{index}]"
                )),
                "{message}"
            );
        }
    }

    // People read the root cause once, with what it implies on the next line.
    let lines: Vec<&str> = run.stdout.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.starts_with(&format!("FAIL     cert.validate [{id}]: ")))
        .unwrap_or_else(|| panic!("{}", run.stdout));
    let implies = lines[at + 1];
    assert!(implies.starts_with("         implies: "), "{implies}");
    assert!(
        implies.contains(&format!("conf.manifest.valid [{id}]"))
            && implies.contains("cert.matrix.drift"),
        "{implies}"
    );
    assert!(
        run.stdout
            .lines()
            .filter(|l| !l.starts_with("::error ") && l.contains("differs from provenance record"))
            .count()
            == 1,
        "the validation problem is said once:\n{}",
        run.stdout
    );
    let annotations: Vec<&str> = lines
        .iter()
        .copied()
        .filter(|l| l.starts_with("::error "))
        .collect();
    assert!(
        !annotations
            .iter()
            .any(|l| l.contains("title=conf.manifest.valid")
                || l.contains("title=cert.matrix.drift")),
        "implied failures are not annotated again: {annotations:?}"
    );
    let junit = std::fs::read_to_string(out.path().join("junit.xml")).unwrap();
    assert_every_testcase_is_timed(&junit);
    assert!(
        junit.contains(&format!(
            "message=\"implied by cert.validate [{id}] ({cert_file}): "
        )),
        "{junit}"
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
