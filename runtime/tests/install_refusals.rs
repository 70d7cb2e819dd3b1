//! What the installer refuses, and that a refusal writes nothing: malformed user configs
//! (named by file, line and column), a corrupt install record, acc's wiring colliding with
//! files acc did not write, unknown adapters and a missing hook runtime.

#[path = "install_support/mod.rs"]
mod support;

use std::os::unix::fs::PermissionsExt;

use support::{Sandbox, Tree};

/// Each broken fixture home, the adapter that must refuse it, and the line:column named.
const BROKEN: [(&str, &str, &str, &str); 5] = [
    (
        "claude-code-json",
        "claude-code",
        ".claude/settings.json",
        ":3:3: not valid JSON",
    ),
    (
        "gemini-cli-comments",
        "gemini-cli",
        ".gemini/settings.json",
        ":2:3: not valid JSON",
    ),
    (
        "codex-json",
        "codex",
        ".codex/hooks.json",
        ":4:2: not valid JSON",
    ),
    (
        "antigravity-json",
        "antigravity",
        ".gemini/config/hooks.json",
        ":1:28: not valid JSON",
    ),
    (
        "kimi-code-toml",
        "kimi-code",
        ".kimi-code/config.toml",
        ":3:4: not valid TOML",
    ),
];

#[test]
fn malformed_configs_are_refused_naming_file_and_line_with_nothing_written() {
    let mut messages = Vec::new();
    for (home, adapter, file, position) in BROKEN {
        let sandbox = Sandbox::with_homes(&[&format!("broken/{home}")]);
        let before = sandbox.home_tree();
        for extra in [&[][..], &["--dry-run"][..]] {
            let mut args = vec!["install", "--adapter", adapter];
            args.extend_from_slice(extra);
            let run = sandbox.acc(&args);
            assert_eq!(run.code, 4, "{home}: {}", run.stderr);
            let expected = format!("{}{position}", sandbox.home.join(file).display());
            assert!(run.stderr.starts_with(&expected), "{home}: {}", run.stderr);
            assert_eq!(run.stderr.lines().count(), 1);
            assert!(run.stdout.is_empty());
            assert_eq!(sandbox.home_tree(), before, "{home}: the home is untouched");
            assert!(!sandbox.data.exists(), "{home}: nothing in the data home");
        }
        let json = sandbox
            .acc(&["install", "--adapter", adapter, "--json"])
            .json();
        assert_eq!(json["ok"], false);
        assert_eq!(json["error"]["code"], 4);
        assert_eq!(json["error"]["details"]["reason"], "malformed_user_file");
        assert_eq!(json["error"]["details"]["adapter"], adapter);
        let run = sandbox.acc(&["install", "--adapter", adapter]);
        messages.push(sandbox.redact(run.stderr.trim_end()));
    }
    insta::assert_snapshot!("malformed_config_messages", messages.join("\n"));
}

/// A `hooks` key an array of tables cannot extend is a conflict naming its line, with
/// nothing written.
#[test]
fn a_kimi_hooks_key_in_another_form_is_refused_naming_its_line() {
    let sandbox = Sandbox::new();
    let config = sandbox.home.join(".kimi-code/config.toml");
    std::fs::create_dir_all(config.parent().unwrap()).unwrap();
    std::fs::write(&config, "model = \"k2\"\n\n[hooks]\nstop = \"x\"\n").unwrap();
    let before = sandbox.home_tree();
    let run = sandbox.acc(&["install", "--adapter", "kimi-code"]);
    assert_eq!(run.code, 5, "{}", run.stderr);
    assert!(
        run.stderr.starts_with(&format!(
            "{}:3:1: `hooks` is defined here as a table",
            config.display()
        )),
        "{}",
        run.stderr
    );
    assert_eq!(sandbox.home_tree(), before);
    assert!(!sandbox.data.exists());
}

#[test]
fn one_broken_client_stops_the_whole_run_before_any_write() {
    let sandbox = Sandbox::with_homes(&["claude-code", "codex", "broken/kimi-code-toml"]);
    let before = sandbox.home_tree();
    let run = sandbox.acc(&[
        "install",
        "--adapter",
        "claude-code",
        "--adapter",
        "codex",
        "--adapter",
        "kimi-code",
    ]);
    assert_eq!(run.code, 4, "{}", run.stderr);
    assert_eq!(sandbox.home_tree(), before);
    assert!(!sandbox.data.exists());
}

