//! A store changed behind acc's back fails closed (issue 24 §3). Each attack is what a
//! script run by an agent can do without a tool call the guard reads (`python3 x.py`):
//! plain file operations and SQL through its own connection. Each test plays the client:
//! a call the hook allows is carried out, so the outcome is the claimed file's bytes.

mod hook_support;

use acc_runtime::Owner;
use acc_runtime::installer::store_health;
use acc_runtime::store::{guard_snapshot, guard_token, tamper};
use hook_support::*;
use serde_json::json;
use std::path::{Path, PathBuf};

const ORIGINAL: &str = "the peer's work";

struct Room {
    sb: Sandbox,
    peer: Owner,
    store: PathBuf,
}

fn start(sb: &Sandbox, conv: &str) {
    let run = hook(
        sb.settings(certified, &[]),
        &payload("sessionStart", conv, &sb.ws()),
    );
    assert_eq!(run.code, 0, "{run:?}");
}

/// `me` attached through the hook; `peer` holds a guarded claim on `src/**`, over
/// `src/lib.rs`; the guard has answered once (the snapshot is published).
fn room() -> Room {
    let sb = Sandbox::new();
    std::fs::create_dir_all(sb.ws().join("src")).unwrap();
    std::fs::write(sb.ws().join("src/lib.rs"), ORIGINAL).unwrap();
    start(&sb, "me");
    let peer = attach(&mut sb.core(), "peer", true);
    claim(&mut sb.core(), &peer, "file:src/**", true);
    let store = sb.core().store_path().to_path_buf();
    let room = Room { sb, peer, store };
    assert_eq!(room.attempt_write().code, 2, "guarded before the attack");
    assert_eq!(room.attempt(&["docs/a.md"]).code, 0);
    room
}

impl Room {
    /// A Write of `paths` from `me`, carried out when allowed (`src/lib.rs` is overwritten).
    fn attempt(&self, paths: &[&str]) -> HookRun {
        let run = hook(
            self.sb.settings(certified, &[]),
            &write_payload("me", &self.sb.ws(), paths),
        );
        if run.code == 0 {
            for p in paths {
                let file = self.sb.ws().join(p);
                if file.starts_with(self.sb.ws().join("src")) {
                    std::fs::write(file, "clobbered").unwrap();
                }
            }
        }
        run
    }

    fn attempt_write(&self) -> HookRun {
        self.attempt(&["src/lib.rs"])
    }

    /// A shell call from `me`: `rm -rf src` (its target named) or `python3 gen.py`
    /// (no target acc can read), which would write `src/lib.rs`.
    fn attempt_shell(&self, paths: Option<&[&str]>) -> HookRun {
        let mut p = payload("beforeTool", "me", &self.sb.ws());
        p["tool"] = match paths {
            Some(paths) => json!({"name": "shell", "paths": paths}),
            None => json!({"name": "shell"}),
        };
        let run = hook(self.sb.settings(certified, &[]), &p);
        if run.code == 0 {
            std::fs::write(self.sb.ws().join("src/lib.rs"), "clobbered").unwrap();
        }
        run
    }

    fn bytes(&self) -> String {
        std::fs::read_to_string(self.sb.ws().join("src/lib.rs")).unwrap()
    }

    /// Every way in is refused, and the file keeps its bytes.
    fn assert_refused(&self) {
        let run = self.attempt_write();
        assert_eq!(run.code, 2, "{run:?}");
        assert!(run.stderr.contains("file:src/"), "{run:?}");
        assert_eq!(self.attempt_shell(Some(&["src"])).code, 2);
        assert_eq!(self.attempt_shell(None).code, 2);
        assert_eq!(self.bytes(), ORIGINAL);
    }

    /// Refused with a reason saying what happened and who must act.
    fn assert_refused_as_tampered(&self) {
        self.assert_refused();
        let run = self.attempt_write();
        assert!(
            run.stderr.contains("behind acc's back") && run.stderr.contains("`acc doctor`"),
            "{run:?}"
        );
        assert!(tamper::marked(&self.store));
    }

