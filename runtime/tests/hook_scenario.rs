//! The in-process end-to-end scenario of issue 4: two hooked sessions, a guarded claim, a
//! denied write, a message, and its delivery at the next turn through an adapter that has
//! evidence, with receipts `offered` for exactly the offered ids.

mod hook_support;

use acc_runtime::core::model::{Enforcement, Lifecycle, ReceiptState, SessionState};
use hook_support::*;

#[test]
fn two_sessions_a_guarded_claim_a_denied_write_and_a_delivered_message() {
    let sb = Sandbox::new();
    let ws = sb.ws();

    // Both conversations start through their hooks; no startup context is certified.
    for conv in ["conv-a", "conv-b"] {
        let run = hook(
            sb.settings(certified, &[]),
            &payload("sessionStart", conv, &ws),
        );
        assert_eq!(
            run,
            HookRun {
                code: 0,
                stdout: String::new(),
                stderr: String::new()
            }
        );
    }
    let mut core = sb.core();
    let a = bound_owner(&mut core, "conv-a");
    let b = bound_owner(&mut core, "conv-b");
    assert_ne!(a.session, b.session);
    let rec = core.session(&a.session).unwrap().unwrap();
    assert_eq!(
        rec.enforcement,
        Enforcement::Guarded,
        "guards.beforeWrite is certified"
    );
    assert_eq!(
        rec.lifecycle,
        Lifecycle::Managed,
        "lifecycle.sessionEnd is certified"
    );
    assert_eq!(rec.heartbeat_cadence_ms, 60_000);
    assert_eq!(rec.harness, ADAPTER_ID);
    assert_eq!(rec.branch.as_deref(), Some("main"));
    assert_eq!(
        rec.checkout_root.as_deref(),
        Some(ws.display().to_string().as_str())
    );
    assert_eq!(rec.extensions["client"]["name"], CLIENT);
    assert_eq!(
        rec.extensions["capabilities"],
        serde_json::json!([
            "lifecycle.sessionEnd",
            "guards.beforeWrite",
            "delivery.nextTurn"
        ])
    );
    // Each acts as its client's name, numbered while the other is live.
    let a_participant = rec.participant_id.to_string();
    assert_eq!(a_participant, ADAPTER_ID);
    let b_rec = core.session(&b.session).unwrap().unwrap();
    assert_eq!(b_rec.participant_id.as_str(), format!("{ADAPTER_ID}-2"));

    // A claims the source tree, guarded; B's write into it is denied, naming resource and owner.
    claim(&mut core, &a, "file:src/**", true);
    let denied = hook(
        sb.settings(certified, &[]),
        &write_payload("conv-b", &ws, &["src/engine.rs"]),
    );
    assert_eq!(denied.code, 2);
    assert_eq!(denied.stdout, "");
    assert_eq!(
        denied.stderr,
        format!(
            "file:src/engine.rs is claimed by {a_participant} (session {})",
            a.session
        )
    );
    // The owner itself writes freely.
    let own = hook(
        sb.settings(certified, &[]),
        &write_payload("conv-a", &ws, &["src/engine.rs"]),
    );
    assert_eq!(
        (own.code, own.stdout.as_str(), own.stderr.as_str()),
        (0, "", "")
    );

    // B tells A three things; the last no longer fits the 6,000-byte budget and must stay
    // queued.
    let fits = send(
        &mut core,
        &b,
        &a_participant,
        "engine is yours",
        "I will wait for your change.",
    );
    let long = send(
        &mut core,
        &b,
        &a_participant,
        "the long one",
        &"x".repeat(3990),
    );
    let too_big = send(
        &mut core,
        &b,
        &a_participant,
        "even longer",
        &"y".repeat(3990),
    );
    let turn = hook(
        sb.settings(certified, &[]),
        &payload("beforeTurn", "conv-a", &ws),
    );
    assert_eq!(turn.code, 0);
    assert_eq!(turn.stderr, "");
    let lines: Vec<&str> = turn.stdout.lines().collect();
    assert_eq!(
        lines[0],
        format!(
            "ACC CLI (append): --session {} --generation {} --cwd '{}'",
            a.session,
            a.generation,
            ws.display()
        )
    );
    assert_eq!(lines[1], format!("ACC you are: {a_participant}"));
    // B is named by the id `--to` takes, so A can answer a peer it has only seen here.
    assert_eq!(
        lines[2],
        format!("ACC peers here (address them with --to): {ADAPTER_ID}-2")
    );
    // First, that B's write into A's claim was refused: ids, the target, the time.
    assert_eq!(
        lines[3],
        "ACC: 1 write(s) by other sessions into your guarded claims were refused; the files are unchanged:"
    );
    assert!(
        lines[4].starts_with(&format!("- {FIXED_CLOCK} "))
            && lines[4].contains(&format!("(session {})", b.session))
            && lines[4].ends_with(r#"(file:src/**): target "file:src/engine.rs""#),
        "{}",
        lines[4]
    );
    assert_eq!(lines[5], "ACC (load the acc skill):");
    assert!(turn.stdout.contains("```acc-peer-message"));
    assert!(turn.stdout.contains(&format!("messageId: {fits}")));
    assert!(turn.stdout.contains("body:\nI will wait for your change."));
    assert!(turn.stdout.contains(&format!("messageId: {long}")));
    assert!(!turn.stdout.contains(&format!("messageId: {too_big}")));
    assert!(turn.stdout.ends_with(&format!(
        "- read {too_big}: `acc inbox --message {too_big}`"
    )));
    assert!(turn.stdout.len() <= 6000, "the context budget holds");

    let states: Vec<(String, ReceiptState)> = inbox(&mut core, &a)
        .into_iter()
        .map(|i| (i.message_id.to_string(), i.receipt_state))
        .collect();
    assert_eq!(
        states,
        vec![
            (fits.to_string(), ReceiptState::Offered),
            (long.to_string(), ReceiptState::Offered),
            (too_big.to_string(), ReceiptState::Queued),
        ]
    );

    // The next turn does not show the offered body again.
    let again = hook(
        sb.settings(certified, &[]),
        &payload("beforeTurn", "conv-a", &ws),
    );
    assert!(!again.stdout.contains(&format!("messageId: {fits}")));
    assert!(
        again.stdout.contains(&format!("messageId: {too_big}")),
        "now it fits"
    );

    // Ending A's conversation closes its session with the client's reason; claims stay.
    let mut end = payload("sessionEnd", "conv-a", &ws);
    end["end_reason"] = "clear".into();
    assert_eq!(hook(sb.settings(certified, &[]), &end).code, 0);
    let closed = core.session(&a.session).unwrap().unwrap();
    assert_eq!(closed.state, SessionState::Closed);
    assert_eq!(closed.extensions["endReason"], "clear");
    // The binding stays, naming the closed session: a resumed conversation finds its name.
    let binding = core
        .binding(&acc_runtime::core::bindings::binding_key("conv-a"))
        .unwrap()
        .unwrap();
    assert_eq!(binding.session_id, a.session);
    assert_eq!(core.live_claims().unwrap().len(), 1);
}

/// Codex 0.157+ runs a terminal's conversation in its shared app-server, which outlives the
/// terminal: the hook's ancestry ends at that server, not at the terminal the person quits.
/// The session records the server as its host only: it ends on Codex's `SessionEnd`, by age,
/// or when the server itself is gone, never lives on because the server does.
#[test]
fn a_codex_session_hosted_by_its_shared_app_server_does_not_live_on_with_the_server() {
    use acc_runtime::hook::ProcessSource;
    use acc_sdk::adapter::ProcessEntry;
    use acc_sdk::identity::StaticTable;
    use std::sync::Arc;

    let sb = Sandbox::new();
    let ws = sb.ws();
    // A live process stands for the server, so that only its death can end the session.
    let mut server = std::process::Command::new("sleep")
        .arg("600")
        .spawn()
        .unwrap();
    let host = server.id();
    let entry = |pid: u32, ppid: u32, comm: &str, args: &[&str]| ProcessEntry {
        pid,
        ppid,
        comm: comm.into(),
        args: args.iter().map(|a| a.to_string()).collect(),
        exe: None,
    };
    let mut settings = sb.settings(acc_adapter_codex::adapter, &[]);
    settings.processes = ProcessSource::Fixed {
        table: Arc::new(StaticTable::new([
            entry(4_000_002, 4_000_001, "acc-hook", &["acc-hook", "codex"]),
            entry(4_000_001, host, "sh", &["sh", "-lc", "acc-hook codex"]),
            entry(
                host,
                1,
                "codex",
                &[
                    "/h/codex",
                    "app-server",
                    "--listen",
                    "unix://",
                    "--managed-daemon",
                ],
            ),
        ])),
        hook_pid: 4_000_002,
    };
    let fixture = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../fixtures/payloads/codex/run5-deny-exit2-exec_command/SessionStart.jsonl"),
    )
    .unwrap();
    let mut start: serde_json::Value =
        serde_json::from_str(fixture.lines().next().unwrap()).unwrap();
    start["cwd"] = serde_json::json!(ws.display().to_string());
    let run = run_hook(
        settings,
        &["codex", "SessionStart"],
        start.to_string().as_bytes(),
    );
    assert_eq!(run.code, 0, "{run:?}");

    let mut core = sb.core();
    let client_session = start["session_id"].as_str().unwrap();
    let owner = bound_owner(&mut core, client_session);
    let rec = core.session(&owner.session).unwrap().unwrap();
    assert_eq!(rec.pid, None, "the server's pid is not the session's");
    assert_eq!(rec.extensions["client"]["hostPid"], host);
    let binding = core
        .binding(&acc_runtime::core::bindings::binding_key(client_session))
        .unwrap()
        .unwrap();
    assert_eq!(
        binding.client_pid,
        Some(host),
        "the agent's tools run under the server: the authority check still sees it"
    );
    assert_eq!(core.status(None, false).unwrap().counts.live_sessions, 1);

    server.kill().unwrap();
    server.wait().unwrap();
    let status = core.status(None, false).unwrap();
    assert_eq!(status.counts.live_sessions, 0, "the server took it along");
    assert_eq!(
        core.session(&owner.session).unwrap().unwrap().state,
        SessionState::Closed
    );
}

