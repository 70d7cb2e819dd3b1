//! How Grok is answered (measured on 0.2.111, docs/research/grok.md).

use acc_sdk::event::NormalizedEvent;
use acc_sdk::outcome::HookOutcome;
use acc_sdk::payload;
use serde_json::json;

/// `{"decision":"deny","reason":R}` with exit 0: the tool does not run and the model reads
/// `Hook denied: R`.
pub fn deny(reason: &str) -> HookOutcome {
    payload::json_outcome(&json!({"decision": "deny", "reason": reason}))
}

/// Nothing a hook prints reaches Grok's model: plain text, `hookSpecificOutput` and
/// `additionalContext` were all tried on SessionStart, UserPromptSubmit, PreToolUse and
/// PostToolUse. Printing would only pretend a delivery, so the hook stays silent and the
/// runtime keeps the messages queued.
pub fn inject(_event: &NormalizedEvent, _text: &str) -> HookOutcome {
    HookOutcome::silent()
}
