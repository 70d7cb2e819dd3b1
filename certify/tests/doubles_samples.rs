//! The doubles and the request-log analysis against real request bodies the clients sent
//! (trimmed copies under tests/data, see its README).

use std::path::{Path, PathBuf};

use acc_certify::doubles::sse;
use acc_certify::doubles::{DoubleRequest, Protocol, Reply, Script, Step, ToolResult};
use serde_json::{Value, json};

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
}

/// The logged requests of one sample run, as `DoubleRequest`s.
fn requests(name: &str) -> Vec<DoubleRequest> {
    std::fs::read_to_string(data(name))
        .unwrap()
        .lines()
        .map(|line| {
            let entry: Value = serde_json::from_str(line).unwrap();
            DoubleRequest::post(entry["path"].as_str().unwrap(), entry["body"].clone())
        })
        .collect()
}

fn sample_events(name: &str) -> Vec<sse::SseEvent> {
    sse::parse(&std::fs::read_to_string(data(name)).unwrap())
}

fn write_hello() -> Script {
    Script::write_file(Path::new("/sandbox/ws/hello.txt"), "hello\n").unwrap()
}

fn names(events: &[sse::SseEvent]) -> Vec<String> {
    events
        .iter()
        .map(|event| event.name.clone().unwrap_or_default())
        .collect()
}

fn keys(value: &Value) -> Vec<String> {
    let mut keys: Vec<String> = value.as_object().unwrap().keys().cloned().collect();
    keys.sort();
    keys
}

/// The reply as JSON for a snapshot: each event's name and data.
fn events_json(reply: &Reply) -> Value {
    let events: Vec<Value> = sse::parse(&reply.text())
        .into_iter()
        .map(|event| json!({"event": event.name, "data": event.data}))
        .collect();
    json!({"status": reply.status, "content_type": reply.content_type, "answered": reply.answered, "events": events})
}

// ---- Claude Code (Anthropic Messages) ----

#[test]
fn claude_deny_walks_the_script_and_reports_the_hook_error() {
    let protocol = Protocol::AnthropicMessages;
    let [first, second] = <[DoubleRequest; 2]>::try_from(requests("claude-deny.jsonl")).unwrap();
    assert_eq!(protocol.tool_results(&first.body), vec![]);
    let reply = protocol.respond(&first, &write_hello());
    assert_eq!(reply.answered, "tool_use:Write step=0");
    assert_eq!(
        protocol.tool_results(&second.body),
        vec![ToolResult {
            call_id: "toolu_fake000001".into(),
            text: "PreToolUse:Write hook error: claimed by peer".into(),
            is_error: true,
        }]
    );
    assert_eq!(
        protocol.respond(&second, &write_hello()).answered,
        "final_text"
    );
    for request in [&first, &second] {
        let text = protocol.model_visible_text(&request.body);
        assert!(
            text.contains("UserPromptSubmit hook additional context: SPIKE_CTX_JSON_MARKER_4711"),
            "the injected context sits in the system-role message"
        );
        assert!(text.contains("write hello"), "the prompt itself");
        assert!(
            text.contains("x-anthropic-billing-header"),
            "the system prompt"
        );
    }
}

#[test]
fn claude_success_and_plain_context() {
    let protocol = Protocol::AnthropicMessages;
    let plain = requests("claude-plain.jsonl");
    let results = protocol.tool_results(&plain[1].body);
    assert_eq!(results.len(), 1);
    assert!(!results[0].is_error);
    assert!(
        results[0]
            .text
            .starts_with("File created successfully at: /sandbox/ws/hello.txt"),
        "{}",
        results[0].text
    );
    // Negative control: a run with silent hooks shows the model no marker.
    assert!(
        !protocol
            .model_visible_text(&plain[1].body)
            .contains("SPIKE")
    );
    let ctx_plain = requests("claude-ctx-plain.jsonl");
    assert!(
        protocol
            .model_visible_text(&ctx_plain[0].body)
            .contains("UserPromptSubmit hook success: SPIKE_CTX_PLAIN_MARKER_0815")
    );
}

