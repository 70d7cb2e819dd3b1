//! The Gemini v1beta double, for Gemini CLI (`GOOGLE_GEMINI_BASE_URL`).
//!
//! With `model.name` pinned, Gemini CLI 0.61.0 calls only
//! `POST /v1beta/models/{model}:streamGenerateContent?alt=sse`. Structured side calls (model
//! routing, next-speaker checks) ask for JSON with a response schema; they get an object built
//! from that schema so they never consume a script step.

use serde_json::{Map, Value, json};

use super::analysis::{TextSink, ToolResult, array_field, str_field, text_of_content};
use super::exchange::{DoubleRequest, Reply};
use super::request_view::request_view;
use super::script::{RequestView, Script, Step, Turn};
use super::sse;

const WRITE_TOOL: &str = "write_file";
const SHELL_TOOL: &str = "run_shell_command";
const READ_TOOL: &str = "read_file";
/// Gemini CLI runs its subagents as this tool (no hook marks their start or end).
const SUBAGENT_TOOL: &str = "invoke_agent";

/// Answers one request.
pub fn respond(request: &DoubleRequest, script: &Script) -> Reply {
    let path = request.path.trim_end_matches('/');
    if request.is_read_only() {
        return models(path);
    }
    let Some((model, method)) = model_method(path).filter(|_| request.method == "POST") else {
        return not_found(path);
    };
    match method {
        "countTokens" => {
            let tokens = (request.body.to_string().len() / 4).max(1);
            Reply::json(200, &json!({"totalTokens": tokens}), "countTokens")
        }
        "generateContent" => {
            let (response, answered) = generate(&request.body, model, script);
            Reply::json(200, &response, answered)
        }
        "streamGenerateContent" => {
            let (response, answered) = generate(&request.body, model, script);
            let mut out = String::new();
            sse::push_data_crlf(&mut out, &response);
            Reply::event_stream(out, answered)
        }
        _ => not_found(path),
    }
}

fn not_found(path: &str) -> Reply {
    Reply::json(
        404,
        &json!({"error": {"code": 404, "message": format!("model double: no route {path}"), "status": "NOT_FOUND"}}),
        "not_found",
    )
}

/// `.../models/{model}:{method}` split into its two names.
fn model_method(path: &str) -> Option<(&str, &str)> {
    let (_, last) = path.rsplit_once("/models/")?;
    let (model, method) = last.split_once(':')?;
    (!model.is_empty() && !model.contains('/')).then_some((model, method))
}

fn models(path: &str) -> Reply {
    if path.ends_with("/models") {
        return Reply::json(200, &json!({"models": []}), "models");
    }
    match path.rsplit_once("/models/") {
        Some((_, model)) if !model.is_empty() && !model.contains('/') => Reply::json(
            200,
            &json!({"name": format!("models/{model}"), "inputTokenLimit": 1_048_576, "outputTokenLimit": 65_536}),
            "model",
        ),
        _ => not_found(path),
    }
}

fn offers(body: &Value, name: &str) -> bool {
    array_field(body, "tools")
        .iter()
        .flat_map(|tool| array_field(tool, "functionDeclarations"))
        .any(|declaration| str_field(declaration, "name") == name)
}

fn generate(body: &Value, model: &str, script: &Script) -> (Value, String) {
    let seen = tool_results(body).len();
    let config = &body["generationConfig"];
    let schema = config
        .get("responseJsonSchema")
        .or_else(|| config.get("responseSchema"));
    let text = |text: &str| json!({"text": text});
    let call = |name: &str, args: Value| json!({"functionCall": {"name": name, "args": args}});
    let (part, answered) = if let Some(schema) = schema {
        (
            text(&value_for_schema(schema, 0).to_string()),
            "json_side_call".to_owned(),
        )
    } else {
        let (results, visible) = request_view(body, script, tool_results, model_visible_text);
        let view = RequestView {
            tool_results: &results,
            visible_text: &visible,
        };
        match script.turn_for(&view) {
            Turn::Final(final_text) => (text(final_text), "final_text".to_owned()),
            Turn::Step { index, step } => match &step {
                Step::Text(reply) => (text(reply), format!("text step={index}")),
                Step::WriteFile { path, content } if offers(body, WRITE_TOOL) => (
                    call(
                        WRITE_TOOL,
                        json!({"file_path": path.to_string_lossy(), "content": content}),
                    ),
                    format!("functionCall:{WRITE_TOOL} step={index}"),
                ),
                Step::Shell { command } if offers(body, SHELL_TOOL) => (
                    call(SHELL_TOOL, json!({"command": command})),
                    format!("functionCall:{SHELL_TOOL} step={index}"),
                ),
                Step::ReadFile { path } if offers(body, READ_TOOL) => (
                    call(READ_TOOL, json!({"file_path": path.to_string_lossy()})),
                    format!("functionCall:{READ_TOOL} step={index}"),
                ),
                // `generalist` is the built-in subagent with every tool (the others only
                // read).
                Step::Subagent { task } if offers(body, SUBAGENT_TOOL) => (
                    call(
                        SUBAGENT_TOOL,
                        json!({"agent_name": "generalist", "prompt": task}),
                    ),
                    format!("functionCall:{SUBAGENT_TOOL} step={index}"),
                ),
                Step::WriteFile { .. }
                | Step::Shell { .. }
                | Step::ReadFile { .. }
                | Step::Subagent { .. }
                | Step::Call { .. } => (text("ok"), format!("side_call_text step={index}")),
            },
        }
    };
    let response = json!({
        "candidates": [{"content": {"role": "model", "parts": [part]}, "finishReason": "STOP", "index": 0}],
        "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15},
        "modelVersion": model,
        "responseId": format!("acc-{seen}"),
    });
    (response, answered)
}

