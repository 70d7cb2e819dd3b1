//! Codex's tools, by guard family.
//!
//! Codex reports `exec_command` to hooks as `Bash` and keeps `apply_patch` by name; both put
//! their text in `tool_input.command` (0.171.0). A patch is a write wherever it arrives: as
//! `apply_patch`, or as a `Bash` command whose text is a patch body.

use acc_sdk::adapter::ToolGuard;
use acc_sdk::envelope;
use acc_sdk::event::{Targets, ToolCall};
use acc_sdk::payload;
use acc_sdk::shell_targets::ShellContext;
use serde_json::{Map, Value};

const PATCH_TOOLS: [&str; 1] = ["apply_patch"];
const SHELL_TOOLS: [&str; 2] = ["Bash", "shell"];
/// Where a tool's text may sit in `tool_input`, first match wins.
const BODY_KEYS: [&str; 3] = ["command", "patch", "input"];
const PATCH_START: &str = "*** Begin Patch";

/// The text a tool runs or applies. Freeform tools may hand over a bare string.
fn body(input: &Value) -> Option<String> {
    match input {
        Value::String(_) => payload::command_text(input),
        _ => payload::tool_command(input, &BODY_KEYS),
    }
}

fn is_patch(body: Option<&str>) -> bool {
    body.is_some_and(|b| b.trim_start().starts_with(PATCH_START))
}

/// `apply_patch`, and shell calls whose command is a patch body.
#[derive(Debug, Clone, Copy)]
pub struct PatchWrites;

impl ToolGuard for PatchWrites {
    fn targets(&self, tool_name: &str, tool_input: &Value) -> Option<Targets> {
        let body = body(tool_input);
        let patch = PATCH_TOOLS.contains(&tool_name)
            || (SHELL_TOOLS.contains(&tool_name) && is_patch(body.as_deref()));
        patch.then(|| payload::patch_targets(body.as_deref()))
    }
}

/// Shell calls that are not patch bodies.
#[derive(Debug, Clone, Copy)]
pub struct ShellCommands;

impl ToolGuard for ShellCommands {
    fn targets(&self, tool_name: &str, tool_input: &Value) -> Option<Targets> {
        self.targets_at(tool_name, tool_input, &ShellContext::DETACHED)
    }

    fn targets_at(
        &self,
        tool_name: &str,
        tool_input: &Value,
        at: &ShellContext<'_>,
    ) -> Option<Targets> {
        let body = body(tool_input);
        (SHELL_TOOLS.contains(&tool_name) && !is_patch(body.as_deref()))
            .then(|| payload::shell_targets_at(body.as_deref(), at))
    }
}

pub static WRITE: PatchWrites = PatchWrites;
pub static SHELL: ShellCommands = ShellCommands;

pub fn tool_call(obj: &Map<String, Value>, cwd: &str) -> Option<ToolCall> {
    envelope::guarded_tool_at(
        obj,
        &["tool_name", "toolName", "tool"],
        "tool_input",
        &WRITE,
        &SHELL,
        cwd,
    )
    .map(|t| t.with_call_id(acc_sdk::payload::first_text(obj, &["tool_use_id"])))
}
