//! `acc-certify record --scenario coordinate` end to end, offline: stand-in clients at the
//! pinned versions in a temporary cache (they answer `--version` and otherwise do nothing,
//! as clients whose hooks never fire), stand-in `acc`/`acc-hook`, a temporary repository.
//! Everything else is real: the shared sandbox, both doubles, acc's installer and store, the
//! judge and the pair bundles.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use acc_certify::clients::Client;
use acc_certify::record::output::bundle::OBSERVATIONS_FILE;
use acc_certify::record::scenarios::coordinate::PAIRS;
use assert_cmd::Command;
use serde_json::Value;

fn executable(path: &Path, body: &str) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, format!("#!/bin/sh\n{body}\n")).unwrap();
    fs::set_permissions(path, fs::Permissions::from_mode(0o755)).unwrap();
}

struct World {
    cache: tempfile::TempDir,
    bin: tempfile::TempDir,
    repo: tempfile::TempDir,
}

/// What each stand-in answers to `--version`, as the real client would.
fn version_line(client: Client) -> String {
    let version = client.pinned_version();
    match client {
        Client::ClaudeCode => format!("{version} (Claude Code)"),
        Client::Codex => format!("codex-cli {version}"),
        _ => version.to_owned(),
    }
}

fn world() -> World {
    let cache = tempfile::tempdir().unwrap();
    let repo = tempfile::tempdir().unwrap();
    // Every client of a pair, each as its registry package installs it.
    let mut clients: Vec<Client> = Vec::new();
    for pair in PAIRS.iter() {
        for client in [pair.owner, pair.asker] {
            if !clients.contains(&client) {
                clients.push(client);
            }
        }
    }
    for client in clients {
        let install = cache
            .path()
            .join(format!("{}-{}", client.id(), client.pinned_version()));
        let bin = client.recorder().package.bin.as_str();
        executable(
            &install.join("node_modules/.bin").join(bin),
            &format!(
                "if [ \"$1\" = --version ]; then echo '{}'; fi\nexit 0",
                version_line(client)
            ),
        );
        fs::write(
            install.join(".acc-certify-complete"),
            format!("{}\n", client.pinned_version()),
        )
        .unwrap();
        let adapter = repo.path().join("adapters").join(client.id());
        fs::create_dir_all(&adapter).unwrap();
        let shipped = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../adapters")
            .join(client.id())
            .join("adapter.json");
        fs::copy(shipped, adapter.join("adapter.json")).unwrap();
    }
    fs::write(repo.path().join("Cargo.toml"), "[workspace]\n").unwrap();
    let bin = tempfile::tempdir().unwrap();
    executable(&bin.path().join("acc"), "exit 0");
    executable(&bin.path().join("acc-hook"), "exit 0");
    World { cache, bin, repo }
}

impl World {
    fn record(&self, extra: &[&str]) -> assert_cmd::assert::Assert {
        self.record_client("all", extra)
    }

    fn record_client(&self, client: &str, extra: &[&str]) -> assert_cmd::assert::Assert {
        let mut cmd = Command::cargo_bin("acc-certify").unwrap();
        cmd.args([
            "record",
            "--client",
            client,
            "--scenario",
            "coordinate",
            "--timeout",
            "60",
            "--json",
        ])
        .arg("--repo")
        .arg(self.repo.path())
        .arg("--bin-dir")
        .arg(self.bin.path())
        .args(extra)
        .env("ACC_CERTIFY_CACHE", self.cache.path());
        cmd.assert()
    }

