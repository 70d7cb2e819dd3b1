//! Copilot CLI payload + the command's event argument -> normalised event. Reads only
//! `sessionId`, `cwd`, `reason` on `sessionEnd`, and `toolName` with the target fields of
//! `toolArgs`. The payload names no model and no permission mode.

use acc_sdk::event::{NormalizeError, NormalizedEvent};
use acc_sdk::{envelope, payload};
use serde_json::Value;

use crate::events::ClientEvent;
use crate::tools;

/// Fields of the VS Code-compatible (PascalCase) payloads and of other clients: a payload
/// carrying one was not sent for a camelCase hook acc registered.
const FOREIGN_KEYS: [&str; 3] = ["hook_event_name", "hookEventName", "session_id"];

pub fn normalize(raw: &Value, args: &[String]) -> Result<NormalizedEvent, NormalizeError> {
    let obj = payload::object(raw)?;
    let event = envelope::known_event(args.first().map(String::as_str), ClientEvent::parse)?;
    if let Some(key) = FOREIGN_KEYS.iter().find(|k| obj.contains_key(**k)) {
        return Err(NormalizeError::ForeignShape(format!(
            "a Copilot CLI camelCase payload has no {key}"
        )));
    }
    let session_id = payload::session_id(obj, &["sessionId"])?;
    let cwd = payload::cwd(obj, &["cwd"])?;
    let tool = event
        .has_tool()
        .then(|| envelope::required_tool(tools::tool_call(obj, &cwd), "toolName", event.name()))
        .transpose()?;
    Ok(NormalizedEvent {
        kind: event.kind(),
        session_id,
        cwd,
        model: None,
        parent_session_id: None,
        tool,
        permission_mode: None,
        end_reason: (event == ClientEvent::sessionEnd)
            .then(|| payload::optional_text(obj, &["reason"]))
            .flatten(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use acc_sdk::event::{EventKind, Targets, ToolClass};
    use serde_json::json;

    fn args(event: &str) -> Vec<String> {
        vec![event.to_owned()]
    }

    /// The preToolUse payload Copilot CLI 1.0.102 sent in a run against a model double.
    fn pre_tool(tool: &str, tool_args: Value) -> Value {
        json!({"sessionId": "cbd40439-198c-449a-ab5d-63110bfbef2c", "timestamp": 1796546501899u64,
               "cwd": "/ws", "toolName": tool, "toolArgs": tool_args})
    }

    #[test]
    fn a_bash_call_names_its_redirect_target() {
        let e = normalize(
            &pre_tool(
                "bash",
                json!({"command": "echo hi > out.txt", "description": "w"}),
            ),
            &args("preToolUse"),
        )
        .unwrap();
        assert_eq!(e.kind, EventKind::BeforeTool);
        let call = e.tool.unwrap();
        assert_eq!(call.class, ToolClass::Shell);
        assert_eq!(call.targets, Targets::Paths(vec!["out.txt".into()]));
    }

    #[test]
    fn create_and_edit_name_their_path_and_a_patch_without_one_is_unreadable() {
        for tool in ["create", "edit"] {
            let e = normalize(
                &pre_tool(tool, json!({"path": "/ws/src/a.rs", "file_text": "x"})),
                &args("preToolUse"),
            )
            .unwrap();
            let call = e.tool.unwrap();
            assert_eq!(call.class, ToolClass::Write, "{tool}");
            assert_eq!(call.targets, Targets::Paths(vec!["/ws/src/a.rs".into()]));
        }
        let e = normalize(
            &pre_tool("apply_patch", json!("*** Begin Patch")),
            &args("preToolUse"),
        )
        .unwrap();
        assert!(matches!(
            e.tool.unwrap().targets,
            Targets::Unreadable { .. }
        ));
    }

    #[test]
    fn typing_into_a_running_shell_is_a_shell_command() {
        let e = normalize(
            &pre_tool(
                "write_bash",
                json!({"shellId": "0", "input": "echo x > src/y"}),
            ),
            &args("preToolUse"),
        )
        .unwrap();
        let call = e.tool.unwrap();
        assert_eq!(call.class, ToolClass::Shell);
        assert_eq!(call.targets, Targets::Paths(vec!["src/y".into()]));
    }

    #[test]
    fn the_event_is_the_argument_and_foreign_shapes_are_refused() {
        let start = json!({"sessionId": "s", "cwd": "/ws", "source": "new", "timestamp": 1});
        assert_eq!(
            normalize(&start, &args("sessionStart")).unwrap().kind,
            EventKind::SessionStart
        );
        assert!(matches!(
            normalize(&start, &[]),
            Err(NormalizeError::UnknownEvent(_))
        ));
        assert!(matches!(
            normalize(&start, &args("SessionStart")),
            Err(NormalizeError::UnknownEvent(_))
        ));
        let pascal = json!({"hook_event_name": "PreToolUse", "session_id": "s", "cwd": "/ws",
                            "tool_name": "Bash", "tool_input": {"command": "ls"}});
        assert!(matches!(
            normalize(&pascal, &args("preToolUse")),
            Err(NormalizeError::ForeignShape(_))
        ));
        let end = json!({"sessionId": "s", "cwd": "/ws", "reason": "complete"});
        assert_eq!(
            normalize(&end, &args("sessionEnd"))
                .unwrap()
                .end_reason
                .as_deref(),
            Some("complete")
        );
    }

    #[test]
    fn a_tool_event_without_a_tool_is_refused() {
        let raw = json!({"sessionId": "s", "cwd": "/ws", "toolArgs": {}});
        assert!(normalize(&raw, &args("preToolUse")).is_err());
    }
}
