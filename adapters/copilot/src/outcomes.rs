//! How Copilot CLI is answered (measured on 1.0.102 against a model double): camelCase
//! JSON on stdout, exit 0.

use acc_sdk::event::{EventKind, NormalizedEvent};
use acc_sdk::outcome::HookOutcome;
use acc_sdk::payload;
use serde_json::{Value, json};

use crate::permissions::ClientFlags;
use crate::tools;

/// `preToolUse` `{"permissionDecision":"deny","permissionDecisionReason":R}`: the tool
/// does not run and the model reads the reason.
pub fn deny(reason: &str) -> HookOutcome {
    payload::json_outcome(&json!({
        "permissionDecision": "deny",
        "permissionDecisionReason": reason,
    }))
}

/// `additionalContext` on the three events where it was seen reaching the model:
/// `sessionStart` (a user message of its own), `userPromptSubmitted` (appended to the
/// prompt) and `postToolUse` (appended to the tool's result). Anywhere else nothing is
/// printed.
pub fn inject(event: &NormalizedEvent, text: &str) -> HookOutcome {
    let measured = matches!(
        event.kind,
        EventKind::SessionStart | EventKind::BeforeTurn | EventKind::AfterTool
    );
    if !measured || text.is_empty() {
        return HookOutcome::silent();
    }
    payload::json_outcome(&json!({"additionalContext": text}))
}

/// A `bash` call rewritten to run `wrap(command)`, through `modifiedArgs` with no decision
/// (so the client's own permission flow still judges the call), only where
/// [`ClientFlags::rewrite_allowed`]. The client replaces the whole argument object, so every
/// other key of the call (description, mode, initial wait) goes back unchanged.
pub fn rewrite_shell(
    event: &NormalizedEvent,
    raw: &Value,
    flags: &ClientFlags,
    wrap: &mut dyn FnMut(&str) -> Option<String>,
) -> Option<HookOutcome> {
    if event.kind != EventKind::BeforeTool || !flags.rewrite_allowed() {
        return None;
    }
    let obj = raw.as_object()?;
    if payload::text(obj, "toolName")? != tools::RUN_SHELL {
        return None;
    }
    let mut args = obj.get("toolArgs")?.as_object()?.clone();
    let command = args.get("command")?.as_str()?.to_owned();
    let wrapped = wrap(&command)?;
    args.insert("command".to_owned(), Value::String(wrapped));
    Some(payload::json_outcome(&json!({"modifiedArgs": args})))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::normalize::normalize;

    const UNASKED: ClientFlags = ClientFlags {
        runs_unasked: true,
        deny_rules: false,
    };

    fn pre_tool(tool: &str, args: Value) -> (NormalizedEvent, Value) {
        let raw = json!({"sessionId": "s1", "cwd": "/ws", "timestamp": 1, "toolName": tool, "toolArgs": args});
        (normalize(&raw, &["preToolUse".to_owned()]).unwrap(), raw)
    }

    fn runner(command: &str) -> Option<String> {
        Some(format!("runner -- {command}"))
    }

    #[test]
    fn a_bash_call_is_rewritten_keeping_its_other_arguments_and_granting_nothing() {
        let (event, raw) = pre_tool(
            "bash",
            json!({"command": "make", "description": "build", "mode": "sync", "initial_wait": 10}),
        );
        let out = rewrite_shell(&event, &raw, &UNASKED, &mut runner).unwrap();
        let answer: Value = serde_json::from_str(&out.stdout).unwrap();
        assert_eq!(
            answer,
            json!({"modifiedArgs": {"command": "runner -- make", "description": "build", "mode": "sync", "initial_wait": 10}})
        );
        assert!(answer.get("permissionDecision").is_none());
    }

    #[test]
    fn no_rewrite_where_the_call_would_prompt_a_deny_rule_applies_or_it_is_not_a_new_command() {
        let (event, raw) = pre_tool("bash", json!({"command": "make"}));
        for flags in [
            ClientFlags::default(),
            ClientFlags {
                runs_unasked: true,
                deny_rules: true,
            },
        ] {
            assert_eq!(rewrite_shell(&event, &raw, &flags, &mut runner), None);
        }
        let (event, raw) = pre_tool("write_bash", json!({"shellId": "0", "input": "make"}));
        assert_eq!(rewrite_shell(&event, &raw, &UNASKED, &mut runner), None);
        let (event, raw) = pre_tool("create", json!({"path": "/ws/a", "file_text": ""}));
        assert_eq!(rewrite_shell(&event, &raw, &UNASKED, &mut runner), None);
        let (event, raw) = pre_tool("bash", json!({"command": "make"}));
        assert_eq!(rewrite_shell(&event, &raw, &UNASKED, &mut |_| None), None);
    }
}
