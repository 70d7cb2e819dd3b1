//! The OpenAI Chat Completions double, for Grok (`[endpoints] models_base_url`).
//!
//! Grok 0.2.111 lists `GET {base}/models`, runs its agent loop on
//! `POST {base}/chat/completions` (streamed, with `stream_options.include_usage`), and asks for
//! a session title on `POST {base}/responses` with a forced `session_title` function; that
//! side call goes to the Responses double, which answers it with text.

use serde_json::{Value, json};

use super::analysis::{TextSink, ToolResult, array_field, str_field, text_of_content};
use super::exchange::{DoubleRequest, Reply};
use super::request_view::request_view;
use super::script::{RequestView, Script, Step, Turn};
use super::{openai, shell};

/// Tool names a chat client may offer for writing a file, in preference order; each takes
/// `{file_path, content}` but Copilot CLI's `create`, which takes `{path, file_text}`.
const WRITE_TOOLS: [&str; 3] = ["write", "write_file", "create"];
/// Tool names for running a shell command, in preference order; each takes `{command}`
/// (Qwen Code's is `run_shell_command`).
const SHELL_TOOLS: [&str; 3] = ["run_terminal_command", "bash", "run_shell_command"];
/// Tool names for reading a file; Grok's `read_file` takes `{target_file}`, Copilot CLI's
/// `view` `{path}`, others `{file_path}` (see [`read_path_key`]).
const READ_TOOLS: [&str; 3] = ["read_file", "read", "view"];

/// Grok's subagent tool; `background` defaults to true, which would hand back an id
/// instead of the subagent's answer.
const SUBAGENT_TOOL: &str = "spawn_subagent";
/// Qwen Code's subagent tool; `run_in_background` defaults to true, as Grok's does.
const QWEN_SUBAGENT_TOOL: &str = "agent";
/// OpenCode's and Copilot CLI's subagent tool: OpenCode's takes `subagent_type` (its
/// built-in `general`), Copilot CLI's `agent_type` (`general-purpose`), a `name` and a
/// `mode` (`sync` waits for the answer).
const TASK_TOOL: &str = "task";

/// Answers one request.
pub fn respond(request: &DoubleRequest, script: &Script) -> Reply {
    let path = request.path.trim_end_matches('/');
    if request.method == "POST" && path.ends_with("/chat/completions") {
        return completions(&request.body, script);
    }
    // Models listing and the Responses side calls share the base URL.
    openai::respond(request, script)
}

fn offered<'a>(body: &Value, candidates: &[&'a str]) -> Option<&'a str> {
    let names: Vec<&str> = array_field(body, "tools")
        .iter()
        .map(|tool| str_field(&tool["function"], "name"))
        .collect();
    candidates
        .iter()
        .copied()
        .find(|candidate| names.contains(candidate))
}

/// The assistant message to send: either text or one tool call.
enum Planned {
    Text(String),
    Call {
        id: String,
        name: String,
        arguments: Value,
    },
}

fn plan(body: &Value, script: &Script) -> (Planned, String) {
    let call = |index: usize, name: &str, arguments: Value| {
        (
            Planned::Call {
                id: format!("call_acc_step{index}"),
                name: name.to_owned(),
                arguments,
            },
            format!("tool_call:{name} step={index}"),
        )
    };
    let shell_tool = offered(body, &SHELL_TOOLS);
    let (results, visible) = request_view(body, script, tool_results, model_visible_text);
    let view = RequestView {
        tool_results: &results,
        visible_text: &visible,
    };
    match script.turn_for(&view) {
        Turn::Final(text) => (Planned::Text(text.to_owned()), "final_text".to_owned()),
        Turn::Step { index, step } => match &step {
            Step::Text(text) => (Planned::Text(text.clone()), format!("text step={index}")),
            Step::WriteFile { path, content } => match (offered(body, &WRITE_TOOLS), shell_tool) {
                (Some("create"), _) => call(
                    index,
                    "create",
                    json!({"path": path.to_string_lossy(), "file_text": content}),
                ),
                (Some(tool), _) => {
                    let mut arguments = serde_json::Map::new();
                    arguments.insert(
                        path_key(body, tool, "file_path").to_owned(),
                        json!(path.to_string_lossy()),
                    );
                    arguments.insert("content".to_owned(), json!(content));
                    call(index, tool, Value::Object(arguments))
                }
                (None, Some(tool)) => call(
                    index,
                    tool,
                    shell_arguments(&shell::write_file_command(path, content)),
                ),
                (None, None) => side_call(index),
            },
            Step::Shell { command } => match shell_tool {
                Some(tool) => call(index, tool, shell_arguments(command)),
                None => side_call(index),
            },
            Step::ReadFile { path } => match offered(body, &READ_TOOLS) {
                Some(tool) => {
                    let mut arguments = serde_json::Map::new();
                    arguments.insert(
                        read_path_key(body, tool).to_owned(),
                        json!(path.to_string_lossy()),
                    );
                    call(index, tool, Value::Object(arguments))
                }
                None => side_call(index),
            },
            Step::Call { name, arguments } => match offered(body, &[name.as_str()]) {
                Some(_) => call(index, name, arguments.clone()),
                None => side_call(index),
            },
            Step::Subagent { task } => {
                match offered(body, &[SUBAGENT_TOOL, QWEN_SUBAGENT_TOOL, TASK_TOOL]) {
                    Some(SUBAGENT_TOOL) => call(
                        index,
                        SUBAGENT_TOOL,
                        json!({"prompt": task, "description": "acc-certify child task", "subagent_type": "general-purpose", "background": false}),
                    ),
                    Some(TASK_TOOL) => call(index, TASK_TOOL, task_arguments(body, task)),
                    Some(tool) => call(
                        index,
                        tool,
                        json!({"prompt": task, "description": "acc-certify child task", "subagent_type": "general-purpose", "run_in_background": false}),
                    ),
                    None => side_call(index),
                }
            }
        },
    }
}

