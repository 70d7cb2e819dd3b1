//! The write guard through the in-process hook runtime: how targets are resolved and which
//! claims deny.
//!
//! Claims live per workspace and name root-relative resources, and every worktree of one
//! repository is one workspace (one store). So a guarded claim on `file:src/**` made from
//! worktree A denies a write to `src/x` from a session in worktree B, and a write from B to
//! `../A/src/x`: all are `file:src/x`.

mod hook_support;

use acc_runtime::Owner;
use hook_support::*;
use std::path::Path;

/// Starts conversation `conv` in `dir` and returns its owner.
fn start(sb: &Sandbox, conv: &str, dir: &Path) -> Owner {
    let run = hook(
        sb.settings(certified, &[]),
        &payload("sessionStart", conv, dir),
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    bound_owner(&mut sb.core_at(dir), conv)
}

/// A peer holding a guarded claim on `resource` in the sandbox's workspace.
fn peer_claims(sb: &Sandbox, resource: &str, guarded: bool) -> Owner {
    let mut core = sb.core();
    let peer = attach(&mut core, "peer", true);
    claim(&mut core, &peer, resource, guarded);
    peer
}

fn write(sb: &Sandbox, conv: &str, cwd: &Path, paths: &[&str]) -> HookRun {
    hook(
        sb.settings(certified, &[]),
        &write_payload(conv, cwd, paths),
    )
}

fn assert_denied(run: &HookRun, resource: &str, peer: &Owner) {
    assert_eq!(run.code, 2, "expected a deny: {run:?}");
    assert_eq!(
        run.stderr,
        format!("{resource} is claimed by peer (session {})", peer.session)
    );
    assert_eq!(run.stdout, "");
}

fn assert_allowed(run: &HookRun) {
    assert_eq!(
        (run.code, run.stdout.as_str()),
        (0, ""),
        "expected an allow: {run:?}"
    );
}

#[test]
fn relative_targets_and_dotdot_resolve_against_the_payload_cwd() {
    let sb = Sandbox::new();
    let ws = sb.ws();
    std::fs::create_dir_all(ws.join("docs/deep")).unwrap();
    start(&sb, "me", &ws);
    let peer = peer_claims(&sb, "file:src/**", true);
    assert_denied(
        &write(&sb, "me", &ws.join("src"), &["lib.rs"]),
        "file:src/lib.rs",
        &peer,
    );
    assert_denied(
        &write(&sb, "me", &ws.join("docs/deep"), &["../../src/./x/../y.rs"]),
        "file:src/y.rs",
        &peer,
    );
    assert_allowed(&write(&sb, "me", &ws.join("src"), &["../docs/ok.md"]));
    // The first covered target decides, whatever comes before it.
    assert_denied(
        &write(&sb, "me", &ws, &["README.md", "src/a.rs"]),
        "file:src/a.rs",
        &peer,
    );
}

#[test]
fn files_that_do_not_exist_yet_are_guarded() {
    let sb = Sandbox::new();
    let ws = sb.ws();
    start(&sb, "me", &ws);
    let peer = peer_claims(&sb, "file:src/new/**", true);
    assert_denied(
        &write(&sb, "me", &ws, &["src/new/deeper/still/file.rs"]),
        "file:src/new/deeper/still/file.rs",
        &peer,
    );
    let peer_file = peer_claims(&sb, "file:notes/todo.md", true);
    assert_denied(
        &write(&sb, "me", &ws, &["notes/todo.md"]),
        "file:notes/todo.md",
        &peer_file,
    );
    assert_allowed(&write(&sb, "me", &ws, &["notes/todo.md.bak"]));
}

#[cfg(unix)]
#[test]
fn a_symlinked_workspace_and_symlinked_ancestors_resolve_to_the_real_files() {
    let sb = Sandbox::new();
    let ws = sb.ws();
    let link = sb.root().join("ws-link");
    std::os::unix::fs::symlink(&ws, &link).unwrap();
    std::fs::create_dir_all(ws.join("src/inner")).unwrap();
    std::os::unix::fs::symlink(ws.join("src/inner"), ws.join("shortcut")).unwrap();
    // The client runs in the symlink; it is the same workspace and session.
    start(&sb, "me", &link);
    let peer = peer_claims(&sb, "file:src/**", true);
    assert_denied(
        &write(&sb, "me", &link, &["src/a.rs"]),
        "file:src/a.rs",
        &peer,
    );
    assert_denied(
        &write(
            &sb,
            "me",
            &link,
            &[&link.join("src/b.rs").display().to_string()],
        ),
        "file:src/b.rs",
        &peer,
    );
    // A symlinked directory inside the workspace leads into the claimed tree.
    assert_denied(
        &write(&sb, "me", &ws, &["shortcut/c.rs"]),
        "file:src/inner/c.rs",
        &peer,
    );
}

#[test]
fn paths_outside_the_workspace_are_ignored() {
    let sb = Sandbox::new();
    let ws = sb.ws();
    start(&sb, "me", &ws);
    // Even a claim spelled to reach outside cannot make the guard judge foreign files.
    peer_claims(&sb, "file:../elsewhere.txt", true);
    peer_claims(&sb, "file:src/**", true);
    let outside = sb.root().join("elsewhere.txt").display().to_string();
    assert_allowed(&write(
        &sb,
        "me",
        &ws,
        &[&outside, "../elsewhere.txt", "/etc/hosts"],
    ));
}

#[test]
fn advisory_claims_own_claims_and_expired_claims_never_deny() {
    let sb = Sandbox::new();
    let ws = sb.ws();
    let me = start(&sb, "me", &ws);
    peer_claims(&sb, "file:docs/**", false);
    assert_allowed(&write(&sb, "me", &ws, &["docs/readme.md"]));
    let mut core = sb.core();
    claim(&mut core, &me, "file:mine/**", true);
    assert_allowed(&write(&sb, "me", &ws, &["mine/x.rs"]));
    let peer = peer_claims(&sb, "file:lease/**", true);
    assert_denied(&write(&sb, "me", &ws, &["lease/x"]), "file:lease/x", &peer);
    sb.clock.advance_ms(1_801_000);
    assert_allowed(&write(&sb, "me", &ws, &["lease/x"]));
}

#[test]
fn a_conversation_acc_never_started_is_still_refused_a_peers_guarded_claim() {
    let sb = Sandbox::new();
    let peer = peer_claims(&sb, "file:src/**", true);
    let owner = {
        let mut core = sb.core();
        let key = acc_runtime::core::bindings::binding_key("peer-conv");
        core.put_binding(&key, &peer, "test", None, None).unwrap();
        peer
    };
    let denied = write(&sb, "never-started", &sb.ws(), &["src/a.rs"]);
    assert_eq!(denied.code, 2, "{denied:?}");
    assert!(
        denied.stderr.starts_with(&format!(
            "file:src/a.rs is claimed by peer (session {})",
            owner.session
        )) && denied
            .stderr
            .contains("acc has no session for this conversation"),
        "{denied:?}"
    );
    // Outside every claim, and reads, it is not coordinated: nothing to refuse.
    assert_allowed(&write(&sb, "never-started", &sb.ws(), &["docs/a.md"]));
    // The owner is told, without a session to name.
    let refused = sb
        .core()
        .refused_writes(None, acc_runtime::ids::EventSeq(0))
        .unwrap();
    assert_eq!(refused.total, 1);
    assert_eq!(refused.listed[0].by_session_id, "");
    let turn = hook(
        sb.settings(certified, &[]),
        &payload("beforeTurn", "peer-conv", &sb.ws()),
    );
    assert!(
        turn.stdout
            .contains("a conversation acc has no session for into"),
        "{turn:?}"
    );
}

#[test]
fn unreadable_targets_are_allowed_and_marked_unguarded_only_while_nothing_is_guarded() {
    let sb = Sandbox::new();
    start(&sb, "me", &sb.ws());
    let mut p = payload("beforeTool", "me", &sb.ws());
    p["tool"] = serde_json::json!({"name": "shell"});
    // An advisory claim and a claim spelt outside the root guard nothing here.
    peer_claims(&sb, "file:docs/**", false);
    peer_claims(&sb, "file:../elsewhere/**", true);
    let run = hook(sb.settings(certified, &[]), &p);
    assert_eq!(run.code, 0);
    assert_eq!(run.stdout, "");
    assert_eq!(
        run.stderr,
        "acc: this tool call's write targets could not be read; it was allowed unguarded\n"
    );
    let peer = peer_claims(&sb, "file:src/**", true);
    let run = hook(sb.settings(certified, &[]), &p);
    assert_eq!(run.code, 2, "{run:?}");
    assert_eq!(
        run.stderr,
        format!(
            "the test payload names no path; acc denies commands it cannot read while file:src/** is guarded by peer (session {}): name every file the command writes literally (no substitutions, variables, eval or inline scripts), or ask peer to release the claim",
            peer.session
        )
    );
}

#[test]
fn the_guard_holds_whatever_the_clients_evidence() {
    let sb = Sandbox::new();
    let ws = sb.ws();
    hook(
        sb.settings(uncertified, &[]),
        &payload("sessionStart", "me", &ws),
    );
    let peer = peer_claims(&sb, "file:src/**", true);
    let run = hook(
        sb.settings(uncertified, &[]),
        &write_payload("me", &ws, &["src/a.rs"]),
    );
    assert_denied(&run, "file:src/a.rs", &peer);
}

#[test]
fn worktrees_of_one_repository_share_claims() {
    let sb = Sandbox::new();
    let ws = sb.ws();
    std::fs::write(ws.join("src/x.rs"), "fn main() {}\n").unwrap();
    git(&ws, &["add", "."]);
    git(&ws, &["commit", "-q", "-m", "init"]);
    let wt = sb.root().join("worktree-b");
    git(
        &ws,
        &[
            "worktree",
            "add",
            "-q",
            "-b",
            "feature",
            wt.to_str().unwrap(),
        ],
    );

    let a = start(&sb, "conv-a", &ws);
    let b = start(&sb, "conv-b", &wt);
    let mut core = sb.core();
    let rec_b = core.session(&b.session).unwrap().unwrap();
    assert_eq!(rec_b.branch.as_deref(), Some("feature"));
    assert_eq!(rec_b.checkout_root.as_deref(), Some(wt.to_str().unwrap()));
    let a_participant = core.session(&a.session).unwrap().unwrap().participant_id;
    claim(&mut core, &a, "file:src/**", true);

    let run = write(&sb, "conv-b", &wt, &["src/x.rs"]);
    assert_eq!(run.code, 2, "{run:?}");
    assert_eq!(
        run.stderr,
        format!(
            "file:src/x.rs is claimed by {a_participant} (session {})",
            a.session
        )
    );
    // A path into the other worktree is judged by its root-relative path there, whether
    // it is spelt absolute or relative, from either side.
    let from_b = [
        ws.join("src/x.rs").display().to_string(),
        "../project/src/x.rs".to_string(),
    ];
    for target in &from_b {
        let run = write(&sb, "conv-b", &wt, &[target]);
        assert_eq!(run.code, 2, "{target}: {run:?}");
        assert!(
            run.stderr.starts_with("file:src/x.rs is claimed by"),
            "{run:?}"
        );
    }
    // The claim's owner writes its claim in any worktree; the peer writes elsewhere.
    assert_allowed(&write(&sb, "conv-a", &ws, &["../worktree-b/src/x.rs"]));
    assert_allowed(&write(&sb, "conv-b", &wt, &["../project/docs/x.md"]));
    // Removing another worktree whole removes the claimed files in it.
    let run = write(&sb, "conv-b", &wt, &["../project/**"]);
    assert_eq!(run.code, 2, "{run:?}");
}

/// A shell call as the guard sees it: the targets an adapter reads from `command`.
fn shell(sb: &Sandbox, conv: &str, cwd: &Path, command: &str) -> HookRun {
    let targets = match acc_sdk::payload::shell_targets(Some(command)) {
        acc_sdk::event::Targets::Paths(paths) => paths,
        acc_sdk::event::Targets::Named { paths, named } => paths
            .into_iter()
            .chain(named.into_iter().map(|n| n.path))
            .collect(),
        acc_sdk::event::Targets::None => Vec::new(),
        acc_sdk::event::Targets::Unreadable { reason } => {
            panic!("{command:?} is readable: {reason}")
        }
    };
    let targets: Vec<&str> = targets.iter().map(String::as_str).collect();
    write(sb, conv, cwd, &targets)
}

#[test]
fn a_directory_written_whole_is_denied_by_a_claim_inside_it_and_one_added_to_is_not() {
    let sb = Sandbox::new();
    let ws = sb.ws();
    std::fs::write(ws.join("src/a.txt"), "a\n").unwrap();
    std::fs::create_dir_all(ws.join("docs")).unwrap();
    std::fs::write(ws.join("docs/x.md"), "x\n").unwrap();
    start(&sb, "me", &ws);
    let peer = peer_claims(&sb, "file:src/a.txt", true);
    for (cwd, command) in [
        (ws.clone(), "rm -rf src"),
        (ws.clone(), "rm -rf src/"),
        (ws.clone(), "mv src old"),
        (ws.clone(), "git restore src"),
        (ws.clone(), "git checkout -- src"),
        (ws.clone(), "rm -rf ."),
        (ws.clone(), "git checkout -- ."),
        (ws.clone(), "git restore ."),
        (ws.join("src"), "rm -rf ."),
        (ws.join("src"), "rm -rf ../"),
        (ws.join("docs"), "rm -rf ../src"),
    ] {
        let run = shell(&sb, "me", &cwd, command);
        assert_eq!(run.code, 2, "{command:?} in {cwd:?}: {run:?}");
        assert_eq!(
            run.stderr,
            format!(
                "file:src/a.txt is claimed by peer (session {})",
                peer.session
            ),
            "{command:?} in {cwd:?}"
        );
    }
    // Commands that leave the claimed file alone still pass.
    for command in [
        "rm -rf docs",
        "mv docs old-docs",
        "git restore docs",
        "rm src/b.txt",
    ] {
        assert_allowed(&shell(&sb, "me", &ws, command));
    }
    // Commands that only add an entry to a directory are judged by that entry.
    for command in [
        "cp /etc/hostname src/",
        "cp -t src /etc/hostname",
        "mv docs/x.md src/",
        "git mv docs/x.md src",
        "ln -s ../README src/",
        "mkdir -p src",
        "mkdir -p src && cat > src/new.rs <<'EOF'\nfn main() {}\nEOF",
        "cp /etc/hostname .",
        "touch src/new.rs",
    ] {
        assert_allowed(&shell(&sb, "me", &ws, command));
    }
    assert_allowed(&shell(&sb, "me", &ws.join("src"), "cp /etc/hostname ."));
    // Into the claimed file itself, or moving it away, is still refused.
    assert_denied(
        &shell(&sb, "me", &ws, "cp /etc/hostname src/a.txt"),
        "file:src/a.txt",
        &peer,
    );
    assert_denied(
        &shell(&sb, "me", &ws, "mv src/a.txt docs/"),
        "file:src/a.txt",
        &peer,
    );
    // A copy into the directory, under the claimed file's name, overwrites it.
    for command in [
        "cp /tmp/a.txt src/",
        "cp -t src ../a.txt",
        "mv docs/a.txt src",
    ] {
        assert_denied(&shell(&sb, "me", &ws, command), "file:src/a.txt", &peer);
    }
}

#[test]
fn a_directory_that_is_gone_is_judged_as_the_tree_a_restore_brings_back() {
    let sb = Sandbox::new();
    let ws = sb.ws();
    start(&sb, "me", &ws);
    // `src/gen/` does not exist (yet); a restore or checkout would recreate files under it.
    let peer = peer_claims(&sb, "file:src/gen/out.rs", true);
    let run = shell(&sb, "me", &ws, "git checkout HEAD -- src/gen");
    assert_denied(&run, "file:src/gen/out.rs", &peer);
}

#[test]
fn the_whole_workspace_is_only_denied_by_peers_guarded_claims_inside_it() {
    let sb = Sandbox::new();
    let ws = sb.ws();
    let me = start(&sb, "me", &ws);
    peer_claims(&sb, "file:docs/**", false);
    peer_claims(&sb, "file:../elsewhere.txt", true);
    claim(&mut sb.core(), &me, "file:mine.txt", true);
    assert_allowed(&shell(&sb, "me", &ws, "rm -rf ."));
    assert_allowed(&shell(&sb, "me", &ws, "git checkout -- ."));
    let peer = peer_claims(&sb, "file:src/deep/x.rs", true);
    assert_denied(
        &shell(&sb, "me", &ws, "git checkout -- ."),
        "file:src/deep/x.rs",
        &peer,
    );
    // A directory holding the workspace holds the claim too.
    assert_denied(
        &shell(&sb, "me", &ws.join("src"), "rm -rf ../../project"),
        "file:src/deep/x.rs",
        &peer,
    );
    // The sandbox's root also holds acc's data home, which is refused before any claim.
    let run = shell(&sb, "me", &ws.join("src"), "rm -rf ../..");
    assert_eq!(run.code, 2, "{run:?}");
    assert!(run.stderr.contains("is acc's own state"), "{run:?}");
}

#[test]
fn a_claim_left_by_an_ended_run_is_the_next_runs_to_write_into_and_named_in_its_context() {
    let sb = Sandbox::new();
    let ws = sb.ws();
    // The first run of the client claims the tree and ends (a one-shot run, say).
    let first = start(&sb, "run-1", &ws);
    let mut core = sb.core();
    claim(&mut core, &first, "file:src/**", true);
    let claim_id = core.live_claims().unwrap()[0].claim_id.clone();
    let end = hook(
        sb.settings(certified, &[]),
        &payload("sessionEnd", "run-1", &ws),
    );
    assert_eq!(end.code, 0, "{}", end.stderr);
    // The next run is the same participant, so the claim is its own to write into...
    let second = start(&sb, "run-2", &ws);
    assert_ne!(second.session, first.session);
    let own = write(&sb, "run-2", &ws, &["src/lib.rs"]);
    assert_eq!((own.code, own.stderr.as_str()), (0, ""), "{own:?}");
    let whole = write(&sb, "run-2", &ws, &["."]);
    assert_eq!(whole.code, 0, "{whole:?}");
    // ...its context names it by id and resource...
    let turn = hook(
        sb.settings(certified, &[]),
        &payload("beforeTurn", "run-2", &ws),
    );
    let lines: Vec<&str> = turn.stdout.lines().collect();
    assert_eq!(lines[1], format!("ACC you are: {ADAPTER_ID}"));
    assert_eq!(
        lines[2],
        format!(
            "ACC inherited claims (left by your ended sessions; release them, or claim again to keep): {claim_id} file:src/**"
        )
    );
    // ...while another participant's session is still refused.
    let other = start(&sb, "other", &ws);
    assert_ne!(
        core.session(&other.session)
            .unwrap()
            .unwrap()
            .participant_id,
        core.session(&second.session)
            .unwrap()
            .unwrap()
            .participant_id,
    );
    let denied = write(&sb, "other", &ws, &["src/lib.rs"]);
    assert_eq!(denied.code, 2, "{denied:?}");
    assert_eq!(
        denied.stderr,
        format!(
            "file:src/lib.rs is claimed by {ADAPTER_ID} (session {})",
            first.session
        )
    );
}

#[test]
fn every_file_name_can_be_claimed_and_is_guarded() {
    let sb = Sandbox::new();
    let ws = sb.ws();
    start(&sb, "me", &ws);
    let spaced = peer_claims(&sb, "file:src/Read\\x20Me.md", true);
    let starred = peer_claims(&sb, "file:lib/a\\*b/**", true);
    assert_denied(
        &write(&sb, "me", &ws, &["src/Read Me.md"]),
        "file:src/Read\\x20Me.md",
        &spaced,
    );
    assert_denied(
        &shell(&sb, "me", &ws, "rm -rf 'lib/a*b'"),
        "file:lib/a\\*b",
        &starred,
    );
    assert_denied(
        &write(&sb, "me", &ws, &["lib/a*b/new\nline.rs"]),
        "file:lib/a\\*b/new\\x0aline.rs",
        &starred,
    );
    // A literal `*` is no pattern, and a name is compared whole.
    assert_allowed(&write(
        &sb,
        "me",
        &ws,
        &[
            "lib/ab/x.rs",
            "lib/aXb/x.rs",
            "src/Read Me.md.bak",
            "src/ReadMe.md",
        ],
    ));
}
