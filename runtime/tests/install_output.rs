//! What `acc install`, `acc uninstall` and `acc doctor` print, pinned as snapshots (paths
//! redacted to `<home>`, `<data>`, `<bin>`), and doctor's read-only promise and repair.

#[path = "install_support/mod.rs"]
mod support;

use support::{ADAPTERS, Sandbox, Tree};

/// Every fixture home in one, with Claude Code, Codex and Gemini CLI "installed" (fake
/// binaries that answer `--version`) and the other three absent.
fn machine() -> Sandbox {
    let sandbox = Sandbox::with_homes(&ADAPTERS);
    sandbox.fake_client("claude", "2.1.332 (Claude Code)");
    sandbox.fake_client("codex", "codex-cli 0.171.0");
    sandbox.fake_client("gemini", "0.61.0");
    sandbox
}

#[test]
fn a_whole_machine_transcript_in_human_output() {
    let sandbox = machine();
    let before = sandbox.home_tree().contents();
    let mut transcript = String::new();
    for args in [
        &["install", "--dry-run"][..],
        &["install"][..],
        &["install"][..],
        &["doctor"][..],
        &["uninstall", "--dry-run"][..],
        &["uninstall"][..],
        &["uninstall"][..],
    ] {
        let run = sandbox.acc(args);
        transcript.push_str(&format!(
            "$ acc {}\n[exit {}]\n{}{}\n",
            args.join(" "),
            run.code,
            sandbox.redact(&run.stdout),
            sandbox.redact(&run.stderr)
        ));
        assert_eq!(run.code, 0, "{args:?}: {}", run.stderr);
    }
    insta::assert_snapshot!("machine_transcript", transcript);
    assert_eq!(sandbox.home_tree().contents(), before);
}

#[test]
fn json_output_of_install_uninstall_and_doctor() {
    let sandbox = machine();
    let mut documents = Vec::new();
    for args in [
        &["install", "--json"][..],
        &["doctor", "--json"][..],
        &["uninstall", "--json"][..],
    ] {
        let run = sandbox.acc(args);
        assert_eq!(run.code, 0, "{args:?}: {}", run.stderr);
        let value: serde_json::Value =
            serde_json::from_str(&sandbox.redact(run.stdout.trim())).unwrap();
        documents.push(value);
    }
    insta::assert_json_snapshot!("install_doctor_uninstall_json", documents);
}

#[test]
fn without_adapter_only_detected_clients_are_wired_and_the_rest_are_named() {
    let sandbox = machine();
    let json = sandbox.acc(&["install", "--json"]).json();
    let wired: Vec<&str> = json["data"]["adapters"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["adapterId"].as_str().unwrap())
        .collect();
    assert_eq!(wired, ["claude-code", "codex", "gemini-cli"]);
    let skipped: Vec<&str> = json["data"]["skipped"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["adapterId"].as_str().unwrap())
        .collect();
    assert_eq!(
        skipped,
        [
            "antigravity",
            "copilot",
            "grok",
            "kimi-code",
            "opencode",
            "qwen-code"
        ]
    );
    assert!(!sandbox.home.join(".grok/hooks/acc.json").exists());
    assert_eq!(
        json["data"]["undo"],
        "acc uninstall --adapter claude-code --adapter codex --adapter gemini-cli"
    );
    assert_eq!(json["data"]["adapters"][1]["client"]["version"], "0.171.0");
}

#[test]
fn doctor_is_read_only() {
    let sandbox = machine();
    // Before anything is installed it does not even create the data home.
    sandbox.acc(&["doctor"]).ok();
    assert!(!sandbox.data.exists());
    sandbox.acc(&["install"]).ok();
    let home = sandbox.home_tree();
    let data = Tree::of(&sandbox.data);
    for args in [&["doctor"][..], &["doctor", "--json"][..]] {
        sandbox.acc(args).ok();
        assert_eq!(sandbox.home_tree(), home, "{args:?}");
        assert_eq!(Tree::of(&sandbox.data), data, "{args:?}");
    }
}

#[test]
fn doctor_names_edited_and_missing_files_and_repair_puts_them_back() {
    let sandbox = Sandbox::with_homes(&["claude-code", "gemini-cli"]);
    sandbox
        .acc(&[
            "install",
            "--adapter",
            "claude-code",
            "--adapter",
            "gemini-cli",
        ])
        .ok();
    // A missing acc tree, a changed acc tree, and a user's edit to their own settings.
    std::fs::remove_file(sandbox.home.join(".claude/skills/acc/SKILL.md")).unwrap();
    std::fs::remove_dir(sandbox.home.join(".claude/skills/acc")).unwrap();
    let skill = sandbox.home.join(".gemini/skills/acc/SKILL.md");
    let mut text = std::fs::read_to_string(&skill).unwrap();
    text.push_str("\nA note of mine.\n");
    std::fs::write(&skill, text).unwrap();
    let settings = sandbox.home.join(".gemini/settings.json");
    let text = std::fs::read_to_string(&settings).unwrap();
    std::fs::write(&settings, text.replace("\"GitHub\"", "\"Dracula\"")).unwrap();

    let doctor = sandbox.acc(&["doctor", "--json"]).json();
    let data = &doctor["data"];
    assert_eq!(data["ok"], false);
    assert_eq!(
        data["nextStep"],
        "run `acc doctor --repair` to re-install claude-code, gemini-cli"
    );
    let states = |data: &serde_json::Value, id: &str| -> Vec<String> {
        data["clients"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["adapterId"] == id)
            .unwrap()["artifacts"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| a["state"].as_str().unwrap().to_owned())
            .collect()
    };
    assert_eq!(states(data, "claude-code"), ["intact", "missing"]);
    assert_eq!(states(data, "gemini-cli"), ["edited", "edited"]);

    let repaired = sandbox.acc(&["doctor", "--repair"]);
    insta::assert_snapshot!("doctor_repair", sandbox.redact(repaired.ok()));
    let after = sandbox.acc(&["doctor", "--json"]).json();
    assert_eq!(after["data"]["ok"], true);
    assert_eq!(states(&after["data"], "claude-code"), ["intact", "intact"]);
    // Repair put acc's skill back and recorded the user's settings as they now are, their
    // edit included.
    assert_eq!(states(&after["data"], "gemini-cli"), ["intact", "intact"]);
    assert!(
        std::fs::read_to_string(&settings)
            .unwrap()
            .contains("Dracula")
    );
}

