use super::*;

fn tool_search() -> Value {
    json!({"type": "tool_search", "execution": "client", "parameters": {}})
}

fn namespace() -> Value {
    json!({"type": "namespace", "name": NAMESPACE, "tools": [
        {"type": "function", "name": "spawn_agent", "parameters": {"properties": {"message": {}}}},
        {"type": "function", "name": "wait_agent", "parameters": {"properties": {"targets": {}, "timeout_ms": {}}}},
    ]})
}

fn body(tools: Value, input: Value) -> Value {
    json!({"tools": tools, "input": input})
}

fn searched() -> Vec<Value> {
    vec![
        json!({"type": "tool_search_call", "call_id": "s", "execution": "client", "arguments": {}}),
        json!({"type": "tool_search_output", "call_id": "s", "execution": "client", "tools": [namespace()]}),
    ]
}

fn spawned(agent: &str) -> Vec<Value> {
    let mut items = searched();
    items.push(json!({"type": "function_call", "namespace": NAMESPACE, "name": "spawn_agent", "call_id": "p", "arguments": "{}"}));
    items.push(json!({"type": "function_call_output", "call_id": "p", "output": json!({"agent_id": agent, "nickname": null}).to_string()}));
    items
}

fn waited(mut items: Vec<Value>, call: &str, output: Value) -> Vec<Value> {
    items.push(json!({"type": "function_call", "namespace": NAMESPACE, "name": "wait_agent", "call_id": call, "arguments": "{}"}));
    items.push(
        json!({"type": "function_call_output", "call_id": call, "output": output.to_string()}),
    );
    items
}

#[test]
fn a_deferred_namespace_is_searched_for_then_spawned_from() {
    let first = body(json!([tool_search()]), json!([]));
    assert_eq!(next_call(&first, "task"), Some(Call::Search));
    assert_eq!(pending_wait(&first), None);
    let loaded = body(json!([tool_search()]), json!(searched()));
    assert_eq!(
        next_call(&loaded, "task"),
        Some(Call::Spawn {
            task: "task".into()
        })
    );
}

#[test]
fn without_tool_search_or_the_namespace_no_call_is_made() {
    let plain = body(
        json!([{"type": "function", "name": "exec_command"}]),
        json!([]),
    );
    assert_eq!(next_call(&plain, "task"), None);
    let upfront = body(json!([namespace()]), json!([]));
    assert!(matches!(next_call(&upfront, "t"), Some(Call::Spawn { .. })));
}

#[test]
fn after_the_spawn_the_parent_waits_for_the_agent_it_was_given() {
    let b = body(json!([tool_search()]), json!(spawned("agent-7")));
    assert_eq!(
        pending_wait(&b),
        Some(Call::Wait {
            tool: "wait_agent".into(),
            targets_key: "targets".into(),
            agent_id: "agent-7".into()
        })
    );
    let timed_out = waited(
        spawned("agent-7"),
        "w1",
        json!({"status": {}, "timed_out": true}),
    );
    assert!(pending_wait(&body(json!([]), json!(timed_out))).is_some());
    let done = waited(
        timed_out,
        "w2",
        json!({"status": {"agent-7": {"completed": "bye"}}, "timed_out": false}),
    );
    assert_eq!(pending_wait(&body(json!([]), json!(done))), None);
}

#[test]
fn the_items_name_the_namespace_and_keep_call_ids_apart() {
    let (search, label) = Call::Search.item(3, 0);
    assert_eq!(search["type"], "tool_search_call");
    assert_eq!(search["execution"], "client");
    assert_eq!(search["arguments"]["query"], SEARCH_QUERY);
    assert_eq!(label, "tool_search_call:multi_agent_v1 step=0");
    let (spawn, label) = Call::Spawn {
        task: "do it".into(),
    }
    .item(5, 0);
    assert_eq!(spawn["namespace"], NAMESPACE);
    assert_eq!(spawn["name"], "spawn_agent");
    assert_eq!(label, "function_call:spawn_agent step=0");
    let arguments: Value = serde_json::from_str(spawn["arguments"].as_str().unwrap()).unwrap();
    assert_eq!(arguments["message"], "do it");
    assert_ne!(search["call_id"], spawn["call_id"]);
    let wait = Call::Wait {
        tool: "wait".into(),
        targets_key: "ids".into(),
        agent_id: "a".into(),
    };
    let arguments: Value =
        serde_json::from_str(wait.item(7, 0).0["arguments"].as_str().unwrap()).unwrap();
    assert_eq!(arguments["ids"], json!(["a"]));
}
