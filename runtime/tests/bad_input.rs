//! Bad input: malformed `acc.workspace.json`, bad resource spellings, over-long subjects,
//! control characters, unknown flags. Each is one clear line on stderr (or one JSON
//! envelope) with the right exit code, and nothing is written: the data home stays empty, or
//! the store's bytes are unchanged.

mod common;

use common::{Redactor, Sandbox};
use std::path::PathBuf;

fn fixtures(kind: &str) -> Vec<(String, PathBuf)> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../fixtures/workspace")
        .join(kind);
    let mut out: Vec<(String, PathBuf)> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            (
                e.file_name().to_string_lossy().into_owned(),
                e.path().join("acc.workspace.json"),
            )
        })
        .collect();
    out.sort();
    assert!(!out.is_empty(), "fixtures in {}", dir.display());
    out
}

#[test]
fn malformed_workspace_configs_fail_closed_and_write_nothing() {
    let mut report = String::new();
    for (name, file) in fixtures("bad") {
        let sb = Sandbox::new();
        std::fs::copy(&file, sb.ws_path().join("acc.workspace.json")).unwrap();
        let mut red = Redactor::new(&sb);
        for args in [
            vec!["attach", "--participant", "alice"],
            vec!["status"],
            vec!["config", "validate"],
        ] {
            let r = sb.run(&args);
            assert_eq!(r.code, 4, "{name}: {args:?}: {}", r.stderr);
            assert!(r.stdout.is_empty(), "{name}");
            assert_eq!(r.stderr.lines().count(), 1, "{name}: {}", r.stderr);
            assert!(
                r.stderr.contains("[WS]/acc.workspace.json")
                    || red.apply(&r.stderr).contains("[WS]/acc.workspace.json"),
                "{name}: names the file: {}",
                r.stderr
            );
        }
        let r = sb.run(&["attach", "--participant", "alice"]);
        report.push_str(&format!("{name}: {}", red.apply(&r.stderr)));
        let j = sb
            .run(&["attach", "--participant", "alice", "--json"])
            .json();
        assert_eq!(j["ok"], false);
        assert_eq!(j["error"]["code"], 4);
        assert_eq!(j["error"]["details"]["reason"], "workspace_config_invalid");
        assert!(
            sb.store_files().is_empty(),
            "{name}: the data home stays empty"
        );
    }
    insta::assert_snapshot!("bad_workspace_configs", report);
}

#[test]
fn good_workspace_configs_are_accepted() {
    for (name, file) in fixtures("good") {
        let sb = Sandbox::new();
        std::fs::copy(&file, sb.ws_path().join("acc.workspace.json")).unwrap();
        let r = sb.run(&["config", "validate"]);
        assert_eq!(r.code, 0, "{name}: {}", r.stderr);
        sb.attach("alice", &[]);
        let v = sb.run(&["status", "--json"]).json();
        assert_eq!(v["data"]["workspace"]["source"], "config", "{name}");
        assert!(
            v["data"]["workspace"]["id"]
                .as_str()
                .unwrap()
                .starts_with("demo")
        );
    }
}

