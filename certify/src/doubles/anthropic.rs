//! The Anthropic Messages double, for Claude Code (`ANTHROPIC_BASE_URL`).
//!
//! Claude Code 2.1.332 calls only `POST /v1/messages?beta=true` with `"stream": true`; the other
//! routes are answered so that a probe from another version shows up in the log instead of
//! failing the run.

use serde_json::{Value, json};

use super::analysis::{TextSink, ToolResult, array_field, str_field, text_of_content};
use super::exchange::{DoubleRequest, Reply};
use super::request_view::request_view;
use super::script::{RequestView, Script, Step, Turn};
use super::sse;

const WRITE_TOOL: &str = "Write";
const SHELL_TOOL: &str = "Bash";
const READ_TOOL: &str = "Read";
/// Claude Code's and Kimi Code's subagent tool.
const SUBAGENT_TOOL: &str = "Agent";

/// Answers one request.
pub fn respond(request: &DoubleRequest, script: &Script) -> Reply {
    let path = request.path.trim_end_matches('/');
    if request.is_read_only() {
        return Reply::json(200, &json!({}), "probe");
    }
    if request.method != "POST" {
        return not_found(path);
    }
    if path.ends_with("/v1/messages/count_tokens") {
        let tokens = estimate_tokens(&request.body);
        return Reply::json(200, &json!({"input_tokens": tokens}), "count_tokens");
    }
    if path.ends_with("/v1/messages") {
        return messages(&request.body, script);
    }
    not_found(path)
}

fn not_found(path: &str) -> Reply {
    Reply::json(
        404,
        &json!({"type": "error", "error": {"type": "not_found_error", "message": format!("model double: no route {path}")}}),
        "not_found",
    )
}

fn estimate_tokens(body: &Value) -> usize {
    (body.to_string().len() / 4).max(1)
}

/// One planned assistant message.
struct Planned {
    blocks: Vec<Value>,
    stop_reason: &'static str,
    answered: String,
}

fn plan(body: &Value, script: &Script) -> Planned {
    let offered: Vec<&str> = array_field(body, "tools")
        .iter()
        .map(|tool| str_field(tool, "name"))
        .collect();
    let text = |text: &str, answered: String| Planned {
        blocks: vec![json!({"type": "text", "text": text})],
        stop_reason: "end_turn",
        answered,
    };
    let tool_use = |index: usize, name: &str, input: Value| Planned {
        blocks: vec![json!({
            "type": "tool_use",
            "id": format!("toolu_acc_step{index}"),
            "name": name,
            "input": input,
        })],
        stop_reason: "tool_use",
        answered: format!("tool_use:{name} step={index}"),
    };
    let (results, visible) = request_view(body, script, tool_results, model_visible_text);
    let view = RequestView {
        tool_results: &results,
        visible_text: &visible,
    };
    match script.turn_for(&view) {
        Turn::Final(final_text) => text(final_text, "final_text".to_owned()),
        Turn::Step { index, step } => match &step {
            Step::Text(reply) => text(reply, format!("text step={index}")),
            Step::WriteFile { path, content } if offered.contains(&WRITE_TOOL) => {
                let mut input = serde_json::Map::new();
                input.insert(
                    write_path_key(body).to_owned(),
                    json!(path.to_string_lossy()),
                );
                input.insert("content".to_owned(), json!(content));
                tool_use(index, WRITE_TOOL, Value::Object(input))
            }
            Step::Shell { command } if offered.contains(&SHELL_TOOL) => {
                tool_use(index, SHELL_TOOL, json!({"command": command}))
            }
            Step::ReadFile { path } if offered.contains(&READ_TOOL) => {
                let mut input = serde_json::Map::new();
                input.insert(
                    path_key(body, READ_TOOL).to_owned(),
                    json!(path.to_string_lossy()),
                );
                tool_use(index, READ_TOOL, Value::Object(input))
            }
            // In the foreground, so that the tool's result is the subagent's answer; no
            // `subagent_type`, so each client starts its default (general-purpose, coder).
            Step::Subagent { task } if offered.contains(&SUBAGENT_TOOL) => tool_use(
                index,
                SUBAGENT_TOOL,
                json!({"description": "acc-certify child task", "prompt": task, "run_in_background": false}),
            ),
            // A request without the needed tool is a side call (title, summary, ...), not
            // the agent loop: a short text keeps it from derailing the run.
            Step::WriteFile { .. }
            | Step::Shell { .. }
            | Step::ReadFile { .. }
            | Step::Subagent { .. }
            | Step::Call { .. } => text("ok", format!("side_call_text step={index}")),
        },
    }
}

/// The path argument of the offered `Write` tool: Claude Code's is `file_path`; Kimi Code,
/// which speaks the same protocol, names it `path`.
fn write_path_key(body: &Value) -> &'static str {
    path_key(body, WRITE_TOOL)
}

