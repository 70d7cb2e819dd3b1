//! Claude Code's tools, by guard family. Normalisation and the guards read targets through
//! the same tables, so what the guard checks is what the event says.

use acc_sdk::envelope;
use acc_sdk::event::ToolCall;
use acc_sdk::payload::{ShellTools, WriteTools};
use serde_json::{Map, Value};

/// File-writing tools. `NotebookEdit` names its file `notebook_path`.
pub static WRITE: WriteTools = WriteTools {
    names: &["Write", "Edit", "MultiEdit", "NotebookEdit"],
    path_keys: &["file_path", "notebook_path"],
};

pub static SHELL: ShellTools = ShellTools {
    names: &["Bash"],
    command_keys: &["command"],
};

/// The tool call a tool event's payload names, if any.
pub fn tool_call(obj: &Map<String, Value>, cwd: &str) -> Option<ToolCall> {
    envelope::guarded_tool_at(obj, &["tool_name"], "tool_input", &WRITE, &SHELL, cwd)
        .map(|t| t.with_call_id(acc_sdk::payload::first_text(obj, &["tool_use_id"])))
}