/// Issue 13: a user file made malformed since install, or replaced by a directory, is
/// refused by name and left as it is; acc's own unchanged trees and the other adapters
/// still go, and once the file is fixed the next uninstall finishes.
#[test]
fn uninstall_refuses_only_the_file_it_cannot_read_and_takes_the_rest_back() {
    for replace_with_directory in [false, true] {
        let sandbox = Sandbox::with_homes(&["claude-code", "codex"]);
        let before = sandbox.home_tree().contents();
        sandbox
            .acc(&["install", "--adapter", "claude-code", "--adapter", "codex"])
            .ok();
        let settings = sandbox.home.join(".claude/settings.json");
        let installed = std::fs::read(&settings).unwrap();
        if replace_with_directory {
            std::fs::remove_file(&settings).unwrap();
            std::fs::create_dir(&settings).unwrap();
            std::fs::write(settings.join("note.txt"), "mine").unwrap();
        } else {
            let mut broken = installed.clone();
            broken.extend_from_slice(b"\n}");
            std::fs::write(&settings, &broken).unwrap();
        }
        let broken_tree = sandbox.home_tree();

        let dry = sandbox.acc(&["uninstall", "--dry-run"]);
        assert_eq!(dry.code, 4, "{}", dry.stderr);
        assert_eq!(
            sandbox.home_tree(),
            broken_tree,
            "a dry run changes nothing"
        );

        let run = sandbox.acc(&["uninstall", "--json"]);
        assert_eq!(run.code, 4, "{}", run.stdout);
        let json = run.json();
        let message = json["error"]["message"].as_str().unwrap();
        assert!(
            message.starts_with(&format!("{}", settings.display())),
            "{message}"
        );
        assert!(
            message.contains("fix it (or move it aside) and run `acc uninstall --adapter claude-code` to finish; the rest was uninstalled"),
            "{message}"
        );
        assert_eq!(
            json["error"]["details"]["completed"],
            serde_json::json!(["codex"])
        );
        // The refused file is untouched; acc's skill tree and all of Codex are gone.
        let after = sandbox.home_tree();
        for (path, node) in &broken_tree.0 {
            if path.starts_with(".claude/settings.json") {
                assert_eq!(after.0.get(path), Some(node), "{}", path.display());
            }
        }
        assert!(!sandbox.home.join(".claude/skills/acc").exists());
        let mut expected = before.clone();
        let mut got = after.contents();
        expected.retain(|p, _| !p.starts_with(".claude/settings.json"));
        got.retain(|p, _| !p.starts_with(".claude/settings.json"));
        assert_eq!(
            got, expected,
            "replace_with_directory={replace_with_directory}"
        );

        // Fixed, the next uninstall finishes.
        if replace_with_directory {
            std::fs::remove_dir_all(&settings).unwrap();
        }
        std::fs::write(&settings, &installed).unwrap();
        sandbox.acc(&["uninstall"]).ok();
        assert_eq!(sandbox.home_tree().contents(), before);
    }
}

#[test]
fn a_corrupt_install_record_stops_every_command() {
    let sandbox = Sandbox::with_homes(&["codex"]);
    let record = sandbox.data.join("acc/installs.json");
    for bytes in [
        &b"{\"schemaVersion\": 1, \"installs\": ["[..],
        &b"{\"schemaVersion\": 7, \"installs\": []}"[..],
        &b"\x00\x01garbage"[..],
    ] {
        std::fs::create_dir_all(record.parent().unwrap()).unwrap();
        std::fs::write(&record, bytes).unwrap();
        let before = sandbox.home_tree();
        let data_before = Tree::of(&sandbox.data);
        for args in [
            &["install", "--adapter", "codex"][..],
            &["install", "--adapter", "codex", "--dry-run"][..],
            &["uninstall"][..],
            &["uninstall", "--adapter", "codex"][..],
            &["doctor"][..],
        ] {
            let run = sandbox.acc(args);
            assert_eq!(run.code, 4, "{args:?}: {}", run.stderr);
            assert!(
                run.stderr.contains(&*record.to_string_lossy()),
                "{args:?}: {}",
                run.stderr
            );
            assert!(
                run.stderr
                    .contains("will not treat the install record as empty")
            );
            assert_eq!(sandbox.home_tree(), before, "{args:?}");
            assert_eq!(Tree::of(&sandbox.data), data_before, "{args:?}");
        }
        let json = sandbox.acc(&["doctor", "--json"]).json();
        assert_eq!(json["error"]["details"]["reason"], "install_record_corrupt");
    }
}

