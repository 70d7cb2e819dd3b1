//! `acc-certify record` end to end, offline: a stand-in client in a temporary cache (it
//! answers `--version` and otherwise does nothing, as a client whose hooks never fire),
//! stand-in `acc`/`acc-hook` binaries, and a temporary repository. Everything else is real:
//! sandboxes, model doubles, acc's installer and store, the judge, bundles and evidence.

mod record_support;

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use acc_certify::record::kit::tuple::current_platform;
use acc_sdk::certification::validate_adapter_dir;
use assert_cmd::Command;
use record_support::repo;
use serde_json::Value;

const VERSION: &str = "9.9.9";

fn executable(path: &Path, body: &str) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, format!("#!/bin/sh\n{body}\n")).unwrap();
    fs::set_permissions(path, fs::Permissions::from_mode(0o755)).unwrap();
}

struct World {
    _cache: tempfile::TempDir,
    cache_dir: PathBuf,
    _bin: tempfile::TempDir,
    bin_dir: PathBuf,
    repo: tempfile::TempDir,
    adapter: PathBuf,
}

fn world() -> World {
    let cache = tempfile::tempdir().unwrap();
    let install = cache.path().join(format!("claude-code-{VERSION}"));
    executable(
        &install.join("node_modules/.bin/claude"),
        &format!("if [ \"$1\" = --version ]; then echo '{VERSION} (Claude Code)'; fi\nexit 0"),
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
    World {
        cache_dir: cache.path().to_path_buf(),
        _cache: cache,
        bin_dir: bin.path().to_path_buf(),
        _bin: bin,
        repo,
        adapter,
    }
}

impl World {
    fn record(&self, extra: &[&str]) -> assert_cmd::assert::Assert {
        let mut cmd = Command::cargo_bin("acc-certify").unwrap();
        cmd.args([
            "record",
            "--client",
            "claude-code",
            "--version",
            VERSION,
            "--timeout",
            "60",
        ])
        .arg("--repo")
        .arg(self.repo.path())
        .arg("--bin-dir")
        .arg(&self.bin_dir)
        .args(extra)
        .env("ACC_CERTIFY_CACHE", &self.cache_dir);
        cmd.assert()
    }

    /// `record --check --json` of one scenario keeping its bundle in `keep`: the envelope
    /// of a check that found a difference (exit 1).
    fn check_keeping(&self, scenario: &str, keep: &Path) -> Value {
        let keep = keep.to_str().unwrap();
        let args = [
            "--check",
            "--json",
            "--scenario",
            scenario,
            "--keep-bundle",
            keep,
        ];
        let out = self.record(&args).code(1);
        serde_json::from_slice(&out.get_output().stdout).unwrap()
    }

    fn certification(&self) -> Value {
        serde_json::from_slice(&fs::read(self.adapter.join("certification.json")).unwrap()).unwrap()
    }

    fn set_certification(&self, value: &Value) {
        fs::write(
            self.adapter.join("certification.json"),
            serde_json::to_vec_pretty(value).unwrap(),
        )
        .unwrap();
    }
}

fn text(output: &[u8]) -> String {
    String::from_utf8_lossy(output).replace(&current_platform(), "[platform]")
}

#[test]
fn a_client_whose_hooks_never_fire_is_recorded_as_failing_everywhere_then_checked() {
    let world = world();
    let out = world.record(&[]).success();
    let stdout = text(&out.get_output().stdout);
    insta::assert_snapshot!("silent_client_recorded", stdout);
    let stderr = text(&out.get_output().stderr);
    for scenario in [
        "lifecycle",
        "guard-write",
        "guard-shell",
        "solo-control",
        "next-turn",
        "live-wake",
        "safe-point",
        "heartbeat",
        "session-resume",
        "startup-injection",
        "before-read",
        "child-sessions",
        "reply-route",
    ] {
        assert!(
            stderr.contains(&format!("claude-code {VERSION} [platform] {scenario}: ")),
            "{stderr}"
        );
    }
    assert!(stderr.contains("solo-control: control failed"), "{stderr}");

    // Evidence: fourteen failing rows that validate, each explaining itself.
    assert_eq!(validate_adapter_dir(&world.adapter), Vec::new());
    let certification = world.certification();
    let rows = certification["evidence"].as_array().unwrap();
    assert_eq!(rows.len(), 14);
    assert!(
        rows.iter()
            .all(|r| r["result"] == "fail" && r["authorityLevel"] == "none")
    );
    let start = rows
        .iter()
        .find(|r| r["capability"] == "lifecycle.sessionStart")
        .unwrap();
    assert!(
        start["limitations"]
            .as_array()
            .unwrap()
            .iter()
            .any(|l| l.as_str().unwrap().contains("did not reach acc")),
        "{start}"
    );
    // Bundles: the double's log, the client's output, the observations and the run.
    let label = format!("claude-code-{VERSION}-{}", current_platform());
    for scenario in [
        "lifecycle",
        "guard-write",
        "guard-shell",
        "solo-control",
        "next-turn",
    ] {
        let dir = world
            .repo
            .path()
            .join("captures")
            .join(&label)
            .join(scenario);
        for file in [
            "requests.jsonl",
            "stdout.txt",
            "stderr.txt",
            "observations.json",
            "run.json",
        ] {
            assert!(dir.join(file).is_file(), "{}/{file}", dir.display());
        }
        let run: Value = serde_json::from_slice(&fs::read(dir.join("run.json")).unwrap()).unwrap();
        assert_eq!(run["command"][2], "<prompt>", "{run}");
        let run_text = run.to_string();
        assert!(
            !run_text.contains(&world.cache_dir.display().to_string()),
            "{run_text}"
        );
        assert!(
            run["installed"]
                .as_array()
                .unwrap()
                .iter()
                .all(|p| p.as_str().unwrap().starts_with("<home>/"))
        );
    }

    // The same client again matches; nothing is written by a check.
    let before = record_support::snapshot_tree(world.repo.path());
    let out = world.record(&["--check"]).success();
    assert!(text(&out.get_output().stdout).contains("matches the committed evidence"));
    assert_eq!(before, record_support::snapshot_tree(world.repo.path()));

    // A hand-edited row, a dropped row: both named, exit 1.
    let mut edited = certification.clone();
    let rows = edited["evidence"].as_array_mut().unwrap();
    let write = rows
        .iter_mut()
        .find(|r| r["capability"] == "guards.beforeWrite")
        .unwrap();
    write["result"] = "pass".into();
    rows.retain(|r| r["capability"] != "lifecycle.sessionEnd");
    world.set_certification(&edited);
    let before = record_support::snapshot_tree(world.repo.path());
    let out = world.record(&["--check"]).code(1);
    let raw = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    // Each difference names its scenario, its first failure and the bundle kept for it
    // (the check's temporary directory, kept because a verdict differs).
    let kept = kept_bundle(&raw, "guard-write");
    assert!(
        kept.join("observations.json").is_file(),
        "{}",
        kept.display()
    );
    assert!(
        !kept.starts_with(world.repo.path()),
        "a check writes nothing into the repository"
    );
    let scratch = kept.ancestors().nth(3).unwrap().to_path_buf();
    let differences: String = raw
        .lines()
        .filter(|l| l.starts_with("  differs:") || l.starts_with("  missing:"))
        .map(|l| {
            text(
                l.replace(&scratch.display().to_string(), "[kept]")
                    .as_bytes(),
            ) + "\n"
        })
        .collect();
    insta::assert_snapshot!("check_differences_explained", differences);
    fs::remove_dir_all(&scratch).unwrap();
    assert_eq!(before, record_support::snapshot_tree(world.repo.path()));

    // `--keep-bundle DIR` keeps the bundles there, named the same way.
    let keep = tempfile::tempdir().unwrap();
    let envelope = world.check_keeping("guard-write", keep.path());
    assert_eq!(envelope["ok"], false);
    assert_eq!(envelope["error"]["code"], 1);
    let mismatches = &envelope["error"]["details"]["clients"][0]["mismatches"];
    assert_eq!(mismatches.as_array().unwrap().len(), 1, "{mismatches}");
    assert_eq!(mismatches[0]["kind"], "differs");
    let bundle = keep.path().canonicalize().unwrap().join(format!(
        "captures/claude-code-{VERSION}-{}/guard-write",
        current_platform()
    ));
    assert_eq!(mismatches[0]["run"]["bundle"], bundle.display().to_string());
    assert_eq!(mismatches[0]["run"]["scenario"], "guard-write");
    assert!(bundle.join("observations.json").is_file());
    assert_eq!(before, record_support::snapshot_tree(world.repo.path()));
}

/// The bundle a difference line of `scenario` names as kept.
fn kept_bundle(stdout: &str, scenario: &str) -> PathBuf {
    let line = stdout
        .lines()
        .find(|l| l.contains(&format!("; {scenario} failed first on: ")))
        .unwrap_or_else(|| panic!("no difference names {scenario}: {stdout}"));
    PathBuf::from(line.rsplit_once("; bundle kept in ").unwrap().1)
}

#[test]
fn a_bundle_is_never_kept_inside_the_repository() {
    let world = world();
    let inside = world.repo.path().join("kept");
    let out = world
        .record(&["--check", "--keep-bundle", inside.to_str().unwrap()])
        .code(2);
    let stderr = text(&out.get_output().stderr);
    assert!(stderr.contains("is inside the repository"), "{stderr}");
    assert!(stderr.contains("[record.usage]"), "{stderr}");
    // Without --check there is nothing to keep apart from what record writes.
    let out = world.record(&["--keep-bundle", "/tmp/x"]).code(2);
    assert!(text(&out.get_output().stderr).contains("--check"));
}

#[test]
fn a_guard_opaque_difference_keeps_its_bundle_and_says_where() {
    let world = world();
    world
        .record(&["--scenario", "guard-opaque", "--json"])
        .success();
    // The committed capture (of this temporary repository) says the script's write was seen;
    // the silent stand-in runs nothing, so now it was kept out.
    let label = format!("claude-code-{VERSION}-{}", current_platform());
    let committed = world
        .repo
        .path()
        .join("captures")
        .join(&label)
        .join("guard-opaque/observations.json");
    let mut obs: Value = serde_json::from_slice(&fs::read(&committed).unwrap()).unwrap();
    for file in obs["files"].as_array_mut().unwrap() {
        if file["path"] == "src/z" {
            file["sha256"] = "0".repeat(64).into();
        }
    }
    obs["detectedWrites"] = serde_json::json!(["file:src/z"]);
    fs::write(&committed, serde_json::to_vec_pretty(&obs).unwrap()).unwrap();
    let before = record_support::snapshot_tree(world.repo.path());

    // Without --keep-bundle: the check's temporary directory is kept and named.
    let out = world
        .record(&["--check", "--scenario", "guard-opaque"])
        .code(1);
    let raw = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    let line = raw
        .lines()
        .find(|l| l.contains("kernel guard (guard-opaque)"))
        .unwrap_or_else(|| panic!("no guard-opaque difference: {raw}"));
    assert!(
        line.contains("(the script's write recorded) in the committed capture but did not hold (the script's write kept out) now; guard-opaque failed first on: "),
        "{line}"
    );
    let kept = PathBuf::from(line.rsplit_once("; bundle kept in ").unwrap().1);
    assert!(
        kept.ends_with(format!("captures/{label}/guard-opaque")),
        "{line}"
    );
    assert!(
        kept.join("observations.json").is_file(),
        "{}",
        kept.display()
    );
    assert!(!kept.starts_with(world.repo.path()));
    fs::remove_dir_all(kept.ancestors().nth(3).unwrap()).unwrap();

    // With --keep-bundle DIR: there, and said in the JSON envelope.
    let keep = tempfile::tempdir().unwrap();
    let envelope = world.check_keeping("guard-opaque", keep.path());
    let mismatches = &envelope["error"]["details"]["clients"][0]["mismatches"];
    assert_eq!(mismatches.as_array().unwrap().len(), 1, "{mismatches}");
    assert_eq!(mismatches[0]["kind"], "kernelGuard");
    let bundle = keep
        .path()
        .canonicalize()
        .unwrap()
        .join(format!("captures/{label}/guard-opaque"));
    assert_eq!(mismatches[0]["run"]["bundle"], bundle.display().to_string());
    assert_eq!(mismatches[0]["run"]["scenario"], "guard-opaque");
    assert!(bundle.join("observations.json").is_file());
    assert_eq!(before, record_support::snapshot_tree(world.repo.path()));
}

#[test]
fn one_scenario_records_only_its_rows_and_leaves_the_control_next_turn_pins_alone() {
    let world = world();
    world
        .record(&["--scenario", "guard-shell", "--json"])
        .success();
    let rows = world.certification()["evidence"]
        .as_array()
        .unwrap()
        .clone();
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0]["capability"], "guards.beforeShell");
    let label = format!("claude-code-{VERSION}-{}", current_platform());
    let captures = world.repo.path().join("captures").join(label);
    let mut scenarios: Vec<String> = fs::read_dir(captures)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    scenarios.sort();
    assert_eq!(scenarios, ["guard-shell"]);
}