    fn remove_store(&self) {
        for suffix in ["", "-wal", "-shm"] {
            let _ = std::fs::remove_file(format!("{}{suffix}", self.store.display()));
        }
    }

    fn turn(&self, conv: &str) -> HookRun {
        hook(
            self.sb.settings(certified, &[]),
            &payload("beforeTurn", conv, &self.sb.ws()),
        )
    }
}

#[test]
fn a_removed_store_refuses_what_it_guarded_even_after_a_fresh_store_is_created() {
    let room = room();
    room.remove_store();
    room.assert_refused_as_tampered();
    // An unclaimed path is still written.
    assert_eq!(room.attempt(&["docs/b.md"]).code, 0);
    // A new session start creates a fresh store over the missing one: still refused.
    start(&room.sb, "newcomer");
    assert!(room.store.exists());
    room.assert_refused_as_tampered();
    // Status and the turns say so.
    let status = room.sb.core().status(None, false).unwrap();
    let line = status.store_tampered.expect("status shows it");
    assert!(line.contains("was removed"), "{line}");
    let turn = room.turn("newcomer");
    assert!(
        turn.stdout.contains("ACC warning: acc's store was removed"),
        "{turn:?}"
    );
}

#[test]
fn another_workspaces_store_copied_over_is_refused() {
    let room = room();
    // Another workspace's store: the same schema, another id.
    let other = room.store.with_file_name("other.db");
    std::fs::copy(&room.store, &other).unwrap();
    rusqlite::Connection::open(&other)
        .unwrap()
        .execute(
            "UPDATE meta SET value = 'workspace_elsewhere' WHERE key = 'workspace_id'",
            [],
        )
        .unwrap();
    std::fs::copy(&other, &room.store).unwrap();
    room.assert_refused_as_tampered();
    let m = tamper::read(&room.store).unwrap();
    assert_eq!(m.kind, tamper::TamperKind::StoreForeign);
}

#[test]
fn claim_rows_deleted_behind_accs_back_are_refused() {
    let room = room();
    rusqlite::Connection::open(&room.store)
        .unwrap()
        .execute_batch("DELETE FROM claims; DELETE FROM events;")
        .unwrap();
    room.assert_refused_as_tampered();
    let m = tamper::read(&room.store).unwrap();
    assert_eq!(m.kind, tamper::TamperKind::ClaimsDeleted);
    // The owner's turn says so.
    let turn = room.turn("me");
    assert!(
        turn.stdout.contains("had guarded claims deleted"),
        "{turn:?}"
    );
}

/// The snapshot with its claim lines removed (header and bindings kept).
fn without_claims(text: &str) -> String {
    let (header, rest) = text.split_once('\n').unwrap();
    let bindings = match rest.strip_prefix('\n') {
        Some(bindings) => bindings,
        None => rest.split_once("\n\n").unwrap().1,
    };
    format!("{header}\n\n{bindings}")
}

#[test]
fn a_snapshot_edited_to_drop_its_claims_vouches_for_nothing() {
    let room = room();
    let snapshot = guard_snapshot::path_for(&room.store);
    let token = guard_token::path_for(&room.store);
    let published = std::fs::read(&token).unwrap();
    let text = std::fs::read_to_string(&snapshot).unwrap();
    let forged = without_claims(&text);
    assert_ne!(forged, text);
    std::fs::write(&snapshot, &forged).unwrap();
    room.assert_refused();
    // The token written again, byte for byte: still not the file it sealed.
    std::fs::write(&token, &published).unwrap();
    room.assert_refused();
    // A shell call the guard allows is watched from the store, not the forged snapshot:
    // a claimed file it changes is detected.
    let mut p = payload("beforeTool", "me", &room.sb.ws());
    p["tool"] = json!({"name": "shell", "paths": ["docs/out"]});
    assert_eq!(hook(room.sb.settings(certified, &[]), &p).code, 0);
    std::fs::write(room.sb.ws().join("src/lib.rs"), "changed by the build").unwrap();
    p["event"] = json!("afterTool");
    let after = hook(room.sb.settings(certified, &[]), &p);
    assert!(
        after.stderr.contains("file:src/lib.rs modified"),
        "{after:?}"
    );
}