#[test]
fn a_symlinked_config_is_refused() {
    let sb = Sandbox::new();
    let real = sb.tmp.path().join("real.json");
    std::fs::write(&real, r#"{"schemaVersion":1,"workspaceId":"demo"}"#).unwrap();
    std::os::unix::fs::symlink(&real, sb.ws_path().join("acc.workspace.json")).unwrap();
    let r = sb.run(&["status"]);
    assert_eq!(r.code, 4);
    assert!(r.stderr.contains("symbolic link"), "{}", r.stderr);
}

#[test]
fn bad_arguments_before_any_store_write_nothing() {
    let sb = Sandbox::new();
    let owner = (
        "session_AAAAAAAAAAAAAAAAAAAAAA".to_string(),
        "generation_AAAAAAAAAAAAAAAAAAAAAA".to_string(),
    );
    let cases: Vec<(Vec<&str>, i32)> = vec![
        (vec!["attach", "--participant", "not a portable id"], 2),
        (
            vec!["attach", "--participant", "alice", "--harness", "tab\there"],
            2,
        ),
        (
            vec![
                "attach",
                "--participant",
                "alice",
                "--enforcement",
                "strict",
            ],
            2,
        ),
        (
            vec!["attach", "--participant", "alice", "--cadence", "0"],
            2,
        ),
        (vec!["attach", "--participant", "alice", "--bogus"], 2),
        (vec!["attach", "--participant"], 2),
        (vec!["claim", "--resource", "file:src/*.rs"], 2),
        (vec!["sync", "--cursor", "42"], 2),
        (vec!["frobnicate"], 2),
    ];
    for (args, code) in cases {
        let r = sb.run_as(&owner, &args);
        assert_eq!(r.code, code, "{args:?}: {}", r.stderr);
        assert_eq!(r.stderr.lines().count(), 1, "{args:?}: {}", r.stderr);
        assert!(
            sb.store_files().is_empty(),
            "{args:?} wrote into the data home"
        );
    }
}

#[test]
fn bad_arguments_leave_the_store_unchanged() {
    let sb = Sandbox::new();
    let a = sb.attach("alice", &[]);
    sb.attach("bob", &[]);
    let before = sb.store_bytes();
    let long_subject = "s".repeat(501);
    let long_body = "b".repeat(4001);
    let long_resource = format!("doc:{}", "x".repeat(1021));
    let long_summary = "w".repeat(281);
    let cases: Vec<(Vec<&str>, i32, &str)> = vec![
        (
            vec!["claim", "--resource", "src/lib.rs"],
            2,
            "needs a scheme",
        ),
        (vec!["claim", "--resource", "file:src/"], 2, "ends with '/'"),
        (vec!["claim", "--resource", "file:src/*.rs"], 2, "wildcard"),
        (
            vec!["claim", "--resource", "file:src/**/mod.rs"],
            2,
            "wildcard",
        ),
        (vec!["claim", "--resource", "FILE:src"], 2, "invalid scheme"),
        (vec!["claim", "--resource", "file:a b"], 2, "whitespace"),
        (vec!["claim", "--resource", &long_resource], 2, "1024"),
        (
            vec!["claim", "--resource", "file:x", "--mode", "solo"],
            2,
            "claim mode",
        ),
        (
            vec!["claim", "--resource", "file:x", "--lease", "0"],
            2,
            "lease",
        ),
        (
            vec![
                "message",
                "--to",
                "bob",
                "--subject",
                &long_subject,
                "--body",
                "x",
            ],
            2,
            "501 characters",
        ),
        (
            vec![
                "message",
                "--to",
                "bob",
                "--subject",
                "ok",
                "--body",
                &long_body,
            ],
            2,
            "4001 characters",
        ),
        (
            vec![
                "message",
                "--to",
                "bob",
                "--subject",
                "bell\u{7}",
                "--body",
                "x",
            ],
            2,
            "U+0007",
        ),
        (
            vec![
                "message",
                "--to",
                "bob",
                "--subject",
                "two\nlines",
                "--body",
                "x",
            ],
            2,
            "U+000A",
        ),
        (
            vec![
                "message",
                "--to",
                "bob",
                "--subject",
                "ok",
                "--body",
                "\u{1b}[31mred",
            ],
            2,
            "U+001B",
        ),
        (
            vec![
                "message",
                "--to",
                "nobody",
                "--subject",
                "ok",
                "--body",
                "x",
            ],
            4,
            "participants here: bob; known but not here: none. A message is queued only for a participant that has been in this workspace",
        ),
        (
            vec![
                "message",
                "--to",
                "bob",
                "--to",
                "bob",
                "--subject",
                "ok",
                "--body",
                "x",
            ],
            2,
            "more than once",
        ),
        (
            vec![
                "message",
                "--type",
                "question",
                "--subject",
                "ok",
                "--body",
                "x",
            ],
            2,
            "addressed",
        ),
        (
            vec![
                "message",
                "--to",
                "bob",
                "--type",
                "gossip",
                "--subject",
                "ok",
                "--body",
                "x",
            ],
            2,
            "message kind",
        ),
        (
            vec!["request", "--to", "bob", "--title", "bad\u{1}title"],
            2,
            "control character",
        ),
        (
            vec!["work", "--summary", &long_summary],
            2,
            "281 characters",
        ),
        (
            vec!["work", "--summary", "x", "--hint", "file:*"],
            2,
            "wildcard",
        ),
        (vec!["inbox", "--cursor", "message_nope"], 2, "cursor"),
        (vec!["inbox", "--limit", "501"], 2, "limit"),
        (vec!["sync", "--scope", "everything"], 2, "sync scope"),
        (
            vec!["finish", "--goal", "g", "--status", "meh"],
            2,
            "handoff status",
        ),
        (vec!["claim", "--bogus"], 2, "--bogus"),
        (vec!["claim", "--resource"], 2, "value is required"),
        (vec!["message", "--subject", "s"], 2, "--body"),
        (
            vec!["release", "--claim", "claim_x", "--resource", "file:x"],
            2,
            "cannot be used with",
        ),
        (vec!["prune", "--class", "messages"], 2, "prune class"),
    ];
    for (args, code, needle) in cases {
        let r = sb.run_as(&a, &args);
        assert_eq!(r.code, code, "{args:?}: {}", r.stderr);
        assert!(r.stdout.is_empty(), "{args:?}");
        assert_eq!(r.stderr.lines().count(), 1, "{args:?}: {}", r.stderr);
        assert!(
            r.stderr.contains(needle),
            "{args:?}: {} lacks {needle}",
            r.stderr
        );
        assert!(
            !r.stderr.contains("Error:") && !r.stderr.contains("panicked"),
            "{}",
            r.stderr
        );
        let mut json_args = args.clone();
        json_args.push("--json");
        let j = sb.run_as(&a, &json_args);
        assert_eq!(j.code, code);
        assert!(j.stderr.is_empty());
        assert_eq!(j.json()["error"]["code"], code);
        assert!(sb.store_bytes() == before, "{args:?} changed the store");
    }
}

#[test]
fn corrupt_and_newer_stores_fail_closed_with_exit_4() {
    let sb = Sandbox::new();
    sb.attach("alice", &[]);
    let db = sb.db_path();
    let conn = rusqlite::Connection::open(&db).unwrap();
    conn.pragma_update(None, "user_version", 42).unwrap();
    drop(conn);
    let r = sb.run(&["status"]);
    assert_eq!(r.code, 4);
    assert!(r.stderr.contains(&db.display().to_string()), "{}", r.stderr);
    let supported = format!("version {}", acc_runtime::store::schema::current_version());
    assert!(
        r.stderr.contains("schema version 42") && r.stderr.contains(&supported),
        "{}",
        r.stderr
    );
    std::fs::write(&db, b"definitely not sqlite").unwrap();
    for args in [vec!["status"], vec!["attach", "--participant", "bob"]] {
        let r = sb.run(&args);
        assert_eq!(r.code, 4, "{}", r.stderr);
        assert!(r.stderr.contains("will not recreate"), "{}", r.stderr);
    }
    assert_eq!(std::fs::read(&db).unwrap(), b"definitely not sqlite");
}
