//! Example CLI's tools, by guard family. Replace with the tool names and input keys the
//! client really sends.

use acc_sdk::envelope;
use acc_sdk::event::ToolCall;
use acc_sdk::payload::{ShellTools, WriteTools};
use serde_json::{Map, Value};

pub static WRITE: WriteTools = WriteTools {
    names: &["Write", "Edit"],
    path_keys: &["file_path"],
};

pub static SHELL: ShellTools = ShellTools {
    names: &["Bash"],
    command_keys: &["command"],
};

pub fn tool_call(obj: &Map<String, Value>, cwd: &str) -> Option<ToolCall> {
    envelope::guarded_tool_at(obj, &["tool_name"], "tool_input", &WRITE, &SHELL, cwd)
}
