//! Install and uninstall against realistic homes, for every adapter: installing twice is
//! installing once (no file rewritten), uninstall gives the whole home back, a dry run
//! writes nothing and names exactly what install changes, and the user's own edits after
//! install survive uninstall.

#[path = "install_support/mod.rs"]
mod support;

use std::path::{Path, PathBuf};

use acc_sdk::json_style::{parse_json_document, render_json_document};
use serde_json::{Value, json};
use support::{ADAPTERS, Sandbox, Tree, fixtures, merge_file, skill_dir};

fn install(sandbox: &Sandbox, adapter: &str) -> Value {
    let run = sandbox.acc(&["install", "--adapter", adapter, "--json"]);
    run.ok();
    run.json()
}

fn uninstall(sandbox: &Sandbox, adapter: &str) -> Value {
    let run = sandbox.acc(&["uninstall", "--adapter", adapter, "--json"]);
    run.ok();
    run.json()
}

/// `(path relative to the home, action)` for every file a run reported.
fn actions(report: &Value, home: &Path) -> Vec<(PathBuf, String)> {
    report["data"]["adapters"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|a| a["files"].as_array().unwrap().iter())
        .map(|f| {
            (
                Path::new(f["path"].as_str().unwrap())
                    .strip_prefix(home)
                    .unwrap()
                    .to_path_buf(),
                f["action"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

#[test]
fn installing_twice_equals_installing_once_and_rewrites_nothing() {
    for adapter in ADAPTERS {
        let sandbox = Sandbox::with_homes(&[adapter]);
        let first = install(&sandbox, adapter);
        assert!(
            actions(&first, &sandbox.home)
                .iter()
                .all(|(_, a)| a == "created" || a == "edited"),
            "{adapter}: {first}"
        );
        let home_once = sandbox.home_tree();
        let data_once = Tree::of(&sandbox.data);
        let second = install(&sandbox, adapter);
        assert!(
            actions(&second, &sandbox.home)
                .iter()
                .all(|(_, a)| a == "unchanged"),
            "{adapter}: {second}"
        );
        // Same bytes, and the same inodes and mtimes: nothing was even rewritten.
        assert_eq!(sandbox.home_tree(), home_once, "{adapter}: home");
        assert_eq!(Tree::of(&sandbox.data), data_once, "{adapter}: data home");
    }
}

#[test]
fn uninstall_gives_the_whole_home_back_and_a_second_one_does_nothing() {
    for adapter in ADAPTERS {
        let sandbox = Sandbox::with_homes(&[adapter]);
        let before = sandbox.home_tree().contents();
        install(&sandbox, adapter);
        assert_ne!(sandbox.home_tree().contents(), before, "{adapter}");
        let report = uninstall(&sandbox, adapter);
        assert_eq!(
            sandbox.home_tree().contents(),
            before,
            "{adapter}: every file and directory, byte for byte; report {report}"
        );
        let restored: Vec<String> = actions(&report, &sandbox.home)
            .into_iter()
            .map(|(_, a)| a)
            .collect();
        assert!(
            restored.iter().all(|a| a == "restored" || a == "removed"),
            "{adapter}: {restored:?}"
        );
        let record: Value =
            serde_json::from_slice(&std::fs::read(sandbox.data.join("acc/installs.json")).unwrap())
                .unwrap();
        assert_eq!(record, json!({"schemaVersion": 1, "installs": []}));
        assert!(!sandbox.data.join("acc/install-backups").exists());

        let again = sandbox.acc(&["uninstall"]);
        assert_eq!(
            again.ok().trim(),
            "nothing to uninstall: acc's install record lists no adapter"
        );
        let again = sandbox.acc(&["uninstall", "--adapter", adapter]);
        again.ok();
        assert_eq!(sandbox.home_tree().contents(), before, "{adapter}: no-op");
    }
}

#[test]
fn everything_at_once_round_trips_too() {
    let sandbox = Sandbox::with_homes(&ADAPTERS);
    let before = sandbox.home_tree().contents();
    let mut args = vec!["install"];
    for adapter in ADAPTERS {
        args.extend(["--adapter", adapter]);
    }
    sandbox.acc(&args).ok();
    let installed = sandbox.home_tree();
    sandbox.acc(&args).ok();
    assert_eq!(sandbox.home_tree(), installed);
    sandbox.acc(&["uninstall"]).ok();
    assert_eq!(sandbox.home_tree().contents(), before);
}

#[test]
fn a_dry_run_writes_nothing_and_names_exactly_what_install_changes() {
    for adapter in ADAPTERS {
        let sandbox = Sandbox::with_homes(&[adapter]);
        let before = sandbox.home_tree();
        let dry = sandbox.acc(&["install", "--adapter", adapter, "--dry-run", "--json"]);
        dry.ok();
        assert_eq!(sandbox.home_tree(), before, "{adapter}: home untouched");
        assert!(!sandbox.data.exists(), "{adapter}: not even the data home");
        let mut planned: Vec<PathBuf> = actions(&dry.json(), &sandbox.home)
            .into_iter()
            .map(|(p, _)| p)
            .collect();
        planned.sort();

        let real = install(&sandbox, adapter);
        let mut reported: Vec<PathBuf> = actions(&real, &sandbox.home)
            .into_iter()
            .map(|(p, _)| p)
            .collect();
        reported.sort();
        assert_eq!(
            reported, planned,
            "{adapter}: the plan is what install reports"
        );

        // What really changed on disk: each planned artifact, the files inside planned
        // trees, and the directories created on the way; nothing else.
        let changed = before.changed(&sandbox.home_tree());
        for path in &planned {
            assert!(
                changed.iter().any(|c| c == path || c.starts_with(path)),
                "{adapter}: planned {} did not change",
                path.display()
            );
        }
        for path in &changed {
            let covered = planned
                .iter()
                .any(|p| path == p || path.starts_with(p) || p.starts_with(path));
            assert!(covered, "{adapter}: {} changed unplanned", path.display());
        }
    }
}

#[test]
fn an_acc_file_the_user_edited_is_kept_and_reported() {
    for adapter in ADAPTERS {
        let sandbox = Sandbox::with_homes(&[adapter]);
        let before = sandbox.home_tree().contents();
        install(&sandbox, adapter);
        let skill = sandbox.home.join(skill_dir(adapter)).join("SKILL.md");
        let mut text = std::fs::read_to_string(&skill).unwrap();
        text.push_str("\nMy own note about acc.\n");
        std::fs::write(&skill, &text).unwrap();

        let dry = sandbox.acc(&["uninstall", "--dry-run", "--json"]);
        let report = uninstall(&sandbox, adapter);
        for run in [dry.json(), report.clone()] {
            let kept: Vec<PathBuf> = actions(&run, &sandbox.home)
                .into_iter()
                .filter(|(_, a)| a == "kept")
                .map(|(p, _)| p)
                .collect();
            assert_eq!(
                kept,
                [PathBuf::from(skill_dir(adapter))],
                "{adapter}: {run}"
            );
        }
        assert_eq!(std::fs::read_to_string(&skill).unwrap(), text, "{adapter}");
        // Everything else is as it was before install.
        let mut after = sandbox.home_tree().contents();
        after.retain(|p, _| !p.starts_with(skill_dir(adapter)));
        let mut expected = before.clone();
        for ancestor in Path::new(skill_dir(adapter)).ancestors().skip(1) {
            expected.remove(ancestor);
            after.remove(ancestor);
        }
        assert_eq!(after, expected, "{adapter}");
    }
}

/// The lines a person adds at the top of a TOML config, in the file's own line ending.
fn toml_addition(file: &[u8]) -> Vec<u8> {
    let newline = if file.windows(2).any(|w| w == b"\r\n") {
        "\r\n"
    } else {
        "\n"
    };
    format!("# added after install{newline}user_added = true{newline}").into_bytes()
}

/// Edits a user's config after install the way a person would: a new setting.
fn edit_merge_file(path: &Path) -> Vec<u8> {
    let bytes = std::fs::read(path).unwrap();
    if path.extension().is_some_and(|e| e == "toml") {
        let mut edited = toml_addition(&bytes);
        edited.extend_from_slice(&bytes);
        std::fs::write(path, &edited).unwrap();
        return edited;
    }
    let (mut value, style) = parse_json_document(&bytes, path).unwrap();
    value
        .as_object_mut()
        .unwrap()
        .insert("userAdded".to_owned(), json!({"after": "install"}));
    let edited = render_json_document(&value, &style);
    std::fs::write(path, &edited).unwrap();
    edited
}

/// What the original file becomes with the same edit and no acc.
fn expected_after_edit(original: &[u8], path: &Path) -> Vec<u8> {
    if path.extension().is_some_and(|e| e == "toml") {
        let mut expected = toml_addition(original);
        expected.extend_from_slice(original);
        return expected;
    }
    let (mut value, style) = parse_json_document(original, path).unwrap();
    value
        .as_object_mut()
        .unwrap()
        .insert("userAdded".to_owned(), json!({"after": "install"}));
    render_json_document(&value, &style)
}

#[test]
fn a_users_edit_to_their_config_survives_uninstall_while_accs_entries_go() {
    for adapter in ADAPTERS {
        let Some(relative) = merge_file(adapter) else {
            continue;
        };
        let sandbox = Sandbox::with_homes(&[adapter]);
        let path = sandbox.home.join(relative);
        let original = std::fs::read(&path).unwrap();
        install(&sandbox, adapter);
        edit_merge_file(&path);
        let report = uninstall(&sandbox, adapter);
        let merge = report["data"]["adapters"][0]["files"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["kind"] == "merge")
            .unwrap()
            .clone();
        assert_eq!(merge["action"], "edited", "{adapter}: {report}");
        assert_eq!(
            merge["note"],
            "changed since acc wrote it; only acc's entries were removed"
        );
        let after = std::fs::read(&path).unwrap();
        assert!(
            !String::from_utf8_lossy(&after).contains("acc-hook"),
            "{adapter}: acc's entries are gone"
        );
        assert_eq!(
            String::from_utf8_lossy(&after),
            String::from_utf8_lossy(&expected_after_edit(&original, &path)),
            "{adapter}: the user's edit and style stay"
        );
    }
}

#[test]
fn reinstalling_over_a_users_edit_never_restores_the_older_original() {
    for adapter in ["claude-code", "kimi-code"] {
        let sandbox = Sandbox::with_homes(&[adapter]);
        let path = sandbox.home.join(merge_file(adapter).unwrap());
        let original = std::fs::read(&path).unwrap();
        install(&sandbox, adapter);
        edit_merge_file(&path);
        // Installing again (an upgrade, a repair) must not make uninstall throw the edit
        // away by restoring bytes older than it.
        install(&sandbox, adapter);
        uninstall(&sandbox, adapter);
        assert_eq!(
            std::fs::read(&path).unwrap(),
            expected_after_edit(&original, &path),
            "{adapter}"
        );
    }
}

#[test]
fn a_config_acc_created_goes_again_even_after_the_client_rewrote_it() {
    // Gemini CLI rewrites settings.json when it starts; a file acc created and that holds
    // nothing of the user's is removed once acc's entries are out.
    let sandbox = Sandbox::new();
    install(&sandbox, "gemini-cli");
    let settings = sandbox.home.join(".gemini/settings.json");
    let text = std::fs::read_to_string(&settings).unwrap();
    let value: Value = serde_json::from_str(&text).unwrap();
    std::fs::write(&settings, serde_json::to_string(&value).unwrap()).unwrap();
    let report = uninstall(&sandbox, "gemini-cli");
    assert!(!settings.exists(), "{report}");
    assert_eq!(sandbox.home_tree().contents(), Default::default());
}

#[test]
fn concurrent_installs_keep_every_entry_in_the_record() {
    let sandbox = Sandbox::with_homes(&ADAPTERS);
    std::thread::scope(|scope| {
        for adapter in ADAPTERS {
            let sandbox = &sandbox;
            scope.spawn(move || sandbox.acc(&["install", "--adapter", adapter]).ok().len());
        }
    });
    let record: Value =
        serde_json::from_slice(&std::fs::read(sandbox.data.join("acc/installs.json")).unwrap())
            .unwrap();
    let ids: Vec<&str> = record["installs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["adapterId"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ADAPTERS);
    sandbox.acc(&["uninstall"]).ok();
    let fresh = Sandbox::with_homes(&ADAPTERS);
    assert_eq!(sandbox.home_tree().contents(), fresh.home_tree().contents());
}

/// Antigravity and Gemini CLI share `~/.gemini`; acc creates it for whichever comes first.
/// Whatever the order of install and uninstall, in one run or in several, the directory
/// goes with the last adapter that used it, and the home ends as it began.
#[test]
fn a_directory_two_adapters_share_goes_with_the_last_of_them() {
    let pair = ["antigravity", "gemini-cli"];
    for installs in [pair, [pair[1], pair[0]]] {
        for uninstalls in [pair, [pair[1], pair[0]]] {
            // Separate runs.
            let sandbox = Sandbox::new();
            for adapter in installs {
                install(&sandbox, adapter);
            }
            uninstall(&sandbox, uninstalls[0]);
            assert!(
                sandbox.home.join(".gemini").is_dir(),
                "{installs:?} then {uninstalls:?}: still used by {}",
                uninstalls[1]
            );
            uninstall(&sandbox, uninstalls[1]);
            assert_eq!(
                sandbox.home_tree().contents(),
                Default::default(),
                "{installs:?} then {uninstalls:?}, separate runs"
            );

            // One run.
            let sandbox = Sandbox::new();
            for adapter in installs {
                install(&sandbox, adapter);
            }
            sandbox
                .acc(&[
                    "uninstall",
                    "--adapter",
                    uninstalls[0],
                    "--adapter",
                    uninstalls[1],
                ])
                .ok();
            assert_eq!(
                sandbox.home_tree().contents(),
                Default::default(),
                "{installs:?} then {uninstalls:?}, one run"
            );
        }
    }
}

#[test]
fn every_adapter_into_an_empty_home_and_out_again_leaves_it_empty() {
    let sandbox = Sandbox::new();
    let mut args = vec!["install"];
    for adapter in ADAPTERS {
        args.extend(["--adapter", adapter]);
    }
    sandbox.acc(&args).ok();
    sandbox.acc(&["uninstall"]).ok();
    assert_eq!(sandbox.home_tree().contents(), Default::default());

    // One install run, then one uninstall run per adapter, last installed first.
    sandbox.acc(&args).ok();
    for adapter in ADAPTERS.iter().rev() {
        uninstall(&sandbox, adapter);
    }
    assert_eq!(sandbox.home_tree().contents(), Default::default());
}

#[test]
fn a_shared_directory_holding_the_users_files_stays() {
    let sandbox = Sandbox::new();
    install(&sandbox, "antigravity");
    install(&sandbox, "gemini-cli");
    std::fs::write(sandbox.home.join(".gemini/notes.md"), "mine\n").unwrap();
    uninstall(&sandbox, "antigravity");
    uninstall(&sandbox, "gemini-cli");
    let left: Vec<PathBuf> = sandbox.home_tree().0.into_keys().collect();
    assert_eq!(
        left,
        [PathBuf::from(".gemini"), PathBuf::from(".gemini/notes.md")]
    );
}

/// A file acc owns that the user changed since acc wrote it is kept by a re-install, as
/// uninstall keeps it, and the rest of the install still happens.
#[test]
fn reinstalling_keeps_an_acc_file_the_user_changed_and_installs_the_rest() {
    let sandbox = Sandbox::with_homes(&["grok"]);
    let before = sandbox.home_tree().contents();
    install(&sandbox, "grok");
    let hooks = sandbox.home.join(".grok/hooks/acc.json");
    let mut edited = std::fs::read(&hooks).unwrap();
    edited.extend_from_slice(b"// my own note\n");
    std::fs::write(&hooks, &edited).unwrap();
    let skill = sandbox.home.join(skill_dir("grok"));
    std::fs::remove_dir_all(&skill).unwrap();
    let edited_tree = sandbox.home_tree();

    let dry = sandbox.acc(&["install", "--adapter", "grok", "--dry-run", "--json"]);
    dry.ok();
    assert_eq!(sandbox.home_tree(), edited_tree, "a dry run writes nothing");
    let report = install(&sandbox, "grok");
    for run in [dry.json(), report.clone()] {
        let mut got = actions(&run, &sandbox.home);
        got.sort();
        assert_eq!(
            got,
            [
                (PathBuf::from(".grok/hooks/acc.json"), "kept".to_owned()),
                (PathBuf::from(skill_dir("grok")), "created".to_owned()),
            ],
            "{run}"
        );
    }
    let note = report["data"]["adapters"][0]["files"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["action"] == "kept")
        .unwrap()["note"]
        .clone();
    assert_eq!(note, "changed since acc wrote it, so acc leaves it");
    // The edit is untouched (same bytes, same file), and the skill is back.
    let after = sandbox.home_tree();
    assert_eq!(
        after.0.get(Path::new(".grok/hooks/acc.json")),
        edited_tree.0.get(Path::new(".grok/hooks/acc.json"))
    );
    assert!(skill.join("SKILL.md").is_file());
    let leftovers: Vec<PathBuf> = after
        .0
        .keys()
        .filter(|p| p.to_string_lossy().contains("acc-kept"))
        .cloned()
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");

    // Uninstall still knows it as changed, keeps it, and takes the rest back.
    let report = uninstall(&sandbox, "grok");
    assert!(
        actions(&report, &sandbox.home)
            .contains(&(PathBuf::from(".grok/hooks/acc.json"), "kept".to_owned())),
        "{report}"
    );
    let mut left = sandbox.home_tree().contents();
    assert_eq!(
        left.remove(Path::new(".grok/hooks/acc.json")).flatten(),
        Some(support::hex(&<sha2::Sha256 as sha2::Digest>::digest(
            &edited
        )))
    );
    assert_eq!(left, before);
}

#[test]
fn a_hook_file_acc_never_wrote_is_still_refused() {
    let sandbox = Sandbox::with_homes(&["grok"]);
    let hooks = sandbox.home.join(".grok/hooks/acc.json");
    std::fs::create_dir_all(hooks.parent().unwrap()).unwrap();
    std::fs::write(&hooks, "{\"hooks\": {}} // someone else's\n").unwrap();
    let before = sandbox.home_tree();
    let run = sandbox.acc(&["install", "--adapter", "grok"]);
    assert_eq!(run.code, 5, "{}", run.stderr);
    assert!(
        run.stderr.contains("was not written by acc"),
        "{}",
        run.stderr
    );
    assert_eq!(sandbox.home_tree(), before);
}

/// Homes a careless editor would damage (`fixtures/homes/hostile/`), and the adapter whose
/// files they hold.
const HOSTILE: [(&str, &str); 2] = [
    ("hostile/kimi-code-strings", "kimi-code"),
    ("hostile/kimi-code-old-block", "kimi-code"),
];

#[test]
fn hostile_homes_round_trip_byte_for_byte_whether_or_not_the_user_edited_since() {
    for (home, adapter) in HOSTILE {
        let relative = merge_file(adapter).unwrap();
        // Untouched since install: the original bytes come back.
        let sandbox = Sandbox::with_homes(&[home]);
        let before = sandbox.home_tree().contents();
        let original = std::fs::read(sandbox.home.join(relative)).unwrap();
        install(&sandbox, adapter);
        let installed = std::fs::read(sandbox.home.join(relative)).unwrap();
        let accs = String::from_utf8_lossy(&installed)
            .matches("[[hooks]] # acc")
            .count();
        assert_eq!(accs, 7, "{home}: seven live acc tables");
        // An older acc's table that no install record of this data home names is not this
        // install's (it may as well be a program of the user's called acc-hook): it stays,
        // byte for byte, and doctor names it.
        assert!(
            installed.starts_with(&original),
            "{home}: everything that was there stays where it was"
        );
        install(&sandbox, adapter);
        assert_eq!(
            std::fs::read(sandbox.home.join(relative)).unwrap(),
            installed
        );
        uninstall(&sandbox, adapter);
        assert_eq!(sandbox.home_tree().contents(), before, "{home}");

        // Edited since install: acc's tables go structurally, the edit stays.
        let sandbox = Sandbox::with_homes(&[home]);
        install(&sandbox, adapter);
        let path = sandbox.home.join(relative);
        edit_merge_file(&path);
        let report = uninstall(&sandbox, adapter);
        let after = String::from_utf8(std::fs::read(&path).unwrap()).unwrap();
        assert_eq!(
            after,
            String::from_utf8(expected_after_edit(&original, &path)).unwrap(),
            "{home}: {report}"
        );
    }
}

/// Issue 31's four entries for `adapter`'s `event`: another acc install's (a second data
/// home on the machine), a user's own program that happens to be called `acc-hook`, and two
/// commands that merely mention acc-hook.
fn strangers(adapter: &str, event: &str) -> [String; 4] {
    [
        format!(r#""/usr/local/bin/acc-hook" --data-home "/other/data" {adapter} {event}"#),
        format!("/home/me/acc-hook {adapter} {event}"),
        "/opt/tools/acc-hook-audit.sh".to_owned(),
        "logger acc-hook ran".to_owned(),
    ]
}

/// Rewrites the JSON file at `path` (a fresh `{}` when absent) in its own style.
fn edit_json(path: &Path, edit: impl FnOnce(&mut serde_json::Map<String, Value>)) {
    let bytes = std::fs::read(path).unwrap_or_else(|_| b"{}\n".to_vec());
    let (mut value, style) = parse_json_document(&bytes, path).unwrap();
    edit(value.as_object_mut().unwrap());
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, render_json_document(&value, &style)).unwrap();
}

/// Claude-shaped groups, one per command, appended under `event`.
fn add_groups(doc: &mut serde_json::Map<String, Value>, event: &str, commands: &[String]) {
    let events = doc
        .entry("hooks")
        .or_insert_with(|| json!({}))
        .as_object_mut()
        .unwrap();
    let groups = events
        .entry(event)
        .or_insert_with(|| json!([]))
        .as_array_mut()
        .unwrap();
    for command in commands {
        groups.push(json!({"matcher": "Write", "hooks": [{"type": "command", "command": command, "timeout": 5}]}));
    }
}

/// Puts issue 31's four entries where `adapter`'s client would read them, before acc is
/// installed; returns the files holding them and the file the user edits later.
fn seed_strangers(home: &Path, adapter: &str) -> (Vec<PathBuf>, PathBuf) {
    let claude_shaped = |relative: &str, event: &str| {
        let path = home.join(relative);
        edit_json(&path, |doc| {
            add_groups(doc, event, &strangers(adapter, event))
        });
        (vec![path.clone()], path)
    };
    match adapter {
        "claude-code" => claude_shaped(".claude/settings.json", "PreToolUse"),
        "codex" => claude_shaped(".codex/hooks.json", "PreToolUse"),
        "gemini-cli" => claude_shaped(".gemini/settings.json", "BeforeTool"),
        "qwen-code" => claude_shaped(".qwen/settings.json", "PreToolUse"),
        "antigravity" => {
            // The `acc` set is shared by every acc install; the user's own go in a set of theirs.
            let path = home.join(".gemini/config/hooks.json");
            let [other, mine @ ..] = strangers(adapter, "SessionStart");
            edit_json(&path, |doc| {
                let handler = |c: &str| json!({"type": "command", "command": c, "timeout": 5});
                doc.insert("acc".into(), json!({"SessionStart": [handler(&other)]}));
                let mine: Vec<Value> = mine.iter().map(|c| handler(c)).collect();
                doc.insert("mine".into(), json!({"SessionStart": mine}));
            });
            (vec![path.clone()], path)
        }
        "kimi-code" => {
            let path = home.join(".kimi-code/config.toml");
            let mut text = std::fs::read_to_string(&path).unwrap();
            let newline = if text.contains("\r\n") { "\r\n" } else { "\n" };
            for command in strangers(adapter, "PreToolUse") {
                text.push_str(&format!(
                    "{newline}[[hooks]]{newline}event = \"PreToolUse\"{newline}matcher = \"Write\"{newline}command = '{command}'{newline}timeout = 5{newline}"
                ));
            }
            std::fs::write(&path, text).unwrap();
            (vec![path.clone()], path)
        }
        "grok" => {
            // `hooks/acc.json` is every acc install's own file; the user's hooks are theirs.
            let [other, mine @ ..] = strangers(adapter, "SessionStart");
            let shared = home.join(".grok/hooks/acc.json");
            std::fs::write(
                &shared,
                render_json_document(
                    &json!({"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": other, "timeout": 10}]}]}}),
                    &acc_sdk::json_style::JsonStyle::default(),
                ),
            )
            .unwrap();
            let own = home.join(".grok/hooks/mine.json");
            edit_json(&own, |doc| add_groups(doc, "SessionStart", &mine));
            (vec![shared, own.clone()], own)
        }
        "copilot" => {
            // `hooks/acc.json` is every acc install's own file; the user's hooks are theirs,
            // in a hook file of their own and inline in their JSONC `settings.json`.
            let [other, mine @ ..] = strangers(adapter, "userPromptSubmitted");
            let entry = |c: &str| json!({"type": "command", "bash": c, "timeoutSec": 5});
            let shared = home.join(".copilot/hooks/acc.json");
            std::fs::write(
                &shared,
                render_json_document(
                    &json!({"version": 1, "hooks": {"userPromptSubmitted": [entry(&other)]}}),
                    &acc_sdk::json_style::JsonStyle::default(),
                ),
            )
            .unwrap();
            let own = home.join(".copilot/hooks/mine.json");
            let mine: Vec<Value> = mine.iter().map(|c| entry(c)).collect();
            edit_json(&own, |doc| {
                doc.insert("version".into(), json!(1));
                doc.insert("hooks".into(), json!({"userPromptSubmitted": mine}));
            });
            (vec![shared, own.clone()], own)
        }
        other => panic!("unknown adapter {other}"),
    }
}

/// Every string in the JSON or TOML file at `path`.
fn strings_in(path: &Path) -> Vec<String> {
    fn collect(value: &Value, out: &mut Vec<String>) {
        match value {
            Value::String(s) => out.push(s.clone()),
            Value::Array(items) => items.iter().for_each(|v| collect(v, out)),
            Value::Object(map) => map.values().for_each(|v| collect(v, out)),
            _ => {}
        }
    }
    let text = std::fs::read_to_string(path).unwrap();
    let value = if path.extension().is_some_and(|e| e == "toml") {
        acc_sdk::install_files::parse_toml(&text, path).unwrap()
    } else {
        serde_json::from_str(&text).unwrap()
    };
    let mut out = Vec::new();
    collect(&value, &mut out);
    out
}

/// Issue 31: uninstall after an unrelated edit removed a user's own `acc-hook` and another
/// install's hook. Every entry that is not this install's survives install, an edit and
/// uninstall, for every adapter that writes hook entries, and each file ends as the user
/// left it: exactly acc's entries gone. Doctor names the look-alikes for what they are.
#[test]
fn entries_that_only_look_like_accs_survive_install_an_edit_and_uninstall() {
    // OpenCode's wiring is a plugin file of acc's own per data home, which holds no entry of
    // anyone else's: `another_installs_and_the_users_opencode_plugins_stay` covers it.
    for adapter in ADAPTERS.into_iter().filter(|a| *a != "opencode") {
        let sandbox = Sandbox::with_homes(&[adapter]);
        let (files, edited) = seed_strangers(&sandbox.home, adapter);
        let seeded: Vec<Vec<u8>> = files.iter().map(|f| std::fs::read(f).unwrap()).collect();
        install(&sandbox, adapter);
        let installed: Vec<String> = files.iter().flat_map(|f| strings_in(f)).collect();
        let event = match adapter {
            "gemini-cli" => "BeforeTool",
            "antigravity" | "grok" => "SessionStart",
            "copilot" => "userPromptSubmitted",
            _ => "PreToolUse",
        };
        for stranger in strangers(adapter, event) {
            assert!(
                installed.contains(&stranger),
                "{adapter}: install kept `{stranger}`"
            );
        }
        let ours = format!(
            "\"{}\" --data-home \"{}\" {adapter} {event}",
            support::hook_bin().display(),
            sandbox.data.display()
        );
        assert!(installed.contains(&ours), "{adapter}: {installed:?}");
        // Installing again replaces only acc's own entries: nothing changes.
        let once = sandbox.home_tree();
        install(&sandbox, adapter);
        assert_eq!(sandbox.home_tree(), once, "{adapter}: idempotent");

        let doctor = sandbox.acc(&["doctor", "--json"]).json();
        let client = doctor["data"]["clients"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["adapterId"] == *adapter)
            .unwrap();
        let strangers_named: Vec<&str> = client["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|d| d["message"].as_str())
            .filter(|m| m.contains("belongs to no install recorded in this data home"))
            .collect();
        assert!(
            strangers_named
                .iter()
                .any(|m| m.contains("another acc install's, with the data home /other/data")),
            "{adapter}: {strangers_named:?}"
        );
        // Grok's and Copilot CLI's hook files are acc's own; the user's are not acc's to read.
        let own_file = matches!(adapter, "grok" | "copilot");
        if !own_file {
            assert!(
                strangers_named
                    .iter()
                    .any(|m| m.contains("/home/me/acc-hook is not this install's hook runtime")),
                "{adapter}: {strangers_named:?}"
            );
        }
        assert_eq!(
            strangers_named.len(),
            if own_file { 1 } else { 2 },
            "{adapter}: only the two that run an acc-hook look like acc's: {strangers_named:?}"
        );

        edit_merge_file(&edited);
        uninstall(&sandbox, adapter);
        for (file, seeded) in files.iter().zip(&seeded) {
            let expected = if *file == edited {
                expected_after_edit(seeded, file)
            } else {
                seeded.clone()
            };
            assert_eq!(
                String::from_utf8_lossy(&std::fs::read(file).unwrap()),
                String::from_utf8_lossy(&expected),
                "{adapter}: {} is the user's file minus exactly acc's entries",
                file.display()
            );
        }
    }
}

/// `acc` and `acc-hook` copied to another directory: the same acc, moved.
fn moved_acc(sandbox: &Sandbox) -> PathBuf {
    let bin = sandbox.tmp.path().join("moved/bin");
    std::fs::create_dir_all(&bin).unwrap();
    for from in [support::acc_bin(), support::hook_bin()] {
        std::fs::copy(&from, bin.join(from.file_name().unwrap())).unwrap();
    }
    bin.join("acc")
}

/// The install record as an acc before issue 31 wrote it: no hook commands named.
fn forget_recorded_hooks(sandbox: &Sandbox) {
    let path = sandbox.data.join("acc/installs.json");
    let mut record: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    let mut named = 0;
    for entry in record["installs"].as_array_mut().unwrap() {
        for artifact in entry["artifacts"].as_array_mut().unwrap() {
            named += usize::from(artifact.as_object_mut().unwrap().remove("hooks").is_some());
        }
    }
    assert_eq!(named, 1, "the record named the hook file's entries");
    std::fs::write(&path, serde_json::to_vec_pretty(&record).unwrap()).unwrap();
}

/// Strings in the adapter's hook file that run the `acc-hook` beside `acc`.
fn commands_of(sandbox: &Sandbox, adapter: &str, acc: &Path) -> usize {
    let hook = acc.with_file_name("acc-hook");
    let strings = if adapter == "opencode" {
        support::opencode_plugin_hooks(&support::opencode_plugin(&sandbox.home, &sandbox.data))
            .into_iter()
            .map(|(_, command)| command)
            .collect()
    } else {
        let file = merge_file(adapter).unwrap_or(match adapter {
            "copilot" => ".copilot/hooks/acc.json",
            _ => ".grok/hooks/acc.json",
        });
        strings_in(&sandbox.home.join(file))
    };
    strings
        .iter()
        .filter(|s| s.starts_with(&format!("\"{}\" ", hook.display())))
        .count()
}

/// Install's merge replaces what this install wrote before, as the record names it, even
/// from where acc used to live; uninstall after a move gives the home back. A record from
/// before acc named its commands still uninstalls, matching this install's exact command.
#[test]
fn the_record_names_what_install_replaces_and_uninstall_removes() {
    for adapter in ADAPTERS {
        let sandbox = Sandbox::with_homes(&[adapter]);
        let before = sandbox.home_tree().contents();
        install(&sandbox, adapter);
        let here = support::acc_bin();
        let written = commands_of(&sandbox, adapter, &here);
        assert!(written > 0, "{adapter}");
        let moved = moved_acc(&sandbox);
        let run = sandbox.acc_with(&moved, &["install", "--adapter", adapter]);
        run.ok();
        assert_eq!(
            commands_of(&sandbox, adapter, &here),
            0,
            "{adapter}: replaced"
        );
        assert_eq!(commands_of(&sandbox, adapter, &moved), written, "{adapter}");
        sandbox
            .acc_with(&moved, &["uninstall", "--adapter", adapter])
            .ok();
        assert_eq!(sandbox.home_tree().contents(), before, "{adapter}: moved");

        // An older record: the exact command of this install is still known as its own.
        let sandbox = Sandbox::with_homes(&[adapter]);
        install(&sandbox, adapter);
        forget_recorded_hooks(&sandbox);
        let Some(relative) = merge_file(adapter) else {
            uninstall(&sandbox, adapter);
            assert_eq!(
                sandbox.home_tree().contents(),
                before,
                "{adapter}: old record"
            );
            continue;
        };
        let path = sandbox.home.join(relative);
        let seeded = std::fs::read(fixtures().join("homes").join(adapter).join(relative)).unwrap();
        edit_merge_file(&path);
        uninstall(&sandbox, adapter);
        assert_eq!(
            String::from_utf8(std::fs::read(&path).unwrap()).unwrap(),
            String::from_utf8(expected_after_edit(&seeded, &path)).unwrap(),
            "{adapter}: old record"
        );
    }
}

/// An older record and a moved acc: the old entries are named by no record and run another
/// acc-hook, so they are not this install's. They stay (a user's own program could look
/// the same) and doctor says what they are.
#[test]
fn entries_of_a_moved_acc_no_record_names_stay_and_doctor_names_them() {
    let sandbox = Sandbox::with_homes(&["claude-code"]);
    install(&sandbox, "claude-code");
    forget_recorded_hooks(&sandbox);
    let moved = moved_acc(&sandbox);
    sandbox
        .acc_with(&moved, &["install", "--adapter", "claude-code"])
        .ok();
    let here = support::acc_bin();
    let old = commands_of(&sandbox, "claude-code", &here);
    assert_eq!(old, commands_of(&sandbox, "claude-code", &moved));
    let doctor = sandbox.acc_with(&moved, &["doctor", "--json"]).json();
    let named = doctor["data"]["clients"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["adapterId"] == "claude-code")
        .unwrap()["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| {
            d["message"].as_str().is_some_and(|m| {
                m.contains(&format!(
                    "{} is not this install's hook runtime",
                    support::hook_bin().display()
                ))
            })
        })
        .count();
    assert_eq!(named, old);
}

/// OpenCode runs every plugin in its plugin directory, so each acc install writes a plugin
/// of its own there and never edits another: the user's own plugin, another acc install's
/// (a second data home) and the user's `opencode.jsonc` keep their bytes through install,
/// a second install and uninstall, and the other install's plugin still runs its own hook.
#[test]
fn another_installs_and_the_users_opencode_plugins_stay() {
    let sandbox = Sandbox::with_homes(&["opencode"]);
    let dir = sandbox.home.join(".config/opencode/plugin");
    let other = dir.join("acc-0123456789abcdef.js");
    let other_text = acc_adapter_opencode::PLUGIN
        .replacen(
            "__ACC_HOOKS__",
            r#"{"SessionStart":"\"/usr/local/bin/acc-hook\" --data-home \"/other/data\" opencode SessionStart"}"#,
            1,
        )
        .replacen("__ACC_TIMEOUT_MS__", "10000", 1);
    std::fs::write(&other, &other_text).unwrap();
    let before = sandbox.home_tree().contents();
    install(&sandbox, "opencode");
    install(&sandbox, "opencode");
    let mine = support::opencode_plugin(&sandbox.home, &sandbox.data);
    assert_ne!(mine, other);
    assert_eq!(std::fs::read_to_string(&other).unwrap(), other_text);
    let ours = support::opencode_plugin_hooks(&mine);
    assert_eq!(ours.len(), 7, "{ours:?}");
    assert!(
        ours.iter()
            .all(|(_, c)| c.contains(&sandbox.data.display().to_string()))
    );
    uninstall(&sandbox, "opencode");
    assert_eq!(sandbox.home_tree().contents(), before);
}
