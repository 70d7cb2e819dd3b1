//! How Codex is answered (measured on 0.171.0, REAL-CLIENTS.md §3.7-§3.8).

use acc_sdk::event::{EventKind, NormalizedEvent};
use acc_sdk::outcome::HookOutcome;
use acc_sdk::payload;

/// Exit 2 with the reason on stderr and nothing on stdout. Codex quotes stderr verbatim in
/// `Command blocked by PreToolUse hook: <reason>. Command: …`, so no newline is added.
pub fn deny(reason: &str) -> HookOutcome {
    HookOutcome {
        stdout: String::new(),
        stderr: reason.to_owned(),
        exit_code: 2,
    }
}

/// Plain stdout, which Codex turns into a developer message after the prompt.
pub fn inject(event: &NormalizedEvent, text: &str) -> HookOutcome {
    match event.kind {
        EventKind::SessionStart | EventKind::BeforeTurn => payload::plain_context(text),
        // The safe-point candidate (Codex reads `additionalContext` from a post-tool hook's
        // JSON); the runtime sends it only where the grant is present.
        EventKind::AfterTool => payload::additional_context("PostToolUse", text),
        _ => HookOutcome::silent(),
    }
}

/// Holds the turn open to show `context`: the Stop hook's `{"decision":"block","reason"}`,
/// which Codex 0.171.0 turns into a continuation prompt of the same turn
/// (`codex-rs/hooks/src/events/stop.rs`). Only while `stop_hook_active` is false, so at most
/// once per turn (the continuation's own Stop says true).
pub fn continue_turn(context: &str, raw: &serde_json::Value) -> Option<HookOutcome> {
    if raw
        .get("stop_hook_active")
        .and_then(serde_json::Value::as_bool)
        != Some(false)
        || context.is_empty()
    {
        return None;
    }
    Some(HookOutcome {
        stdout: serde_json::json!({"decision": "block", "reason": context}).to_string(),
        stderr: String::new(),
        exit_code: 0,
    })
}

#[cfg(test)]
mod continue_tests {
    use super::continue_turn;
    use serde_json::{Value, json};

    #[test]
    fn the_stop_hook_blocks_once_with_the_context_as_its_reason() {
        let out = continue_turn(
            "```acc-peer-message\nbody\n```",
            &json!({"stop_hook_active": false}),
        )
        .unwrap();
        assert_eq!(out.exit_code, 0);
        let v: Value = serde_json::from_str(&out.stdout).unwrap();
        assert_eq!(
            v,
            json!({"decision": "block", "reason": "```acc-peer-message\nbody\n```"})
        );
        // The continuation's own Stop, a payload without the flag, or nothing to show.
        assert!(continue_turn("x", &json!({"stop_hook_active": true})).is_none());
        assert!(continue_turn("x", &json!({})).is_none());
        assert!(continue_turn("", &json!({"stop_hook_active": false})).is_none());
    }
}
