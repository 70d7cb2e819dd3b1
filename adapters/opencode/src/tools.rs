//! OpenCode's tools, by guard family (tool names and argument keys as 1.18.33 offers them
//! to the model and hands them to a plugin's `tool.execute.before`).
//!
//! `write` and `edit` name their file in `filePath`; `apply_patch` (offered instead of
//! both to some models) carries a whole patch in `patchText`, in the grammar Codex's tool
//! uses; `bash` runs `command` in `workdir` when the call gives one.

use acc_sdk::adapter::ToolGuard;
use acc_sdk::envelope;
use acc_sdk::event::{Targets, ToolCall};
use acc_sdk::payload::{self, ShellTools, WriteTools};
use acc_sdk::shell_targets::ShellContext;
use serde_json::{Map, Value};

const FILE_WRITES: WriteTools = WriteTools {
    names: &["write", "edit"],
    path_keys: &["filePath"],
};

const PATCH_TOOL: &str = "apply_patch";
const PATCH_KEY: &str = "patchText";

/// The shell tool and its command key, as the rewrite names them.
pub const SHELL_TOOLS: ShellTools = ShellTools {
    names: &["bash"],
    command_keys: &["command"],
};

/// The key naming the directory a `bash` call runs in.
const WORKDIR_KEY: &str = "workdir";

/// `write`, `edit` and `apply_patch`.
#[derive(Debug, Clone, Copy)]
pub struct Writes;

impl ToolGuard for Writes {
    fn targets(&self, tool_name: &str, tool_input: &Value) -> Option<Targets> {
        if tool_name == PATCH_TOOL {
            return Some(payload::patch_targets(
                tool_input.get(PATCH_KEY).and_then(Value::as_str),
            ));
        }
        FILE_WRITES.targets(tool_name, tool_input)
    }
}

/// `bash`, read as the shell runs it: a call with a `workdir` is read as `cd` into it
/// first, so its relative targets are the directory's, not the session's.
#[derive(Debug, Clone, Copy)]
pub struct Shell;

impl ToolGuard for Shell {
    fn targets(&self, tool_name: &str, tool_input: &Value) -> Option<Targets> {
        self.targets_at(tool_name, tool_input, &ShellContext::DETACHED)
    }

    fn targets_at(
        &self,
        tool_name: &str,
        tool_input: &Value,
        at: &ShellContext<'_>,
    ) -> Option<Targets> {
        self.reading_at(tool_name, tool_input, at).map(|(t, _)| t)
    }

    fn reading_at(
        &self,
        tool_name: &str,
        tool_input: &Value,
        at: &ShellContext<'_>,
    ) -> Option<(Targets, bool)> {
        if !SHELL_TOOLS.names.contains(&tool_name) {
            return None;
        }
        let command = payload::tool_command(tool_input, SHELL_TOOLS.command_keys);
        let read = match (tool_input.get(WORKDIR_KEY), command) {
            (None | Some(Value::Null), command) => command,
            (Some(Value::String(dir)), Some(command)) if !dir.is_empty() => {
                Some(format!("cd {} && {command}", quote(dir)))
            }
            (Some(Value::String(dir)), command) if dir.is_empty() => command,
            // A workdir that is not a string cannot be read, so neither can the call.
            (Some(_), _) => None,
        };
        Some(payload::shell_reading_at(read.as_deref(), at))
    }
}

/// One word for the shell, single-quoted.
fn quote(word: &str) -> String {
    format!("'{}'", word.replace('\'', r"'\''"))
}

pub static WRITE: Writes = Writes;
pub static SHELL: Shell = Shell;

pub fn tool_call(obj: &Map<String, Value>, cwd: &str) -> Option<ToolCall> {
    envelope::guarded_tool_at(obj, &["tool_name"], "tool_input", &WRITE, &SHELL, cwd)
        .map(|t| t.with_call_id(payload::first_text(obj, &["call_id"])))
}
