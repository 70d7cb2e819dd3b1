//! Qwen Code payload -> normalised event. Reads only: `hook_event_name`, `session_id`,
//! `cwd`, `model` (on `SessionStart`), `permission_mode`, `agent_id` (present inside a subagent), `reason` on
//! `SessionEnd`, `notification_type` on `Notification`, and `tool_name` with the target fields of `tool_input`. The prompt and the
//! tool's response are never read.

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
    // Inside a subagent the hooks carry the parent's session id plus an `agent_id`: the
    // subagent is its own conversation, child of the parent's.
    let (session_id, parent_session_id) = match payload::text(obj, "agent_id") {
        Some(agent) => (child_session_id(&session_id, agent)?, Some(session_id)),
        None => (session_id, None),
    };
    Ok(NormalizedEvent {
        kind: crate::events::kind_of(event, obj),
        session_id,
        cwd,
        model: payload::optional_text(obj, &["model"]),
        parent_session_id,
        tool,
        permission_mode: payload::optional_text(obj, &["permission_mode"]),
        end_reason: (event == ClientEvent::SessionEnd)
            .then(|| payload::optional_text(obj, &["reason"]))
            .flatten(),
    })
}

/// The conversation id of subagent `agent` of conversation `parent`, refused like any
/// session id when it carries control characters or is too long.
fn child_session_id(parent: &str, agent: &str) -> Result<String, NormalizeError> {
    let mut obj = serde_json::Map::new();
    obj.insert(
        "session_id".into(),
        Value::String(format!("{parent}/subagent/{agent}")),
    );
    payload::session_id(&obj, &["session_id"])
}
