//! The OpenAI Responses double, for Codex (`[model_providers.<id>] base_url`, `wire_api =
//! "responses"`).
//!
//! Codex 0.171.0 calls only `POST {base_url}/responses`, streaming; it takes each output item
//! from `response.output_item.done`.

use serde_json::{Value, json};

use super::analysis::{TextSink, ToolResult, array_field, str_field, text_of_content};
use super::exchange::{DoubleRequest, Reply};
use super::multi_agent;
use super::request_view::request_view;
use super::script::{RequestView, Script, Step, Turn};
use super::{shell, sse};

const PATCH_TOOL: &str = "apply_patch";
const SHELL_TOOL: &str = "exec_command";
const OUTPUT_ITEM_TYPES: [&str; 3] = [
    "function_call_output",
    "custom_tool_call_output",
    "local_shell_call_output",
];

/// Answers one request.
pub fn respond(request: &DoubleRequest, script: &Script) -> Reply {
    let path = request.path.trim_end_matches('/');
    if request.is_read_only() && path.ends_with("/models") {
        return Reply::json(
            200,
            &json!({"object": "list", "data": [], "models": []}),
            "models",
        );
    }
    if request.method == "POST" && path.ends_with("/responses") {
        return responses(&request.body, script);
    }
    Reply::json(
        404,
        &json!({"error": {"message": format!("model double: no route {path}"), "type": "invalid_request_error"}}),
        "not_found",
    )
}

/// The `apply_patch` body that adds one file.
pub fn add_file_patch(path: &str, content: &str) -> String {
    let mut patch = format!("*** Begin Patch\n*** Add File: {path}\n");
    for line in content.lines() {
        patch.push('+');
        patch.push_str(line);
        patch.push('\n');
    }
    patch.push_str("*** End Patch\n");
    patch
}

/// How the request offers a tool: `function`, `custom` (freeform), or absent.
fn offered_kind<'a>(body: &'a Value, name: &str) -> Option<&'a str> {
    array_field(body, "tools")
        .iter()
        .find(|tool| str_field(tool, "name") == name)
        .map(|tool| {
            tool.get("type")
                .and_then(Value::as_str)
                .unwrap_or("function")
        })
}

fn plan(body: &Value, script: &Script) -> (Value, String) {
    let seen = tool_results(body).len();
    let message = |text: &str| {
        json!({
            "type": "message", "id": format!("msg_acc_{seen}"), "status": "completed",
            "role": "assistant",
            "content": [{"type": "output_text", "text": text, "annotations": []}],
        })
    };
    let function_call = |index: usize, name: &str, arguments: Value| {
        json!({
            "type": "function_call", "id": format!("fc_acc_step{index}"), "status": "completed",
            "call_id": format!("call_acc_step{index}"), "name": name,
            "arguments": arguments.to_string(),
        })
    };
    let history_len = array_field(body, "input").len();
    if let Some(wait) = multi_agent::pending_wait(body) {
        return wait.item(history_len, seen);
    }
    let shell_offered = offered_kind(body, SHELL_TOOL).is_some();
    let (results, visible) = request_view(body, script, tool_results, model_visible_text);
    let view = RequestView {
        tool_results: &results,
        visible_text: &visible,
    };
    match script.turn_for(&view) {
        Turn::Final(text) => (message(text), "final_text".to_owned()),
        Turn::Step { index, step } => match &step {
            Step::Text(text) => (message(text), format!("text step={index}")),
            Step::WriteFile { path, content }
                if offered_kind(body, PATCH_TOOL) == Some("custom") =>
            {
                (
                    json!({
                        "type": "custom_tool_call", "id": format!("ctc_acc_step{index}"),
                        "status": "completed", "call_id": format!("call_acc_step{index}"),
                        "name": PATCH_TOOL, "input": add_file_patch(&path.to_string_lossy(), content),
                    }),
                    format!("custom_tool_call:{PATCH_TOOL} step={index}"),
                )
            }
            Step::WriteFile { path, content } if shell_offered => (
                function_call(
                    index,
                    SHELL_TOOL,
                    json!({"cmd": shell::write_file_command(path, content)}),
                ),
                format!("function_call:{SHELL_TOOL} step={index}"),
            ),
            Step::Shell { command } if shell_offered => (
                function_call(index, SHELL_TOOL, json!({"cmd": command})),
                format!("function_call:{SHELL_TOOL} step={index}"),
            ),
            Step::Subagent { task } => match multi_agent::next_call(body, task) {
                Some(call) => call.item(history_len, index),
                None => (message("ok"), format!("side_call_text step={index}")),
            },
            // Codex offers no file-reading tool (it reads through its shell, which is
            // `guards.beforeShell`'s): the read step is answered like a side call.
            Step::WriteFile { .. }
            | Step::Shell { .. }
            | Step::ReadFile { .. }
            | Step::Call { .. } => (message("ok"), format!("side_call_text step={index}")),
        },
    }
}