#[test]
fn usage_errors_exit_two_and_say_what_to_do() {
    let world = world();
    let mut cmd = Command::cargo_bin("acc-certify").unwrap();
    let out = cmd
        .args(["record", "--client", "all", "--version", "1.0.0"])
        .arg("--repo")
        .arg(world.repo.path())
        .assert()
        .code(2);
    insta::assert_snapshot!("version_needs_one_client", text(&out.get_output().stderr));

    let mut cmd = Command::cargo_bin("acc-certify").unwrap();
    let out = cmd.args(["record", "--client", "vim"]).assert().code(2);
    insta::assert_snapshot!("unknown_client", text(&out.get_output().stderr));

    let mut cmd = Command::cargo_bin("acc-certify").unwrap();
    let out = cmd
        .args(["record", "--client", "codex", "--scenario", "deny"])
        .assert()
        .code(2);
    assert!(text(&out.get_output().stderr).contains("use one of lifecycle, guard-write"));

    let missing = world.bin_dir.join("nowhere");
    let mut cmd = Command::cargo_bin("acc-certify").unwrap();
    let out = cmd
        .args(["record", "--client", "codex", "--json"])
        .arg("--repo")
        .arg(world.repo.path())
        .arg("--bin-dir")
        .arg(&missing)
        .assert()
        .code(2);
    let envelope: Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    assert_eq!(envelope["ok"], false);
    assert_eq!(
        envelope["error"]["details"]["code"],
        "record.missing-binary"
    );
    let mut cmd = Command::cargo_bin("acc-certify").unwrap();
    let out = cmd
        .args(["record", "--client", "codex"])
        .arg("--repo")
        .arg(world.repo.path())
        .arg("--bin-dir")
        .arg(&missing)
        .assert()
        .code(2);
    let stderr = text(&out.get_output().stderr);
    assert!(
        stderr.contains(&format!("{}/acc does not exist", missing.display())),
        "{stderr}"
    );
}

