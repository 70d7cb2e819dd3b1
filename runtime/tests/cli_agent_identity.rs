//! An agent acts only as itself (issue 24 §2): an `acc` command run under the client process
//! of a hooked conversation may name only that client's own sessions. With another
//! session's id and generation (readable from the store before acc guarded it) it cannot
//! detach it, release its claim, heartbeat or message as it; and it cannot run the commands
//! that change acc for every agent. Judged by outcome: the peer's session and claim are
//! still there afterwards.

mod common;

use common::Sandbox;

fn status(sb: &Sandbox) -> serde_json::Value {
    sb.run(&["status", "--json", "--all"]).json()["data"].clone()
}

fn refused(r: &common::Run, why: &str) {
    assert_eq!(r.code, 5, "{} {}", r.stdout, r.stderr);
    let v: serde_json::Value = serde_json::from_str(r.stdout.trim()).unwrap();
    assert_eq!(v["error"]["details"]["reason"], "agent_acts_as_another");
    assert_eq!(v["error"]["details"]["why"], why);
}

#[test]
fn an_agent_cannot_act_as_a_peer_with_the_peer_s_credentials() {
    let sb = Sandbox::new();
    let alice = sb.attach("alice", &[]);
    sb.claim_guarded(&alice, "file:src/**");
    let before = status(&sb);
    let agent = sb.hooked_client_is_this_test();
    let claim = before["claims"][0]["claimId"].as_str().unwrap().to_string();
    for args in [
        vec!["detach", "--json"],
        vec!["release", "--claim", claim.as_str(), "--json"],
        vec!["release", "--resource", "file:src/**", "--json"],
        vec!["heartbeat", "--json"],
        vec![
            "message",
            "--to",
            "agent",
            "--subject",
            "hi",
            "--body",
            "b",
            "--json",
        ],
    ] {
        refused(&sb.run_as(&alice, &args), "notYourSession");
    }
    let after = status(&sb);
    assert_eq!(after["claims"], before["claims"], "alice's claim changed");
    let live: Vec<&str> = after["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["state"] == "open")
        .filter_map(|s| s["participantId"].as_str())
        .collect();
    assert!(live.contains(&"alice"), "{after}");
    // Nor take alice's name while she is live.
    refused(
        &sb.run(&["attach", "--participant", "alice", "--json"]),
        "participantLive",
    );
    // Its own session still works, and so does a name nobody is using.
    let fresh = sb.run(&["attach", "--participant", "helper", "--json"]);
    assert_eq!(fresh.code, 0, "{} {}", fresh.stdout, fresh.stderr);
    let own = sb.run_as(&agent, &["heartbeat", "--json"]);
    assert_eq!(own.code, 0, "{} {}", own.stdout, own.stderr);
    let own = sb.run_as(&agent, &["claim", "--resource", "file:docs/**", "--json"]);
    assert_eq!(own.code, 0, "{} {}", own.stdout, own.stderr);
}

#[test]
fn an_agent_cannot_run_what_changes_acc_for_everyone() {
    let sb = Sandbox::new();
    let home = tempfile::tempdir().unwrap();
    sb.hooked_client_is_this_test();
    let home_arg = home.path().display().to_string();
    for (args, name) in [
        (
            vec!["uninstall", "--home", home_arg.as_str(), "--json"],
            "uninstall",
        ),
        (
            vec!["install", "--home", home_arg.as_str(), "--json"],
            "install",
        ),
        (vec!["prune", "--json"], "prune"),
        (vec!["config", "init", "--json"], "config init"),
    ] {
        let r = sb.run(&args);
        refused(&r, "needsPerson");
        assert!(r.stdout.contains(&format!("`acc {name}`")), "{}", r.stdout);
    }
    assert!(std::fs::read_dir(home.path()).unwrap().next().is_none());
    assert!(!sb.ws_path().join("acc.workspace.json").exists());
}
