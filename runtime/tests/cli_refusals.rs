//! Refusals found in review: a forced release by resource, a command group without its
//! subcommand, cursors beyond the event log's head, the head after pruning, a data home
//! that is a file, and a store locked past its busy timeout. Each is one line on stderr (or
//! one JSON envelope), the right exit code, and nothing changed.

mod common;

use common::{Redactor, Sandbox};

/// The claim ids in the room.
fn claims(sb: &Sandbox) -> Vec<String> {
    let v = sb.run(&["status", "--json"]).json();
    v["data"]["claims"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["claimId"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn a_forced_release_by_resource_is_a_usage_error() {
    let sb = Sandbox::new();
    let alice = sb.attach("alice", &[]);
    let bob = sb.attach("bob", &[]);
    let r = sb.run_as(&alice, &["claim", "--resource", "file:z.rs"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let held = claims(&sb);
    let forced = ["release", "--resource", "file:z.rs", "--authority", "human"];
    let r = sb.run_as(&bob, &forced);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stdout.is_empty());
    assert_eq!(r.stderr.lines().count(), 1, "{}", r.stderr);
    assert_eq!(
        r.stderr.trim_end(),
        "--authority human releases another session's claim by its id: pass --claim <CLAIM> instead of --resource file:z.rs (`acc status --json` lists claim ids); see `acc release --help`"
    );
    let mut json = forced.to_vec();
    json.push("--json");
    let r = sb.run_as(&bob, &json);
    assert_eq!(r.code, 2);
    assert!(r.stderr.is_empty(), "{}", r.stderr);
    let v = r.json();
    assert_eq!(v["ok"], false);
    assert_eq!(v["error"]["code"], 2);
    assert_eq!(v["error"]["details"]["reason"], "invalid_argument");
    // Without a session too (a person forcing a release).
    assert_eq!(sb.run(&forced).code, 2);
    assert_eq!(claims(&sb), held, "the claim is untouched");
    // By id it works, for a person at a terminal.
    sb.terminal.set(true);
    let r = sb.run_as(
        &bob,
        &["release", "--claim", &held[0], "--authority", "human"],
    );
    sb.terminal.set(false);
    assert_eq!(r.code, 0, "{}", r.stdout);
    assert!(claims(&sb).is_empty());
}

#[test]
fn a_missing_subcommand_is_a_usage_error_and_help_is_not() {
    let sb = Sandbox::new();
    let mut shown = String::new();
    for args in [vec![], vec!["config"]] {
        let r = sb.run(&args);
        assert_eq!(r.code, 2, "{args:?}");
        assert!(r.stdout.is_empty(), "{args:?}: {}", r.stdout);
        assert_eq!(r.stderr.lines().count(), 1, "{args:?}: {}", r.stderr);
        let human = r.stderr.trim_end().to_string();
        let line = [&["acc"][..], &args[..]].concat().join(" ");
        shown.push_str(&format!("$ {line}\n{human}\n\n"));
        // --json anywhere gives the envelope instead, with the same words.
        for json in [
            [&["--json"][..], &args[..]].concat(),
            [&args[..], &["--json"][..]].concat(),
        ] {
            let r = sb.run(&json);
            assert_eq!(r.code, 2, "{json:?}");
            assert!(r.stderr.is_empty(), "{json:?}: {}", r.stderr);
            let v = r.json();
            assert_eq!(v["error"]["code"], 2);
            assert_eq!(v["error"]["details"]["reason"], "invalid_argument");
            assert_eq!(v["error"]["message"], human.as_str(), "{json:?}");
            if args == ["config"] && json[0] == "--json" {
                shown.push_str(&format!(
                    "$ acc {}\n{}\n\n",
                    json.join(" "),
                    r.stdout.trim_end()
                ));
            }
        }
    }
    insta::assert_snapshot!("missing_subcommand", shown);
    for args in [
        vec!["config", "--help"],
        vec!["--help"],
        vec!["help", "config"],
    ] {
        let r = sb.run(&args);
        assert_eq!(r.code, 0, "{args:?}");
        assert!(r.stdout.contains("Usage: acc"), "{args:?}");
        assert!(r.stderr.is_empty(), "{args:?}");
    }
    assert!(sb.store_files().is_empty());
}

#[test]
fn cursors_beyond_the_head_are_refused() {
    let sb = Sandbox::new();
    let alice = sb.attach("alice", &[]);
    let head = sb.run_as(&alice, &["sync", "--json"]).json()["data"]["cursor"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(head, "0000000000000002");
    let before = sb.store_bytes();
    let r = sb.run_as(&alice, &["sync", "--cursor", "9999999999999999"]);
    assert_eq!(r.code, 2);
    assert_eq!(
        r.stderr,
        "cursor 9999999999999999 is beyond the newest event of this workspace (0000000000000002); pass a cursor a previous sync returned, or none to read from the start\n"
    );
    let v = sb
        .run_as(&alice, &["sync", "--cursor", "9999999999999999", "--json"])
        .json();
    assert_eq!(v["error"]["code"], 2);
    assert_eq!(v["error"]["details"]["reason"], "invalid_cursor");
    assert_eq!(v["error"]["details"]["head"], "0000000000000002");
    assert_eq!(v["error"]["details"]["cursor"], "9999999999999999");
    // The head itself is a good cursor.
    let r = sb.run_as(&alice, &["sync", "--cursor", &head, "--json"]);
    assert_eq!(r.code, 0, "{}", r.stdout);
    for apply in [false, true] {
        let mut args = vec!["prune", "--before", "0000000000000003", "--json"];
        if apply {
            args.push("--apply");
        }
        let v = sb.run(&args).json();
        assert_eq!(v["error"]["code"], 2, "{v}");
        assert_eq!(v["error"]["details"]["reason"], "invalid_cursor");
        assert!(
            v["error"]["message"]
                .as_str()
                .unwrap()
                .starts_with("--before 0000000000000003 is beyond the newest event"),
            "{v}"
        );
    }
    assert_eq!(sb.store_bytes(), before, "nothing was written");
}

#[test]
fn pruned_history_never_moves_the_cursor_backwards() {
    let sb = Sandbox::new();
    let alice = sb.attach("alice", &[]);
    let bob = sb.attach("bob", &[]);
    let r = sb.run_as(&bob, &["claim", "--resource", "file:a.rs"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let head = sb.run_as(&alice, &["sync", "--json"]).json()["data"]["cursor"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(head, "0000000000000004");
    let v = sb
        .run(&["prune", "--before", &head, "--apply", "--json"])
        .json();
    assert_eq!(v["data"]["events"], 4, "{v}");
    for args in [
        vec!["sync", "--json"],
        vec!["sync", "--json", "--scope", "history"],
        vec!["sync", "--json", "--scope", "full"],
        vec!["sync", "--json", "--cursor", &head],
    ] {
        let v = sb.run_as(&alice, &args).json();
        assert_eq!(v["data"]["cursor"], head.as_str(), "{args:?}: {v}");
        assert_eq!(v["data"]["events"], serde_json::json!([]), "{args:?}");
    }
    // New events continue after the old head.
    let r = sb.run_as(&bob, &["release", "--resource", "file:a.rs"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let v = sb
        .run_as(&alice, &["sync", "--json", "--cursor", &head])
        .json();
    assert_eq!(v["data"]["cursor"], "0000000000000005", "{v}");
    assert_eq!(v["data"]["events"][0]["type"], "claim.released");
}

#[test]
fn a_data_home_that_is_a_file_is_named() {
    let sb = Sandbox::new();
    let file = sb.tmp.path().canonicalize().unwrap().join("home-file");
    std::fs::write(&file, b"not a directory").unwrap();
    let mut red = Redactor::new(&sb);
    for args in [
        vec!["attach", "--participant", "alice"],
        vec!["status"],
        vec!["sync"],
    ] {
        let r = sb.cmd(&args).env("ACC_DATA_HOME", &file).output().unwrap();
        assert_eq!(r.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8(r.stderr).unwrap();
        assert_eq!(err.lines().count(), 1, "{err}");
        assert_eq!(
            err.trim_end(),
            format!(
                "the data home {} is not a directory; set ACC_DATA_HOME to a directory, or move the file aside",
                file.display()
            ),
            "{args:?}"
        );
        assert!(!red.apply(&err).contains("move it aside to start over"));
    }
    let r = sb
        .cmd(&["status", "--json"])
        .env("ACC_DATA_HOME", &file)
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&r.stdout).unwrap();
    assert_eq!(v["error"]["details"]["reason"], "data_home_not_directory");
    assert_eq!(std::fs::read(&file).unwrap(), b"not a directory");
}

#[test]
fn a_store_locked_past_its_busy_timeout_names_the_file() {
    let sb = Sandbox::new();
    let alice = sb.attach("alice", &[]);
    let db = sb.db_path();
    let holder = rusqlite::Connection::open(&db).unwrap();
    holder.execute_batch("BEGIN IMMEDIATE").unwrap();
    let r = sb.run_as(&alice, &["claim", "--resource", "file:a.rs", "--json"]);
    holder.execute_batch("ROLLBACK").unwrap();
    assert_eq!(r.code, 3, "{}", r.stdout);
    let v = r.json();
    assert_eq!(v["error"]["details"]["reason"], "store_busy");
    assert_eq!(v["error"]["details"]["file"], db.display().to_string());
    let message = v["error"]["message"].as_str().unwrap();
    assert!(
        message.starts_with(&format!("the acc store {} stayed locked", db.display())),
        "{message}"
    );
    assert!(claims(&sb).is_empty(), "the claim was not taken");
}

#[test]
fn a_failed_migration_names_the_file_and_changes_nothing() {
    let sb = Sandbox::new();
    sb.attach("alice", &[]);
    let db = sb.db_path();
    // Claims version 1 while holding version 2's table: migration 2 cannot run.
    let conn = rusqlite::Connection::open(&db).unwrap();
    conn.pragma_update(None, "user_version", 1).unwrap();
    drop(conn);
    let before = sb.store_bytes();
    let r = sb.run(&["status"]);
    assert_eq!(r.code, 4, "{}", r.stderr);
    assert_eq!(r.stderr.lines().count(), 1, "{}", r.stderr);
    assert!(
        r.stderr.starts_with(&format!(
            "cannot migrate the acc store {} from schema version 1 to ",
            db.display()
        )),
        "{}",
        r.stderr
    );
    assert!(
        r.stderr.contains("table decision_links already exists"),
        "{}",
        r.stderr
    );
    let v = sb.run(&["status", "--json"]).json();
    assert_eq!(v["error"]["details"]["file"], db.display().to_string());
    assert_eq!(v["error"]["details"]["storeVersion"], 1);
    assert_eq!(sb.store_bytes(), before, "the migration rolled back");
}