#[test]
fn a_longer_script_continues_after_the_first_tool_result() {
    let script = Script::new(
        vec![
            Step::write_file("/sandbox/ws/src/x", "x\n"),
            Step::shell("echo x > src/y"),
        ],
        "both done",
    )
    .unwrap();
    let second = &requests("claude-deny.jsonl")[1];
    let reply = Protocol::AnthropicMessages.respond(second, &script);
    assert_eq!(reply.answered, "tool_use:Bash step=1");
    let gemini_second = &requests("gemini-deny-ctx-json.jsonl")[1];
    let reply = Protocol::GeminiGenerateContent.respond(gemini_second, &script);
    assert_eq!(reply.answered, "functionCall:run_shell_command step=1");
    let codex_second = &requests("codex-deny-exec-command.jsonl")[1];
    let reply = Protocol::OpenAiResponses.respond(codex_second, &script);
    assert_eq!(reply.answered, "function_call:exec_command step=1");
}

#[test]
fn claude_tool_use_stream_has_the_real_event_order() {
    let first = &requests("claude-plain.jsonl")[0];
    let reply = Protocol::AnthropicMessages.respond(first, &write_hello());
    let ours = sse::parse(&reply.text());
    let sample = sample_events("claude-tool-use-write.sse");
    assert_eq!(names(&ours), names(&sample));
    for (mine, theirs) in ours.iter().zip(&sample) {
        assert_eq!(keys(&mine.data), keys(&theirs.data), "{:?}", mine.name);
    }
    assert_eq!(
        keys(&ours[1].data["content_block"]),
        keys(&sample[1].data["content_block"])
    );
    insta::assert_json_snapshot!("claude_tool_use_write", events_json(&reply));
}

#[test]
fn claude_final_text_stream() {
    let second = &requests("claude-deny.jsonl")[1];
    let reply = Protocol::AnthropicMessages.respond(second, &write_hello());
    insta::assert_json_snapshot!("claude_final_text", events_json(&reply));
}

// ---- Codex (OpenAI Responses) ----

#[test]
fn codex_apply_patch_round_and_developer_context() {
    let protocol = Protocol::OpenAiResponses;
    let [first, second] =
        <[DoubleRequest; 2]>::try_from(requests("codex-allow-apply-patch.jsonl")).unwrap();
    let reply = protocol.respond(&first, &write_hello());
    assert_eq!(reply.answered, "custom_tool_call:apply_patch step=0");
    let results = protocol.tool_results(&second.body);
    assert_eq!(results.len(), 1);
    assert_eq!(results[0].call_id, "call_904454cfedcc");
    assert!(results[0].text.starts_with("Exit code: 0\n"));
    assert!(!results[0].is_error);
    assert_eq!(
        protocol.respond(&second, &write_hello()).answered,
        "final_text"
    );
    let text = protocol.model_visible_text(&first.body);
    assert!(text.contains("SPIKE-INJECT-MARKER-UserPromptSubmit: remember the codeword PINEAPPLE"));
    assert!(text.contains("<environment_context>"));
    assert!(
        text.contains("You are Codex"),
        "developer base instructions"
    );
    let second_text = protocol.model_visible_text(&second.body);
    assert!(
        second_text.contains("*** Add File: hello.txt"),
        "the call is shown back"
    );
}

#[test]
fn codex_denied_command_is_an_error_result() {
    let protocol = Protocol::OpenAiResponses;
    let second = &requests("codex-deny-exec-command.jsonl")[1];
    assert_eq!(
        protocol.tool_results(&second.body),
        vec![ToolResult {
            call_id: "call_4335e6da77de".into(),
            text: "Command blocked by PreToolUse hook: SPIKE-JSON-DENY: blocked via permissionDecision. Command: printf 'hello\\n' > hello.txt".into(),
            is_error: true,
        }]
    );
}

#[test]
fn codex_streams_have_the_real_event_order_and_item_shapes() {
    let protocol = Protocol::OpenAiResponses;
    let [first, second] =
        <[DoubleRequest; 2]>::try_from(requests("codex-allow-apply-patch.jsonl")).unwrap();
    let call = protocol.respond(&first, &write_hello());
    let ours = sse::parse(&call.text());
    let sample = sample_events("codex-custom-tool-call.sse");
    assert_eq!(names(&ours), names(&sample));
    assert_eq!(keys(&ours[3].data["item"]), keys(&sample[3].data["item"]));
    assert_eq!(
        ours[3].data["item"]["input"],
        "*** Begin Patch\n*** Add File: /sandbox/ws/hello.txt\n+hello\n*** End Patch\n"
    );
    let done = protocol.respond(&second, &write_hello());
    let ours = sse::parse(&done.text());
    let sample = sample_events("codex-final-message.sse");
    assert_eq!(names(&ours), names(&sample));
    assert_eq!(
        keys(&ours.last().unwrap().data["response"]),
        keys(&sample.last().unwrap().data["response"])
    );
    insta::assert_json_snapshot!("codex_custom_tool_call", events_json(&call));
    insta::assert_json_snapshot!("codex_final_message", events_json(&done));
}

