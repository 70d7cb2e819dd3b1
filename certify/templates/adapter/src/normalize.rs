//! Example CLI payload -> normalised event. Reads only `hook_event_name`, `session_id`,
//! `cwd`, and `tool_name` with the target fields of `tool_input`: a whitelist, so nothing
//! else of the conversation reaches core.

use acc_sdk::event::{NormalizeError, NormalizedEvent};
use acc_sdk::{envelope, payload};
use serde_json::Value;

use crate::events::ClientEvent;
use crate::tools;

pub fn normalize(raw: &Value) -> Result<NormalizedEvent, NormalizeError> {
    let obj = payload::object(raw)?;
    let event = envelope::known_event(payload::text(obj, "hook_event_name"), ClientEvent::parse)?;
    let session_id = payload::session_id(obj, &["session_id"])?;
    let cwd = payload::cwd(obj, &["cwd"])?;
    let tool = event
        .has_tool()
        .then(|| envelope::required_tool(tools::tool_call(obj, &cwd), "tool_name", event.name()))
        .transpose()?;
    Ok(NormalizedEvent {
        kind: event.kind(),
        session_id,
        cwd,
        model: None,
        parent_session_id: None,
        tool,
        permission_mode: None,
        end_reason: None,
    })
}
