//! Claude Code payload -> normalised event ([`acc_sdk::claude_hooks::normalize`] says what
//! is read), after refusing the payloads other clients hand the same hooks.

use acc_sdk::claude_hooks::{self, PayloadShape};
use acc_sdk::event::{NormalizeError, NormalizedEvent};
use acc_sdk::payload;
use serde_json::Value;

use crate::events::ClientEvent;
use crate::tools;

const SHAPE: PayloadShape<ClientEvent> = PayloadShape {
    parse: ClientEvent::parse,
    tool_call: tools::tool_call,
};

pub fn normalize(raw: &Value) -> Result<NormalizedEvent, NormalizeError> {
    let obj = payload::object(raw)?;
    // Grok runs the hooks in `~/.claude/settings.json` too, handing them its own camelCase
    // envelope; such a payload is Grok's session, never this client's.
    if !obj.contains_key("hook_event_name") && obj.contains_key("hookEventName") {
        return Err(NormalizeError::ForeignShape(
            "a camelCase hookEventName payload is Grok's, not Claude Code's".into(),
        ));
    }
    claude_hooks::normalize(obj, &SHAPE)
}
