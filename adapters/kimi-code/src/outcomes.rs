//! How Kimi Code is answered (seen on 2.1.0 in a development run, docs/research/
//! kimi-antigravity.md; the reference records the same shapes for 0.36.1).

use acc_sdk::event::{EventKind, NormalizedEvent};
use acc_sdk::outcome::HookOutcome;
use acc_sdk::payload;

/// The Claude-shaped `permissionDecision` deny, exit 0: the tool does not run and the model
/// reads `<system>ERROR: Tool execution failed.</system>` and the reason. The reference
/// records that `{"decision":"block"}` is ignored by this client.
pub fn deny(reason: &str) -> HookOutcome {
    payload::permission_deny(reason)
}

/// Plain stdout, which reaches the model wrapped in
/// `<hook_result hook_event="UserPromptSubmit">…</hook_result>` at the start of the user
/// message (and is also shown to the user). PostToolUse is fired and forgotten (2.1.0 reads
/// nothing back from it, recorded in the safe-point capture), so nothing is printed there:
/// a printed body would be committed as offered without being shown.
pub fn inject(event: &NormalizedEvent, text: &str) -> HookOutcome {
    match event.kind {
        EventKind::SessionStart | EventKind::BeforeTurn => payload::plain_context(text),
        _ => HookOutcome::silent(),
    }
}
