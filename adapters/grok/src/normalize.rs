//! Grok payload -> normalised event. Grok's envelope is camelCase. Reads only
//! `hookEventName`, `sessionId`, `cwd`, `modelId`, `permissionMode`, `reason` (on
//! `session_end`, and on `stop` to tell a turn end from the session-end fire),
//! `toolInputTruncated`, `subagentId` (on `subagent_start`/`subagent_stop`), and `toolName`
//! with the target fields of `toolInput`.

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
    let (session_id, parent_session_id) = subagent_conversation(event, obj, session_id)?;
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
        parent_session_id,
        tool,
        permission_mode: payload::optional_text(obj, &["permissionMode"]),
        end_reason: (event == ClientEvent::SessionEnd)
            .then_some(reason)
            .flatten(),
    })
}

/// A subagent is its own conversation: inside it Grok sends the subagent's id as `sessionId`
/// (observed with 0.2.111), and its start comes from the parent's conversation naming it as
/// `subagentId`. So a subagent start or stop acts as the subagent, child of the conversation
/// that fired it; a stop fired from inside the subagent names no parent.
fn subagent_conversation(
    event: ClientEvent,
    obj: &serde_json::Map<String, Value>,
    session_id: String,
) -> Result<(String, Option<String>), NormalizeError> {
    let child_event = matches!(event.kind(), EventKind::ChildStart | EventKind::ChildEnd);
    if !child_event || payload::text(obj, "subagentId").is_none() {
        return Ok((session_id, None));
    }
    let child = payload::session_id(obj, &["subagentId"])?;
    if child == session_id {
        Ok((child, None))
    } else {
        Ok((child, Some(session_id)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const PARENT: &str = "01a23c7b-08ae-7160-9efc-effc40466492";
    const CHILD: &str = "01a23c7b-0b0e-7243-87d9-d064f86599a8";

    /// The keys Grok 0.2.111 sent in the child-sessions capture.
    fn payload(event: &str, session: &str, subagent: Option<&str>) -> Value {
        let mut p = json!({
            "hookEventName": event, "sessionId": session, "cwd": "/ws", "workspaceRoot": "/ws/",
            "permissionMode": "bypassPermissions", "subagentType": "general-purpose",
        });
        if let Some(id) = subagent {
            p["subagentId"] = json!(id);
        }
        p
    }

    #[test]
    fn a_subagent_start_acts_as_the_subagent_child_of_the_firing_conversation() {
        let start = normalize(&payload("subagent_start", PARENT, Some(CHILD))).unwrap();
        assert_eq!(start.kind, EventKind::ChildStart);
        assert_eq!(start.session_id, CHILD);
        assert_eq!(start.parent_session_id.as_deref(), Some(PARENT));
    }

    #[test]
    fn a_stop_from_inside_the_subagent_and_its_tool_calls_act_as_the_subagent() {
        let stop = normalize(&payload("subagent_stop", CHILD, Some(CHILD))).unwrap();
        assert_eq!(stop.kind, EventKind::ChildEnd);
        assert_eq!(stop.session_id, CHILD);
        assert_eq!(stop.parent_session_id, None);
        let turn = normalize(&payload("user_prompt_submit", CHILD, None)).unwrap();
        assert_eq!(
            (turn.session_id.as_str(), turn.parent_session_id),
            (CHILD, None)
        );
    }

    #[test]
    fn a_subagent_id_outside_a_subagent_event_is_not_read_and_a_bad_one_is_refused() {
        let stop = normalize(&payload("stop", PARENT, Some(CHILD))).unwrap();
        assert_eq!(stop.session_id, PARENT);
        assert!(normalize(&payload("subagent_start", PARENT, Some("bad\nid"))).is_err());
    }
}
