//! Gemini CLI's tools, by guard family (tool names as 0.61.0 offers them to the model).

use acc_sdk::adapter::ToolGuard;
use acc_sdk::event::{ToolCall, ToolClass};
use acc_sdk::payload::{ShellTools, WriteTools, payload_tool};
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

pub fn tool_call(obj: &Map<String, Value>) -> Option<ToolCall> {
    let families: [(ToolClass, &dyn ToolGuard); 2] =
        [(ToolClass::Write, &WRITE), (ToolClass::Shell, &SHELL)];
    payload_tool(obj, &["tool_name"], "tool_input", &families)
}
