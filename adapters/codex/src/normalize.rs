//! Codex payload -> normalised event. Reads only the event name, session id, cwd, model,
//! parent thread, permission mode, `reason` on `SessionEnd`, and the tool name with the
//! target text of its input. Codex has renamed fields between releases, so each is the first
//! non-blank of a few spellings.

use acc_sdk::event::{NormalizeError, NormalizedEvent};
use acc_sdk::{envelope, payload};
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
    let event = envelope::known_event(payload::first_text(obj, &EVENT_KEYS), ClientEvent::parse)?;
    let session_id = payload::session_id(obj, &SESSION_KEYS)?;
    let cwd = payload::cwd(obj, &CWD_KEYS)?;
    let tool = event
        .has_tool()
        .then(|| envelope::required_tool(tools::tool_call(obj, &cwd), "tool_name", event.name()))
        .transpose()?;
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
