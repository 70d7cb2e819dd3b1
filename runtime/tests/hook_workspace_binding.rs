//! A conversation's workspace is fixed when it attaches (issue 11 §1): a later payload's cwd,
//! a nested `acc.workspace.json`, a `git init` inside the workspace, or a broken, symlinked,
//! huge or FIFO config at the root neither moves the conversation to another store nor
//! turns its guard off, and the fault is reported on stderr.

mod hook_support;

use acc_runtime::Owner;
use acc_runtime::workspace::pin;
use hook_support::*;
use std::path::Path;

/// Starts conversation `conv` in the sandbox's workspace.
fn start(sb: &Sandbox, conv: &str) {
    let run = hook(
        sb.settings(certified, &[]),
        &payload("sessionStart", conv, &sb.ws()),
    );
    assert_eq!((run.code, run.stderr.as_str()), (0, ""), "{run:?}");
}

fn peer_claims_src(sb: &Sandbox) -> Owner {
    let mut core = sb.core();
    let peer = attach(&mut core, "peer", true);
    claim(&mut core, &peer, "file:src/**", true);
    peer
}

fn write(sb: &Sandbox, cwd: &Path, paths: &[&str]) -> HookRun {
    hook(
        sb.settings(certified, &[]),
        &write_payload("me", cwd, paths),
    )
}

fn assert_denied(run: &HookRun, resource: &str, peer: &Owner) {
    assert_eq!(run.code, 2, "expected a deny: {run:?}");
    let first = run.stderr.lines().next().unwrap_or_default();
    assert_eq!(
        first,
        format!("{resource} is claimed by peer (session {})", peer.session)
    );
}

/// The fault note every call carries while the root's config is unusable.
fn assert_config_fault_reported(run: &HookRun) {
    assert!(
        run.stderr.contains("acc.workspace.json")
            && run.stderr.contains("workspace_config_invalid")
            && run.stderr.contains("stays bound"),
        "{run:?}"
    );
}

fn set_up() -> (Sandbox, Owner) {
    let sb = Sandbox::new();
    start(&sb, "me");
    let peer = peer_claims_src(&sb);
    (sb, peer)
}

#[test]
fn a_broken_config_written_at_the_root_does_not_turn_the_guard_off() {
    let (sb, peer) = set_up();
    std::fs::write(sb.ws().join("acc.workspace.json"), "{").unwrap();
    let run = write(&sb, &sb.ws(), &["src/a.rs"]);
    assert_denied(&run, "file:src/a.rs", &peer);
    assert_config_fault_reported(&run);
    // An allowed call says it too, and its turn still gets the store.
    let ok = write(&sb, &sb.ws(), &["README.md"]);
    assert_eq!(ok.code, 0, "{ok:?}");
    assert_config_fault_reported(&ok);
    let turn = hook(
        sb.settings(certified, &[]),
        &payload("beforeTurn", "me", &sb.ws()),
    );
    assert_eq!(turn.code, 0);
    assert!(
        !turn.stderr.contains("coordination unavailable"),
        "{turn:?}"
    );
    assert_config_fault_reported(&turn);
}