    fn pair_dirs(&self) -> Vec<PathBuf> {
        let mut dirs: Vec<PathBuf> = fs::read_dir(self.repo.path().join("captures/coordinate"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        dirs.sort();
        dirs
    }
}

fn envelope(output: &[u8]) -> Value {
    serde_json::from_slice(output).unwrap()
}

#[test]
fn pairs_whose_hooks_never_fire_fail_at_the_claim_then_check_against_their_bundles() {
    let world = world();
    let out = world.record(&[]).success();
    let data = &envelope(&out.get_output().stdout)["data"];
    // Only pair runs: no client's own scenario, no evidence.
    assert_eq!(data["clients"], serde_json::json!([]));
    let pairs = data["pairs"].as_array().unwrap();
    assert_eq!(pairs.len(), PAIRS.len());
    for pair in pairs {
        assert_eq!(pair["passed"], false, "{pair}");
        assert_eq!(pair["steps"][0]["step"], "claimed");
        assert_eq!(pair["steps"][0]["passed"], false);
        let reason = pair["steps"][0]["reasons"][0].as_str().unwrap();
        assert!(reason.starts_with("no session of the "), "{reason}");
    }
    let dirs = world.pair_dirs();
    assert_eq!(dirs.len(), PAIRS.len());
    for dir in &dirs {
        for turn in [
            "owner-claims",
            "asker-writes",
            "owner-answers",
            "asker-writes-again",
        ] {
            assert!(dir.join(turn).join("run.json").is_file(), "{turn}");
        }
        let observations = fs::read_to_string(dir.join(OBSERVATIONS_FILE)).unwrap();
        assert!(!observations.contains(&world.repo.path().display().to_string()));
    }
    for client in ["claude-code", "codex", "gemini-cli"] {
        assert!(
            !world
                .repo
                .path()
                .join("adapters")
                .join(client)
                .join("certification.json")
                .exists(),
            "a pair writes no evidence"
        );
    }

    // The same run again matches the committed bundles and writes nothing.
    let before = fs::read(dirs[0].join(OBSERVATIONS_FILE)).unwrap();
    let out = world.record(&["--check"]).success();
    let data = &envelope(&out.get_output().stdout)["data"];
    for pair in data["pairs"].as_array().unwrap() {
        assert_eq!(pair["mismatches"], serde_json::json!([]), "{pair}");
    }
    assert_eq!(fs::read(dirs[0].join(OBSERVATIONS_FILE)).unwrap(), before);

    // A pair with no committed recording is a difference: exit 1, naming the bundle.
    fs::remove_dir_all(&dirs[0]).unwrap();
    let out = world.record(&["--check"]).code(1);
    let envelope = envelope(&out.get_output().stdout);
    assert_eq!(envelope["ok"], false);
    let mismatches = envelope["error"]["details"]["pairs"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|p| p["mismatches"].as_array().unwrap().clone())
        .collect::<Vec<_>>();
    assert_eq!(mismatches.len(), 1, "{mismatches:?}");
    let missing = mismatches[0].as_str().unwrap();
    assert!(
        missing.starts_with("missing: no committed recording at captures/coordinate/"),
        "{missing}"
    );
}

/// One client named records its own pairs, both roles, with Claude Code obtained as its
/// partner, and nothing of Claude Code's own.
#[test]
fn one_client_records_its_pairs_with_its_partner() {
    let world = world();
    let out = world.record_client("copilot", &[]).success();
    let data = &envelope(&out.get_output().stdout)["data"];
    assert_eq!(data["clients"], serde_json::json!([]));
    let pairs: Vec<&str> = data["pairs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["pair"].as_str().unwrap())
        .collect();
    assert_eq!(pairs, ["claude-code+copilot", "copilot+claude-code"]);
    let dirs = world.pair_dirs();
    assert_eq!(dirs.len(), 2);
    for dir in &dirs {
        let name = dir.file_name().unwrap().to_string_lossy().into_owned();
        assert!(
            name.contains("copilot-") && name.contains("claude-code-"),
            "{name}"
        );
    }
    assert!(
        !world
            .repo
            .path()
            .join("adapters/claude-code/certification.json")
            .exists()
    );

    let out = world
        .record_client("copilot", &["--version", "1.0.0"])
        .code(2);
    let envelope = envelope(&out.get_output().stdout);
    assert_eq!(envelope["error"]["details"]["code"], "record.usage");
}
