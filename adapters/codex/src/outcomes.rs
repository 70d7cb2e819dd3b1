//! How Codex is answered (measured on 0.171.0; docs/research/real-clients-run.md, "How each client
//! is answered").

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