/// The simplest value that satisfies a JSON schema (first enum value, empty arrays, zeros).
fn value_for_schema(schema: &Value, depth: usize) -> Value {
    if depth > 8 {
        return Value::Null;
    }
    if let Some(first) = schema["enum"].as_array().and_then(|values| values.first()) {
        return first.clone();
    }
    let kind = match &schema["type"] {
        Value::Array(kinds) => kinds.first().and_then(Value::as_str).unwrap_or_default(),
        Value::String(kind) => kind.as_str(),
        _ => "",
    }
    .to_ascii_lowercase();
    if kind == "object" || schema.get("properties").is_some() {
        let properties = schema["properties"]
            .as_object()
            .cloned()
            .unwrap_or_default();
        let object: Map<String, Value> = properties
            .iter()
            .map(|(key, sub)| (key.clone(), value_for_schema(sub, depth + 1)))
            .collect();
        return Value::Object(object);
    }
    match kind.as_str() {
        "array" => json!([]),
        "integer" | "number" => json!(0),
        "boolean" => json!(false),
        _ => json!("ok"),
    }
}

/// Every `functionResponse` part, in order. `is_error` is set when the response carries an
/// `error` (Gemini CLI puts `Tool execution blocked: <reason>` there on a hook block).
pub fn tool_results(body: &Value) -> Vec<ToolResult> {
    array_field(body, "contents")
        .iter()
        .flat_map(|content| array_field(content, "parts"))
        .filter_map(|part| part.get("functionResponse"))
        .map(|response| {
            let inner = &response["response"];
            let (text, is_error) = match (inner.get("error"), inner.get("output")) {
                (Some(error), _) => (text_of_content(error), true),
                (None, Some(output)) => (text_of_content(output), false),
                (None, None) => (inner.to_string(), false),
            };
            let call_id = response
                .get("id")
                .and_then(Value::as_str)
                .unwrap_or_else(|| str_field(response, "name"));
            ToolResult {
                call_id: call_id.to_owned(),
                text,
                is_error,
            }
        })
        .collect()
}

/// `systemInstruction` and every part of every content: texts (including the
/// `<hook_context>` part hook context arrives in), function-call arguments and responses.
pub fn model_visible_text(body: &Value) -> String {
    let mut sink = TextSink::default();
    let system = &body["systemInstruction"];
    match system.get("parts") {
        Some(parts) => sink.push(&text_of_content(parts)),
        None => sink.push(&text_of_content(system)),
    }
    for content in array_field(body, "contents") {
        for part in array_field(content, "parts") {
            if let Some(text) = part.get("text") {
                sink.push_value(text);
            } else if let Some(call) = part.get("functionCall") {
                sink.push_value(&call["args"]);
            } else if let Some(response) = part.get("functionResponse") {
                // The tool's output as the model reads it: a hook's context appended to it
                // keeps its own lines, which the JSON of the whole response would escape.
                match response["response"].get("output") {
                    Some(output @ Value::String(_)) => sink.push_value(output),
                    _ => sink.push_value(&response["response"]),
                }
            }
        }
    }
    sink.finish()
}

