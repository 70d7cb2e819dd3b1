//! Reading the running client's version from Claude Code's per-pid session record.

use std::collections::BTreeMap;
use std::path::Path;

use acc_adapter_claude_code::Behaviour;
use acc_sdk::adapter::{AdapterBehaviour, ProcessEntry};

/// The record Claude Code 2.1.332 kept for pid 17169 during a real headless run (paths
/// replaced).
const REAL_RECORD: &str = r#"{"pid":17169,"sessionId":"2add481a-8204-48d1-a766-b564780a2b62","cwd":"/sandbox/ws","startedAt":1796215641331,"procStart":"413195","version":"2.1.332","peerProtocol":1,"peerFeatures":["notify_idle","reply_across_default_dirs","artifact_yield"],"kind":"interactive","entrypoint":"sdk-cli","pidDomain":"linux:3d1219c7c4c5404aaa1f6d2a48adfda4:pid:[4026531836]","asksForConvertedSkills":null,"messagingSocketPath":"/sandbox/tmp/cc-socks/17169.sock","name":"ws-eb","nameSource":"derived","nameSince":1796215641331,"status":"busy","updatedAt":1796215641364,"statusUpdatedAt":1796215641364}"#;

fn write_record(config: &Path, pid: u32, text: &str) {
    let dir = config.join("sessions");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join(format!("{pid}.json")), text).unwrap();
}

fn env(pairs: &[(&str, &Path)]) -> BTreeMap<String, String> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string_lossy().into_owned()))
        .collect()
}

fn version(pid: u32, env: &BTreeMap<String, String>) -> Option<String> {
    Behaviour.client_version_of(pid, &ProcessEntry::default(), env)
}

#[test]
fn the_record_under_home_names_the_running_version() {
    let home = tempfile::tempdir().unwrap();
    write_record(&home.path().join(".claude"), 17169, REAL_RECORD);
    let env = env(&[("HOME", home.path())]);
    assert_eq!(version(17169, &env).as_deref(), Some("2.1.332"));
    assert_eq!(version(17170, &env), None, "no record for another pid");
}

#[test]
fn claude_config_dir_wins_over_home() {
    let home = tempfile::tempdir().unwrap();
    let config = tempfile::tempdir().unwrap();
    write_record(
        &home.path().join(".claude"),
        7,
        r#"{"pid":7,"version":"2.1.300"}"#,
    );
    write_record(config.path(), 7, r#"{"pid":7,"version":"2.1.332"}"#);
    let both = env(&[("HOME", home.path()), ("CLAUDE_CONFIG_DIR", config.path())]);
    assert_eq!(version(7, &both).as_deref(), Some("2.1.332"));
    assert_eq!(
        version(7, &BTreeMap::new()),
        None,
        "no HOME, no config dir: nothing to read"
    );
}

#[test]
fn a_record_that_is_not_this_pids_or_not_a_record_is_ignored() {
    let home = tempfile::tempdir().unwrap();
    let config = home.path().join(".claude");
    let env = env(&[("HOME", home.path())]);
    for (pid, text) in [
        (1, r#"{"pid":2,"version":"2.1.332"}"#),
        (3, r#"{"version":"2.1.332"}"#),
        (4, r#"{"pid":4}"#),
        (5, r#"{"pid":5,"version":""}"#),
        (6, "not json"),
        (8, "[]"),
    ] {
        write_record(&config, pid, text);
        assert_eq!(version(pid, &env), None, "{text}");
    }
    let padded = format!(
        r#"{{"pid":9,"version":"2.1.332","pad":"{}"}}"#,
        "x".repeat(70_000)
    );
    write_record(&config, 9, &padded);
    assert_eq!(version(9, &env), None, "an oversized file is not read");
}

#[test]
fn the_session_version_comes_from_the_record_before_any_probe() {
    let home = tempfile::tempdir().unwrap();
    write_record(&home.path().join(".claude"), 17169, REAL_RECORD);
    let adapter = acc_adapter_claude_code::adapter();
    let resolved = acc_sdk::identity::ResolvedClient {
        pid: 17169,
        entry: ProcessEntry {
            pid: 17169,
            ppid: 1,
            comm: "claude".into(),
            args: vec!["claude".into()],
            exe: None,
        },
        certification_name: "claude-code".into(),
        version: None,
    };
    // No PATH: had the record not answered, there would be nothing to run.
    let found = acc_sdk::identity::session_version(
        &resolved,
        &adapter.manifest().client,
        adapter.behaviour(),
        &env(&[("HOME", home.path())]),
        std::time::Duration::from_millis(50),
    );
    assert_eq!(found.as_deref(), Some("2.1.332"));
}