#[test]
fn symlinked_fifo_and_huge_configs_do_not_turn_the_guard_off() {
    let (sb, peer) = set_up();
    let cfg = sb.ws().join("acc.workspace.json");
    let elsewhere = sb.root().join("elsewhere.json");
    std::fs::write(
        &elsewhere,
        r#"{"schemaVersion":1,"workspaceId":"elsewhere"}"#,
    )
    .unwrap();
    std::os::unix::fs::symlink(&elsewhere, &cfg).unwrap();
    let run = write(&sb, &sb.ws(), &["src/a.rs"]);
    assert_denied(&run, "file:src/a.rs", &peer);
    assert_config_fault_reported(&run);

    std::fs::remove_file(&cfg).unwrap();
    let c = std::ffi::CString::new(cfg.as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: mkfifo only reads the NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    // No writer ever opens the FIFO: a reader that blocked on it would time out (allow).
    let run = write(&sb, &sb.ws(), &["src/a.rs"]);
    assert_denied(&run, "file:src/a.rs", &peer);
    assert_config_fault_reported(&run);

    std::fs::remove_file(&cfg).unwrap();
    let f = std::fs::File::create(&cfg).unwrap();
    f.set_len(64 * 1024 * 1024).unwrap();
    let run = write(&sb, &sb.ws(), &["src/a.rs"]);
    assert_denied(&run, "file:src/a.rs", &peer);
    assert_config_fault_reported(&run);
}

#[test]
fn a_nested_config_does_not_move_a_session_out_of_its_workspace() {
    let (sb, _peer) = set_up();
    let tools = sb.ws().join("tools");
    std::fs::create_dir_all(&tools).unwrap();
    std::fs::write(
        tools.join("acc.workspace.json"),
        r#"{"schemaVersion":1,"workspaceId":"tools-only"}"#,
    )
    .unwrap();
    let run = write(&sb, &tools, &["../src"]);
    assert_eq!(run.code, 2, "rm -rf ../src from cwd=tools: {run:?}");
    assert!(run.stderr.contains("is claimed by peer"), "{run:?}");
    assert!(
        run.stderr.contains("tools-only") && run.stderr.contains("stays bound"),
        "the takeover attempt is reported: {run:?}"
    );
}

#[test]
fn a_git_init_inside_the_workspace_does_not_move_the_session() {
    let (sb, peer) = set_up();
    let sub = sb.ws().join("sub");
    std::fs::create_dir_all(&sub).unwrap();
    git(&sub, &["init", "-q", "-b", "main"]);
    let run = write(&sb, &sub, &["../src/a.rs"]);
    assert_denied(&run, "file:src/a.rs", &peer);
    assert!(run.stderr.contains("stays bound"), "{run:?}");
}

#[test]
fn a_cwd_in_another_workspace_still_answers_from_the_bound_one() {
    let (sb, peer) = set_up();
    let other = sb.root().join("other");
    std::fs::create_dir_all(&other).unwrap();
    let target = sb.ws().join("src/a.rs");
    let run = write(&sb, &other, &[target.to_str().unwrap()]);
    assert_denied(&run, "file:src/a.rs", &peer);
    // Working outside the workspace is not a fault: nothing else is said.
    assert_eq!(run.stderr.lines().count(), 1, "{run:?}");
}

#[test]
fn the_pin_is_written_at_attach_outside_the_repository() {
    let sb = Sandbox::new();
    start(&sb, "me");
    let key = acc_runtime::core::bindings::binding_key("me");
    let pinned = pin::read(&sb.data(), &key).unwrap().expect("pinned");
    assert_eq!(pinned.id, sb.core().workspace().id);
    assert!(pin::pin_path(&sb.data(), &key).starts_with(sb.data()));
    // Nothing of acc's is inside the repository.
    let mut names: Vec<_> = std::fs::read_dir(sb.ws())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    assert_eq!(names, vec![".git", "src"]);
}

#[test]
fn without_a_pin_a_broken_config_still_fails_open_with_its_code() {
    // A conversation that never attached has nothing bound: it is not coordinated.
    let sb = Sandbox::new();
    std::fs::write(sb.ws().join("acc.workspace.json"), "{").unwrap();
    let run = write(&sb, &sb.ws(), &["src/a.rs"]);
    assert_eq!(run.code, 0);
    assert!(
        run.stderr.ends_with("(workspace_config_invalid)\n"),
        "{run:?}"
    );
}

/// `acc status --json` from `dir`, on the sandbox's data home and clock.
fn status_from(sb: &Sandbox, dir: &Path) -> (i32, serde_json::Value, String) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_acc"))
        .env_clear()
        .env("ACC_DATA_HOME", sb.data())
        .env("ACC_TEST_CLOCK", FIXED_CLOCK)
        .arg("--cwd")
        .arg(dir)
        .args(["status", "--json"])
        .output()
        .unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    let v = serde_json::from_str(stdout.trim()).unwrap_or(serde_json::Value::Null);
    (out.status.code().unwrap_or(-1), v, stdout)
}

#[test]
fn status_reports_a_broken_config_and_still_shows_the_bound_room() {
    let (sb, peer) = set_up();
    std::fs::write(sb.ws().join("acc.workspace.json"), "{").unwrap();
    let (code, v, raw) = status_from(&sb, &sb.ws());
    assert_eq!(code, 0, "{raw}");
    let faults = v["data"]["workspaceFaults"]
        .as_array()
        .expect("faults listed");
    let fault = faults[0].as_str().unwrap();
    assert!(
        fault.contains("acc.workspace.json") && fault.contains("workspace_config_invalid"),
        "{fault}"
    );
    let claims = v["data"]["claims"].as_array().unwrap();
    assert_eq!(claims[0]["ownerSessionId"], peer.session.as_str());
}

#[test]
fn status_from_a_nested_workspace_names_the_binding_it_does_not_move() {
    let (sb, _peer) = set_up();
    let tools = sb.ws().join("tools");
    std::fs::create_dir_all(&tools).unwrap();
    std::fs::write(
        tools.join("acc.workspace.json"),
        r#"{"schemaVersion":1,"workspaceId":"tools-only"}"#,
    )
    .unwrap();
    let (code, v, raw) = status_from(&sb, &tools);
    assert_eq!(code, 0, "{raw}");
    let fault = v["data"]["workspaceFaults"][0].as_str().unwrap_or_default();
    assert!(
        fault.contains("stay bound") && fault.contains("tools-only"),
        "{raw}"
    );
    // A room whose files agree says nothing.
    let (_, v, _) = status_from(&sb, &sb.ws());
    assert!(v["data"].get("workspaceFaults").is_none(), "{v}");
}
