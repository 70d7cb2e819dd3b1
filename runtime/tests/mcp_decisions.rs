//! `acc_message` decision changes through `acc-mcp`: `supersedes` and `withdraws` (closed
//! schema, 1..16 unique ids, not both, decisions only), the decision fields each surface
//! shows, and acc's refusals as tool errors with their exit classes.

mod common;
mod mcp_support;

use common::{Redactor, Sandbox};
use mcp_support::Server;
use serde_json::{Value, json};

fn decide(s: &mut Server, subject: &str, extra: Value) -> Value {
    let mut args = json!({"to": [], "kind": "decision", "subject": subject, "body": "because"});
    for (k, v) in extra.as_object().unwrap() {
        args[k] = v.clone();
    }
    s.call("acc_message", args)
}

fn id(v: &Value) -> String {
    v["message"]["messageId"].as_str().unwrap().to_string()
}

#[test]
fn two_servers_replace_withdraw_and_see_where_decisions_stand() {
    let sb = Sandbox::new();
    let mut alice = Server::start(&sb, "alice");
    let mut bob = Server::start(&sb, "bob");
    // Both attach before the first room decision, so both receive it.
    alice.call("acc_status", json!({}));
    bob.call("acc_status", json!({}));
    let first = decide(&mut alice, "one crate", json!({}));
    let root = id(&first);
    assert_eq!(first["message"]["decisionStatus"]["state"], "current");
    assert!(first["message"].get("decisionChange").is_none());

    let replaced = decide(&mut bob, "two crates", json!({"supersedes": [root]}));
    let second = id(&replaced);
    assert_eq!(
        replaced["message"]["decisionChange"],
        json!({"action": "replace", "messageIds": [root]})
    );
    assert_eq!(replaced["message"]["decisionStatus"]["groupId"], root);

    // Alice's inbox has only the replacement; the superseded one still reads in full.
    let page = alice.call("acc_inbox", json!({}));
    let items = page["items"].as_array().unwrap();
    assert_eq!(items.len(), 1, "{page}");
    assert_eq!(items[0]["messageId"], second);
    assert_eq!(items[0]["decisionStatus"]["currentMessageId"], second);
    let old = bob.call("acc_inbox", json!({"messageId": root}));
    assert_eq!(old["message"]["decisionStatus"]["state"], "superseded");
    assert_eq!(old["message"]["decisionStatus"]["currentMessageId"], second);

    // Alice replaces the original too, unaware: the group reports the conflict.
    let rival = decide(&mut alice, "three crates", json!({"supersedes": [root]}));
    let st = &rival["message"]["decisionStatus"];
    assert_eq!(
        (st["conflicted"].as_bool(), st["headCount"].as_u64()),
        (Some(true), Some(2))
    );
    assert_eq!(st["currentMessageId"], Value::Null);

    // Withdrawing both heads leaves the group with no decision in force.
    let withdrawn = decide(
        &mut bob,
        "no decision yet",
        json!({"withdraws": [second, id(&rival)], "clientMessageId": "w-1"}),
    );
    assert_eq!(withdrawn["message"]["decisionStatus"]["state"], "withdrawn");
    assert_eq!(withdrawn["message"]["decisionStatus"]["headCount"], 1);
    let again = decide(
        &mut bob,
        "no decision yet",
        json!({"withdraws": [second, id(&rival)], "clientMessageId": "w-1"}),
    );
    assert_eq!(again["duplicate"], true);
    assert_eq!(id(&again), id(&withdrawn));
    let snap = alice.call("acc_sync", json!({"scope": "full"}));
    assert_eq!(snap["snapshot"]["decisions"], json!([]), "{snap}");

    let kept = decide(&mut alice, "tabs", json!({}));
    let snap = bob.call("acc_sync", json!({"scope": "full"}));
    let listed: Vec<&str> = snap["snapshot"]["decisions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["messageId"].as_str().unwrap())
        .collect();
    assert_eq!(listed, [id(&kept)]);
    assert_eq!(alice.close().code, Some(0));
    assert_eq!(bob.close().code, Some(0));
}

#[test]
fn decision_refusals_are_tool_errors_with_exit_classes() {
    let sb = Sandbox::new();
    let mut alice = Server::start(&sb, "alice");
    let mut bob = Server::start(&sb, "bob");
    alice.call("acc_status", json!({}));
    bob.call("acc_status", json!({}));
    let note = alice.call(
        "acc_message",
        json!({"to": ["bob"], "subject": "n", "body": "b"}),
    );
    let private = decide(&mut alice, "just us", json!({"to": ["alice"]}));
    let cases = [
        (json!({"supersedes": ["message_missing"]}), 4, "not_found"),
        (json!({"withdraws": [id(&note)]}), 4, "not_found"),
        (json!({"withdraws": [id(&private)]}), 5, "not_addressed"),
        (json!({"supersedes": ["bad id"]}), 2, "invalid_argument"),
        (
            json!({"supersedes": [id(&private)], "obligation": "reply"}),
            2,
            "invalid_argument",
        ),
    ];
    let mut red = Redactor::new(&sb);
    let mut shown = Vec::new();
    for (extra, code, reason) in cases {
        let mut args = json!({"to": [], "kind": "decision", "subject": "s", "body": "b"});
        for (k, v) in extra.as_object().unwrap() {
            args[k] = v.clone();
        }
        let e = bob.call_err("acc_message", args.clone());
        assert_eq!(
            (e["code"].as_i64(), e["reason"].as_str()),
            (Some(code), Some(reason)),
            "{args}: {e}"
        );
        shown.push(json!({"arguments": args, "error": e}));
    }
    insta::assert_snapshot!(
        "decision_refusals",
        red.apply(&serde_json::to_string_pretty(&shown).unwrap())
    );
}

#[test]
fn decision_shapes_are_invalid_params_or_tool_errors_by_protocol_version() {
    let sb = Sandbox::new();
    let mut s = Server::start_with(&sb, "alice", "2025-06-18");
    let mut latest = Server::start(&sb, "alice");
    let seventeen: Vec<String> = (0..17).map(|i| format!("message_{i}")).collect();
    let base = json!({"to": [], "kind": "decision", "subject": "s", "body": "b"});
    let cases = [
        json!({"supersedes": ["message_a"], "withdraws": ["message_b"]}),
        json!({"supersedes": []}),
        json!({"withdraws": seventeen}),
        json!({"supersedes": ["message_a", "message_a"]}),
        json!({"supersedes": "message_a"}),
        json!({"kind": "note", "withdraws": ["message_a"]}),
    ];
    let mut shown = Vec::new();
    for extra in cases {
        let mut args = base.clone();
        for (k, v) in extra.as_object().unwrap() {
            args[k] = v.clone();
        }
        let r = s.call_raw("acc_message", args.clone());
        assert_eq!(r["error"]["code"], -32602, "{args}: {r}");
        let e = latest.call_err("acc_message", args.clone());
        assert_eq!(
            (&e["code"], &e["reason"], &e["message"]),
            (
                &json!(2),
                &json!("invalid_argument"),
                &r["error"]["message"]
            ),
            "{args}: {e}"
        );
        shown.push(json!({"arguments": args, "error": r["error"]["message"]}));
    }
    assert!(sb.store_files().is_empty(), "refused calls attach nothing");
    insta::assert_json_snapshot!("decision_invalid_params", shown);
}