// ---- Gemini CLI (streamGenerateContent) ----

#[test]
fn gemini_block_and_hook_context() {
    let protocol = Protocol::GeminiGenerateContent;
    let [first, second] =
        <[DoubleRequest; 2]>::try_from(requests("gemini-deny-ctx-json.jsonl")).unwrap();
    assert_eq!(first.query.as_deref(), Some("alt=sse"));
    let reply = protocol.respond(&first, &write_hello());
    assert_eq!(reply.answered, "functionCall:write_file step=0");
    let ours = sse::parse(&reply.text());
    let sample = sample_events("gemini-function-call.sse");
    assert_eq!(ours.len(), sample.len());
    assert_eq!(keys(&ours[0].data), keys(&sample[0].data));
    assert_eq!(
        ours[0].data["candidates"][0]["content"],
        sample[0].data["candidates"][0]["content"]
    );
    insta::assert_json_snapshot!("gemini_function_call", events_json(&reply));
    assert_eq!(
        protocol.tool_results(&second.body),
        vec![ToolResult {
            call_id: "write_file_1796202601983_0".into(),
            text: "Tool execution blocked: SPIKE-DENY: blocked by spike PreToolUse hook".into(),
            is_error: true,
        }]
    );
    assert_eq!(
        protocol.respond(&second, &write_hello()).answered,
        "final_text"
    );
    for request in [&first, &second] {
        let text = protocol.model_visible_text(&request.body);
        assert!(text.contains(
            "<hook_context>SPIKE-INJECT-MARKER-BeforeAgent: codeword PINEAPPLE</hook_context>"
        ));
        assert!(
            text.contains("You are a non-interactive CLI agent"),
            "systemInstruction"
        );
    }
}

// ---- Grok (OpenAI Chat Completions) ----

/// Only the chat completions of a Grok run (it also lists models and asks for a title).
fn grok_chat(name: &str) -> Vec<DoubleRequest> {
    requests(name)
        .into_iter()
        .filter(|request| request.path.ends_with("/chat/completions"))
        .collect()
}

#[test]
fn grok_write_deny_and_shell_rounds() {
    let protocol = Protocol::OpenAiChatCompletions;
    let [first, second] =
        <[DoubleRequest; 2]>::try_from(grok_chat("grok-deny-write.jsonl")).unwrap();
    let reply = protocol.respond(&first, &write_hello());
    assert_eq!(reply.answered, "tool_call:write step=0");
    insta::assert_json_snapshot!("grok_tool_call_write", events_json(&reply));
    assert_eq!(
        protocol.tool_results(&second.body),
        vec![ToolResult {
            call_id: "call_acc_step0".into(),
            text: "Hook denied: ACC-DRIVE-DENY: src is claimed by a peer".into(),
            is_error: true,
        }]
    );
    assert_eq!(
        protocol.respond(&second, &write_hello()).answered,
        "final_text"
    );
    let text = protocol.model_visible_text(&second.body);
    assert!(text.contains("<user_query>\nplease do the scripted task\n</user_query>"));
    assert!(text.contains("You are Grok"), "the system message");
    assert!(
        text.contains("\"file_path\":\"/sandbox/ws/src/x\""),
        "the call is shown back"
    );

    let shell = grok_chat("grok-shell.jsonl");
    let results = protocol.tool_results(&shell[1].body);
    assert_eq!(results.len(), 1);
    assert_eq!(results[0].text, "exit: 0\n");
    assert!(!results[0].is_error);
}

#[test]
fn grok_side_calls_do_not_consume_the_script() {
    let all = requests("grok-deny-write.jsonl");
    let title = all
        .iter()
        .find(|request| request.path.ends_with("/responses"))
        .unwrap();
    let reply = Protocol::OpenAiChatCompletions.respond(title, &write_hello());
    assert_eq!(reply.answered, "side_call_text step=0");
}