fn responses(body: &Value, script: &Script) -> Reply {
    if !body.is_object() {
        return Reply::json(
            400,
            &json!({"error": {"message": "model double: body must be a JSON object", "type": "invalid_request_error"}}),
            "invalid_request",
        );
    }
    let (item, answered) = plan(body, script);
    let model = body
        .get("model")
        .and_then(Value::as_str)
        .unwrap_or("gpt-double");
    let response = |status: &str, output: Value| {
        json!({
            "id": format!("resp_acc_{}", tool_results(body).len()), "object": "response",
            "created_at": 0, "model": model, "status": status, "output": output,
        })
    };
    let mut completed = response("completed", json!([item.clone()]));
    completed["usage"] = json!({
        "input_tokens": 10, "input_tokens_details": {"cached_tokens": 0},
        "output_tokens": 5, "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 15,
    });
    if body.get("stream").and_then(Value::as_bool) != Some(true) {
        return Reply::json(200, &completed, answered);
    }
    let mut events = vec![
        json!({"type": "response.created", "response": response("in_progress", json!([]))}),
        json!({"type": "response.in_progress", "response": response("in_progress", json!([]))}),
    ];
    let mut added = item.clone();
    if item["type"] == "message" {
        added["status"] = json!("in_progress");
        added["content"] = json!([]);
    }
    events.push(json!({"type": "response.output_item.added", "output_index": 0, "item": added}));
    if item["type"] == "message" {
        events.push(json!({
            "type": "response.output_text.delta", "item_id": item["id"], "output_index": 0,
            "content_index": 0, "delta": item["content"][0]["text"],
        }));
    }
    events.push(json!({"type": "response.output_item.done", "output_index": 0, "item": item}));
    events.push(json!({"type": "response.completed", "response": completed}));
    let mut out = String::new();
    for (sequence, mut event) in events.into_iter().enumerate() {
        event["sequence_number"] = json!(sequence);
        let name = event["type"].as_str().unwrap_or_default().to_owned();
        sse::push_named(&mut out, &name, &event);
    }
    Reply::event_stream(out, answered)
}

/// Every tool output item in `input[]`, in order.
///
/// Codex sends no error flag, so `is_error` is read from the output text: a hook block
/// (`Command blocked by ...`) or a non-zero `Exit code:` / `Process exited with code`.
pub fn tool_results(body: &Value) -> Vec<ToolResult> {
    array_field(body, "input")
        .iter()
        .filter(|item| OUTPUT_ITEM_TYPES.contains(&str_field(item, "type")))
        .map(|item| {
            let text = text_of_content(&item["output"]);
            ToolResult {
                call_id: str_field(item, "call_id").to_owned(),
                is_error: output_reports_failure(&text),
                text,
            }
        })
        .collect()
}

fn output_reports_failure(text: &str) -> bool {
    if text.starts_with("Command blocked by") {
        return true;
    }
    text.lines().any(|line| {
        let code = line
            .strip_prefix("Exit code: ")
            .or_else(|| line.strip_prefix("Process exited with code "));
        code.and_then(|code| code.trim().parse::<i64>().ok())
            .is_some_and(|code| code != 0)
    })
}

/// `instructions` and every `input[]` item: messages of every role (developer messages carry
/// hook context), tool-call arguments and tool outputs; tool definitions are left out.
pub fn model_visible_text(body: &Value) -> String {
    let mut sink = TextSink::default();
    sink.push_value(&body["instructions"]);
    for item in array_field(body, "input") {
        match str_field(item, "type") {
            "function_call" => sink.push_value(&item["arguments"]),
            "custom_tool_call" => sink.push_value(&item["input"]),
            kind if OUTPUT_ITEM_TYPES.contains(&kind) => {
                sink.push(&text_of_content(&item["output"]))
            }
            // Items without a type are messages in the Responses API's short form.
            "message" | "" => sink.push(&text_of_content(&item["content"])),
            _ => {}
        }
    }
    sink.finish()
}

