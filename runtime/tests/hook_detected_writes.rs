//! Nothing that slips through goes unseen (issue 11 §6): a shell call the guard allowed,
//! whose program wrote into a peer's guarded claim anyway, is noticed by the post-tool hook
//! from fingerprints taken before the call; the claim's owner and the session whose call it
//! was are both told in their next turn, and `acc status` keeps it.

mod hook_support;

use acc_runtime::store::guard_snapshot;
use hook_support::*;
use serde_json::json;

fn start(sb: &Sandbox, conv: &str) -> acc_runtime::Owner {
    let run = hook(
        sb.settings(certified, &[]),
        &payload("sessionStart", conv, &sb.ws()),
    );
    assert_eq!(run.code, 0, "{run:?}");
    bound_owner(&mut sb.core(), conv)
}

fn shell(sb: &Sandbox, conv: &str, event: &str, paths: &[&str]) -> HookRun {
    let mut p = payload(event, conv, &sb.ws());
    p["tool"] = json!({"name": "shell", "paths": paths});
    hook(sb.settings(certified, &[]), &p)
}

fn turn(sb: &Sandbox, conv: &str) -> HookRun {
    hook(
        sb.settings(certified, &[]),
        &payload("beforeTurn", conv, &sb.ws()),
    )
}

#[test]
fn a_claimed_file_changed_by_an_allowed_shell_call_is_told_to_both_sessions() {
    let sb = Sandbox::new();
    let ws = sb.ws();
    std::fs::create_dir_all(ws.join("src")).unwrap();
    std::fs::write(ws.join("src/a.rs"), "the owner's bytes").unwrap();
    let owner = start(&sb, "owner");
    let builder = start(&sb, "builder");
    claim(&mut sb.core(), &owner, "file:src/**", true);

    // `make` names no claimed path: allowed.
    let before = shell(&sb, "builder", "beforeTool", &["build/out.o"]);
    assert_eq!(before.code, 0, "{before:?}");
    // What the program did that no parser could see.
    std::fs::write(ws.join("src/a.rs"), "rewritten by the build").unwrap();
    std::fs::write(ws.join("src/new.rs"), "generated").unwrap();
    std::fs::write(ws.join("README.md"), "unclaimed").unwrap();
    let after = shell(&sb, "builder", "afterTool", &["build/out.o"]);
    assert_eq!(after.code, 0, "{after:?}");
    assert!(
        after
            .stderr
            .contains("changed while this shell call ran: file:src/a.rs modified")
            && after.stderr.contains("file:src/new.rs created")
            && !after.stderr.contains("README"),
        "{after:?}"
    );

    let builder_participant = sb
        .core()
        .session(&builder.session)
        .unwrap()
        .unwrap()
        .participant_id
        .to_string();
    let owner_turn = turn(&sb, "owner");
    assert!(
        owner_turn.stdout.contains(
            "ACC: 2 file(s) under your guarded claims changed while another session's shell call ran"
        ),
        "{owner_turn:?}"
    );
    assert!(
        owner_turn.stdout.contains(&format!(
            "{builder_participant} (session {})",
            builder.session
        )) && owner_turn.stdout.contains(r#"target "file:src/a.rs""#),
        "{owner_turn:?}"
    );
    // Once.
    assert!(!turn(&sb, "owner").stdout.contains("changed while"));

    let builder_turn = turn(&sb, "builder");
    assert!(
        builder_turn.stdout.contains(
            "ACC: 2 file(s) under other sessions' guarded claims changed while your shell call ran"
        ),
        "{builder_turn:?}"
    );
    assert!(!turn(&sb, "builder").stdout.contains("changed while"));

    let mut core = sb.core();
    let status = core.status(None, false).unwrap();
    assert_eq!(status.detected_writes.total, 2);
    assert_eq!(status.refused_writes.total, 0);
    let targets: Vec<&str> = status
        .detected_writes
        .listed
        .iter()
        .map(|d| d.target.as_str())
        .collect();
    assert_eq!(targets, ["file:src/a.rs", "file:src/new.rs"]);
}

#[test]
fn a_call_that_leaves_claimed_files_alone_and_a_room_without_guarded_claims_say_nothing() {
    let sb = Sandbox::new();
    let ws = sb.ws();
    std::fs::create_dir_all(ws.join("src")).unwrap();
    std::fs::write(ws.join("src/a.rs"), "a").unwrap();
    let owner = start(&sb, "owner");
    start(&sb, "builder");
    // Nothing guarded: no fingerprints at all.
    assert_eq!(shell(&sb, "builder", "beforeTool", &["out"]).code, 0);
    let tool_calls = sb.data().join("acc").join("tool-calls");
    assert_eq!(
        std::fs::read_dir(&tool_calls).map_or(0, |d| d.count()),
        0,
        "nothing to compare without a guarded claim"
    );
    claim(&mut sb.core(), &owner, "file:src/**", true);
    assert_eq!(shell(&sb, "builder", "beforeTool", &["out"]).code, 0);
    std::fs::write(ws.join("notes.txt"), "unclaimed").unwrap();
    let after = shell(&sb, "builder", "afterTool", &["out"]);
    assert_eq!((after.code, after.stderr.as_str()), (0, ""), "{after:?}");
    assert_eq!(
        sb.core().status(None, false).unwrap().detected_writes.total,
        0
    );
    // The record was taken: a second post-tool hook compares nothing.
    std::fs::write(ws.join("src/a.rs"), "later, by the owner").unwrap();
    let again = shell(&sb, "builder", "afterTool", &["out"]);
    assert_eq!((again.code, again.stderr.as_str()), (0, ""), "{again:?}");
}

#[test]
fn a_call_that_can_write_only_its_judged_targets_is_not_fingerprinted() {
    let sb = Sandbox::new();
    let ws = sb.ws();
    std::fs::create_dir_all(ws.join("src")).unwrap();
    std::fs::write(ws.join("src/a.rs"), "a").unwrap();
    let owner = start(&sb, "owner");
    start(&sb, "builder");
    claim(&mut sb.core(), &owner, "file:src/**", true);
    let tool_calls = sb.data().join("acc").join("tool-calls");
    let records = || std::fs::read_dir(&tool_calls).map_or(0, |d| d.count());
    // An unbounded call (`make`) is fingerprinted: every peer claim is watched.
    assert_eq!(shell(&sb, "builder", "beforeTool", &["out"]).code, 0);
    assert_eq!(records(), 1, "the claimed files were fingerprinted");
    // `cat src/a.rs | grep -c x` writes nothing the guard did not judge: nothing to watch,
    // and the record the call before it left is no longer this conversation's to compare.
    let mut p = payload("beforeTool", "builder", &ws);
    p["tool"] = json!({"name": "shell", "paths": [], "writesOnlyTargets": true});
    let run = hook(sb.settings(certified, &[]), &p);
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(records(), 0, "no fingerprints");
    let after = shell(&sb, "builder", "afterTool", &[]);
    assert_eq!((after.code, after.stderr.as_str()), (0, ""), "{after:?}");
    // Its targets are still judged: one inside the claim is refused.
    let mut p = payload("beforeTool", "builder", &ws);
    p["tool"] = json!({"name": "shell", "paths": ["src/a.rs"], "writesOnlyTargets": true});
    let run = hook(sb.settings(certified, &[]), &p);
    assert_eq!(run.code, 2, "a deny: {run:?}");
    assert_eq!(std::fs::read_to_string(ws.join("src/a.rs")).unwrap(), "a");
}

fn store_snapshot(sb: &Sandbox) -> std::path::PathBuf {
    acc_runtime::store::guard_snapshot::path_for(sb.core().store_path())
}

fn record_text(sb: &Sandbox) -> String {
    let dir = sb.data().join("acc").join("tool-calls");
    let entry = std::fs::read_dir(&dir).unwrap().next().unwrap().unwrap();
    std::fs::read_to_string(entry.path()).unwrap()
}

#[test]
fn the_claims_watched_come_from_the_snapshot_only_while_it_is_the_stores_current_one() {
    let sb = Sandbox::new();
    let ws = sb.ws();
    for dir in ["src", "docs"] {
        std::fs::create_dir_all(ws.join(dir)).unwrap();
        std::fs::write(ws.join(dir).join("a.txt"), "owner's").unwrap();
    }
    let owner = start(&sb, "owner");
    start(&sb, "builder");
    claim(&mut sb.core(), &owner, "file:src/**", true);

    // Current: the record carries the snapshot's text, and the post-tool hook reads the
    // same claims back from it.
    assert_eq!(shell(&sb, "builder", "beforeTool", &["out"]).code, 0);
    let record = record_text(&sb);
    assert!(record.contains("\"fromSnapshot\""), "{record}");
    std::fs::write(ws.join("src/a.txt"), "rewritten").unwrap();
    let after = shell(&sb, "builder", "afterTool", &["out"]);
    assert!(
        after.stderr.contains("file:src/a.txt modified"),
        "{after:?}"
    );

    // Stale (an older claims version and publication, naming another claim): the store
    // decides.
    let snapshot = store_snapshot(&sb);
    let text = std::fs::read_to_string(&snapshot).unwrap();
    let content = guard_snapshot::content_of(&text).unwrap();
    let (head, rest) = content.split_once("\n\n").unwrap();
    let mut lines = head.lines();
    let header: Vec<&str> = lines.next().unwrap().split('\t').collect();
    let claim_line = lines.next().unwrap().replace("file:src/**", "file:docs/**");
    let version: i64 = header[2].parse().unwrap();
    // The binding lines as they were; the block index (which names offsets of the old
    // claim lines) left out: an empty one is an index too.
    let bindings_bytes: usize = header[7].parse().unwrap();
    let bindings = &rest[..bindings_bytes];
    let stale = guard_snapshot::seal_text(format!(
        "{}\t{}\t{}\t{}\t{}\tstale\t{}\t{bindings_bytes}\n{claim_line}\n\n{bindings}",
        header[0],
        header[1],
        version - 1,
        header[3],
        header[4],
        claim_line.len() + 1
    ));
    assert!(guard_snapshot::SnapshotText::parse(&stale).is_some());
    std::fs::write(&snapshot, stale).unwrap();
    assert_eq!(shell(&sb, "builder", "beforeTool", &["out"]).code, 0);
    let record = record_text(&sb);
    assert!(
        !record.contains("\"fromSnapshot\""),
        "{record}\n{}",
        std::fs::read_to_string(&snapshot).unwrap()
    );
    std::fs::write(ws.join("src/a.txt"), "rewritten again").unwrap();
    std::fs::write(ws.join("docs/a.txt"), "not claimed").unwrap();
    let after = shell(&sb, "builder", "afterTool", &["out"]);
    assert!(
        after.stderr.contains("file:src/a.txt modified") && !after.stderr.contains("docs"),
        "{after:?}"
    );
}

#[test]
fn a_live_session_acting_as_the_same_participant_is_still_watched() {
    let sb = Sandbox::new();
    let ws = sb.ws();
    std::fs::create_dir_all(ws.join("src")).unwrap();
    std::fs::write(ws.join("src/a.rs"), "sibling's").unwrap();
    let builder = start(&sb, "builder");
    let participant = sb
        .core()
        .session(&builder.session)
        .unwrap()
        .unwrap()
        .participant_id
        .to_string();
    // A second live session under the same chosen name: its claims are a peer's, which
    // only the store can tell from an ended session's inherited ones.
    let sibling = attach(&mut sb.core(), &participant, true);
    claim(&mut sb.core(), &sibling, "file:src/**", true);
    assert_eq!(shell(&sb, "builder", "beforeTool", &["out"]).code, 0);
    std::fs::write(ws.join("src/a.rs"), "rewritten").unwrap();
    let after = shell(&sb, "builder", "afterTool", &["out"]);
    assert!(after.stderr.contains("file:src/a.rs modified"), "{after:?}");
}

fn shell_call(sb: &Sandbox, conv: &str, event: &str, paths: &[&str], call: &str) -> HookRun {
    let mut p = payload(event, conv, &sb.ws());
    p["tool"] = json!({"name": "shell", "paths": paths, "call_id": call});
    hook(sb.settings(certified, &[]), &p)
}

#[test]
fn calls_run_side_by_side_are_each_compared_with_their_own_fingerprints() {
    let sb = Sandbox::new();
    let ws = sb.ws();
    std::fs::create_dir_all(ws.join("src")).unwrap();
    std::fs::write(ws.join("src/a.rs"), "the owner's bytes").unwrap();
    let owner = start(&sb, "owner");
    start(&sb, "builder");
    claim(&mut sb.core(), &owner, "file:src/**", true);

    // Both calls announced before either finished (Kimi Code runs a turn's calls so): the
    // second call's fingerprints are taken after the first call's program wrote the claim.
    assert_eq!(
        shell_call(&sb, "builder", "beforeTool", &["out"], "c1").code,
        0
    );
    std::fs::write(ws.join("src/a.rs"), "rewritten by the first call").unwrap();
    assert_eq!(
        shell_call(&sb, "builder", "beforeTool", &["after.txt"], "c2").code,
        0
    );
    let first = shell_call(&sb, "builder", "afterTool", &["out"], "c1");
    assert!(
        first
            .stderr
            .contains("changed while this shell call ran: file:src/a.rs modified"),
        "{first:?}"
    );
    let second = shell_call(&sb, "builder", "afterTool", &["after.txt"], "c2");
    assert_eq!((second.code, second.stderr.as_str()), (0, ""), "{second:?}");
    assert_eq!(
        sb.core().status(None, false).unwrap().detected_writes.total,
        1
    );

    // A call that never reached its post-tool hook is forgotten with its conversation.
    assert_eq!(
        shell_call(&sb, "builder", "beforeTool", &["x"], "c3").code,
        0
    );
    let end = hook(
        sb.settings(certified, &[]),
        &payload("sessionEnd", "builder", &sb.ws()),
    );
    assert_eq!(end.code, 0, "{end:?}");
    let tool_calls = sb.data().join("acc").join("tool-calls");
    assert_eq!(std::fs::read_dir(&tool_calls).unwrap().count(), 0);
}

#[test]
fn a_call_whose_post_tool_hook_never_came_is_compared_when_the_turn_ends() {
    let sb = Sandbox::new();
    let ws = sb.ws();
    std::fs::create_dir_all(ws.join("src")).unwrap();
    std::fs::write(ws.join("src/a.rs"), "the owner's bytes").unwrap();
    let owner = start(&sb, "owner");
    start(&sb, "builder");
    claim(&mut sb.core(), &owner, "file:src/**", true);
    assert_eq!(
        shell_call(&sb, "builder", "beforeTool", &["out"], "c1").code,
        0
    );
    std::fs::write(ws.join("src/a.rs"), "rewritten by the call").unwrap();
    // The client ends the turn without waiting for the call's post-tool hook.
    let end = hook(
        sb.settings(certified, &[]),
        &payload("turnEnd", "builder", &sb.ws()),
    );
    assert!(
        end.stderr
            .contains("changed while this shell call ran: file:src/a.rs modified"),
        "{end:?}"
    );
    assert_eq!(
        sb.core().status(None, false).unwrap().detected_writes.total,
        1
    );
    // Compared once: a post-tool hook that comes later has nothing left to compare.
    let late = shell_call(&sb, "builder", "afterTool", &["out"], "c1");
    assert_eq!((late.code, late.stderr.as_str()), (0, ""), "{late:?}");
}
