//! The steps every normaliser takes the same way once it has picked its client's fields:
//! naming the event, and reading the tool a tool event must carry.

use serde_json::{Map, Value};

use crate::adapter::ToolGuard;
use crate::event::{NormalizeError, ToolCall, ToolClass};
use crate::payload::{payload_tool, payload_tool_at};
use crate::shell_targets::ShellContext;

/// The client event spelt `name`, by the client's own `parse`. An event that is missing or
/// not the client's is refused with the name as sent (empty when none was), never guessed.
pub fn known_event<E>(
    name: Option<&str>,
    parse: impl FnOnce(&str) -> Option<E>,
) -> Result<E, NormalizeError> {
    let name = name.unwrap_or_default();
    parse(name).ok_or_else(|| NormalizeError::UnknownEvent(name.to_owned()))
}

/// The tool call of a tool event, whose name sits under `field`. A tool event that names no
/// tool is refused: the guard could not judge it, and letting it through as tool-less would
/// hide a write.
pub fn required_tool(
    call: Option<ToolCall>,
    field: &'static str,
    event: &str,
) -> Result<ToolCall, NormalizeError> {
    call.ok_or_else(|| NormalizeError::InvalidField {
        field,
        reason: format!("a {event} payload must name its tool"),
    })
}

/// Like [`guarded_tool`], with shell commands read where the hook runs them: in the
/// payload's `cwd`, with the hook's own `$HOME` (the client gives its shell tool the same
/// environment) and the real file system for globs.
pub fn guarded_tool_at(
    obj: &Map<String, Value>,
    name_keys: &[&str],
    input_key: &str,
    write: &dyn ToolGuard,
    shell: &dyn ToolGuard,
    cwd: &str,
) -> Option<ToolCall> {
    let home = std::env::var("HOME").ok();
    let at = ShellContext::hook(cwd, home.as_deref());
    payload_tool_at(
        obj,
        name_keys,
        input_key,
        &[(ToolClass::Write, write), (ToolClass::Shell, shell)],
        &at,
    )
}

/// The tool call in `obj` (name under the first of `name_keys`, input under `input_key`),
/// classed by the client's write guard first and its shell guard second, so normalisation
/// reads targets through the very tables the guards use.
pub fn guarded_tool(
    obj: &Map<String, Value>,
    name_keys: &[&str],
    input_key: &str,
    write: &dyn ToolGuard,
    shell: &dyn ToolGuard,
) -> Option<ToolCall> {
    payload_tool(
        obj,
        name_keys,
        input_key,
        &[(ToolClass::Write, write), (ToolClass::Shell, shell)],
    )
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::event::Targets;
    use crate::payload::{ShellTools, WriteTools};

    static WRITE: WriteTools = WriteTools {
        names: &["Write"],
        path_keys: &["file_path"],
    };
    static SHELL: ShellTools = ShellTools {
        names: &["Bash"],
        command_keys: &["command"],
    };

    fn parse(name: &str) -> Option<u8> {
        (name == "Stop").then_some(1)
    }

    #[test]
    fn an_event_is_the_clients_or_refused_as_sent() {
        assert_eq!(known_event(Some("Stop"), parse), Ok(1));
        assert_eq!(
            known_event(Some("stop"), parse),
            Err(NormalizeError::UnknownEvent("stop".into()))
        );
        assert_eq!(
            known_event(None, parse),
            Err(NormalizeError::UnknownEvent(String::new()))
        );
    }

    #[test]
    fn a_tool_event_without_a_tool_is_refused_naming_the_field() {
        let call = ToolCall {
            name: "Write".into(),
            class: ToolClass::Write,
            targets: Targets::None,
            call_id: None,
            writes_only_targets: false,
        };
        assert_eq!(
            required_tool(Some(call.clone()), "tool_name", "PreToolUse"),
            Ok(call)
        );
        assert_eq!(
            required_tool(None, "toolName", "pre_tool_use"),
            Err(NormalizeError::InvalidField {
                field: "toolName",
                reason: "a pre_tool_use payload must name its tool".into(),
            })
        );
    }

    #[test]
    fn tools_are_classed_by_the_clients_guards() {
        let call = |payload: Value| {
            let obj = payload.as_object().unwrap().clone();
            guarded_tool(&obj, &["tool_name", "name"], "input", &WRITE, &SHELL)
                .map(|c| (c.name, c.class, c.targets))
        };
        assert_eq!(
            call(json!({"name": "Write", "input": {"file_path": "a"}})),
            Some((
                "Write".into(),
                ToolClass::Write,
                Targets::Paths(vec!["a".into()])
            ))
        );
        assert_eq!(
            call(json!({"tool_name": "Bash", "input": {"command": "touch b"}})),
            Some((
                "Bash".into(),
                ToolClass::Shell,
                Targets::Paths(vec!["b".into()])
            ))
        );
        assert_eq!(
            call(json!({"tool_name": "Read", "input": {"file_path": "a"}})),
            Some(("Read".into(), ToolClass::Other, Targets::None))
        );
        assert_eq!(call(json!({"tool": "Write"})), None);
    }
}
