//! `acc-mcp` tools and resources, as processes over pipes: every tool's success path (pinned
//! as a redacted transcript), every error path, identity and the session's lifecycle, and two
//! servers in one workspace seeing each other.

mod common;
mod mcp_support;

use common::{Redactor, Sandbox};
use mcp_support::{Server, command};
use serde_json::{Value, json};

/// Records calls and their results, redacted, for a snapshot.
struct Transcript {
    red: Redactor,
    text: String,
}

impl Transcript {
    fn new(sb: &Sandbox) -> Self {
        Transcript {
            red: Redactor::new(sb),
            text: String::new(),
        }
    }

    fn call(&mut self, s: &mut Server, who: &str, tool: &str, args: Value) -> Value {
        let (is_error, v) = s.call_result(tool, args.clone());
        let args = self.red.apply(&args.to_string());
        let shown = self.red.apply(&serde_json::to_string_pretty(&v).unwrap());
        let mark = if is_error { " isError" } else { "" };
        self.text
            .push_str(&format!("[{who}] {tool} {args}{mark}\n{shown}\n\n"));
        v
    }

    fn cli(&mut self, sb: &Sandbox, owner: &(String, String), args: &[&str]) -> Value {
        let r = sb.run_as(owner, args);
        assert_eq!(r.code, 0, "{}", r.stderr);
        let line = self.red.apply(&args.join(" "));
        self.text.push_str(&format!("[bob via acc] {line}\n\n"));
        r.json()
    }
}

#[test]
fn every_tool_succeeds_transcript() {
    let sb = Sandbox::new();
    let bob = sb.attach("bob", &[]);
    let mut s = Server::start(&sb, "alice");
    let mut t = Transcript::new(&sb);
    // Names in the order the transcript meets them keep the redaction stable.
    t.red.apply(&bob.0);

    t.call(&mut s, "alice", "acc_status", json!({}));
    t.call(
        &mut s,
        "alice",
        "acc_work",
        json!({"summary": "refactor the parser", "mode": "edit", "state": "active",
               "resourceHints": ["file:src/parser.rs"]}),
    );
    let claim = t.call(
        &mut s,
        "alice",
        "acc_claim",
        json!({"action": "acquire", "resource": "file:./src/parser.rs", "mode": "exclusive",
               "reason": "refactor", "leaseSeconds": 900}),
    );
    let claim_id = claim["claim"]["claimId"].as_str().unwrap().to_string();
    t.call(
        &mut s,
        "alice",
        "acc_claim",
        json!({"action": "renew", "claimId": claim_id, "leaseSeconds": 1800}),
    );
    let asked = t.cli(
        &sb,
        &bob,
        &[
            "message",
            "--json",
            "--to",
            "alice",
            "--type",
            "question",
            "--subject",
            "which port?",
            "--body",
            "the server listens where?",
        ],
    );
    let question = asked["data"]["message"]["messageId"]
        .as_str()
        .unwrap()
        .to_string();
    t.call(&mut s, "alice", "acc_inbox", json!({"limit": 10}));
    t.call(&mut s, "alice", "acc_inbox", json!({"messageId": question}));
    t.call(
        &mut s,
        "alice",
        "acc_reply",
        json!({"messageId": question, "body": "8080", "clientMessageId": "reply-1"}),
    );
    t.call(
        &mut s,
        "alice",
        "acc_message",
        json!({"to": ["bob"], "subject": "parser is moving", "body": "src/parser.rs splits in two",
               "kind": "note", "clientMessageId": "note-1"}),
    );
    t.call(
        &mut s,
        "alice",
        "acc_request",
        json!({"toParticipantId": "bob", "title": "review the split", "detail": "after lunch"}),
    );
    let decided = t.cli(
        &sb,
        &bob,
        &[
            "message",
            "--json",
            "--to",
            "alice",
            "--type",
            "decision",
            "--obligation",
            "acknowledge",
            "--subject",
            "we keep one crate",
            "--body",
            "decided",
        ],
    );
    let decision = decided["data"]["message"]["messageId"]
        .as_str()
        .unwrap()
        .to_string();
    t.call(&mut s, "alice", "acc_ack", json!({"messageId": decision}));
    t.call(
        &mut s,
        "alice",
        "acc_sync",
        json!({"scope": "delta", "limit": 5}),
    );
    t.call(&mut s, "alice", "acc_sync", json!({"scope": "full"}));
    t.call(&mut s, "alice", "acc_release", json!({"claimId": claim_id}));
    t.call(&mut s, "alice", "acc_work", json!({"clear": true}));
    t.call(
        &mut s,
        "alice",
        "acc_claim",
        json!({"action": "acquire", "resource": "file:docs/**", "mode": "shared"}),
    );
    t.call(
        &mut s,
        "alice",
        "acc_finish",
        json!({"goal": "parser refactor", "status": "partial", "toParticipantId": "bob",
               "completed": ["lexer"], "remaining": ["errors"], "blockers": [],
               "clientMessageId": "fin-1"}),
    );
    assert_eq!(s.close().code, Some(0));
    insta::assert_snapshot!("every_tool_transcript", t.text);
}

