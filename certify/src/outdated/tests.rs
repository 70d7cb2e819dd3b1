//! `outdated` against a stand-in registry: no test asks a real one.

use std::collections::BTreeMap;

use super::*;

/// Answers from a table; a package it does not hold is a registry that could not be asked.
struct StandIn(BTreeMap<&'static str, &'static str>);

impl Registry for StandIn {
    fn newest(&self, source: Source) -> Result<String, RegistryError> {
        self.0
            .get(source.package())
            .map(|v| (*v).to_owned())
            .ok_or_else(|| RegistryError {
                registry: registry_name(source),
                package: source.package().to_owned(),
                message: "Network is unreachable (os error 101)".to_owned(),
            })
    }
}

/// Every client's pinned version, as published.
fn published_pins() -> BTreeMap<&'static str, &'static str> {
    Client::all()
        .iter()
        .copied()
        .map(|c| (pin(c).source.package(), pin(c).version))
        .collect()
}

/// A repository whose evidence covers every client's pinned version.
fn repo() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for &client in Client::all() {
        let adapter = dir.path().join("adapters").join(client.id());
        std::fs::create_dir_all(&adapter).unwrap();
        let certification = json!({"evidence": [
            {"version": "0.0.1", "result": "pass"},
            {"version": pin(client).version, "result": "fail"},
        ]});
        std::fs::write(
            adapter.join(CERTIFICATION_FILE),
            serde_json::to_vec(&certification).unwrap(),
        )
        .unwrap();
    }
    dir
}

fn run(registry: &StandIn, repo: &Path, extra: &[&str]) -> (i32, String, String) {
    use clap::Parser;
    #[derive(Parser)]
    struct Wrapper {
        #[command(flatten)]
        args: OutdatedArgs,
    }
    let mut argv = vec!["outdated", "--repo", repo.to_str().unwrap()];
    argv.extend(extra);
    let args = Wrapper::try_parse_from(argv).unwrap().args;
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let code = execute_with(&args, registry, &mut out, &mut err);
    (
        code,
        String::from_utf8(out).unwrap(),
        String::from_utf8(err).unwrap(),
    )
}

#[test]
fn every_client_current_exits_zero() {
    let repo = repo();
    let (code, out, err) = run(&StandIn(published_pins()), repo.path(), &[]);
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(err, "");
    insta::assert_snapshot!("outdated_all_current", out);
}

#[test]
fn a_newer_published_version_is_outdated_with_the_command_to_record_it() {
    let repo = repo();
    let mut answers = published_pins();
    answers.insert("@openai/codex", "0.172.0");
    let (code, out, _) = run(&StandIn(answers.clone()), repo.path(), &[]);
    assert_eq!(code, 1);
    insta::assert_snapshot!("outdated_codex_newer", out);

    let (code, out, _) = run(&StandIn(answers), repo.path(), &["--json"]);
    assert_eq!(code, 1);
    let envelope: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(envelope["ok"], false);
    assert_eq!(envelope["error"]["code"], 1);
    let codex = &envelope["error"]["details"]["clients"][1];
    assert_eq!(codex["client"], "codex");
    assert_eq!(codex["published"], "0.172.0");
    assert_eq!(codex["newestEvidence"], pin(Client::Codex).version);
    assert_eq!(codex["state"], "outdated");
}

#[test]
fn an_unreachable_registry_exits_two_naming_it() {
    let repo = repo();
    let mut answers = published_pins();
    answers.remove("grok-cli-bin");
    let (code, out, err) = run(&StandIn(answers.clone()), repo.path(), &[]);
    assert_eq!(code, 2);
    assert!(out.contains("grok "), "{out}");
    insta::assert_snapshot!("outdated_pypi_unreachable", err);

    let (code, out, err) = run(
        &StandIn(answers),
        repo.path(),
        &["--json", "--client", "grok"],
    );
    assert_eq!((code, err.as_str()), (2, ""));
    let envelope: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        envelope["error"]["message"],
        "could not ask PyPI (grok-cli-bin)"
    );
    assert_eq!(
        envelope["error"]["details"]["clients"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
    assert_eq!(
        envelope["error"]["details"]["clients"][0]["state"],
        "unknown"
    );
}

#[test]
fn a_client_without_evidence_is_outdated() {
    let repo = repo();
    std::fs::remove_file(
        repo.path()
            .join("adapters/kimi-code")
            .join(CERTIFICATION_FILE),
    )
    .unwrap();
    let (code, out, _) = run(
        &StandIn(published_pins()),
        repo.path(),
        &["--client", "kimi-code"],
    );
    assert_eq!(code, 1);
    assert!(out.contains("evidence none"), "{out}");
}

#[test]
fn registry_answers_are_parsed_by_their_clients_shapes() {
    let npm = Source::Npm {
        package: "@openai/codex",
    };
    assert_eq!(parse_answer(npm, "0.171.0\n").as_deref(), Some("0.171.0"));
    assert_eq!(parse_answer(npm, "npm warn x\n"), None);
    let pypi = Source::PyPi {
        package: "grok-cli-bin",
        binary: "grok",
    };
    assert_eq!(
        parse_answer(
            pypi,
            "grok-cli-bin (0.2.111)\nAvailable versions: 0.2.111, 0.0.0\n"
        )
        .as_deref(),
        Some("0.2.111")
    );
    assert_eq!(parse_answer(pypi, "ERROR: No matching distribution"), None);
    assert_eq!(
        newest_evidence(&json!({"evidence": [{"version": "0.9.0"}, {"version": "0.10.0"}]}))
            .as_deref(),
        Some("0.10.0")
    );
}