#[test]
fn an_old_snapshot_and_token_copied_back_vouch_for_nothing() {
    let sb = Sandbox::new();
    std::fs::create_dir_all(sb.ws().join("src")).unwrap();
    std::fs::write(sb.ws().join("src/lib.rs"), ORIGINAL).unwrap();
    start(&sb, "me");
    let peer = attach(&mut sb.core(), "peer", true);
    let store = sb.core().store_path().to_path_buf();
    let room = Room { sb, peer, store };
    assert_eq!(room.attempt(&["docs/a.md"]).code, 0);
    // Saved before the claim.
    let saved = |p: &Path| (p.to_path_buf(), std::fs::read(p).unwrap());
    let files = [
        saved(&guard_snapshot::path_for(&room.store)),
        saved(&guard_token::path_for(&room.store)),
    ];
    claim(&mut room.sb.core(), &room.peer, "file:src/**", true);
    room.assert_refused();
    for (path, bytes) in &files {
        std::fs::write(path, bytes).unwrap();
    }
    room.assert_refused();
}

#[test]
fn a_release_or_an_expiry_still_lifts_the_refusal() {
    // Released through acc: nothing is tampered, the write goes through.
    let room = room();
    let mut core = room.sb.core();
    let id = core.live_claims().unwrap()[0].claim_id.clone();
    core.release_claim(&room.peer, &id).unwrap();
    drop(core);
    assert_eq!(room.attempt_write().code, 0);
    assert!(!tamper::marked(&room.store));
    assert_eq!(room.bytes(), "clobbered");

    // Tampered, then the kept claim's lease runs out.
    let room = self::room();
    room.remove_store();
    room.assert_refused_as_tampered();
    room.sb.clock.advance_ms(24 * 3600 * 1000);
    let run = room.attempt_write();
    assert_eq!(run.code, 0, "{run:?}");
}

#[test]
fn doctor_explains_and_accepting_the_loss_clears_it() {
    let room = room();
    rusqlite::Connection::open(&room.store)
        .unwrap()
        .execute("DELETE FROM claims", [])
        .unwrap();
    room.assert_refused_as_tampered();
    let acc_dir = room.sb.data().join("acc");
    let health = store_health::check(&acc_dir);
    assert!(!health.healthy());
    let t = &health.tampered[0];
    assert_eq!(t.kind, "claims_deleted");
    assert_eq!(t.kept_claims[0].resource, "file:src/**");
    assert!(
        t.recovery.contains("acc doctor --accept-store-loss"),
        "{t:?}"
    );

    let accepted = store_health::accept_loss(&acc_dir).unwrap();
    assert_eq!(accepted, vec![room.store.clone()]);
    assert!(store_health::check(&acc_dir).healthy());
    // The claims are gone for good: the write goes through, and nothing marks it again.
    assert_eq!(room.attempt_write().code, 0);
    assert!(!tamper::marked(&room.store));
    assert_eq!(room.bytes(), "clobbered");
}

#[test]
fn the_store_directory_removed_whole_is_refused_from_the_witness() {
    let room = room();
    std::fs::remove_dir_all(room.store.parent().unwrap()).unwrap();
    room.assert_refused_as_tampered();
    assert_eq!(
        tamper::read(&room.store).unwrap().kind,
        tamper::TamperKind::StoreMissing
    );
}

