//! How Example CLI is answered. Until a capture shows what reaches the model, context is
//! never printed: printing would only pretend a delivery.

use acc_sdk::event::NormalizedEvent;
use acc_sdk::outcome::HookOutcome;
use acc_sdk::payload;

/// The Claude-shaped refusal; replace it with the shape the client reads.
pub fn deny(reason: &str) -> HookOutcome {
    payload::permission_deny(reason)
}

pub fn inject(_event: &NormalizedEvent, _text: &str) -> HookOutcome {
    HookOutcome::silent()
}
