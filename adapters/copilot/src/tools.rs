//! Copilot CLI's tools, by guard family (1.0.102, as offered to the model and named in
//! hook payloads).
//!
//! Files are written by `create` and `edit` (and, for some models, `str_replace_editor`
//! and `apply_patch`), all naming the file in `path`; a patch that names none is
//! unreadable, so it is refused while a peer's guarded claim is at stake. Shell commands run
//! through `bash`; `write_bash` types `input` into a shell started earlier, so it is a
//! shell command too.

use acc_sdk::envelope;
use acc_sdk::event::ToolCall;
use acc_sdk::payload::{ShellTools, WriteTools};
use serde_json::{Map, Value};

pub static WRITE: WriteTools = WriteTools {
    names: &["create", "edit", "str_replace_editor", "apply_patch"],
    path_keys: &["path"],
};

pub static SHELL: ShellTools = ShellTools {
    names: &["bash", "write_bash"],
    command_keys: &["command", "input"],
};

/// The tool that runs a new command, the one acc may rewrite to run confined.
pub const RUN_SHELL: &str = "bash";

pub fn tool_call(obj: &Map<String, Value>, cwd: &str) -> Option<ToolCall> {
    envelope::guarded_tool_at(obj, &["toolName"], "toolArgs", &WRITE, &SHELL, cwd)
}
