//! How Claude Code is answered (measured on 2.1.332, REAL-CLIENTS.md §2.6-§2.7): the
//! `hookSpecificOutput` envelope for both refusing a tool and adding context.

use acc_sdk::event::{EventKind, NormalizedEvent};
use acc_sdk::outcome::HookOutcome;
use acc_sdk::payload;

pub fn deny(reason: &str) -> HookOutcome {
    payload::permission_deny(reason)
}

/// Context goes out only on the two events where it was seen reaching the model; anywhere
/// else the envelope is unmeasured, so nothing is printed.
pub fn inject(event: &NormalizedEvent, text: &str) -> HookOutcome {
    match event.kind {
        EventKind::SessionStart => payload::additional_context("SessionStart", text),
        EventKind::BeforeTurn => payload::additional_context("UserPromptSubmit", text),
        _ => HookOutcome::silent(),
    }
}
