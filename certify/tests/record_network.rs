//! A recording runs offline: `acc-certify record` runs its clients in a network namespace
//! holding only loopback, so a stand-in client that reaches for an address other than
//! 127.0.0.1 reaches nothing and the attempt is recorded as refused (not a failure); one that
//! only talks to its model double records no attempt at all. Stand-in `acc`/`acc-hook`, a temporary cache
//! and repository, everything else real (the sandbox, the double, strace and the refusing
//! proxy that watch the client).

mod record_support;

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use acc_certify::record::kit::tuple::current_platform;
use assert_cmd::Command;
use record_support::repo;
use serde_json::Value;

const VERSION: &str = "9.9.8";

fn executable(path: &Path, body: &str) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, format!("#!/bin/bash\n{body}\n")).unwrap();
    fs::set_permissions(path, fs::Permissions::from_mode(0o755)).unwrap();
}

/// Records `guard-shell` (and its solo control) with a stand-in Claude Code whose run is
/// `body`; returns the certification and the guard-shell observations.
fn record(body: &str) -> (Value, Value) {
    let cache = tempfile::tempdir().unwrap();
    let install = cache.path().join(format!("claude-code-{VERSION}"));
    executable(
        &install.join("node_modules/.bin/claude"),
        &format!(
            "if [ \"$1\" = --version ]; then echo '{VERSION} (Claude Code)'; exit 0; fi\n{body}\nexit 0"
        ),
    );
    fs::write(
        install.join(".acc-certify-complete"),
        format!("{VERSION}\n"),
    )
    .unwrap();
    let bin = tempfile::tempdir().unwrap();
    executable(&bin.path().join("acc"), "exit 0");
    executable(&bin.path().join("acc-hook"), "exit 0");
    let (repo, adapter) = repo();
    Command::cargo_bin("acc-certify")
        .unwrap()
        .args([
            "record",
            "--client",
            "claude-code",
            "--version",
            VERSION,
            "--timeout",
            "60",
            "--scenario",
            "guard-shell",
        ])
        .arg("--repo")
        .arg(repo.path())
        .arg("--bin-dir")
        .arg(bin.path())
        .env("ACC_CERTIFY_CACHE", cache.path())
        .assert()
        .success();
    let certification: Value =
        serde_json::from_slice(&fs::read(adapter.join("certification.json")).unwrap()).unwrap();
    let observations = repo
        .path()
        .join("captures")
        .join(format!("claude-code-{VERSION}-{}", current_platform()))
        .join("guard-shell/observations.json");
    let observations: Value = serde_json::from_slice(&fs::read(observations).unwrap()).unwrap();
    (certification, observations)
}

fn limitations(certification: &Value) -> Vec<String> {
    certification["evidence"][0]["limitations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l.as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn a_client_that_tries_another_address_is_refused_and_the_attempt_recorded() {
    // A client that needed the address would show it in its scenario's own checks (here
    // its hooks never fire anyway); the namespace itself is tested in clients::offline.
    let (certification, observations) = record("exec 3<>/dev/tcp/203.0.113.7/443 2>/dev/null");
    let limitations = limitations(&certification);
    assert!(
        !limitations.iter().any(|l| l.contains("tried to reach")),
        "a refused attempt is no reason to fail: {limitations:?}"
    );
    assert_eq!(
        observations["run"]["network"],
        serde_json::json!([{"kind": "connect", "target": "203.0.113.7:443", "refused": true}])
    );
}

#[test]
fn a_client_that_only_talks_to_its_double_records_no_network_failure() {
    let (certification, observations) = record(
        r#"base=${ANTHROPIC_BASE_URL#http://}
exec 3<>/dev/tcp/${base%:*}/${base##*:}
printf 'GET /v1/models HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n' >&3
cat <&3 >/dev/null"#,
    );
    // It still fails: its hooks never fire. But not for the network.
    let limitations = limitations(&certification);
    assert!(
        !limitations.iter().any(|l| l.contains("tried to reach")),
        "{limitations:?}"
    );
    assert_eq!(observations["run"].get("network"), None, "{observations}");
    assert!(
        observations["requests"].as_array().unwrap().len() == 1,
        "the double saw the client's request: {}",
        observations["requests"]
    );
}
