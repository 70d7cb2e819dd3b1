//! acc's plugin payload -> normalised event. Reads only `hook_event_name`, `session_id`,
//! `cwd`, `parent_session_id`, `model`, `reason` on `SessionEnd`, and `tool_name` with the
//! target fields of `tool_input`. The plugin sends no prompt or tool output, and nothing
//! else it might send is read.

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
        model: payload::optional_text(obj, &["model"]),
        parent_session_id: payload::optional_text(obj, &["parent_session_id"]),
        tool,
        permission_mode: None,
        end_reason: (event == ClientEvent::SessionEnd)
            .then(|| payload::optional_text(obj, &["reason"]))
            .flatten(),
    })
}
