//! Qwen Code payload -> normalised event: Claude Code's payload shape
//! ([`acc_sdk::claude_hooks::normalize`] says what is read) with Qwen Code's event table and
//! tools. The prompt and the tool's response are never read.

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
    claude_hooks::normalize(payload::object(raw)?, &SHAPE)
}