/// Kimi Code 2.1.0 and Grok 0.2.111 run no session-end hook: their sessions end when the
/// client process the hook found is gone, at the next reader of the store.
#[test]
fn a_client_without_an_end_signal_is_ended_by_the_next_reader_once_its_process_is_gone() {
    use acc_runtime::hook::ProcessSource;
    use acc_sdk::adapter::ProcessEntry;
    use acc_sdk::define::Adapter;
    use acc_sdk::identity::StaticTable;
    use std::sync::Arc;

    /// The adapter id, its adapter, the client process's name and its payloads' directory.
    type Client = (&'static str, fn() -> Adapter, &'static str, &'static str);
    let clients: [Client; 2] = [
        (
            "kimi-code",
            acc_adapter_kimi_code::adapter,
            "kimi-code",
            "kimi-code/write",
        ),
        ("grok", acc_adapter_grok::adapter, "grok", "grok/write"),
    ];
    for (id, adapter, comm, dir) in clients {
        let sb = Sandbox::new();
        let ws = sb.ws();
        let mut client = std::process::Command::new("sleep")
            .arg("600")
            .spawn()
            .unwrap();
        let pid = client.id();
        let entry = |pid: u32, ppid: u32, comm: &str| ProcessEntry {
            pid,
            ppid,
            comm: comm.into(),
            args: vec![comm.to_string()],
            exe: None,
        };
        let mut settings = sb.settings(adapter, &[]);
        settings.processes = ProcessSource::Fixed {
            table: Arc::new(StaticTable::new([
                entry(4_000_002, 4_000_001, "acc-hook"),
                entry(4_000_001, pid, "sh"),
                entry(pid, 1, comm),
            ])),
            hook_pid: 4_000_002,
        };
        let fixture = std::fs::read_to_string(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join(format!("../fixtures/payloads/{dir}/SessionStart.jsonl")),
        )
        .unwrap();
        let mut start: serde_json::Value =
            serde_json::from_str(fixture.lines().next().unwrap()).unwrap();
        start["cwd"] = serde_json::json!(ws.display().to_string());
        let run = run_hook(
            settings,
            &[id, "SessionStart"],
            start.to_string().as_bytes(),
        );
        assert_eq!(run.code, 0, "{id}: {run:?}");

        let mut core = sb.core();
        let status = core.status(None, false).unwrap();
        assert_eq!(status.sessions.len(), 1, "{id}");
        let session = status.sessions[0].session_id.clone();
        assert_eq!(
            core.session(&session).unwrap().unwrap().pid,
            Some(pid),
            "{id}"
        );

        client.kill().unwrap();
        client.wait().unwrap();
        let status = core.status(None, false).unwrap();
        assert!(status.sessions.is_empty(), "{id}: nothing live that is not");
        let rec = core.session(&session).unwrap().unwrap();
        assert_eq!(rec.state, SessionState::Closed, "{id}");
    }
}
