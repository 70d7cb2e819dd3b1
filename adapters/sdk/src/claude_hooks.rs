//! Building blocks for clients whose hooks take Claude Code's shape: command hooks as
//! matcher groups under `hooks.<Event>` in a `settings.json` (merged with
//! [`crate::install_layout::MergedJsonHooks`], the user's bytes kept), snake_case payloads
//! (`hook_event_name`, `session_id`, `cwd`, `tool_name`, `tool_input`, `agent_id`), and the
//! `hookSpecificOutput` envelope for answers. Claude Code and Qwen Code (a Gemini CLI
//! descendant that adopted this shape) use them; an adapter keeps only its event table,
//! its tool names, where its settings live and what else it must refuse.

use serde_json::{Map, Value};

use crate::event::{EventKind, NormalizeError, NormalizedEvent, ToolCall};
use crate::install_layout::HookSpec;
use crate::outcome::HookOutcome;
use crate::{envelope, payload};

/// Command-hook timeouts are in seconds.
pub const TIMEOUT_SECONDS: u64 = 10;

/// The `notification_type` of the notification sent once a prompt has sat idle; the
/// `Notification` matcher is matched exactly against this field.
pub const IDLE_NOTIFICATION: &str = "idle_prompt";

/// acc's handlers, in install order. `write_tools` is the pre- and post-tool matcher (a
/// regular expression over the client's tool names): every tool that writes a file or runs
/// a shell.
pub const fn hooks(write_tools: &'static str) -> [HookSpec; 9] {
    [
        HookSpec::new("SessionStart", TIMEOUT_SECONDS),
        HookSpec::new("UserPromptSubmit", TIMEOUT_SECONDS),
        HookSpec::new("PreToolUse", TIMEOUT_SECONDS).matching(write_tools),
        // After a shell call: did it change a peer's claimed files anyway?
        HookSpec::new("PostToolUse", TIMEOUT_SECONDS).matching(write_tools),
        HookSpec::new("Stop", TIMEOUT_SECONDS),
        HookSpec::new("SessionEnd", TIMEOUT_SECONDS),
        // A subagent as a child session of the conversation that ran it.
        HookSpec::new("SubagentStart", TIMEOUT_SECONDS),
        HookSpec::new("SubagentStop", TIMEOUT_SECONDS),
        // The prompt sat idle: the only hook these clients run between turns, acc's
        // heartbeat. Limited to that type so a permission prompt never waits on acc.
        HookSpec::new("Notification", TIMEOUT_SECONDS).matching(IDLE_NOTIFICATION),
    ]
}

/// Refuses a tool call: `permissionDecision: "deny"` with `reason` (exit 0).
pub fn deny(reason: &str) -> HookOutcome {
    payload::permission_deny(reason)
}

/// Context goes out as `additionalContext` only on the events that carry it to the model
/// (`SessionStart`, `UserPromptSubmit`, and `PostToolUse` for the safe-point candidate,
/// which the runtime sends only where the grant is present); anywhere else nothing is
/// printed.
pub fn inject(event: &NormalizedEvent, text: &str) -> HookOutcome {
    match event.kind {
        EventKind::SessionStart => payload::additional_context("SessionStart", text),
        EventKind::BeforeTurn => payload::additional_context("UserPromptSubmit", text),
        EventKind::AfterTool => payload::additional_context("PostToolUse", text),
        _ => HookOutcome::silent(),
    }
}