/// The `task` tool's arguments, in the shape its schema has: Copilot CLI's names an
/// `agent_type`, OpenCode's a `subagent_type`.
fn task_arguments(body: &Value, task: &str) -> Value {
    let properties = array_field(body, "tools")
        .iter()
        .find(|tool| str_field(&tool["function"], "name") == TASK_TOOL)
        .and_then(|tool| tool["function"]["parameters"]["properties"].as_object());
    if properties.is_some_and(|p| p.contains_key("agent_type")) {
        json!({"prompt": task, "description": "acc-certify child task", "agent_type": "general-purpose", "name": "acc-child", "mode": "sync"})
    } else {
        json!({"prompt": task, "description": "acc-certify child task", "subagent_type": "general"})
    }
}

/// The path argument of the offered read tool `name`: `target_file` where its schema has
/// one (Grok), else [`path_key`]'s.
fn read_path_key(body: &Value, name: &str) -> &'static str {
    path_key(body, name, "target_file")
}

/// The path argument of the offered tool `name`: `preferred` where its schema has one,
/// `filePath` where that is its key (OpenCode), `path` where it has no `file_path`
/// (Copilot CLI), else `file_path`.
fn path_key(body: &Value, name: &str, preferred: &'static str) -> &'static str {
    let properties = array_field(body, "tools")
        .iter()
        .find(|tool| str_field(&tool["function"], "name") == name)
        .and_then(|tool| tool["function"]["parameters"]["properties"].as_object());
    let has = |key: &str| properties.is_some_and(|p| p.contains_key(key));
    if has(preferred) {
        preferred
    } else if has("filePath") {
        "filePath"
    } else if has("path") && !has("file_path") {
        "path"
    } else {
        "file_path"
    }
}

fn side_call(index: usize) -> (Planned, String) {
    (
        Planned::Text("ok".to_owned()),
        format!("side_call_text step={index}"),
    )
}

/// Grok's terminal tool requires a `description` next to the command.
fn shell_arguments(command: &str) -> Value {
    json!({"command": command, "description": "Run the scripted command."})
}

fn completions(body: &Value, script: &Script) -> Reply {
    if !body.get("messages").is_some_and(Value::is_array) {
        return Reply::json(
            400,
            &json!({"error": {"message": "model double: messages is required", "type": "invalid_request_error"}}),
            "invalid_request",
        );
    }
    let (planned, answered) = plan(body, script);
    let model = body
        .get("model")
        .and_then(Value::as_str)
        .unwrap_or("chat-double");
    let id = format!("chatcmpl-acc-{}", tool_results(body).len());
    let (message, finish_reason) = match &planned {
        Planned::Text(text) => (json!({"role": "assistant", "content": text}), "stop"),
        Planned::Call {
            id,
            name,
            arguments,
        } => (
            json!({"role": "assistant", "content": null, "tool_calls": [{
                "id": id, "type": "function",
                "function": {"name": name, "arguments": arguments.to_string()},
            }]}),
            "tool_calls",
        ),
    };
    let usage = json!({"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15});
    if body.get("stream").and_then(Value::as_bool) != Some(true) {
        let completion = json!({
            "id": id, "object": "chat.completion", "created": 0, "model": model,
            "choices": [{"index": 0, "message": message, "finish_reason": finish_reason}],
            "usage": usage,
        });
        return Reply::json(200, &completion, answered);
    }
    let chunk = |choices: Value| json!({"id": id, "object": "chat.completion.chunk", "created": 0, "model": model, "choices": choices});
    let mut delta = message.clone();
    if let Some(calls) = delta.get_mut("tool_calls").and_then(Value::as_array_mut) {
        for (index, call) in calls.iter_mut().enumerate() {
            call["index"] = json!(index);
        }
    }
    let mut chunks = vec![
        chunk(json!([{"index": 0, "delta": delta, "finish_reason": null}])),
        chunk(json!([{"index": 0, "delta": {}, "finish_reason": finish_reason}])),
    ];
    if body["stream_options"]["include_usage"].as_bool() == Some(true) {
        let mut last = chunk(json!([]));
        last["usage"] = usage;
        chunks.push(last);
    }
    let mut out = String::new();
    for chunk in chunks {
        out.push_str("data: ");
        out.push_str(&chunk.to_string());
        out.push_str("\n\n");
    }
    out.push_str("data: [DONE]\n\n");
    Reply::event_stream(out, answered)
}

/// Every `role: "tool"` message, in order. Chat Completions has no error flag; `is_error` is
/// read from the text (a hook deny or a non-zero exit).
pub fn tool_results(body: &Value) -> Vec<ToolResult> {
    array_field(body, "messages")
        .iter()
        .filter(|message| str_field(message, "role") == "tool")
        .map(|message| {
            let text = text_of_content(&message["content"]);
            ToolResult {
                call_id: str_field(message, "tool_call_id").to_owned(),
                is_error: reports_failure(&text),
                text,
            }
        })
        .collect()
}

fn reports_failure(text: &str) -> bool {
    let lower = text.to_ascii_lowercase();
    ["denied by", "blocked by", "hook denied"]
        .iter()
        .any(|needle| lower.contains(needle))
        || text.lines().any(|line| {
            line.trim()
                .strip_prefix("Exit code: ")
                .and_then(|code| code.trim().parse::<i64>().ok())
                .is_some_and(|code| code != 0)
        })
}

/// Every message of every role, with tool-call arguments and tool results.
pub fn model_visible_text(body: &Value) -> String {
    let mut sink = TextSink::default();
    for message in array_field(body, "messages") {
        sink.push(&text_of_content(&message["content"]));
        for call in array_field(message, "tool_calls") {
            sink.push_value(&call["function"]["arguments"]);
        }
    }
    sink.finish()
}

/// What a script may read of `body`; the visible text only when its steps depend on it.
#[cfg(test)]
mod tests {
    use super::*;
    use crate::doubles::sse;
    use std::path::Path;

    fn request(messages: Value, tools: &[&str]) -> DoubleRequest {
        let tools: Vec<Value> = tools
            .iter()
            .map(|name| json!({"type": "function", "function": {"name": name}}))
            .collect();
        DoubleRequest::post(
            "/v1/chat/completions",
            json!({"model": "grok-4.5", "messages": messages, "tools": tools, "stream": true, "stream_options": {"include_usage": true}}),
        )
    }

    #[test]
    fn a_write_step_becomes_one_streamed_tool_call() {
        let script = Script::write_file(Path::new("/ws/a"), "hi\n").unwrap();
        let reply = respond(
            &request(
                json!([{"role": "user", "content": "go"}]),
                &["run_terminal_command", "write"],
            ),
            &script,
        );
        assert_eq!(reply.answered, "tool_call:write step=0");
        let text = reply.text();
        assert!(text.ends_with("data: [DONE]\n\n"));
        let events = sse::parse(&text);
        let call = &events[0].data["choices"][0]["delta"]["tool_calls"][0];
        assert_eq!(call["index"], 0);
        assert_eq!(call["function"]["name"], "write");
        let arguments: Value =
            serde_json::from_str(call["function"]["arguments"].as_str().unwrap()).unwrap();
        assert_eq!(arguments, json!({"file_path": "/ws/a", "content": "hi\n"}));
        assert_eq!(events[1].data["choices"][0]["finish_reason"], "tool_calls");
        assert_eq!(events[2].data["usage"]["total_tokens"], 15);
    }

    /// OpenCode and Copilot CLI both name their subagent tool `task`; each gets the
    /// arguments its schema takes, and a synchronous run.
    #[test]
    fn the_task_tool_is_asked_for_in_each_client_s_shape() {
        let delegation = crate::doubles::Delegation {
            task: "marker-7: do it".into(),
            marker: "marker-7".into(),
            child_steps: Vec::new(),
            child_final: "child done".into(),
        };
        let script = Script::delegated(delegation, "Done.");
        let ask = |properties: Value| -> Value {
            let body = json!({"model": "m", "messages": [{"role": "user", "content": "go"}],
                "tools": [{"type": "function", "function": {"name": "bash"}},
                          {"type": "function", "function": {"name": "task", "parameters": {"properties": properties}}}],
                "stream": false});
            let reply = respond(&DoubleRequest::post("/v1/chat/completions", body), &script);
            assert_eq!(reply.answered, "tool_call:task step=0");
            let body: Value = serde_json::from_slice(&reply.body).unwrap();
            let call = &body["choices"][0]["message"]["tool_calls"][0]["function"];
            serde_json::from_str(call["arguments"].as_str().unwrap()).unwrap()
        };
        let opencode = ask(json!({"prompt": {}, "description": {}, "subagent_type": {}}));
        assert_eq!(opencode["subagent_type"], "general");
        assert_eq!(opencode["prompt"], "marker-7: do it");
        let copilot =
            ask(json!({"prompt": {}, "description": {}, "agent_type": {}, "name": {}, "mode": {}}));
        assert_eq!(copilot["agent_type"], "general-purpose");
        assert_eq!(copilot["mode"], "sync");
        assert_eq!(copilot["prompt"], "marker-7: do it");
        assert!(copilot.get("subagent_type").is_none());
    }

    /// Copilot CLI offers `create` (`{path, file_text}`) and `view` (`{path}`) and no
    /// `write`; its `bash` is the shell.
    #[test]
    fn copilot_s_create_and_view_take_their_own_keys() {
        let tools = |names: &[&str]| -> Vec<Value> {
            names
                .iter()
                .map(|n| json!({"type": "function", "function": {"name": n, "parameters": {"properties": {"path": {}}}}}))
                .collect()
        };
        let body = |names: &[&str]| json!({"model": "gpt-4.1", "messages": [{"role": "user", "content": "go"}], "tools": tools(names), "stream": false});
        let arguments = |reply: Reply| -> Value {
            let body: Value = serde_json::from_slice(&reply.body).unwrap();
            let call = &body["choices"][0]["message"]["tool_calls"][0]["function"];
            serde_json::from_str(call["arguments"].as_str().unwrap()).unwrap()
        };
        let write = Script::write_file(Path::new("/ws/a"), "hi\n").unwrap();
        let req = DoubleRequest::post("/v1/chat/completions", body(&["bash", "view", "create"]));
        let reply = respond(&req, &write);
        assert_eq!(reply.answered, "tool_call:create step=0");
        assert_eq!(
            arguments(reply),
            json!({"path": "/ws/a", "file_text": "hi\n"})
        );
        let read = Script::new(
            vec![Step::ReadFile {
                path: "/ws/a".into(),
            }],
            "bye",
        )
        .unwrap();
        let reply = respond(&req, &read);
        assert_eq!(reply.answered, "tool_call:view step=0");
        assert_eq!(arguments(reply), json!({"path": "/ws/a"}));
    }

    #[test]
    fn tool_messages_advance_the_script_and_are_reported() {
        let script = Script::new(vec![Step::shell("echo x > src/y")], "bye").unwrap();
        let messages = json!([
            {"role": "user", "content": "go"},
            {"role": "assistant", "content": null, "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "run_terminal_command", "arguments": "{\"command\":\"ls\"}"}}]},
            {"role": "tool", "tool_call_id": "c1", "content": "Denied by hook: claimed"}
        ]);
        let req = request(messages, &["run_terminal_command"]);
        assert_eq!(
            tool_results(&req.body),
            vec![ToolResult {
                call_id: "c1".into(),
                text: "Denied by hook: claimed".into(),
                is_error: true
            }]
        );
        assert_eq!(respond(&req, &script).answered, "final_text");
        let visible = model_visible_text(&req.body);
        assert!(visible.contains("{\"command\":\"ls\"}"));
        assert!(visible.contains("Denied by hook"));
    }

    #[test]
    fn shell_steps_carry_the_required_description() {
        let script = Script::new(vec![Step::shell("echo x > src/y")], "bye").unwrap();
        let mut req = request(
            json!([{"role": "user", "content": "go"}]),
            &["run_terminal_command"],
        );
        req.body["stream"] = json!(false);
        let reply = respond(&req, &script);
        let body: Value = serde_json::from_slice(&reply.body).unwrap();
        let call = &body["choices"][0]["message"]["tool_calls"][0]["function"];
        let arguments: Value = serde_json::from_str(call["arguments"].as_str().unwrap()).unwrap();
        assert_eq!(arguments["command"], "echo x > src/y");
        assert!(arguments["description"].is_string());
    }

    #[test]
    fn models_and_responses_side_calls_share_the_base_url() {
        let script = Script::text_only("x");
        assert_eq!(
            respond(&DoubleRequest::get("/v1/models"), &script).answered,
            "models"
        );
        let title = DoubleRequest::post(
            "/v1/responses",
            json!({"input": [], "tools": [{"type": "function", "name": "session_title"}], "stream": true}),
        );
        assert_eq!(respond(&title, &script).answered, "final_text");
    }
}