#[test]
fn wiring_that_would_overwrite_someone_elses_file_is_a_conflict() {
    // A hook file of the user's own named like acc's, and a skill of the user's named acc.
    let sandbox = Sandbox::with_homes(&["grok"]);
    let hooks = sandbox.home.join(".grok/hooks/acc.json");
    std::fs::copy(sandbox.home.join(".grok/hooks/audit.json"), &hooks).unwrap();
    let before = sandbox.home_tree();
    let run = sandbox.acc(&["install", "--adapter", "grok"]);
    assert_eq!(run.code, 5, "{}", run.stderr);
    assert!(run.stderr.contains("was not written by acc"));
    assert_eq!(sandbox.home_tree(), before);

    let sandbox = Sandbox::with_homes(&["claude-code"]);
    let skill = sandbox.home.join(".claude/skills/acc/SKILL.md");
    std::fs::create_dir_all(skill.parent().unwrap()).unwrap();
    std::fs::write(
        &skill,
        "---\nname: acc\ndescription: my accounting helper\n---\n",
    )
    .unwrap();
    let before = sandbox.home_tree();
    let run = sandbox.acc(&["install", "--adapter", "claude-code", "--json"]);
    assert_eq!(run.code, 5);
    assert_eq!(run.json()["error"]["details"]["reason"], "install_conflict");
    assert_eq!(sandbox.home_tree(), before);
}

#[test]
fn unknown_adapters_are_usage_errors() {
    let sandbox = Sandbox::new();
    for args in [
        &["install", "--adapter", "claude"][..],
        &["uninstall", "--adapter", "cursor"][..],
    ] {
        let run = sandbox.acc(args);
        assert_eq!(run.code, 2, "{}", run.stderr);
        assert!(run.stderr.contains(
            "the adapters are antigravity, claude-code, codex, copilot, gemini-cli, grok, kimi-code, opencode, qwen-code"
        ));
    }
    assert!(!sandbox.data.exists());
}

#[test]
fn a_missing_hook_runtime_is_refused_by_path() {
    let sandbox = Sandbox::with_homes(&["codex"]);
    // An acc with no acc-hook beside it.
    let lonely = sandbox.tmp.path().join("lonely");
    std::fs::create_dir(&lonely).unwrap();
    let acc = lonely.join("acc");
    std::fs::copy(support::acc_bin(), &acc).unwrap();
    std::fs::set_permissions(&acc, std::fs::Permissions::from_mode(0o755)).unwrap();
    let before = sandbox.home_tree();
    let run = sandbox.acc_with(&acc, &["install", "--adapter", "codex"]);
    assert_eq!(run.code, 4, "{}", run.stderr);
    let expected = format!(
        "refusing to install: the hook runtime {} does not exist",
        lonely.canonicalize().unwrap().join("acc-hook").display()
    );
    assert!(run.stderr.starts_with(&expected), "{}", run.stderr);
    assert_eq!(sandbox.home_tree(), before);
    // Doctor still runs, and says what to do.
    let doctor = sandbox.acc_with(&acc, &["doctor"]);
    assert_eq!(doctor.code, 0);
    assert!(doctor.stdout.contains("(missing or not executable)"));
}

/// Issue 18: a mistyped `--home` used to grow a client tree silently.
#[test]
fn a_home_that_does_not_exist_is_refused_naming_it() {
    let sandbox = Sandbox::new();
    let missing = sandbox.tmp.path().join("no-such-home");
    for verb in ["install", "uninstall", "doctor"] {
        let run = sandbox.acc(&[verb, "--home", missing.to_str().unwrap()]);
        assert_eq!(run.code, 2, "{verb}: {}", run.stderr);
        assert!(
            run.stderr.contains(&format!(
                "the home {} given with --home is not an existing directory",
                missing.display()
            )),
            "{verb}: {}",
            run.stderr
        );
        assert!(!missing.exists(), "{verb}");
    }
    assert!(!sandbox.data.exists());
}

