//! How acc's plugin is answered: one JSON object on stdout, which the plugin (`plugin.js`)
//! turns into what OpenCode's plugin API can do. Silence changes nothing.

use acc_sdk::event::{EventKind, NormalizedEvent};
use acc_sdk::outcome::HookOutcome;
use acc_sdk::payload;
use serde_json::{Value, json};

use crate::tools::SHELL_TOOLS;

/// `{"decision":"deny","reason":R}`: the plugin throws `blocked by acc: R` from
/// `tool.execute.before`, so the tool does not run and the model reads that as the call's
/// result (`tests/plugin_refusal.rs`).
pub fn deny(reason: &str) -> HookOutcome {
    payload::json_outcome(&json!({"decision": "deny", "reason": reason}))
}

/// `{"context":T}`: on `ChatMessage` (and for `SessionStart`, held until the session's
/// first message) the plugin adds `T` to the user's message as a synthetic text part; on
/// `ToolExecuteAfter` it appends `T` to the tool's output the model reads next.
pub fn inject(event: &NormalizedEvent, text: &str) -> HookOutcome {
    match event.kind {
        EventKind::SessionStart | EventKind::BeforeTurn | EventKind::AfterTool
            if !text.is_empty() =>
        {
            payload::json_outcome(&json!({"context": text}))
        }
        _ => HookOutcome::silent(),
    }
}

/// A `bash` call rewritten to run `wrap(command)`: `{"decision":"allow","args":{"command":…}}`,
/// which the plugin writes into the call's own arguments before OpenCode runs it (the
/// `workdir` and `timeout` the call gave stay). Only where the plugin reported no rule of
/// the person's for shell commands (`shell_rules: false`): OpenCode matches its permission
/// rules against the command it runs, which would then be acc's runner line.
pub fn rewrite_shell(
    event: &NormalizedEvent,
    raw: &Value,
    wrap: &mut dyn FnMut(&str) -> Option<String>,
) -> Option<HookOutcome> {
    if event.kind != EventKind::BeforeTool {
        return None;
    }
    let obj = raw.as_object()?;
    if obj.get("shell_rules") != Some(&Value::Bool(false)) {
        return None;
    }
    let name = payload::text(obj, "tool_name")?;
    if !SHELL_TOOLS.names.contains(&name) {
        return None;
    }
    let input = obj.get("tool_input")?;
    let (key, command) = SHELL_TOOLS
        .command_keys
        .iter()
        .find_map(|k| Some((*k, input.get(*k)?.as_str()?)))?;
    let wrapped = wrap(command)?;
    Some(payload::json_outcome(
        &json!({"decision": "allow", "args": {key: wrapped}}),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::normalize::normalize;

    fn before(tool: &str, input: Value, shell_rules: Value) -> (NormalizedEvent, Value) {
        let raw = json!({
            "hook_event_name": "ToolExecuteBefore", "session_id": "ses_1", "cwd": "/ws",
            "tool_name": tool, "tool_input": input, "shell_rules": shell_rules,
        });
        (normalize(&raw).unwrap(), raw)
    }

    fn runner(command: &str) -> Option<String> {
        Some(format!("runner -- {command}"))
    }

    #[test]
    fn a_bash_call_is_rewritten_only_its_command() {
        let (event, raw) = before(
            "bash",
            json!({"command": "make", "workdir": "/ws/sub", "timeout": 5}),
            json!(false),
        );
        let out = rewrite_shell(&event, &raw, &mut runner).unwrap();
        let answer: Value = serde_json::from_str(&out.stdout).unwrap();
        assert_eq!(
            answer,
            json!({"decision": "allow", "args": {"command": "runner -- make"}})
        );
    }

    #[test]
    fn no_rewrite_with_shell_rules_unknown_rules_or_another_tool() {
        for rules in [json!(true), Value::Null, json!("false")] {
            let (event, raw) = before("bash", json!({"command": "make"}), rules);
            assert_eq!(rewrite_shell(&event, &raw, &mut runner), None);
        }
        let (event, raw) = before("write", json!({"filePath": "/ws/a"}), json!(false));
        assert_eq!(rewrite_shell(&event, &raw, &mut runner), None);
        let (event, raw) = before("bash", json!({"command": "make"}), json!(false));
        assert_eq!(rewrite_shell(&event, &raw, &mut |_| None), None);
    }

    #[test]
    fn context_is_silent_where_the_plugin_cannot_show_it() {
        let raw = json!({"hook_event_name": "SessionIdle", "session_id": "s", "cwd": "/ws"});
        let event = normalize(&raw).unwrap();
        assert_eq!(inject(&event, "x"), HookOutcome::silent());
        let raw = json!({"hook_event_name": "ChatMessage", "session_id": "s", "cwd": "/ws"});
        let event = normalize(&raw).unwrap();
        assert_eq!(inject(&event, ""), HookOutcome::silent());
        assert_eq!(
            inject(&event, "peer").stdout.trim(),
            r#"{"context":"peer"}"#
        );
    }
}