/// What a script may read of `body`; the visible text only when its steps depend on it.
#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn request(input: Value, tools: Value) -> DoubleRequest {
        DoubleRequest::post(
            "/v1/responses",
            json!({"model": "gpt-5.5", "stream": true, "input": input, "tools": tools}),
        )
    }

    fn done_item(reply: &Reply) -> Value {
        sse::parse(&reply.text())
            .into_iter()
            .find(|event| event.name.as_deref() == Some("response.output_item.done"))
            .expect("an output_item.done event")
            .data["item"]
            .clone()
    }

    #[test]
    fn the_patch_adds_every_line() {
        assert_eq!(
            add_file_patch("/ws/a.txt", "one\ntwo\n"),
            "*** Begin Patch\n*** Add File: /ws/a.txt\n+one\n+two\n*** End Patch\n"
        );
        assert_eq!(
            add_file_patch("/ws/e", ""),
            "*** Begin Patch\n*** Add File: /ws/e\n*** End Patch\n"
        );
    }

    #[test]
    fn a_write_falls_back_to_exec_command_without_a_custom_apply_patch() {
        let script = Script::write_file(Path::new("/ws/a.txt"), "hi\n").unwrap();
        let tools = json!([{"type": "function", "name": "apply_patch"}, {"type": "function", "name": "exec_command"}]);
        let reply = respond(&request(json!([]), tools), &script);
        assert_eq!(reply.answered, "function_call:exec_command step=0");
        let item = done_item(&reply);
        let arguments: Value = serde_json::from_str(item["arguments"].as_str().unwrap()).unwrap();
        assert_eq!(arguments["cmd"], "printf '%s' 'hi\n' > '/ws/a.txt'");
    }

    #[test]
    fn without_any_usable_tool_the_double_answers_text() {
        let script = Script::new(vec![Step::shell("ls")], "done").unwrap();
        let reply = respond(&request(json!([]), json!([])), &script);
        assert_eq!(reply.answered, "side_call_text step=0");
        assert_eq!(done_item(&reply)["type"], "message");
    }

    #[test]
    fn a_subagent_step_loads_codexs_deferred_namespace_then_waits_for_the_spawned_agent() {
        let script = Script::new(vec![Step::subagent("task")], "done").unwrap();
        let tools = json!([{"type": "tool_search", "execution": "client"}]);
        let first = respond(&request(json!([]), tools.clone()), &script);
        assert_eq!(first.answered, "tool_search_call:multi_agent_v1 step=0");
        assert_eq!(done_item(&first)["type"], "tool_search_call");
        let namespace = json!({"type": "namespace", "name": "multi_agent_v1", "tools": [
            {"type": "function", "name": "spawn_agent"},
            {"type": "function", "name": "wait_agent", "parameters": {"properties": {"targets": {}}}},
        ]});
        let mut history =
            vec![json!({"type": "tool_search_output", "call_id": "s", "tools": [namespace]})];
        let second = respond(&request(json!(history.clone()), tools.clone()), &script);
        assert_eq!(second.answered, "function_call:spawn_agent step=0");
        history.push(json!({"type": "function_call", "name": "spawn_agent", "call_id": "p", "arguments": "{}"}));
        history.push(json!({"type": "function_call_output", "call_id": "p", "output": "{\"agent_id\":\"a-1\"}"}));
        let third = respond(&request(json!(history.clone()), tools.clone()), &script);
        assert_eq!(third.answered, "function_call:wait_agent step=1");
        history.push(json!({"type": "function_call", "name": "wait_agent", "call_id": "w", "arguments": "{}"}));
        history.push(json!({"type": "function_call_output", "call_id": "w", "output": "{\"status\":{},\"timed_out\":false}"}));
        let last = respond(&request(json!(history), tools), &script);
        assert_eq!(last.answered, "final_text");
    }

    #[test]
    fn sequence_numbers_count_up_from_zero() {
        let script = Script::text_only("hello");
        let reply = respond(&request(json!([]), json!([])), &script);
        let events = sse::parse(&reply.text());
        let names: Vec<&str> = events
            .iter()
            .map(|event| event.name.as_deref().unwrap())
            .collect();
        assert_eq!(
            names,
            [
                "response.created",
                "response.in_progress",
                "response.output_item.added",
                "response.output_text.delta",
                "response.output_item.done",
                "response.completed"
            ]
        );
        for (index, event) in events.iter().enumerate() {
            assert_eq!(event.data["sequence_number"], index);
            assert_eq!(event.data["type"], names[index]);
        }
        assert_eq!(events[3].data["delta"], "hello");
    }

    #[test]
    fn models_and_unknown_routes() {
        let script = Script::text_only("x");
        let models = respond(&DoubleRequest::get("/v1/models"), &script);
        assert_eq!(models.answered, "models");
        assert_eq!(
            serde_json::from_slice::<Value>(&models.body).unwrap()["object"],
            "list"
        );
        assert_eq!(
            respond(
                &DoubleRequest::post("/v1/chat/completions", json!({})),
                &script
            )
            .status,
            404
        );
    }

    #[test]
    fn failures_are_read_from_the_output_text() {
        assert!(output_reports_failure(
            "Command blocked by PreToolUse hook: no. Command: ls"
        ));
        assert!(output_reports_failure(
            "Exit code: 1\nWall time: 0 seconds\nOutput:\n"
        ));
        assert!(output_reports_failure(
            "Chunk ID: a\nProcess exited with code 2\nOutput:\n"
        ));
        assert!(!output_reports_failure(
            "Exit code: 0\nWall time: 0 seconds\nOutput:\nSuccess."
        ));
        assert!(!output_reports_failure("plain output"));
    }

    #[test]
    fn non_streaming_requests_get_the_completed_response() {
        let mut req = request(json!([]), json!([]));
        req.body["stream"] = json!(false);
        let reply = respond(&req, &Script::text_only("fin"));
        let response: Value = serde_json::from_slice(&reply.body).unwrap();
        assert_eq!(response["status"], "completed");
        assert_eq!(response["output"][0]["content"][0]["text"], "fin");
    }
}
