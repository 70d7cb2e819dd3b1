//! Gemini CLI's tools, by guard family (tool names as 0.61.0 offers them to the model).

use acc_sdk::envelope;
use acc_sdk::event::ToolCall;
use acc_sdk::payload::{ShellTools, WriteTools};
use serde_json::{Map, Value};

/// `replace` edits a file in place; `write_file` creates or overwrites one.
pub static WRITE: WriteTools = WriteTools {
    names: &["write_file", "replace"],
    path_keys: &["file_path"],
};

pub static SHELL: ShellTools = ShellTools {
    names: &["run_shell_command"],
    command_keys: &["command"],
};

pub fn tool_call(obj: &Map<String, Value>, cwd: &str) -> Option<ToolCall> {
    envelope::guarded_tool_at(obj, &["tool_name"], "tool_input", &WRITE, &SHELL, cwd)
}
