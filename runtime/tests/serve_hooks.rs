//! `acc-hook` served (`ACC_SERVE=1`) and local give the same answers and the same store
//! effects, and a served call is really served.

mod hook_support;
mod serve_support;

use acc_runtime::core::model::ReceiptState;
use hook_support::*;
use serve_support::*;

fn payload(sb: &Sandbox, event: &str) -> String {
    claude_payload(event, &sb.ws())
}

fn run(sb: &Sandbox, event: &str, env: &[(&str, &str)]) -> HookRun {
    let mut all = vec![("ACC_TEST_CLOCK", FIXED_CLOCK)];
    all.extend_from_slice(env);
    hook_process(&sb.data(), event, &payload(sb, event), &all).into()
}

fn session_id(sb: &Sandbox) -> String {
    let v: serde_json::Value = serde_json::from_str(&payload(sb, "SessionStart")).unwrap();
    v["session_id"].as_str().unwrap().to_string()
}

/// What a conversation's hooks answered and left in the store: start, an allowed write, a
/// denied one (a peer's guarded claim), two turns that each deliver a peer's message, the
/// stop.
fn conversation(env: &[(&str, &str)]) -> (String, Vec<ReceiptState>, Sandbox) {
    let sb = Sandbox::new();
    std::fs::create_dir_all(sb.data().join("acc")).unwrap();
    let server = env
        .contains(&("ACC_SERVE", "1"))
        .then(|| Server::start(&sb.data(), &[]));
    let mut r = Redactor::new(&sb);
    let mut t = String::new();
    let mut step = |name: &str, run: HookRun, t: &mut String| {
        *t += &format!(
            "## {name}\nexit: {}\n--- stdout\n{}\n--- stderr\n{}\n",
            run.code,
            r.apply(&run.stdout),
            r.apply(&run.stderr)
        );
        run
    };
    let start = step("start", run(&sb, "SessionStart", env), &mut t);
    assert_eq!(start.code, 0);
    let mut core = sb.core();
    let me = bound_owner(&mut core, &session_id(&sb));
    let participant = core.session(&me.session).unwrap().unwrap().participant_id;
    let allowed = step("allow", run(&sb, "PreToolUse", env), &mut t);
    assert_eq!(allowed.stdout, "");
    let peer = attach(&mut core, "peer", true);
    claim(&mut core, &peer, "file:hello.txt", true);
    let denied = step("deny", run(&sb, "PreToolUse", env), &mut t);
    assert!(is_deny(&denied), "{denied:?}");
    // Each delivering turn: the peer sends, then the prompt's hook runs.
    let turn_env = [env, &[("ACC_CERTIFY_CANDIDATES", "delivery.nextTurn")]].concat();
    let mut delivering_turn = |name: &str, body: &str, t: &mut String| {
        send(&mut core, &peer, participant.as_str(), "hello.txt", body);
        step(name, run(&sb, "UserPromptSubmit", &turn_env), t)
    };
    let body = "I am rewriting hello.txt until noon; please leave it to me.";
    let turn = delivering_turn("turn", body, &mut t);
    assert!(turn.stdout.contains(body), "{turn:?}");
    // A second delivering turn: served, it runs on the connection the first one wrote
    // through and handed back (its statements compiled, the store checkpointed).
    let again = "Noon has passed; hello.txt is yours.";
    let second = delivering_turn("second turn", again, &mut t);
    assert!(
        second.stdout.contains(again) && !second.stdout.contains(body),
        "{second:?}"
    );
    step("stop", run(&sb, "Stop", env), &mut t);
    let states = inbox(&mut core, &me)
        .iter()
        .map(|i| i.receipt_state)
        .collect();
    if let Some(server) = &server {
        // The allow and the deny are the snapshot's: the client answers them itself.
        assert_eq!(served(&sb.data()), Some(4), "every store call was served");
        assert_eq!(lock_pid(&sb.data()), Some(server.pid()));
    }
    drop(server);
    (t, states, sb)
}

#[test]
fn served_and_local_hooks_answer_alike_and_leave_the_same_store() {
    let (local, local_states, _a) = conversation(&[]);
    let (served, served_states, _b) = conversation(&[("ACC_SERVE", "1")]);
    assert_eq!(served, local);
    assert_eq!(served_states, local_states);
    assert_eq!(
        served_states,
        vec![ReceiptState::Offered, ReceiptState::Offered]
    );
}

#[test]
fn without_the_variable_no_server_starts() {
    let sb = Sandbox::new();
    for v in ["", "0", "yes"] {
        let r = run(&sb, "SessionStart", &[("ACC_SERVE", v)]);
        assert_eq!(r.code, 0);
    }
    std::thread::sleep(std::time::Duration::from_millis(300));
    assert!(!acc_runtime::serve::dir(&sb.data()).exists());
    assert_eq!(lock_pid(&sb.data()), None);
}

/// The first call runs itself and starts a server; the next ones are served by it, and it
/// exits once its data home is gone.
#[test]
fn the_first_call_starts_a_server_for_the_next() {
    let sb = Sandbox::new();
    let env = [("ACC_SERVE", "1")];
    assert_eq!(run(&sb, "SessionStart", &env).code, 0);
    wait_for(|| served(&sb.data()).is_some(), "a detached server");
    let pid = lock_pid(&sb.data()).unwrap();
    assert_ne!(pid, std::process::id());
    assert_eq!(served(&sb.data()), Some(0));
    assert_eq!(run(&sb, "PreToolUse", &env).stdout, "");
    assert_eq!(
        served(&sb.data()),
        Some(0),
        "the snapshot's allow is the client's"
    );
    assert_eq!(run(&sb, "SessionStart", &env).code, 0);
    assert_eq!(run(&sb, "Stop", &env).code, 0);
    assert_eq!(served(&sb.data()), Some(2), "the store's calls are served");
    assert_eq!(lock_pid(&sb.data()), Some(pid), "still one server");
    drop(sb);
    wait_gone(pid);
}