#[test]
fn another_workspaces_whole_directory_copied_over_is_refused() {
    let room = room();
    let dir = room.store.parent().unwrap();
    // What another workspace's directory holds: its store, its snapshot and its token.
    let other = rusqlite::Connection::open(&room.store).unwrap();
    other
        .execute_batch(
            "UPDATE meta SET value = 'workspace_elsewhere' WHERE key = 'workspace_id';
             DELETE FROM claims;",
        )
        .unwrap();
    drop(other);
    let snapshot = guard_snapshot::path_for(&room.store);
    let text = std::fs::read_to_string(&snapshot).unwrap();
    let ws_id = dir.file_name().unwrap().to_str().unwrap();
    std::fs::write(
        &snapshot,
        without_claims(&text).replace(ws_id, "workspace_elsewhere"),
    )
    .unwrap();
    std::fs::remove_file(guard_token::path_for(&room.store)).unwrap();
    room.assert_refused_as_tampered();
}

#[test]
fn claims_deleted_with_the_version_triggers_dropped_or_moved_to_me_are_refused() {
    for sql in [
        "DROP TRIGGER claim_versions_on_delete; DELETE FROM claims;",
        "DROP TRIGGER claim_versions_on_update; UPDATE claims SET enforcement = 'advisory';",
        "UPDATE claims SET expires_at = 0;",
    ] {
        let room = room();
        rusqlite::Connection::open(&room.store)
            .unwrap()
            .execute_batch(sql)
            .unwrap();
        room.assert_refused_as_tampered();
    }
    // The claim handed to my own participant behind acc's back.
    let room = room();
    let me = bound_owner(&mut room.sb.core(), "me");
    let conn = rusqlite::Connection::open(&room.store).unwrap();
    conn.execute(
        "UPDATE claims SET owner_session_id = ?1",
        [me.session.as_str()],
    )
    .unwrap();
    drop(conn);
    room.assert_refused_as_tampered();
}

