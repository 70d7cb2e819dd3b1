//! How Gemini CLI is answered (measured on 0.61.0; docs/research/real-clients-run.md, "How each
//! client is answered").

use acc_sdk::event::{EventKind, NormalizedEvent};
use acc_sdk::outcome::HookOutcome;
use acc_sdk::payload;
use serde_json::json;

/// `{"decision":"block","reason":R}` with exit 0. Exit 2 also blocks but makes Gemini
/// report the hook as failed (and the reference records that the Claude
/// `permissionDecision` shape is ignored).
pub fn deny(reason: &str) -> HookOutcome {
    payload::json_outcome(&json!({"decision": "block", "reason": reason}))
}

/// The `hookSpecificOutput.additionalContext` envelope. Plain stdout is shown to the user
/// only and never reaches the model, so it is never used.
pub fn inject(event: &NormalizedEvent, text: &str) -> HookOutcome {
    match event.kind {
        EventKind::SessionStart => payload::additional_context("SessionStart", text),
        EventKind::BeforeTurn => payload::additional_context("BeforeAgent", text),
        // The safe-point candidate: the runtime sends it only where the grant is present.
        EventKind::AfterTool => payload::additional_context("AfterTool", text),
        _ => HookOutcome::silent(),
    }
}