#[test]
fn resources_read_the_room() {
    let sb = Sandbox::new();
    let bob = sb.attach("bob", &[]);
    let mut s = Server::start(&sb, "alice");
    // Before any tool call: the room is visible and nothing of alice's exists.
    let roster = s.read("acc://roster");
    let who: Vec<&str> = roster["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["participantId"].as_str().unwrap())
        .collect();
    assert_eq!(who, ["bob"]);
    let snap = s.read("acc://snapshot");
    assert_eq!(snap["counts"]["liveSessions"], 1);
    assert_eq!(snap["attention"], json!([]));
    // Reading the inbox attaches alice, so bob can write to her.
    assert_eq!(s.read("acc://inbox")["items"], json!([]));
    let r = sb.run_as(
        &bob,
        &[
            "message",
            "--to",
            "alice",
            "--subject",
            "hello",
            "--body",
            "b",
        ],
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    let inbox = s.read("acc://inbox");
    assert_eq!(inbox["items"][0]["subject"], "hello");
    assert_eq!(inbox["items"][0]["fromParticipantId"], "bob");
    let snap = s.read("acc://snapshot");
    assert_eq!(snap["counts"]["liveSessions"], 2);
    let mut red = Redactor::new(&sb);
    red.apply(&bob.0);
    insta::assert_snapshot!(
        "resources_after_attach",
        red.apply(
            &serde_json::to_string_pretty(&json!({
                "acc://inbox": inbox,
                "acc://roster": s.read("acc://roster"),
            }))
            .unwrap()
        )
    );
}

#[test]
fn resources_before_any_store_create_nothing() {
    let sb = Sandbox::new();
    let mut s = Server::start(&sb, "alice");
    let snap = s.read("acc://snapshot");
    assert_eq!(snap["workspace"]["storeExists"], false);
    assert_eq!(s.read("acc://roster")["sessions"], json!([]));
    assert!(sb.store_files().is_empty(), "reads never create the store");
}

/// One invalid call and the JSON-RPC error it gets.
fn params_error(s: &mut Server, tool: &str, args: Value) -> Value {
    let r = s.call_raw(tool, args.clone());
    assert_eq!(r["error"]["code"], -32602, "{tool} {args}: {r}");
    assert!(r.get("result").is_none());
    json!({ "call": { "tool": tool, "arguments": args }, "error": r["error"] })
}

/// Calls whose arguments break the tool's schema or its conditional shapes.
fn wrong_arguments() -> Vec<(&'static str, Value)> {
    vec![
        ("acc_status", json!({"verbose": true})),
        (
            "acc_claim",
            json!({"action": "acquire", "resource": "file:x", "color": "red"}),
        ),
        ("acc_claim", json!({"resource": "file:x"})),
        (
            "acc_claim",
            json!({"action": "steal", "resource": "file:x"}),
        ),
        ("acc_claim", json!({"action": "acquire"})),
        (
            "acc_claim",
            json!({"action": "renew", "claimId": "claim_x", "resource": "file:x"}),
        ),
        (
            "acc_claim",
            json!({"action": "acquire", "resource": "file:x", "leaseSeconds": 0}),
        ),
        ("acc_sync", json!({"limit": 501})),
        ("acc_sync", json!({"cursor": "12"})),
        ("acc_sync", json!({"kind": "claim.stolen"})),
        ("acc_work", json!({"summary": "x"})),
        ("acc_work", json!({"clear": true, "mode": "edit"})),
        (
            "acc_message",
            json!({"to": "bob", "subject": "s", "body": "b"}),
        ),
        (
            "acc_message",
            json!({"to": ["bob", "bob"], "subject": "s", "body": "b"}),
        ),
        (
            "acc_message",
            json!({"to": ["bob"], "subject": "", "body": "b"}),
        ),
        ("acc_release", json!({})),
        (
            "acc_inbox",
            json!({"messageId": "message_x", "cursor": "message_y"}),
        ),
        ("acc_ack", json!({"messageId": 12})),
        ("acc_finish", json!({"goal": "g", "completed": "all"})),
        ("acc_ack", json!(["message_x"])),
    ]
}

#[test]
fn wrong_arguments_are_invalid_params_under_2025_06_18() {
    let sb = Sandbox::new();
    let mut s = Server::start_with(&sb, "alice", "2025-06-18");
    let mut cases = vec![("acc_teleport", json!({}))];
    cases.extend(wrong_arguments());
    let errors: Vec<Value> = cases
        .into_iter()
        .map(|(tool, args)| params_error(&mut s, tool, args))
        .collect();
    // Params that are not an object, and a call without a name.
    let r = s.request("tools/call", Some(json!({"arguments": {}})));
    assert_eq!(r["error"]["code"], -32602);
    let r = s.request("tools/call", None);
    assert_eq!(r["error"]["code"], -32602);
    assert!(
        sb.store_files().is_empty(),
        "refused calls attach nothing: {:?}",
        sb.store_files()
    );
    insta::assert_json_snapshot!("invalid_params", errors);
}

#[test]
fn wrong_arguments_are_tool_errors_under_2025_11_25() {
    let sb = Sandbox::new();
    let mut old = Server::start_with(&sb, "alice", "2025-06-18");
    let mut new = Server::start(&sb, "alice");
    for (tool, args) in wrong_arguments() {
        let rpc = params_error(&mut old, tool, args.clone())["error"].clone();
        // The same words, now as a result the model reads: a usage error (exit class 2)
        // whose details carry the violations with their pointers.
        let e = new.call_err(tool, args.clone());
        assert_eq!(e["code"], 2, "{tool} {args}: {e}");
        assert_eq!(e["reason"], "invalid_argument", "{tool} {args}: {e}");
        assert_eq!(e["message"], rpc["message"], "{tool} {args}");
        assert_eq!(e["details"]["tool"], tool);
        assert_eq!(e["details"]["violations"], rpc["data"]["violations"]);
    }
    let e = new.call_err("acc_claim", json!({"action": "acquire"}));
    assert_eq!(
        e["message"],
        "invalid arguments for acc_claim: /resource is required with action acquire"
    );
    // An unknown tool and malformed params stay protocol errors.
    let r = new.call_raw("acc_teleport", json!({}));
    assert_eq!(r["error"]["code"], -32602, "{r}");
    assert_eq!(r["error"]["data"]["tool"], "acc_teleport");
    let r = new.request("tools/call", Some(json!({"arguments": {}})));
    assert_eq!(r["error"]["code"], -32602);
    let r = new.request("tools/call", Some(json!({"name": 7})));
    assert_eq!(r["error"]["code"], -32602);
    assert!(
        sb.store_files().is_empty(),
        "refused calls attach nothing: {:?}",
        sb.store_files()
    );
    // A corrected call then works.
    new.call(
        "acc_claim",
        json!({"action": "acquire", "resource": "file:x"}),
    );
}

#[test]
fn acc_refusals_are_tool_errors_with_codes() {
    let sb = Sandbox::new();
    let mut s = Server::start(&sb, "alice");
    let e = s.call_err(
        "acc_message",
        json!({"to": ["nobody"], "subject": "s", "body": "b"}),
    );
    assert_eq!(
        (e["code"].as_i64(), e["reason"].as_str()),
        (Some(4), Some("unknown_participant"))
    );
    let e = s.call_err(
        "acc_message",
        json!({"to": [], "kind": "question", "subject": "s", "body": "b"}),
    );
    assert_eq!(
        (e["code"].as_i64(), e["reason"].as_str()),
        (Some(2), Some("invalid_argument"))
    );
    let e = s.call_err(
        "acc_claim",
        json!({"action": "acquire", "resource": "file:src/*.rs"}),
    );
    assert_eq!(e["reason"], "invalid_resource");
    let e = s.call_err("acc_sync", json!({"cursor": "00000000000000zz"}));
    assert_eq!(e["reason"], "invalid_cursor");
    let e = s.call_err("acc_ack", json!({"messageId": "message_missing"}));
    assert_eq!(
        (e["code"].as_i64(), e["reason"].as_str()),
        (Some(4), Some("not_found"))
    );
    let e = s.call_err("acc_inbox", json!({"messageId": "bad id"}));
    assert_eq!(e["reason"], "invalid_argument");
    let e = s.call_err("acc_release", json!({"claimId": "claim_missing"}));
    assert_eq!(e["reason"], "not_found");
    let e = s.call_err(
        "acc_claim",
        json!({"action": "renew", "claimId": "claim_missing"}),
    );
    assert_eq!(e["reason"], "not_found");
    let e = s.call_err("acc_work", json!({"summary": "line\u{7}", "mode": "edit"}));
    assert_eq!(
        (e["code"].as_i64(), e["reason"].as_str()),
        (Some(2), Some("invalid_text"))
    );
    assert!(e["message"].as_str().unwrap().contains("summary"), "{e}");
    // The session survived every refusal.
    let status = s.call("acc_status", json!({}));
    assert_eq!(status["sessions"].as_array().unwrap().len(), 1);
}

#[test]
fn a_claim_held_by_another_server_conflicts() {
    let sb = Sandbox::new();
    let mut alice = Server::start(&sb, "alice");
    let mut bob = Server::start(&sb, "bob");
    let held = alice.call(
        "acc_claim",
        json!({"action": "acquire", "resource": "file:src/**"}),
    );
    let claim_id = held["claim"]["claimId"].as_str().unwrap();
    let e = bob.call_err(
        "acc_claim",
        json!({"action": "acquire", "resource": "file:src/lib.rs"}),
    );
    assert_eq!(e["code"], 5);
    assert_eq!(e["reason"], "claim_conflict");
    assert_eq!(e["details"]["claimId"], claim_id);
    assert_eq!(e["details"]["resource"], "file:src/**");
    assert_eq!(e["details"]["ownerPresence"], "online");
    assert!(e["message"].as_str().unwrap().contains("alice"), "{e}");
    // Renewing or releasing alice's claim is not bob's to do.
    let e = bob.call_err("acc_claim", json!({"action": "renew", "claimId": claim_id}));
    assert_eq!(
        (e["code"].as_i64(), e["reason"].as_str()),
        (Some(5), Some("not_claim_owner"))
    );
    let e = bob.call_err("acc_release", json!({"claimId": claim_id}));
    assert_eq!(e["reason"], "not_claim_owner");
    // Shared claims coexist; once alice releases, bob gets the file.
    alice.call(
        "acc_claim",
        json!({"action": "acquire", "resource": "doc:plan", "mode": "shared"}),
    );
    bob.call(
        "acc_claim",
        json!({"action": "acquire", "resource": "doc:plan", "mode": "shared"}),
    );
    alice.call("acc_release", json!({"claimId": claim_id}));
    bob.call(
        "acc_claim",
        json!({"action": "acquire", "resource": "file:src/lib.rs"}),
    );
}

#[test]
fn ack_is_refused_while_a_reply_is_owed() {
    let sb = Sandbox::new();
    let mut alice = Server::start(&sb, "alice");
    let mut bob = Server::start(&sb, "bob");
    bob.call("acc_status", json!({}));
    let q = alice.call(
        "acc_request",
        json!({"toParticipantId": "bob", "title": "run the tests"}),
    );
    let id = q["message"]["messageId"].as_str().unwrap();
    assert_eq!(q["delivery"][0]["recipientParticipantId"], "bob");
    assert_eq!(q["delivery"][0]["outcome"], "queued");
    let e = bob.call_err("acc_ack", json!({"messageId": id}));
    assert_eq!(e["code"], 5);
    assert_eq!(e["reason"], "reply_required");
    assert_eq!(e["details"]["messageId"], id);
    let r = bob.call("acc_reply", json!({"messageId": id, "body": "green"}));
    assert_eq!(r["receipt"]["state"], "acknowledged");
    // Acknowledging after the reply is an accepted no-op.
    assert_eq!(
        bob.call("acc_ack", json!({"messageId": id}))["receipt"]["state"],
        "acknowledged"
    );
    // Alice may not answer or acknowledge a message that was not sent to her.
    let e = alice.call_err("acc_ack", json!({"messageId": id}));
    assert_eq!(e["reason"], "not_addressed");
    let answer = alice.call("acc_inbox", json!({}));
    assert_eq!(answer["items"][0]["kind"], "answer");
    assert_eq!(answer["items"][0]["fromParticipantId"], "bob");
}

#[test]
fn two_servers_see_each_others_claims_intents_and_messages() {
    let sb = Sandbox::new();
    let mut alice = Server::start(&sb, "alice");
    let mut bob = Server::start(&sb, "bob");
    alice.call(
        "acc_work",
        json!({"summary": "parser", "mode": "edit", "resourceHints": ["file:src/parser.rs"]}),
    );
    alice.call(
        "acc_claim",
        json!({"action": "acquire", "resource": "file:src/parser.rs"}),
    );
    let seen = bob.call("acc_status", json!({}));
    let sessions = seen["sessions"].as_array().unwrap();
    let alice_row = sessions
        .iter()
        .find(|s| s["participantId"] == "alice")
        .expect("bob sees alice");
    assert_eq!(alice_row["harness"], "mcp");
    assert_eq!(alice_row["presence"], "online");
    assert_eq!(alice_row["intent"]["summary"], "parser");
    assert_eq!(seen["claims"][0]["ownerParticipantId"], "alice");
    assert_eq!(seen["claims"][0]["resource"], "file:src/parser.rs");
    assert_eq!(seen["protection"], "advisory");
    // Bob's view through sync: alice's events are in his delta.
    let sync = bob.call("acc_sync", json!({}));
    let types: Vec<&str> = sync["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["type"].as_str().unwrap())
        .collect();
    assert!(types.contains(&"claim.acquired"), "{types:?}");
    assert!(types.contains(&"intent.published"), "{types:?}");
    let only = bob.call("acc_sync", json!({"kind": "claim.acquired"}));
    assert_eq!(only["events"].as_array().unwrap().len(), 1);
    // A room note reaches everyone else with an open session.
    let sent = bob.call(
        "acc_message",
        json!({"to": [], "subject": "lunch", "body": "now"}),
    );
    assert_eq!(sent["delivery"][0]["recipientParticipantId"], "alice");
    let inbox = alice.call("acc_inbox", json!({}));
    assert_eq!(inbox["items"][0]["subject"], "lunch");
    assert_eq!(inbox["items"][0]["room"], true);
    let read = alice.call(
        "acc_inbox",
        json!({"messageId": inbox["items"][0]["messageId"]}),
    );
    assert_eq!(read["message"]["body"], "now");
    assert_eq!(read["receipt"]["state"], "retrieved");
    // The harness name addresses the one other live MCP participant.
    let sent = alice.call(
        "acc_message",
        json!({"to": ["mcp"], "subject": "s", "body": "b"}),
    );
    assert_eq!(sent["delivery"][0]["recipientParticipantId"], "bob");
}

#[test]
fn identity_comes_only_from_the_environment() {
    let sb = Sandbox::new();
    // clientInfo names bob; the environment says alice.
    let mut s = Server::spawn(command(&sb, Some("alice")));
    let r = s.request(
        "initialize",
        Some(json!({"protocolVersion": "2025-06-18", "capabilities": {},
                    "clientInfo": {"name": "bob", "version": "9"}})),
    );
    assert_eq!(r["result"]["protocolVersion"], "2025-06-18");
    let status = s.call("acc_status", json!({}));
    assert_eq!(status["sessions"][0]["participantId"], "alice");
    drop(s);
    // Without ACC_MCP_PARTICIPANT the participant is `mcp`.
    let sb = Sandbox::new();
    let mut s = Server::spawn(command(&sb, None));
    s.initialize("2025-11-25");
    let status = s.call("acc_status", json!({}));
    assert_eq!(status["sessions"][0]["participantId"], "mcp");
    assert_eq!(
        status["workspace"]["roots"][0],
        sb.ws_path().display().to_string()
    );
}

#[test]
fn bad_identity_variables_are_reported_on_every_call() {
    let sb = Sandbox::new();
    let mut cmd = command(&sb, Some("alice"));
    cmd.env("ACC_MCP_WORKSPACE", "relative/dir");
    let mut s = Server::spawn(cmd);
    assert!(s.initialize("2025-11-25")["result"].is_object());
    for _ in 0..2 {
        let e = s.call_err("acc_status", json!({}));
        assert_eq!(
            (e["code"].as_i64(), e["reason"].as_str()),
            (Some(2), Some("invalid_argument"))
        );
        assert!(
            e["message"].as_str().unwrap().contains("ACC_MCP_WORKSPACE"),
            "{e}"
        );
    }
    let r = s.request("resources/read", Some(json!({"uri": "acc://snapshot"})));
    assert_eq!(r["error"]["code"], -32603);
    assert_eq!(r["error"]["data"]["error"]["reason"], "invalid_argument");
    let ended = s.close();
    assert_eq!(ended.code, Some(0));
    assert_eq!(ended.stderr.lines().count(), 1, "{}", ended.stderr);
    assert!(ended.stderr.contains("ACC_MCP_WORKSPACE"));

    let mut cmd = command(&sb, Some("not a name"));
    cmd.env("ACC_MCP_WORKSPACE", sb.ws_path());
    let mut s = Server::spawn(cmd);
    s.initialize("2025-11-25");
    let e = s.call_err("acc_status", json!({}));
    assert!(
        e["message"]
            .as_str()
            .unwrap()
            .starts_with("ACC_MCP_PARTICIPANT: "),
        "{e}"
    );
    assert!(sb.store_files().is_empty());
}

#[test]
fn the_session_attaches_on_the_first_call_and_reattaches_after_finish() {
    let sb = Sandbox::new();
    let mut s = Server::start(&sb, "alice");
    s.request("tools/list", None);
    s.request("resources/list", None);
    assert!(sb.store_files().is_empty(), "listing attaches nothing");
    let first = s.call("acc_status", json!({}));
    let me = &first["sessions"][0];
    assert_eq!(
        (
            &me["harness"],
            &me["enforcement"],
            &me["lifecycle"],
            &me["state"]
        ),
        (
            &json!("mcp"),
            &json!("advisory"),
            &json!("manual"),
            &json!("open")
        )
    );
    let session = me["sessionId"].as_str().unwrap().to_string();
    let again = s.call("acc_status", json!({}));
    assert_eq!(
        again["sessions"][0]["sessionId"],
        session.as_str(),
        "one session per server"
    );
    s.call(
        "acc_claim",
        json!({"action": "acquire", "resource": "file:a"}),
    );
    let done = s.call(
        "acc_finish",
        json!({"goal": "done", "clientMessageId": "fin"}),
    );
    assert_eq!(done["sessionId"], session.as_str());
    assert_eq!(done["released"][0]["resource"], "file:a");
    let gone = sb.run(&["status", "--all", "--json"]).json();
    assert_eq!(gone["data"]["sessions"][0]["state"], "closed");
    // The next call attaches a new session; a retried finish returns the original handoff
    // and closes the session that the retry attached.
    let next = s.call("acc_status", json!({}));
    let fresh = next["sessions"][0]["sessionId"]
        .as_str()
        .unwrap()
        .to_string();
    assert_ne!(fresh, session);
    let retry = s.call(
        "acc_finish",
        json!({"goal": "done", "clientMessageId": "fin"}),
    );
    assert_eq!(retry["duplicate"], true);
    assert_eq!(retry["message"], done["message"]);
    let all = sb.run(&["status", "--all", "--json"]).json();
    let states: Vec<&str> = all["data"]["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["state"].as_str().unwrap())
        .collect();
    assert_eq!(states, ["closed", "closed"]);
    assert_eq!(s.close().code, Some(0));
}

#[test]
fn a_killed_server_is_ended_by_the_next_reader_and_its_claims_stay() {
    let sb = Sandbox::new();
    let mut s = Server::start(&sb, "alice");
    s.call(
        "acc_claim",
        json!({"action": "acquire", "resource": "file:a"}),
    );
    s.kill();
    let status = sb.run(&["status", "--json"]).json();
    assert_eq!(
        status["data"]["sessions"],
        json!([]),
        "no live session: {status}"
    );
    assert_eq!(status["data"]["counts"]["liveSessions"], 0);
    let claim = &status["data"]["claims"][0];
    assert_eq!(claim["resource"], "file:a", "its claim stays");
    assert_eq!(claim["ownerSession"], "ended");
    let all = sb.run(&["status", "--all", "--json"]).json();
    let me = &all["data"]["sessions"][0];
    assert_eq!(me["participantId"], "alice");
    assert_eq!(
        me["state"], "closed",
        "the reader closed it: its pid is dead"
    );
    assert_eq!(me["presence"], "offline");
}

#[test]
fn a_signalled_server_closes_its_session_before_it_exits() {
    for (signal, name) in [
        (libc::SIGTERM, "SIGTERM"),
        (libc::SIGINT, "SIGINT"),
        (libc::SIGHUP, "SIGHUP"),
    ] {
        let sb = Sandbox::new();
        let mut s = Server::start(&sb, "alice");
        s.call(
            "acc_claim",
            json!({"action": "acquire", "resource": "file:a"}),
        );
        let code = s.signal(signal);
        assert_eq!(code, Some(128 + signal), "{name}: exits as signalled");
        // Read with the store's file only: a reader must not be what closed it.
        let db = rusqlite::Connection::open(sb.db_path()).unwrap();
        let (state, cause): (String, String) = db
            .query_row(
                "SELECT s.state, json_extract(e.payload, '$.cause') FROM sessions s
                 JOIN events e ON e.actor_session_id = s.session_id AND e.type = 'session.closed'",
                [],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .unwrap_or_else(|e| panic!("{name}: no session.closed event: {e}"));
        assert_eq!(
            (state.as_str(), cause.as_str()),
            ("closed", "close"),
            "{name}"
        );
        let status = sb.run(&["status", "--json"]).json();
        assert_eq!(status["data"]["counts"]["liveSessions"], 0, "{name}");
        assert_eq!(
            status["data"]["claims"][0]["ownerSession"], "ended",
            "{name}"
        );
    }
}
