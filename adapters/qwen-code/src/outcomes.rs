//! How Qwen Code is answered: Claude Code's `hookSpecificOutput` envelope, which 0.24.4
//! reads for both refusing a tool (`permissionDecision: deny`) and adding context
//! (`additionalContext`, which it escapes `<` and `>` in before the model sees it).

use acc_sdk::event::{EventKind, NormalizedEvent};
use acc_sdk::outcome::HookOutcome;
use acc_sdk::payload;

pub fn deny(reason: &str) -> HookOutcome {
    payload::permission_deny(reason)
}

/// Context goes out only on the events that carry it to the model; anywhere else nothing is
/// printed.
pub fn inject(event: &NormalizedEvent, text: &str) -> HookOutcome {
    match event.kind {
        EventKind::SessionStart => payload::additional_context("SessionStart", text),
        EventKind::BeforeTurn => payload::additional_context("UserPromptSubmit", text),
        // The safe-point candidate: the runtime sends it only where the grant is present.
        EventKind::AfterTool => payload::additional_context("PostToolUse", text),
        _ => HookOutcome::silent(),
    }
}
