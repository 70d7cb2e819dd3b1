//! Kimi Code's tools, by guard family. Kimi Code uses Claude Code's tool names, but `Write`
//! (and, per the reference, `Edit`) name the file `path` (seen on 2.1.0). `file_path` is
//! read second, in case a build uses the Claude spelling.

use acc_sdk::envelope;
use acc_sdk::event::ToolCall;
use acc_sdk::payload::{ShellTools, WriteTools};
use serde_json::{Map, Value};

pub static WRITE: WriteTools = WriteTools {
    names: &["Write", "Edit"],
    path_keys: &["path", "file_path"],
};

pub static SHELL: ShellTools = ShellTools {
    names: &["Bash"],
    command_keys: &["command"],
};

pub fn tool_call(obj: &Map<String, Value>, cwd: &str) -> Option<ToolCall> {
    envelope::guarded_tool_at(obj, &["tool_name"], "tool_input", &WRITE, &SHELL, cwd)
        .map(|t| t.with_call_id(acc_sdk::payload::first_text(obj, &["tool_call_id"])))
}
