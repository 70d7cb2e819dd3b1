//! How Antigravity is answered, per the reference adapter (no capture could be taken here).

use acc_sdk::event::{EventKind, NormalizedEvent};
use acc_sdk::outcome::HookOutcome;
use acc_sdk::payload;
use serde_json::{Value, json};

/// No tool event loads in this client, so a deny can never reach it. Should one be asked
/// for anyway, the hook says so on stderr and lets the call through.
pub fn deny(reason: &str) -> HookOutcome {
    HookOutcome {
        stdout: String::new(),
        stderr: format!("acc: {reason} (this client has no tool guard)\n"),
        exit_code: 0,
    }
}

/// `injectSteps` with one ephemeral message, from `PreInvocation` only: the one event where
/// the reference saw it reach the model.
pub fn inject(event: &NormalizedEvent, text: &str) -> HookOutcome {
    if event.kind != EventKind::BeforeTurn || text.is_empty() {
        return HookOutcome::silent();
    }
    payload::json_outcome(&json!({"injectSteps": [{"ephemeralMessage": text}]}))
}

/// How many continuations one turn may get. Each costs the operator a model invocation.
const CONTINUATION_CEILING: u64 = 1;

/// Holds the turn open with `context` on `Stop`, at most once per turn: the client counts
/// the turn's `Stop` invocations in `executionNum`, starting at 0. A missing or unreadable
/// counter lets the turn end, since a hook that cannot count could loop.
pub fn continue_turn(context: &str, raw: &Value) -> Option<HookOutcome> {
    let execution = raw.get("executionNum").and_then(Value::as_u64)?;
    if context.is_empty() || execution >= CONTINUATION_CEILING {
        return None;
    }
    Some(payload::json_outcome(
        &json!({"decision": "continue", "reason": context}),
    ))
}