/// The path argument of the offered tool `name` (`Write` and `Read` name it alike).
fn path_key(body: &Value, name: &str) -> &'static str {
    let properties = array_field(body, "tools")
        .iter()
        .find(|tool| str_field(tool, "name") == name)
        .and_then(|tool| tool["input_schema"]["properties"].as_object());
    match properties {
        Some(properties)
            if properties.contains_key("path") && !properties.contains_key("file_path") =>
        {
            "path"
        }
        _ => "file_path",
    }
}

fn messages(body: &Value, script: &Script) -> Reply {
    if !body.get("messages").is_some_and(Value::is_array) {
        return Reply::json(
            400,
            &json!({"type": "error", "error": {"type": "invalid_request_error", "message": "model double: messages: field required"}}),
            "invalid_request",
        );
    }
    let planned = plan(body, script);
    let model = body
        .get("model")
        .and_then(Value::as_str)
        .unwrap_or("claude-double");
    let id = format!("msg_acc_{}", tool_results(body).len());
    if body.get("stream").and_then(Value::as_bool) == Some(true) {
        Reply::event_stream(event_stream(&id, model, &planned), planned.answered)
    } else {
        let message = json!({
            "id": id, "type": "message", "role": "assistant", "model": model,
            "content": planned.blocks, "stop_reason": planned.stop_reason,
            "stop_sequence": null, "usage": usage(20),
        });
        Reply::json(200, &message, planned.answered)
    }
}

fn usage(output_tokens: u64) -> Value {
    json!({"input_tokens": 12, "output_tokens": output_tokens, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0})
}

