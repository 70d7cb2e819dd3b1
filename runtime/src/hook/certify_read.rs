//! A recorder-only read refusal: `acc-certify record`'s `before-read` scenario names one
//! planted file in `ACC_CERTIFY_DENY_READ`, and `beforeTool` refuses a read of it with the
//! adapter's deny outcome, so the capture can tell whether the client honours a refusal
//! before a read happens. acc itself refuses no read: without the variable this never
//! denies.
//!
//! The normalised event names no read target (adapters class only writes and shell
//! commands), and reading a payload field by name would make the runtime know a client's
//! shape. So, as in [`super::authority_guard`], the payload's string values are scanned
//! (bounded) for one that names the file: the whole value is the path, or ends in
//! `/<path>`. A shell command that merely mentions the file is a shell call, never denied
//! here.

use super::call::Call;
use super::hook_env::CERTIFY_DENY_READ_VAR;
use acc_sdk::event::ToolClass;
use serde_json::Value;

/// The deny reason; the recorder's judge looks for it in the tool result.
pub const DENY_READ_REASON: &str = "acc-certify: this file may not be read (before-read scenario)";

/// Strings longer than this are not compared (a path argument is far shorter).
const MAX_PATH_BYTES: usize = 4096;

/// The deny reason when the recorder asked for the read of the tool call's file to be
/// refused, else `None`.
pub fn deny_reason(call: &Call) -> Option<&'static str> {
    let planted = call.settings.env.get(CERTIFY_DENY_READ_VAR)?;
    let tool = call.event.tool.as_ref()?;
    let read_class = !matches!(tool.class, ToolClass::Write | ToolClass::Shell);
    (read_class && names_file(call.payload, planted, 0)).then_some(DENY_READ_REASON)
}

/// Whether a string value of `payload` is `planted` or a path ending in `/planted`.
pub fn names_file(payload: &Value, planted: &str, depth: usize) -> bool {
    if depth > 32 || planted.is_empty() {
        return false;
    }
    match payload {
        Value::String(s) if s.len() <= MAX_PATH_BYTES => {
            s == planted
                || s.strip_suffix(planted)
                    .is_some_and(|head| head.ends_with('/') || head.ends_with('\\'))
        }
        Value::Array(items) => items.iter().any(|i| names_file(i, planted, depth + 1)),
        Value::Object(map) => map.values().any(|i| names_file(i, planted, depth + 1)),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_path_argument_names_the_file_wherever_the_client_puts_it() {
        for payload in [
            json!({"tool_input": {"file_path": "/tmp/ws/secret.txt"}}),
            json!({"toolInput": {"target_file": "secret.txt"}}),
            json!({"args": ["/w/secret.txt"]}),
        ] {
            assert!(names_file(&payload, "secret.txt", 0), "{payload}");
        }
    }

    #[test]
    fn other_files_and_mentions_inside_text_do_not() {
        for payload in [
            json!({"tool_input": {"file_path": "/tmp/ws/open.txt"}}),
            json!({"tool_input": {"file_path": "/tmp/ws/notsecret.txt"}}),
            json!({"command": "cat secret.txt"}),
            json!({"n": 1}),
        ] {
            assert!(!names_file(&payload, "secret.txt", 0), "{payload}");
        }
        assert!(!names_file(&json!("secret.txt"), "", 0));
    }
}