/// `acc` run by a person in the workspace, with the sandbox's data home.
fn acc(room: &Room, args: &[&str]) -> (i32, String, String) {
    let home = tempfile::tempdir().unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_acc"))
        .args(args)
        .env_clear()
        .env("HOME", home.path())
        .env("ACC_DATA_HOME", room.sb.data())
        .env("PATH", "/usr/bin:/bin")
        .env("ACC_TEST_CLOCK", FIXED_CLOCK)
        .current_dir(room.sb.ws())
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

#[test]
fn the_cli_shows_it_and_doctor_accept_store_loss_clears_it() {
    let room = room();
    room.remove_store();
    room.assert_refused_as_tampered();

    let (code, status, _) = acc(&room, &["status"]);
    assert_eq!(code, 0);
    assert!(
        status.contains("STORE TAMPERED: acc's store was removed behind acc's back"),
        "{status}"
    );
    let (_, frame, _) = acc(&room, &["watch", "--once", "--width", "200"]);
    assert!(
        frame.contains("! acc's store was removed behind acc's back"),
        "{frame}"
    );
    let (_, doctor, _) = acc(&room, &["doctor"]);
    assert!(doctor.contains("store: UNHEALTHY"), "{doctor}");
    assert!(
        doctor.contains("TAMPERED:") && doctor.contains("was removed behind acc's back"),
        "{doctor}"
    );
    assert!(
        doctor.contains("kept claim") && doctor.contains("on file:src/** by peer"),
        "{doctor}"
    );
    assert!(
        doctor.contains("acc doctor --accept-store-loss"),
        "{doctor}"
    );
    // Still refused: looking changes nothing.
    room.assert_refused();

    let (code, accepted, stderr) = acc(&room, &["doctor", "--accept-store-loss"]);
    assert!(
        accepted.contains("accepted the loss of"),
        "{accepted}{stderr}"
    );
    assert!(
        accepted.contains("store: healthy"),
        "{accepted} (exit {code})"
    );
    assert!(!tamper::marked(&room.store));
    let (_, status, _) = acc(&room, &["status"]);
    assert!(!status.contains("TAMPERED"), "{status}");
    assert_eq!(room.attempt_write().code, 0);
    assert_eq!(room.bytes(), "clobbered");
}

#[test]
fn a_store_held_locked_beside_an_edited_snapshot_is_answered_from_the_witness() {
    let room = room();
    let snapshot = guard_snapshot::path_for(&room.store);
    let text = std::fs::read_to_string(&snapshot).unwrap();
    std::fs::write(&snapshot, without_claims(&text)).unwrap();
    // Another process holds the store: the guard answers from what acc last published.
    let conn = rusqlite::Connection::open(&room.store).unwrap();
    conn.execute_batch("PRAGMA locking_mode=EXCLUSIVE; BEGIN EXCLUSIVE; COMMIT;")
        .unwrap();
    let run = room.attempt_write();
    assert_eq!(run.code, 2, "{run:?}");
    assert!(run.stderr.contains("guarded-claims snapshot"), "{run:?}");
    assert_eq!(room.bytes(), ORIGINAL);
    drop(conn);
}

#[test]
fn a_long_lived_connection_does_not_publish_away_claims_a_forger_deleted() {
    let room = room();
    // An MCP server's store, opened before the attack and writing after it.
    let mut server = room.sb.core();
    rusqlite::Connection::open(&room.store)
        .unwrap()
        .execute("DELETE FROM claims", [])
        .unwrap();
    claim(&mut server, &room.peer, "file:docs/**", true);
    drop(server);
    room.assert_refused_as_tampered();
}

/// What a person and the agents are shown, pinned: the refusal, the turn's warning, the
/// status line and doctor's account.
#[test]
fn what_is_shown_of_a_tampered_store() {
    let room = room();
    rusqlite::Connection::open(&room.store)
        .unwrap()
        .execute("DELETE FROM claims", [])
        .unwrap();
    let refused = room.attempt_write();
    let turn = room.turn("me");
    let warning = turn
        .stdout
        .lines()
        .find(|l| l.starts_with("ACC warning"))
        .unwrap_or_default()
        .to_string();
    let (_, status, _) = acc(&room, &["status"]);
    let (_, doctor, _) = acc(&room, &["doctor"]);
    let store_lines: String = doctor
        .lines()
        .take_while(|l| !l.starts_with("install record:"))
        .chain(doctor.lines().filter(|l| l.starts_with("next step:")))
        .collect::<Vec<_>>()
        .join("\n");
    let ws_id = room.store.parent().unwrap().file_name().unwrap();
    let mut redact = Redactor::new(&room.sb);
    let shown = redact
        .apply(&format!(
            "refusal: {}\nturn: {warning}\nstatus: {}\n{store_lines}",
            refused.stderr.trim_end(),
            status.trim_end()
        ))
        .replace(ws_id.to_str().unwrap(), "[WSID]");
    insta::assert_snapshot!(shown);
}

/// A connection opened while no published claim was live records the sealed version and
/// does not look again at its first write, but only while the store is still at that
/// version: a claim published and then deleted behind acc's back in between moves the
/// version, so its write still finds the claim gone before its publication forgets it.
#[test]
fn a_connection_opened_before_any_live_claim_still_finds_a_later_one_deleted() {
    let sb = Sandbox::new();
    std::fs::create_dir_all(sb.ws().join("src")).unwrap();
    start(&sb, "me");
    let store = sb.core().store_path().to_path_buf();
    // Opened while the sealed snapshot names no live claim.
    let mut server = sb.core();
    let peer = attach(&mut sb.core(), "peer", true);
    claim(&mut sb.core(), &peer, "file:src/**", true);
    rusqlite::Connection::open(&store)
        .unwrap()
        .execute("DELETE FROM claims", [])
        .unwrap();
    assert!(!tamper::marked(&store));
    attach(&mut server, "late", true);
    drop(server);
    assert!(
        tamper::marked(&store),
        "the deleted claim was found at the write"
    );
}
