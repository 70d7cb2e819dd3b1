//! Antigravity envelope + the command's event argument -> normalised event. Reads only
//! `conversationId`, the first of `workspacePaths`, and `modelName`. There are no tool
//! events, so there is never a tool or a target.

use acc_sdk::event::{NormalizeError, NormalizedEvent};
use acc_sdk::{envelope, payload};
use serde_json::Value;

use crate::events::ClientEvent;

/// Event-name fields other clients put in their payloads; Antigravity's envelope has none,
/// so a payload carrying one was meant for another adapter.
const FOREIGN_EVENT_KEYS: [&str; 2] = ["hook_event_name", "hookEventName"];

pub fn normalize(raw: &Value, args: &[String]) -> Result<NormalizedEvent, NormalizeError> {
    let obj = payload::object(raw)?;
    let event = envelope::known_event(args.first().map(String::as_str), ClientEvent::parse)?;
    if let Some(key) = FOREIGN_EVENT_KEYS.iter().find(|k| obj.contains_key(**k)) {
        return Err(NormalizeError::ForeignShape(format!(
            "an Antigravity envelope names no event, but this payload has {key}"
        )));
    }
    let session_id = payload::session_id(obj, &["conversationId"])?;
    let cwd = obj
        .get("workspacePaths")
        .and_then(Value::as_array)
        .and_then(|paths| paths.first())
        .and_then(Value::as_str)
        .filter(|p| !p.trim().is_empty())
        .map(str::to_owned)
        .ok_or(NormalizeError::MissingCwd)?;
    Ok(NormalizedEvent {
        kind: event.kind(),
        session_id,
        cwd,
        model: payload::optional_text(obj, &["modelName"]),
        parent_session_id: None,
        tool: None,
        permission_mode: None,
        end_reason: None,
    })
}