#[test]
fn a_users_edit_to_their_own_config_is_reported_but_is_no_fault() {
    let sandbox = Sandbox::with_homes(&["gemini-cli"]);
    sandbox.acc(&["install", "--adapter", "gemini-cli"]).ok();
    let settings = sandbox.home.join(".gemini/settings.json");
    let text = std::fs::read_to_string(&settings).unwrap();
    std::fs::write(&settings, text.replace("\"GitHub\"", "\"Dracula\"")).unwrap();
    let doctor = sandbox.acc(&["doctor", "--json"]).json();
    let gemini = doctor["data"]["clients"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["adapterId"] == "gemini-cli")
        .unwrap()
        .clone();
    assert_eq!(gemini["artifacts"][0]["state"], "edited");
    assert_eq!(doctor["data"]["ok"], true);
    assert_eq!(doctor["data"]["nextStep"], "nothing to do");
    // Removing acc's hooks from it by hand is a fault: the adapter's check says so.
    let value: serde_json::Value = serde_json::from_str(&text).unwrap();
    let mut value = value;
    value.as_object_mut().unwrap().remove("hooks");
    std::fs::write(&settings, serde_json::to_string_pretty(&value).unwrap()).unwrap();
    let doctor = sandbox.acc(&["doctor", "--json"]).json();
    assert_eq!(doctor["data"]["ok"], false);
    assert_eq!(
        doctor["data"]["nextStep"],
        "run `acc doctor --repair` to re-install gemini-cli"
    );
}

/// Issue 18: with `ACC_DATA_HOME` set, install pins it into every hook command and says so;
/// a later shell without it used to see "not installed" while the hooks were wired. Doctor
/// reads the wiring from the client's own files and names the data home it points at.
#[test]
fn install_names_its_data_home_and_doctor_finds_the_wiring_from_another_shell() {
    let sandbox = Sandbox::with_homes(&["codex"]);
    let install = sandbox.acc(&["install", "--adapter", "codex"]);
    let text = install.ok();
    let data = sandbox.data.display().to_string();
    assert!(
        text.contains(&format!(
            "\ndata home: {data} (ACC_DATA_HOME is set, so every hook command carries it; a later acc run must set the same ACC_DATA_HOME to see this install)\n"
        )),
        "{text}"
    );
    let json = sandbox
        .acc(&["install", "--adapter", "codex", "--json"])
        .json();
    assert_eq!(json["data"]["dataHome"]["pinned"], true);
    assert_eq!(json["data"]["dataHome"]["path"], data);

    // A new shell: no ACC_DATA_HOME, so the default data home under HOME.
    let doctor = |json: bool| {
        let mut command = std::process::Command::new(support::acc_bin());
        command.arg("doctor");
        if json {
            command.arg("--json");
        }
        let out = command
            .env_clear()
            .env("HOME", &sandbox.home)
            .env("PATH", &sandbox.clients)
            .current_dir(&sandbox.workspace)
            .output()
            .unwrap();
        support::Run::from(out)
    };
    let run = doctor(false);
    let text = run.ok();
    let hooks = sandbox.home.join(".codex/hooks.json");
    assert!(
        text.contains("codex (Codex CLI, not detected: `codex` is not on PATH): wired, but not in this data home's install record"),
        "{text}"
    );
    assert!(
        text.contains(&format!(
            "\n  wired: 8 acc hook(s) in {}, using data home {data} (pinned)",
            hooks.display()
        )),
        "{text}"
    );
    assert!(
        text.trim_end().ends_with(&format!(
            "run `ACC_DATA_HOME={data} acc doctor` to see that install"
        )),
        "{text}"
    );
    let json = doctor(true).json();
    let codex = json["data"]["clients"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["adapterId"] == "codex")
        .unwrap()
        .clone();
    assert_eq!(codex["wiring"][0]["dataHome"], data);
    assert_eq!(codex["wiring"][0]["hooks"], 8);
    // The shell that installed sees its install, and no warning about the data home.
    let same = sandbox.acc(&["doctor"]);
    assert!(
        same.ok()
            .contains("codex (Codex CLI, not detected: `codex` is not on PATH): installed by acc"),
        "{}",
        same.stdout
    );
    assert!(!same.stdout.contains("acc doctor` to see that install"));
}