#[test]
fn an_unobtainable_client_exits_two_and_writes_nothing() {
    let world = world();
    // A cached install whose binary reports another version is reinstalled; with no
    // registry on PATH that cannot happen.
    let mut cmd = Command::cargo_bin("acc-certify").unwrap();
    let out = cmd
        .args([
            "record",
            "--client",
            "claude-code",
            "--version",
            "9.9.8",
            "--timeout",
            "60",
        ])
        .arg("--repo")
        .arg(world.repo.path())
        .arg("--bin-dir")
        .arg(&world.bin_dir)
        .env("ACC_CERTIFY_CACHE", &world.cache_dir)
        .env("PATH", "/nonexistent")
        .assert()
        .code(2);
    let stdout = text(&out.get_output().stdout);
    assert!(stdout.contains("could not record claude-code"), "{stdout}");
    assert!(stdout.contains("[client.tool-missing]"), "{stdout}");
    assert!(!world.repo.path().join("captures").exists());
    assert_eq!(
        fs::read_to_string(world.adapter.join("certification.json")).unwrap(),
        "{\"evidence\": []}\n"
    );
}

#[test]
fn record_help_lists_every_flag() {
    let mut cmd = Command::cargo_bin("acc-certify").unwrap();
    let out = cmd.args(["record", "--help"]).assert().success();
    insta::assert_snapshot!("record_help", text(&out.get_output().stdout));
}

/// The clients `record --help` and `outdated --help` offer come from the recorder's client
/// list: every listed client, in its order, and no other.
#[test]
fn help_offers_exactly_the_listed_clients() {
    let listed: Vec<&str> = acc_certify::clients::Client::all()
        .iter()
        .map(|client| client.id())
        .collect();
    for (command, extra) in [("record", &["all"][..]), ("outdated", &[][..])] {
        let mut cmd = Command::cargo_bin("acc-certify").unwrap();
        let out = cmd.args([command, "--help"]).assert().success();
        let help = text(&out.get_output().stdout);
        let offered = help
            .lines()
            .find_map(|line| line.trim().strip_prefix("[possible values: "))
            .unwrap_or_else(|| panic!("{command} --help offers no values:\n{help}"));
        let offered: Vec<&str> = offered.trim_end_matches(']').split(", ").collect();
        let expected: Vec<&str> = listed.iter().chain(extra).copied().collect();
        assert_eq!(offered, expected, "{command} --help");
    }
}
