//! `acc-mcp` at the protocol level, as a process over pipes: the handshake and version
//! negotiation, framing and JSON-RPC errors, sequencing, the published tool and resource
//! lists, and how the server ends.

mod common;
mod mcp_support;

use common::Sandbox;
use mcp_support::{INITIALIZE, Server, command, replies, script};
use serde_json::{Value, json};

fn error_code(reply: &Value) -> i64 {
    reply["error"]["code"]
        .as_i64()
        .unwrap_or_else(|| panic!("an error reply: {reply}"))
}

#[test]
fn initialize_negotiates_the_protocol_version() {
    let sb = Sandbox::new();
    for (asked, offered) in [
        ("2025-06-18", "2025-06-18"),
        ("2025-11-25", "2025-11-25"),
        ("2024-11-05", "2025-11-25"),
        ("2026-07-28", "2025-11-25"),
        ("not-a-version", "2025-11-25"),
    ] {
        let mut s = Server::spawn(command(&sb, Some("alice")));
        let reply = s.initialize(asked);
        let r = &reply["result"];
        assert_eq!(r["protocolVersion"], offered, "asked {asked}");
        assert_eq!(r["serverInfo"]["name"], "acc-mcp");
        assert_eq!(r["capabilities"]["tools"], json!({"listChanged": false}));
        assert_eq!(
            r["capabilities"]["resources"],
            json!({"subscribe": false, "listChanged": false})
        );
        assert!(r["instructions"].as_str().unwrap().contains("untrusted"));
        assert_eq!(s.close().code, Some(0));
    }
}

#[test]
fn initialize_needs_a_protocol_version_and_happens_once() {
    let sb = Sandbox::new();
    let mut s = Server::spawn(command(&sb, None));
    let r = s.request("initialize", Some(json!({"capabilities": {}})));
    assert_eq!(error_code(&r), -32602);
    assert!(
        r["error"]["message"]
            .as_str()
            .unwrap()
            .contains("protocolVersion")
    );
    let r = s.request("initialize", None);
    assert_eq!(error_code(&r), -32602);
    // A refused initialize leaves the server uninitialized; a good one then works once.
    assert_eq!(
        s.initialize("2025-06-18")["result"]["protocolVersion"],
        "2025-06-18"
    );
    let again = s.initialize("2025-06-18");
    assert_eq!(error_code(&again), -32600);
    assert!(
        again["error"]["message"]
            .as_str()
            .unwrap()
            .contains("already initialized")
    );
}

#[test]
fn requests_before_initialize_are_refused_but_ping_is_served() {
    let sb = Sandbox::new();
    let mut s = Server::spawn(command(&sb, Some("alice")));
    for method in [
        "tools/list",
        "tools/call",
        "resources/list",
        "resources/read",
    ] {
        let r = s.request(method, Some(json!({})));
        assert_eq!(error_code(&r), -32600, "{method}: {r}");
        assert_eq!(
            r["error"]["message"],
            format!("{method} before initialize: send initialize first")
        );
    }
    assert_eq!(s.request("ping", None)["result"], json!({}));
    // A notification before initialize is not answered: the next line answers the ping.
    s.notify("notifications/initialized");
    assert_eq!(s.request("ping", None)["result"], json!({}));
    assert!(
        sb.store_files().is_empty(),
        "nothing is written before a tool call"
    );
}

#[test]
fn malformed_lines_get_json_rpc_errors_and_the_server_carries_on() {
    let sb = Sandbox::new();
    let input = [
        INITIALIZE,
        "{not json",
        r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#,
        "[]",
        "42",
        r#"{"jsonrpc":"1.0","id":2,"method":"ping"}"#,
        r#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#,
        r#"{"jsonrpc":"2.0","id":3}"#,
        r#"{"jsonrpc":"2.0","id":4,"method":"ping","params":[1]}"#,
        r#"{"jsonrpc":"2.0","id":5,"method":"tools/destroy"}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/unknown"}"#,
        r#"{"jsonrpc":"2.0","id":6,"result":{}}"#,
        "",
        "   ",
        r#"{"jsonrpc":"2.0","id":7,"method":"ping"}"#,
    ]
    .join("\n");
    let assert = script(&sb, Some("alice"), &input).success();
    let got: Vec<(Value, i64)> = replies(&assert)
        .iter()
        .skip(1)
        .map(|r| {
            (
                r["id"].clone(),
                r["error"]["code"].as_i64().unwrap_or_default(),
            )
        })
        .collect();
    assert_eq!(
        got,
        vec![
            (Value::Null, -32700),
            (Value::Null, -32600),
            (Value::Null, -32600),
            (Value::Null, -32600),
            (json!(2), -32600),
            (Value::Null, -32600),
            (json!(3), -32600),
            (json!(4), -32602),
            (json!(5), -32601),
            // The unknown notification, the client's response and the blank lines get
            // nothing; the last ping is answered.
            (json!(7), 0),
        ]
    );
    let all = replies(&assert);
    assert!(
        all[2]["error"]["message"]
            .as_str()
            .unwrap()
            .contains("batches are not supported"),
        "{}",
        all[2]
    );
    assert_eq!(
        all[9]["error"]["message"],
        "method not found: tools/destroy"
    );
}

