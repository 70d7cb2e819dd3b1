//! How Claude Code is answered (measured on 2.1.332; docs/research/real-clients-run.md, "How
//! each client is answered"): the `hookSpecificOutput` envelope for both refusing a tool and
//! adding context.

use acc_sdk::event::{EventKind, NormalizedEvent};
use acc_sdk::outcome::HookOutcome;
use acc_sdk::payload;
use serde_json::Value;

use crate::tools;

/// The one permission mode in which the client runs every tool call without asking, so a
/// hook's `allow` skips no prompt. In any other mode an `allow` would approve, on the user's
/// behalf, a command the user (or the mode's own checks) would have been asked about.
pub const UNASKED_MODE: &str = "bypassPermissions";

/// Logged by the client, never shown to the model.
pub const REWRITE_REASON: &str = "acc: runs with peers' guarded claims read-only";

/// Context goes out only on the events where it was seen reaching the model; anywhere else
/// the envelope is unmeasured, so nothing is printed.
pub use acc_sdk::claude_hooks::{deny, inject};

/// A `Bash` call rewritten to run `wrap(command)`, through `updatedInput` with `allow`
/// (PreToolUse). Only in [`UNASKED_MODE`], and only where the person's settings hold no
/// shell `deny` or `ask` rule ([`crate::person_rules`]). The client replaces the tool's whole input with
/// `updatedInput`, so every other key of the call's own input (timeout, description,
/// background) goes back unchanged.
pub fn rewrite_shell(
    event: &NormalizedEvent,
    raw: &Value,
    wrap: &mut dyn FnMut(&str) -> Option<String>,
) -> Option<HookOutcome> {
    if event.kind != EventKind::BeforeTool || event.permission_mode.as_deref() != Some(UNASKED_MODE)
    {
        return None;
    }
    let obj = raw.as_object()?;
    let name = payload::text(obj, "tool_name")?;
    if !tools::SHELL.names.contains(&name) {
        return None;
    }
    // The person's own deny and ask rules would be matched against acc's runner line.
    let env = |k: &str| std::env::var(k).ok().filter(|v| !v.is_empty());
    if crate::person_rules::shell_rules_present(std::path::Path::new(&event.cwd), &env) {
        return None;
    }
    let mut input = obj.get("tool_input")?.as_object()?.clone();
    let (key, command) = tools::SHELL
        .command_keys
        .iter()
        .find_map(|k| Some((*k, input.get(*k)?.as_str()?.to_owned())))?;
    let wrapped = wrap(&command)?;
    input.insert(key.to_owned(), Value::String(wrapped));
    Some(payload::permission_rewrite(
        &Value::Object(input),
        REWRITE_REASON,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::normalize::normalize;
    use serde_json::json;

    fn pre_tool(mode: &str, tool: &str, input: Value) -> (NormalizedEvent, Value) {
        let raw = json!({
            "session_id": "s1", "cwd": "/ws", "hook_event_name": "PreToolUse",
            "permission_mode": mode, "tool_name": tool, "tool_input": input,
        });
        (normalize(&raw).unwrap(), raw)
    }

    fn wrap_in_runner(command: &str) -> Option<String> {
        Some(format!("runner -- {command}"))
    }

    #[test]
    fn a_bash_call_is_rewritten_keeping_the_rest_of_its_input() {
        let (event, raw) = pre_tool(
            UNASKED_MODE,
            "Bash",
            json!({"command": "make", "timeout": 5000, "description": "build"}),
        );
        let out = rewrite_shell(&event, &raw, &mut wrap_in_runner).unwrap();
        assert_eq!(out.exit_code, 0);
        let answer: Value = serde_json::from_str(&out.stdout).unwrap();
        assert_eq!(
            answer["hookSpecificOutput"],
            json!({
                "hookEventName": "PreToolUse",
                "permissionDecision": "allow",
                "permissionDecisionReason": REWRITE_REASON,
                "updatedInput": {"command": "runner -- make", "timeout": 5000, "description": "build"},
            })
        );
    }

    #[test]
    fn no_rewrite_where_allow_would_skip_a_prompt_or_the_call_is_not_a_shell_call() {
        for mode in ["default", "acceptEdits", "auto", "plan", "dontAsk"] {
            let (event, raw) = pre_tool(mode, "Bash", json!({"command": "make"}));
            assert_eq!(
                rewrite_shell(&event, &raw, &mut wrap_in_runner),
                None,
                "{mode}"
            );
        }
        let (event, raw) = pre_tool(UNASKED_MODE, "Write", json!({"file_path": "/ws/a"}));
        assert_eq!(rewrite_shell(&event, &raw, &mut wrap_in_runner), None);
        let (event, raw) = pre_tool(UNASKED_MODE, "Bash", json!({"command": ["make"]}));
        assert_eq!(rewrite_shell(&event, &raw, &mut wrap_in_runner), None);
        let (event, raw) = pre_tool(UNASKED_MODE, "Bash", json!({"command": "make"}));
        assert_eq!(rewrite_shell(&event, &raw, &mut |_| None), None);
    }
}