/// What a script may read of `body`; the visible text only when its steps depend on it.
#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn request(contents: Value, tools: &[&str]) -> DoubleRequest {
        let declarations: Vec<Value> = tools.iter().map(|name| json!({"name": name})).collect();
        DoubleRequest::post(
            "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse",
            json!({"contents": contents, "tools": [{"functionDeclarations": declarations}]}),
        )
    }

    fn first_part(reply: &Reply) -> Value {
        let events = sse::parse(&reply.text());
        events[0].data["candidates"][0]["content"]["parts"][0].clone()
    }

    #[test]
    fn routes_follow_the_model_method_pattern() {
        assert_eq!(
            model_method("/v1beta/models/gemini-2.5-flash:countTokens"),
            Some(("gemini-2.5-flash", "countTokens"))
        );
        assert_eq!(model_method("/v1beta/models/"), None);
        assert_eq!(model_method("/v1beta/other"), None);
        let script = Script::text_only("x");
        let count = respond(
            &DoubleRequest::post("/v1beta/models/m:countTokens", json!({"contents": []})),
            &script,
        );
        assert!(count.text().contains("totalTokens"));
        let list = respond(&DoubleRequest::get("/v1beta/models"), &script);
        assert_eq!(list.answered, "models");
        let one = respond(
            &DoubleRequest::get("/v1beta/models/gemini-2.5-flash"),
            &script,
        );
        assert_eq!(
            serde_json::from_slice::<Value>(&one.body).unwrap()["name"],
            "models/gemini-2.5-flash"
        );
        let missing = respond(&DoubleRequest::post("/v1beta/files", json!({})), &script);
        assert_eq!(missing.status, 404);
        assert_eq!(
            serde_json::from_slice::<Value>(&missing.body).unwrap()["error"]["status"],
            "NOT_FOUND"
        );
    }

    #[test]
    fn a_shell_step_uses_run_shell_command() {
        let script = Script::new(vec![Step::shell("echo x > src/y")], "done").unwrap();
        let reply = respond(
            &request(
                json!([{"role": "user", "parts": [{"text": "go"}]}]),
                &[SHELL_TOOL],
            ),
            &script,
        );
        assert_eq!(reply.answered, "functionCall:run_shell_command step=0");
        assert_eq!(
            first_part(&reply),
            json!({"functionCall": {"name": "run_shell_command", "args": {"command": "echo x > src/y"}}})
        );
        assert!(reply.text().ends_with("\r\n\r\n"));
    }

    #[test]
    fn schema_side_calls_get_a_matching_object_and_keep_the_step() {
        let script = Script::write_file(Path::new("/ws/a"), "a").unwrap();
        let mut req = request(
            json!([{"role": "user", "parts": [{"text": "go"}]}]),
            &[WRITE_TOOL],
        );
        req.body["generationConfig"] = json!({"responseJsonSchema": {
            "type": "object",
            "properties": {"reasoning": {"type": "string"}, "next_speaker": {"type": "string", "enum": ["user", "model"]}, "n": {"type": ["integer", "null"]}, "flags": {"type": "array"}}
        }});
        let reply = respond(&req, &script);
        assert_eq!(reply.answered, "json_side_call");
        let text = first_part(&reply)["text"].as_str().unwrap().to_owned();
        assert_eq!(
            serde_json::from_str::<Value>(&text).unwrap(),
            json!({"reasoning": "ok", "next_speaker": "user", "n": 0, "flags": []})
        );
    }

    #[test]
    fn generate_content_answers_plain_json() {
        let script = Script::text_only("fin");
        let reply = respond(
            &DoubleRequest::post("/v1beta/models/m:generateContent", json!({"contents": []})),
            &script,
        );
        let body: Value = serde_json::from_slice(&reply.body).unwrap();
        assert_eq!(body["candidates"][0]["content"]["parts"][0]["text"], "fin");
        assert_eq!(body["modelVersion"], "m");
    }

    #[test]
    fn results_without_output_or_error_keep_their_json() {
        let body = json!({"contents": [{"role": "user", "parts": [{"functionResponse": {"name": "glob", "response": {"llmContent": "x"}}}]}]});
        assert_eq!(
            tool_results(&body),
            vec![ToolResult {
                call_id: "glob".into(),
                text: "{\"llmContent\":\"x\"}".into(),
                is_error: false
            }]
        );
    }

    #[test]
    fn a_tool_output_is_read_with_its_own_lines() {
        let body = json!({"contents": [{"role": "user", "parts": [{"functionResponse": {
            "name": "run_shell_command",
            "response": {"output": "Output: ok\n<hook_context>```acc-peer-message\nmessageId: m1\n```</hook_context>"}
        }}]}]});
        let text = model_visible_text(&body);
        assert!(text.lines().any(|l| l == "messageId: m1"), "{text}");
        // Any other response shape is still read whole.
        let other = json!({"contents": [{"parts": [{"functionResponse": {"response": {"error": "denied"}}}]}]});
        assert_eq!(model_visible_text(&other), r#"{"error":"denied"}"#);
    }
}
