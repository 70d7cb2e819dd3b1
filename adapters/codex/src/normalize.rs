//! Codex payload -> normalised event. Reads only the event name, session id, cwd, model,
//! `agent_id`, parent thread, permission mode, `reason` on `SessionEnd`, and the tool name
//! with the target text of its input. Codex has renamed fields between releases, so each is the first
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
/// A sub-agent's own thread id (observed with 0.171.0 on its SubagentStart/SubagentStop and
/// on every hook fired inside it).
const AGENT_KEYS: [&str; 1] = ["agent_id"];

pub fn normalize(raw: &Value) -> Result<NormalizedEvent, NormalizeError> {
    let obj = payload::object(raw)?;
    let event = envelope::known_event(payload::first_text(obj, &EVENT_KEYS), ClientEvent::parse)?;
    let session_id = payload::session_id(obj, &SESSION_KEYS)?;
    let cwd = payload::cwd(obj, &CWD_KEYS)?;
    let tool = event
        .has_tool()
        .then(|| envelope::required_tool(tools::tool_call(obj, &cwd), "tool_name", event.name()))
        .transpose()?;
    // A sub-agent's hooks carry the parent conversation's thread as `session_id` and the
    // sub-agent's own thread as `agent_id`: the sub-agent is its own conversation, child of
    // the parent's.
    let (session_id, parent_session_id) = match payload::first_text(obj, &AGENT_KEYS) {
        Some(_) => (payload::session_id(obj, &AGENT_KEYS)?, Some(session_id)),
        None => (session_id, payload::optional_text(obj, &PARENT_KEYS)),
    };
    Ok(NormalizedEvent {
        kind: event.kind(),
        session_id,
        cwd,
        model: payload::optional_text(obj, &MODEL_KEYS),
        parent_session_id,
        tool,
        permission_mode: payload::optional_text(obj, &["permission_mode"]),
        end_reason: (event == ClientEvent::SessionEnd)
            .then(|| payload::optional_text(obj, &["reason"]))
            .flatten(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use acc_sdk::event::EventKind;
    use serde_json::json;

    const PARENT: &str = "01a23cb0-ef0e-7b33-b107-4891fbd7090d";
    const CHILD: &str = "01a23cb0-f0c5-7f62-a5e5-d807d593a92e";

    /// The keys Codex 0.171.0 sent in the child-sessions capture.
    fn payload(event: &str, agent: Option<&str>) -> Value {
        let mut p = json!({
            "session_id": PARENT, "turn_id": "t", "cwd": "/ws", "hook_event_name": event,
            "model": "gpt-5.5", "permission_mode": "bypassPermissions",
        });
        if let Some(id) = agent {
            p["agent_id"] = json!(id);
            p["agent_type"] = json!("default");
        }
        p
    }

    #[test]
    fn a_subagents_start_stop_and_tool_calls_act_as_the_subagent_child_of_the_parent() {
        for (event, kind) in [
            ("SubagentStart", EventKind::ChildStart),
            ("SubagentStop", EventKind::ChildEnd),
            ("UserPromptSubmit", EventKind::BeforeTurn),
        ] {
            let e = normalize(&payload(event, Some(CHILD))).unwrap();
            assert_eq!(e.kind, kind);
            assert_eq!(e.session_id, CHILD, "{event}");
            assert_eq!(e.parent_session_id.as_deref(), Some(PARENT), "{event}");
        }
        let mut write = payload("PreToolUse", Some(CHILD));
        write["tool_name"] = json!("apply_patch");
        write["tool_input"] =
            json!({"command": "*** Begin Patch\n*** Add File: /ws/a\n+x\n*** End Patch\n"});
        let e = normalize(&write).unwrap();
        assert_eq!(
            (e.session_id.as_str(), e.parent_session_id.as_deref()),
            (CHILD, Some(PARENT))
        );
    }

    #[test]
    fn the_parents_own_hooks_stay_the_parents_and_a_bad_agent_id_is_refused() {
        let e = normalize(&payload("Stop", None)).unwrap();
        assert_eq!((e.session_id.as_str(), e.parent_session_id), (PARENT, None));
        assert!(normalize(&payload("SubagentStart", Some("bad\nid"))).is_err());
    }
}