#[test]
fn lines_that_are_not_utf8_or_too_long_are_parse_errors() {
    let sb = Sandbox::new();
    let mut input = Vec::new();
    input.extend_from_slice(INITIALIZE.as_bytes());
    input.extend_from_slice(b"\n\xff\xfe{}\n");
    input.extend_from_slice(&vec![b'x'; 4 * 1024 * 1024 + 1]);
    input.extend_from_slice(b"\n{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"ping\"}\r\n");
    let assert = assert_cmd::Command::from_std(command(&sb, None))
        .write_stdin(input)
        .assert()
        .success();
    let r = replies(&assert);
    assert_eq!(r.len(), 4);
    assert_eq!(
        (error_code(&r[1]), &r[1]["id"]),
        (-32700, &Value::Null),
        "{}",
        r[1]
    );
    assert!(r[1]["error"]["message"].as_str().unwrap().contains("UTF-8"));
    assert_eq!(error_code(&r[2]), -32700);
    assert!(
        r[2]["error"]["message"]
            .as_str()
            .unwrap()
            .contains("longer")
    );
    assert_eq!((&r[3]["id"], &r[3]["result"]), (&json!(9), &json!({})));
}

#[test]
fn a_closed_stdin_is_a_clean_exit() {
    let sb = Sandbox::new();
    // Nothing at all.
    let a = script(&sb, Some("alice"), "").success();
    assert!(a.get_output().stdout.is_empty());
    // Closed in the middle of a line: the partial line is still one message.
    let a = script(
        &sb,
        Some("alice"),
        &format!("{INITIALIZE}\n{{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}}"),
    )
    .success();
    let r = replies(&a);
    assert_eq!(r.len(), 2);
    assert_eq!(r[1]["result"], json!({}));
    // Closed right after a tool call: the session it attached is closed, exit 0.
    let mut s = Server::start(&sb, "alice");
    s.call("acc_status", json!({}));
    let ended = s.close();
    assert_eq!(ended.code, Some(0));
    assert!(ended.stdout_rest.is_empty());
    assert!(ended.stderr.is_empty(), "{}", ended.stderr);
    let status = sb.run(&["status", "--all", "--json"]).json();
    let sessions = status["data"]["sessions"].as_array().unwrap();
    assert_eq!(sessions.len(), 1);
    assert_eq!(sessions[0]["participantId"], "alice");
    assert_eq!(sessions[0]["state"], "closed");
}

#[test]
fn tools_list_publishes_eleven_closed_schemas() {
    let sb = Sandbox::new();
    let mut s = Server::start(&sb, "alice");
    let r = s.request("tools/list", None);
    let tools = r["result"]["tools"].as_array().unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(
        names,
        [
            "acc_status",
            "acc_sync",
            "acc_work",
            "acc_claim",
            "acc_release",
            "acc_message",
            "acc_request",
            "acc_inbox",
            "acc_reply",
            "acc_ack",
            "acc_finish"
        ]
    );
    for t in tools {
        let schema = &t["inputSchema"];
        assert_eq!(schema["type"], "object");
        assert_eq!(schema["additionalProperties"], false, "{}", t["name"]);
        assert!(schema.get("oneOf").is_none(), "{}", t["name"]);
        for req in schema["required"].as_array().unwrap() {
            assert!(schema["properties"].get(req.as_str().unwrap()).is_some());
        }
    }
    assert!(r["result"].get("nextCursor").is_none());
    let paged = s.request("tools/list", Some(json!({"cursor": "2"})));
    assert_eq!(error_code(&paged), -32602);
    insta::assert_json_snapshot!("tools_list", r["result"]);
}

#[test]
fn resources_list_and_unknown_resources() {
    let sb = Sandbox::new();
    let mut s = Server::start(&sb, "alice");
    let r = s.request("resources/list", Some(json!({})));
    insta::assert_json_snapshot!("resources_list", r["result"]);
    let templates = s.request("resources/templates/list", None);
    assert_eq!(templates["result"], json!({"resourceTemplates": []}));
    let missing = s.request("resources/read", Some(json!({"uri": "acc://elsewhere"})));
    assert_eq!(error_code(&missing), -32002);
    assert_eq!(missing["error"]["data"], json!({"uri": "acc://elsewhere"}));
    for bad in [json!({}), json!({"uri": 7})] {
        assert_eq!(error_code(&s.request("resources/read", Some(bad))), -32602);
    }
    for method in ["prompts/list", "logging/setLevel", "server/discover"] {
        assert_eq!(error_code(&s.request(method, None)), -32601, "{method}");
    }
}

#[test]
fn help_version_and_stray_arguments() {
    let sb = Sandbox::new();
    let mut help = command(&sb, None);
    help.arg("--help");
    let out = help.output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("ACC_MCP_PARTICIPANT") && text.contains("ACC_MCP_WORKSPACE"));
    let mut version = command(&sb, None);
    version.arg("--version");
    let out = version.output().unwrap();
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        format!("acc-mcp {}\n", env!("CARGO_PKG_VERSION"))
    );
    let mut stray = command(&sb, None);
    stray.arg("--port");
    let out = stray.output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    assert!(
        String::from_utf8(out.stderr)
            .unwrap()
            .contains("takes no arguments")
    );
}
