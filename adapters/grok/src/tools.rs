//! Grok's tools, by guard family (0.2.111 offers `write` and `search_replace` for files and
//! `run_terminal_command` for the shell; Claude-style names are only matcher aliases and
//! never appear in payloads).

use acc_sdk::envelope;
use acc_sdk::event::ToolCall;
use acc_sdk::payload::{ShellTools, WriteTools};
use serde_json::{Map, Value};

pub static WRITE: WriteTools = WriteTools {
    names: &["write", "search_replace"],
    path_keys: &["file_path"],
};

pub static SHELL: ShellTools = ShellTools {
    names: &["run_terminal_command"],
    command_keys: &["command"],
};

pub fn tool_call(obj: &Map<String, Value>, cwd: &str) -> Option<ToolCall> {
    envelope::guarded_tool_at(obj, &["toolName"], "toolInput", &WRITE, &SHELL, cwd)
}