/// Issue 13: the commands a run suggests act on the home it acted on.
#[test]
fn every_suggested_command_carries_the_home_the_user_passed() {
    let sandbox = Sandbox::new();
    let other = sandbox.tmp.path().canonicalize().unwrap().join("other");
    std::fs::create_dir(&other).unwrap();
    let home = other.to_str().unwrap();
    let run = sandbox.acc(&["install", "--adapter", "codex", "--home", home]);
    let undo = format!("undo with: acc uninstall --adapter codex --home {home}");
    assert!(run.ok().lines().any(|l| l == undo), "{}", run.stdout);
    assert!(other.join(".codex/hooks.json").exists());
    // The suggestion, run as printed, undoes it.
    let args: Vec<&str> = undo["undo with: acc ".len()..].split(' ').collect();
    let back = sandbox.acc(&args);
    assert!(
        back.ok().trim_end().ends_with(&format!(
            "reinstall with: acc install --adapter codex --home {home}"
        )),
        "{}",
        back.stdout
    );
    assert_eq!(Tree::of(&other).contents(), Default::default());
    // With nothing detected, the dry run says what would make it install something.
    let dry = sandbox.acc(&["install", "--dry-run", "--home", home]);
    assert!(
        dry.ok().trim_end().ends_with(&format!(
            "name the client with: acc install --adapter <id> --home {home}"
        )),
        "{}",
        dry.stdout
    );
    assert!(
        dry.stdout.contains(&format!(
            "wire it with: acc install --adapter codex --home {home}"
        )),
        "{}",
        dry.stdout
    );
}

/// Issue 13: a write error on the second adapter used to leave the first installed. The
/// run is all or nothing: it is rolled back, says so, and the home and data home are as
/// they were.
#[test]
fn a_write_error_on_a_later_adapter_rolls_the_whole_run_back() {
    let sandbox = Sandbox::with_homes(&["claude-code", "codex"]);
    // Codex's hook file is a link into a dotfiles directory that is not there: planning
    // reads it as absent, writing it fails.
    let hooks = sandbox.home.join(".codex/hooks.json");
    std::fs::remove_file(&hooks).unwrap();
    std::os::unix::fs::symlink(sandbox.home.join("dotfiles/missing/hooks.json"), &hooks).unwrap();
    let before = sandbox.home_tree();
    let run = sandbox.acc(&[
        "install",
        "--adapter",
        "claude-code",
        "--adapter",
        "codex",
        "--json",
    ]);
    assert_eq!(run.code, 4, "{}", run.stderr);
    let json = run.json();
    let message = json["error"]["message"].as_str().unwrap();
    assert!(message.contains(&*hooks.to_string_lossy()), "{message}");
    assert!(
        message.ends_with(
            "acc rolled this run back, so nothing was installed and every file is as it was"
        ),
        "{message}"
    );
    assert!(
        json["error"]["details"].get("completed").is_none(),
        "{json}"
    );
    assert_eq!(sandbox.home_tree().contents(), before.contents());
    // Claude Code's settings were rewritten and put back; nothing of acc's is left.
    let record = sandbox.data.join("acc/installs.json");
    assert!(
        !record.exists()
            || !std::fs::read_to_string(&record)
                .unwrap()
                .contains("claude-code"),
        "the record holds no install"
    );
    assert!(!sandbox.data.join("acc/install-backups").exists());
}

/// Issue 18: a client whose `--version` outlives the probe window is installed with an
/// unknown version, never "not installed": install wires it and says why the version is
/// unknown, and doctor says the same.
#[test]
fn a_client_slow_to_print_its_version_is_installed_with_an_unknown_version() {
    use std::os::unix::fs::PermissionsExt;
    let sandbox = Sandbox::new();
    let gemini = sandbox.clients.join("gemini");
    // Slower than the probe window; exec so the group kill reaches the sleep directly.
    std::fs::write(&gemini, "#!/bin/sh\nexec /bin/sleep 30\n").unwrap();
    std::fs::set_permissions(&gemini, std::fs::Permissions::from_mode(0o755)).unwrap();
    let run = sandbox.acc(&["install", "--dry-run", "--json"]);
    let json = run.json();
    let adapters = json["data"]["adapters"].as_array().unwrap();
    let ids: Vec<&str> = adapters
        .iter()
        .map(|a| a["adapterId"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["gemini-cli"], "{json}");
    let client = &adapters[0]["client"];
    assert_eq!(client["present"], true);
    assert_eq!(client["version"], serde_json::Value::Null);
    let detail = client["detail"].as_str().unwrap();
    assert!(
        detail.starts_with(&format!(
            "{}, version unknown: `gemini --version` did not answer within",
            gemini.display()
        )),
        "{detail}"
    );
    let human = sandbox.acc(&["install", "--dry-run"]);
    assert!(
        human
            .ok()
            .contains("gemini-cli (Gemini CLI, version unknown):"),
        "{}",
        human.stdout
    );
}
