//! Qwen Code's tools, by guard family (tool names as 0.24.4 offers them to the model, the
//! bundle's `ToolNames`). Normalisation and the guards read targets through the same tables.

use acc_sdk::envelope;
use acc_sdk::event::ToolCall;
use acc_sdk::payload::{ShellTools, WriteTools};
use serde_json::{Map, Value};

/// `write_file` creates or overwrites, `edit` replaces in place, `notebook_edit` edits a
/// notebook's cells.
pub static WRITE: WriteTools = WriteTools {
    names: &["write_file", "edit", "notebook_edit"],
    path_keys: &["file_path", "notebook_path"],
};

pub static SHELL: ShellTools = ShellTools {
    names: &["run_shell_command"],
    command_keys: &["command"],
};

/// The tool call a tool event's payload names, if any.
pub fn tool_call(obj: &Map<String, Value>, cwd: &str) -> Option<ToolCall> {
    envelope::guarded_tool_at(obj, &["tool_name"], "tool_input", &WRITE, &SHELL, cwd)
        .map(|t| t.with_call_id(acc_sdk::payload::first_text(obj, &["tool_use_id"])))
}