/// The installer of a Claude-shaped client: a unit struct implementing
/// [`crate::install_layout::HookFileClient`] with [`hooks`] merged into
/// `<dir>/settings.json` by [`crate::install_layout::MergedJsonHooks`] (the user's bytes
/// kept, install idempotent, uninstall restoring them) and the skill tree beside it, where
/// `<dir>` is the absolute directory in `$VAR` when set and `~/<default>` otherwise.
///
/// ```ignore
/// acc_sdk::claude_shaped_install! {
///     /// acc's handlers merged into `settings.json`, and the skill tree beside it.
///     pub struct Install {
///         adapter: crate::ID,
///         command: "qwen",
///         write_tools: WRITE_TOOLS,
///         dir: ("QWEN_HOME", ".qwen"),
///     }
/// }
/// ```
#[macro_export]
macro_rules! claude_shaped_install {
    (
        $(#[$meta:meta])*
        $vis:vis struct $name:ident {
            adapter: $id:expr,
            command: $command:expr,
            write_tools: $tools:expr,
            dir: ($var:expr, $default:expr) $(,)?
        }
    ) => {
        $(#[$meta])*
        $vis struct $name;

        impl $crate::install_layout::HookFileClient for $name {
            const ADAPTER_ID: &'static str = $id;
            const COMMAND: &'static str = $command;
            const HOOKS: &'static [$crate::install_layout::HookSpec] =
                &$crate::claude_hooks::hooks($tools);
            const WIRING: &'static dyn $crate::install_layout::HookWiring =
                &$crate::install_layout::MergedJsonHooks;

            fn layout(
                &self,
                ctx: &$crate::install::InstallContext,
            ) -> $crate::install_layout::HookFileLayout {
                let dir = ctx.dir_from_env($var, $default);
                $crate::install_layout::HookFileLayout::in_dir(&dir, "settings.json")
            }
        }
    };
}

/// What the shared normaliser needs of a client's event table (`client_events!` gives it).
pub trait HookEvent: Copy {
    fn name(self) -> &'static str;
    fn kind(self) -> EventKind;
    fn has_tool(self) -> bool;
}

/// The kind of `event` given its payload. An idle-prompt notification is the session's
/// heartbeat; every other notification (a permission prompt, an auth result) says nothing
/// about presence.
pub fn kind_of<E: HookEvent>(event: E, obj: &Map<String, Value>) -> EventKind {
    let idle = event.name() == "Notification"
        && obj.get("notification_type").and_then(Value::as_str) == Some(IDLE_NOTIFICATION);
    if idle {
        EventKind::Heartbeat
    } else {
        event.kind()
    }
}

/// A client's parts of the payload: its event names and its tools.
pub struct PayloadShape<E> {
    pub parse: fn(&str) -> Option<E>,
    /// The guarded tool call a tool event's payload names, if any (`obj`, `cwd`).
    pub tool_call: fn(&Map<String, Value>, &str) -> Option<ToolCall>,
}

/// A Claude-shaped payload -> normalised event. Reads only: `hook_event_name`,
/// `session_id`, `cwd`, `model`, `permission_mode`, `agent_id`, `reason` on `SessionEnd`,
/// `notification_type` on `Notification`, and `tool_name` with the target fields of
/// `tool_input`. The prompt and the tool's response are never read.
pub fn normalize<E: HookEvent>(
    obj: &Map<String, Value>,
    shape: &PayloadShape<E>,
) -> Result<NormalizedEvent, NormalizeError> {
    let event = envelope::known_event(payload::text(obj, "hook_event_name"), shape.parse)?;
    let session_id = payload::session_id(obj, &["session_id"])?;
    let cwd = payload::cwd(obj, &["cwd"])?;
    let tool = event
        .has_tool()
        .then(|| envelope::required_tool((shape.tool_call)(obj, &cwd), "tool_name", event.name()))
        .transpose()?;
    // A subagent's hooks carry the parent conversation's session id plus an `agent_id`: the
    // subagent is its own conversation, child of the parent's.
    let (session_id, parent_session_id) = match payload::text(obj, "agent_id") {
        Some(agent) => (child_session_id(&session_id, agent)?, Some(session_id)),
        None => (session_id, None),
    };
    Ok(NormalizedEvent {
        kind: kind_of(event, obj),
        session_id,
        cwd,
        model: payload::optional_text(obj, &["model"]),
        parent_session_id,
        tool,
        permission_mode: payload::optional_text(obj, &["permission_mode"]),
        end_reason: (event.name() == "SessionEnd")
            .then(|| payload::optional_text(obj, &["reason"]))
            .flatten(),
    })
}

/// The conversation id of subagent `agent` of conversation `parent`. Ids with control
/// characters, or too long together, are refused like any session id.
fn child_session_id(parent: &str, agent: &str) -> Result<String, NormalizeError> {
    let mut obj = Map::new();
    obj.insert(
        "session_id".into(),
        Value::String(format!("{parent}/subagent/{agent}")),
    );
    payload::session_id(&obj, &["session_id"])
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    crate::client_events! {
        enum Sample {
            SessionEnd => SessionEnd,
            Notification => Other,
            PreToolUse => BeforeTool [tool],
        }
    }

    const SHAPE: PayloadShape<Sample> = PayloadShape {
        parse: Sample::parse,
        tool_call: |_, _| None,
    };

    fn of(v: Value) -> Map<String, Value> {
        v.as_object().unwrap().clone()
    }

    #[test]
    fn the_table_is_the_lifecycle_with_write_tools_and_the_idle_prompt() {
        let hooks = hooks("Write|Bash");
        let events: Vec<&str> = hooks.iter().map(|h| h.event).collect();
        assert_eq!(
            events,
            [
                "SessionStart",
                "UserPromptSubmit",
                "PreToolUse",
                "PostToolUse",
                "Stop",
                "SessionEnd",
                "SubagentStart",
                "SubagentStop",
                "Notification"
            ]
        );
        let matchers: Vec<Option<&str>> = hooks.iter().map(|h| h.matcher).collect();
        assert_eq!(matchers[2..4], [Some("Write|Bash"); 2]);
        assert_eq!(matchers[8], Some(IDLE_NOTIFICATION));
        assert!(hooks.iter().all(|h| h.timeout == 10));
    }

    #[test]
    fn only_an_idle_prompt_notification_is_a_heartbeat() {
        let idle = of(json!({"notification_type": "idle_prompt"}));
        let other = of(json!({"notification_type": "permission_prompt"}));
        assert_eq!(kind_of(Sample::Notification, &idle), EventKind::Heartbeat);
        assert_eq!(kind_of(Sample::Notification, &other), EventKind::Other);
        assert_eq!(kind_of(Sample::SessionEnd, &idle), EventKind::SessionEnd);
    }

    #[test]
    fn a_subagent_is_a_child_and_the_end_reason_is_read_on_session_end_only() {
        let end = of(
            json!({"hook_event_name": "SessionEnd", "session_id": "s", "cwd": "/w",
            "agent_id": "a1", "reason": "clear"}),
        );
        let e = normalize(&end, &SHAPE).unwrap();
        assert_eq!(e.session_id, "s/subagent/a1");
        assert_eq!(e.parent_session_id.as_deref(), Some("s"));
        assert_eq!(e.end_reason.as_deref(), Some("clear"));
        let note = of(
            json!({"hook_event_name": "Notification", "session_id": "s", "cwd": "/w",
            "reason": "x"}),
        );
        assert_eq!(normalize(&note, &SHAPE).unwrap().end_reason, None);
    }

    #[test]
    fn a_tool_event_without_a_guarded_tool_and_an_unknown_event_are_refused() {
        let tool = of(
            json!({"hook_event_name": "PreToolUse", "session_id": "s", "cwd": "/w",
            "tool_name": "x", "tool_input": {}}),
        );
        assert!(normalize(&tool, &SHAPE).is_err());
        let unknown = of(json!({"hook_event_name": "BeforeTool", "session_id": "s", "cwd": "/w"}));
        assert!(matches!(
            normalize(&unknown, &SHAPE),
            Err(NormalizeError::UnknownEvent(_))
        ));
    }
}
