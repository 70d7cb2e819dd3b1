//! Codex payload -> normalised event. Reads only the event name, session id, cwd, model,
//! parent thread, permission mode, `reason` on `SessionEnd`, and the tool name with the
//! target text of its input. Codex has renamed fields between releases, so each is the first
//! non-blank of a few spellings.

use acc_sdk::event::{NormalizeError, NormalizedEvent};
use acc_sdk::payload;
use serde_json::Value;

use crate::events::ClientEvent;
use crate::tools;

const EVENT_KEYS: [&str; 3] = ["hook_event_name", "eventName", "event_name"];
const SESSION_KEYS: [&str; 4] = ["session_id", "sessionId", "thread_id", "threadId"];
const CWD_KEYS: [&str; 3] = ["cwd", "working_directory", "workspace_root"];
const MODEL_KEYS: [&str; 2] = ["model", "model_slug"];
const PARENT_KEYS: [&str; 3] = ["parent_thread_id", "parentSessionId", "parent_session_id"];

pub fn normalize(raw: &Value) -> Result<NormalizedEvent, NormalizeError> {
    let obj = payload::object(raw)?;
    let name = payload::first_text(obj, &EVENT_KEYS).unwrap_or_default();
    let event =
        ClientEvent::parse(name).ok_or_else(|| NormalizeError::UnknownEvent(name.to_owned()))?;
    let session_id = payload::session_id(obj, &SESSION_KEYS)?;
    let cwd = payload::cwd(obj, &CWD_KEYS)?;
    let tool = if event.has_tool() {
        Some(tools::tool_call(obj).ok_or(NormalizeError::InvalidField {
            field: "tool_name",
            reason: format!("a {} payload must name its tool", event.name()),
        })?)
    } else {
        None
    };
    Ok(NormalizedEvent {
        kind: event.kind(),
        session_id,
        cwd,
        model: payload::optional_text(obj, &MODEL_KEYS),
        parent_session_id: payload::optional_text(obj, &PARENT_KEYS),
        tool,
        permission_mode: payload::optional_text(obj, &["permission_mode"]),
        end_reason: (event == ClientEvent::SessionEnd)
            .then(|| payload::optional_text(obj, &["reason"]))
            .flatten(),
    })
}
