//! Grok payload -> normalised event. Grok's envelope is camelCase. Reads only
//! `hookEventName`, `sessionId`, `cwd`, `modelId`, `permissionMode`, `reason` (on
//! `session_end`, and on `stop` to tell a turn end from the session-end fire),
//! `toolInputTruncated`, and `toolName` with the target fields of `toolInput`.

use acc_sdk::event::{EventKind, NormalizeError, NormalizedEvent, Targets, ToolClass};
use acc_sdk::{envelope, payload};
use serde_json::Value;

use crate::events::ClientEvent;
use crate::tools;

/// The `reason` of a `stop` that ends a turn. Grok also fires `stop` when the session
/// closes (`channel_closed`, `shutdown`) and ignores any decision then: no turn ended.
const TURN_END_REASON: &str = "end_turn";

pub fn normalize(raw: &Value) -> Result<NormalizedEvent, NormalizeError> {
    let obj = payload::object(raw)?;
    let event = envelope::known_event(payload::text(obj, "hookEventName"), ClientEvent::parse)?;
    let session_id = payload::session_id(obj, &["sessionId"])?;
    let cwd = payload::cwd(obj, &["cwd"])?;
    let mut tool = event
        .has_tool()
        .then(|| {
            envelope::required_tool(tools::tool_call(obj, &cwd), "toolName", event.wire_name())
        })
        .transpose()?;
    // A cut command may have lost its write positions; a cut write may still name its file.
    let truncated = obj.get("toolInputTruncated").and_then(Value::as_bool) == Some(true);
    if let Some(call) = tool
        .as_mut()
        .filter(|c| truncated && c.class == ToolClass::Shell)
    {
        call.targets = Targets::unreadable(
            "acc cannot read a shell command the client cut short; send a shorter command",
        );
    }
    let reason = payload::optional_text(obj, &["reason"]);
    let kind = match (event, reason.as_deref()) {
        (ClientEvent::Stop, Some(r)) if r != TURN_END_REASON => EventKind::Other,
        _ => event.kind(),
    };
    Ok(NormalizedEvent {
        kind,
        session_id,
        cwd,
        model: payload::optional_text(obj, &["modelId"]),
        parent_session_id: None,
        tool,
        permission_mode: payload::optional_text(obj, &["permissionMode"]),
        end_reason: (event == ClientEvent::SessionEnd)
            .then_some(reason)
            .flatten(),
    })
}
