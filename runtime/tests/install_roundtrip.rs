//! Install and uninstall against realistic homes, for every adapter: installing twice is
//! installing once (no file rewritten), uninstall gives the whole home back, a dry run
//! writes nothing and names exactly what install changes, and the user's own edits after
//! install survive uninstall.

#[path = "install_support/mod.rs"]
mod support;

use std::path::{Path, PathBuf};

use acc_sdk::json_style::{parse_json_document, render_json_document};
use serde_json::{Value, json};
use support::{ADAPTERS, Sandbox, Tree, merge_file, skill_dir};

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
        let text = String::from_utf8(installed.clone()).unwrap();
        assert!(
            !text.contains("/old/acc-hook kimi-code SessionStart\"\ntimeout"),
            "{home}: an older acc's table is replaced, not kept beside the new ones"
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
        if home.ends_with("old-block") {
            // The older acc's table went with acc's; its marker comments are the user's now.
            assert!(!after.contains("acc-hook kimi-code"), "{home}: {after}");
        } else {
            assert_eq!(
                after,
                String::from_utf8(expected_after_edit(&original, &path)).unwrap(),
                "{home}: {report}"
            );
        }
    }
}