/// The event sequence Claude Code accepts: message_start, per block start/ping/deltas/stop,
/// message_delta, message_stop.
fn event_stream(id: &str, model: &str, planned: &Planned) -> String {
    let mut out = String::new();
    sse::push_named(
        &mut out,
        "message_start",
        &json!({"type": "message_start", "message": {
            "id": id, "type": "message", "role": "assistant", "model": model, "content": [],
            "stop_reason": null, "stop_sequence": null, "usage": usage(1),
        }}),
    );
    for (index, block) in planned.blocks.iter().enumerate() {
        let (start, deltas) = if block["type"] == "tool_use" {
            let input = block["input"].to_string();
            // The real API streams tool input as partial JSON; two halves exercise the
            // client's reassembly the same way.
            let (first, second) = input.split_at(char_boundary_near_half(&input));
            let deltas = [first, second]
                .iter()
                .map(|part| json!({"type": "input_json_delta", "partial_json": part}))
                .collect::<Vec<_>>();
            let start =
                json!({"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}});
            (start, deltas)
        } else {
            let delta = json!({"type": "text_delta", "text": block["text"]});
            (json!({"type": "text", "text": ""}), vec![delta])
        };
        sse::push_named(
            &mut out,
            "content_block_start",
            &json!({"type": "content_block_start", "index": index, "content_block": start}),
        );
        if index == 0 {
            sse::push_named(&mut out, "ping", &json!({"type": "ping"}));
        }
        for delta in deltas {
            sse::push_named(
                &mut out,
                "content_block_delta",
                &json!({"type": "content_block_delta", "index": index, "delta": delta}),
            );
        }
        sse::push_named(
            &mut out,
            "content_block_stop",
            &json!({"type": "content_block_stop", "index": index}),
        );
    }
    sse::push_named(
        &mut out,
        "message_delta",
        &json!({"type": "message_delta", "delta": {"stop_reason": planned.stop_reason, "stop_sequence": null}, "usage": {"output_tokens": 20}}),
    );
    sse::push_named(&mut out, "message_stop", &json!({"type": "message_stop"}));
    out
}

fn char_boundary_near_half(text: &str) -> usize {
    let mut cut = text.len() / 2;
    while !text.is_char_boundary(cut) {
        cut += 1;
    }
    cut
}

/// Every `tool_result` block in the request, in order.
///
/// `is_error` is the block's own flag (Claude Code sets it on a hook deny,
/// `PreToolUse:Write hook error: <reason>`, and on a refused permission), or the
/// `<system>ERROR:` prefix Kimi Code writes into the text instead of setting the flag.
pub fn tool_results(body: &Value) -> Vec<ToolResult> {
    array_field(body, "messages")
        .iter()
        .flat_map(|message| array_field(message, "content"))
        .filter(|block| block["type"] == "tool_result")
        .map(|block| {
            let text = text_of_content(&block["content"]);
            ToolResult {
                call_id: str_field(block, "tool_use_id").to_owned(),
                is_error: block["is_error"].as_bool().unwrap_or(false)
                    || text.starts_with("<system>ERROR:"),
                text,
            }
        })
        .collect()
}

/// The system prompt and every message of every role (including the `system` role message
/// where Claude Code puts hook context), with tool inputs and results; tool definitions are
/// left out.
pub fn model_visible_text(body: &Value) -> String {
    let mut sink = TextSink::default();
    sink.push(&text_of_content(&body["system"]));
    for message in array_field(body, "messages") {
        match &message["content"] {
            Value::String(text) => sink.push(text),
            Value::Array(blocks) => {
                for block in blocks {
                    match block["type"].as_str() {
                        Some("text") => sink.push(str_field(block, "text")),
                        Some("tool_result") => sink.push(&text_of_content(&block["content"])),
                        Some("tool_use") => sink.push_value(&block["input"]),
                        _ => {}
                    }
                }
            }
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

    fn write_script() -> Script {
        Script::write_file(Path::new("/ws/hello.txt"), "hi\n").unwrap()
    }

    fn request(messages: Value, tools: &[&str]) -> DoubleRequest {
        let tools: Vec<Value> = tools.iter().map(|name| json!({"name": name})).collect();
        DoubleRequest::post(
            "/v1/messages?beta=true",
            json!({"model": "claude-opus-5-5", "messages": messages, "tools": tools, "stream": true}),
        )
    }

    #[test]
    fn non_messages_routes_answer_like_the_api() {
        let script = write_script();
        let probe = respond(&DoubleRequest::get("/v1/models"), &script);
        assert_eq!((probe.status, probe.text().as_str()), (200, "{}"));
        let count = respond(
            &DoubleRequest::post("/v1/messages/count_tokens", json!({"messages": []})),
            &script,
        );
        assert_eq!(count.answered, "count_tokens");
        assert!(count.text().contains("input_tokens"));
        let missing = respond(&DoubleRequest::post("/v1/other", json!({})), &script);
        assert_eq!(missing.status, 404);
        let error: Value = serde_json::from_slice(&missing.body).unwrap();
        assert_eq!(error["type"], "error");
        assert_eq!(error["error"]["type"], "not_found_error");
    }

    #[test]
    fn a_shell_step_uses_bash_when_offered() {
        let script = Script::new(vec![Step::shell("echo x > src/y")], "done").unwrap();
        let reply = respond(
            &request(json!([{"role": "user", "content": "go"}]), &["Bash"]),
            &script,
        );
        assert_eq!(reply.answered, "tool_use:Bash step=0");
        let events = sse::parse(&reply.text());
        let input: String = events
            .iter()
            .filter_map(|event| event.data["delta"]["partial_json"].as_str())
            .collect();
        assert_eq!(
            serde_json::from_str::<Value>(&input).unwrap(),
            json!({"command": "echo x > src/y"})
        );
    }

    #[test]
    fn a_step_whose_tool_is_not_offered_is_a_side_call() {
        let reply = respond(
            &request(json!([{"role": "user", "content": "title?"}]), &[]),
            &write_script(),
        );
        assert_eq!(reply.answered, "side_call_text step=0");
    }

    #[test]
    fn non_streaming_requests_get_a_message_object() {
        let mut req = request(json!([{"role": "user", "content": "go"}]), &["Write"]);
        req.body["stream"] = json!(false);
        let reply = respond(&req, &write_script());
        let message: Value = serde_json::from_slice(&reply.body).unwrap();
        assert_eq!(message["stop_reason"], "tool_use");
        assert_eq!(
            message["content"][0]["input"],
            json!({"file_path": "/ws/hello.txt", "content": "hi\n"})
        );
    }

    #[test]
    fn the_write_path_argument_follows_the_offered_schema() {
        let mut req = request(json!([{"role": "user", "content": "go"}]), &[]);
        req.body["stream"] = json!(false);
        req.body["tools"] =
            json!([{"name": "Write", "input_schema": {"properties": {"path": {}, "content": {}}}}]);
        let reply = respond(&req, &write_script());
        let message: Value = serde_json::from_slice(&reply.body).unwrap();
        assert_eq!(
            message["content"][0]["input"],
            json!({"path": "/ws/hello.txt", "content": "hi\n"})
        );
    }

    #[test]
    fn an_error_written_into_the_text_counts_as_an_error() {
        let body = json!({"messages": [{"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "a", "content": [{"type": "text", "text": "<system>ERROR: Tool execution failed.</system>\nclaimed"}]},
            {"type": "tool_result", "tool_use_id": "b", "content": "fine"}
        ]}]});
        let results = tool_results(&body);
        assert_eq!(
            results
                .iter()
                .map(|result| (result.call_id.as_str(), result.is_error))
                .collect::<Vec<_>>(),
            [("a", true), ("b", false)]
        );
    }

    #[test]
    fn a_body_without_messages_is_a_bad_request() {
        let reply = respond(
            &DoubleRequest::post("/v1/messages", json!({"model": "x"})),
            &write_script(),
        );
        assert_eq!(
            (reply.status, reply.answered.as_str()),
            (400, "invalid_request")
        );
    }

    #[test]
    fn tool_inputs_with_multibyte_text_split_cleanly() {
        let script = Script::write_file(Path::new("/ws/ü.txt"), "ééééé").unwrap();
        let reply = respond(
            &request(json!([{"role": "user", "content": "go"}]), &["Write"]),
            &script,
        );
        let input: String = sse::parse(&reply.text())
            .iter()
            .filter_map(|event| event.data["delta"]["partial_json"].as_str())
            .collect();
        assert_eq!(
            serde_json::from_str::<Value>(&input).unwrap()["content"],
            "ééééé"
        );
    }
}
