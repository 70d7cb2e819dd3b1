//! What acc-hook recorded about itself when `ACC_HOOK_CAPTURE_DIR` was set: one JSON line per
//! invocation, `{adapter, args, payload, kind, refusal, outcome: {stdout, stderr, exitCode}}`.
//!
//! The raw lines go into the bundle (redacted); the judge never depends on them. Fixtures
//! keep only their shape ([`HookFact`]).

use std::fs;
use std::path::Path;

use serde_json::Value;

use crate::record::kit::observations::{HookFact, OutcomeShape, StreamShape};
use crate::record::kit::redact::Redactor;

/// The variable acc-hook reads, and the file it appends to in that directory.
pub const CAPTURE_DIR_VAR: &str = "ACC_HOOK_CAPTURE_DIR";
pub const CAPTURE_FILE: &str = "hooks.jsonl";

/// The capture, when acc-hook wrote one.
#[derive(Debug, Clone, PartialEq)]
pub struct HookCapture {
    /// The JSON lines, redacted, newline-terminated.
    pub raw: String,
    pub facts: Vec<HookFact>,
}

/// Reads `<dir>/hooks.jsonl`. `None` when acc-hook wrote nothing there (a runtime without
/// capture support, or no hook ran at all). A line that is not JSON is kept in the raw
/// text and skipped in the facts.
pub fn read(dir: &Path, redactor: &Redactor) -> Option<HookCapture> {
    let text = fs::read_to_string(dir.join(CAPTURE_FILE)).ok()?;
    let mut raw = String::new();
    let mut facts = Vec::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        match serde_json::from_str::<Value>(line) {
            Ok(value) => {
                let value = redactor.value(&value);
                raw.push_str(&serde_json::to_string(&value).expect("JSON values serialize"));
                facts.push(fact(&value));
            }
            Err(_) => raw.push_str(&redactor.text(line)),
        }
        raw.push('\n');
    }
    Some(HookCapture { raw, facts })
}

/// Turn-end hook invocations acc-hook has recorded in `dir` so far: an observed event a
/// recording can wait on instead of a fixed pause (a line is appended once the hook answered).
pub fn turn_ends(dir: &Path) -> usize {
    fs::read_to_string(dir.join(CAPTURE_FILE))
        .map(|text| {
            text.lines()
                .filter_map(|line| serde_json::from_str::<Value>(line).ok())
                .filter(|line| line["kind"] == acc_sdk::event::EventKind::TurnEnd.as_str())
                .count()
        })
        .unwrap_or(0)
}

/// One line's shape.
pub fn fact(line: &Value) -> HookFact {
    let payload = line.get("payload").filter(|p| p.is_object());
    let field = |names: &[&str]| {
        payload.and_then(|p| {
            names
                .iter()
                .find_map(|n| p.get(*n).and_then(Value::as_str))
                .map(str::to_owned)
        })
    };
    let last_arg = line
        .get("args")
        .and_then(Value::as_array)
        .and_then(|args| args.last())
        .and_then(Value::as_str)
        .map(str::to_owned);
    let mut payload_keys: Vec<String> = payload
        .and_then(Value::as_object)
        .map(|p| p.keys().cloned().collect())
        .unwrap_or_default();
    payload_keys.sort();
    let outcome = line.get("outcome");
    let stream = |name: &str| {
        StreamShape::of(
            outcome
                .and_then(|o| o.get(name))
                .and_then(Value::as_str)
                .unwrap_or_default(),
        )
    };
    let text = |name: &str| line.get(name).and_then(Value::as_str).map(str::to_owned);
    HookFact {
        event: field(&["hook_event_name", "hookEventName"]).or(last_arg),
        kind: text("kind"),
        tool: field(&["tool_name", "toolName"]),
        refusal: text("refusal"),
        payload_keys,
        outcome: OutcomeShape {
            exit_code: outcome
                .and_then(|o| o.get("exitCode"))
                .and_then(Value::as_i64),
            stdout: stream("stdout"),
            stderr: stream("stderr"),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_line_is_reduced_to_names_and_shapes() {
        let line = json!({
            "adapter": "claude-code",
            "args": ["PreToolUse"],
            "payload": {"hook_event_name": "PreToolUse", "tool_name": "Write", "tool_input": {"content": "secret"}, "transcript_path": "/x"},
            "kind": "beforeTool",
            "refusal": null,
            "outcome": {"stdout": "{\"hookSpecificOutput\":{\"permissionDecisionReason\":\"peer text\"}}", "stderr": "", "exitCode": 0}
        });
        let fact = fact(&line);
        assert_eq!(fact.event.as_deref(), Some("PreToolUse"));
        assert_eq!(fact.tool.as_deref(), Some("Write"));
        assert_eq!(fact.kind.as_deref(), Some("beforeTool"));
        assert_eq!(
            fact.payload_keys,
            [
                "hook_event_name",
                "tool_input",
                "tool_name",
                "transcript_path"
            ]
        );
        assert_eq!(
            fact.outcome.stdout,
            StreamShape::Json {
                keys: vec!["hookSpecificOutput".into()]
            }
        );
        assert_eq!(fact.outcome.stderr, StreamShape::Empty);
        assert_eq!(fact.outcome.exit_code, Some(0));
        let text = serde_json::to_string(&fact).unwrap();
        assert!(!text.contains("secret") && !text.contains("peer text") && !text.contains("/x"));
    }

    #[test]
    fn an_unparsed_payload_falls_back_to_the_event_argument() {
        let fact = fact(
            &json!({"adapter": "codex", "args": ["Stop"], "payload": null, "kind": null, "refusal": "payload.invalid", "outcome": {"stdout": "", "stderr": "acc: x", "exitCode": 0}}),
        );
        assert_eq!(fact.event.as_deref(), Some("Stop"));
        assert_eq!(fact.refusal.as_deref(), Some("payload.invalid"));
        assert!(fact.payload_keys.is_empty());
        assert_eq!(fact.outcome.stderr, StreamShape::Text);
    }

    #[test]
    fn the_raw_capture_is_redacted_and_absent_files_read_as_none() {
        let dir = tempfile::tempdir().unwrap();
        let redactor = Redactor::new().path(&dir.path().join("ws"), "<ws>");
        assert!(read(dir.path(), &redactor).is_none());
        let line = json!({"adapter": "codex", "args": ["SessionStart"], "payload": {"cwd": dir.path().join("ws").display().to_string()}, "kind": "sessionStart", "refusal": null, "outcome": {"stdout": "", "stderr": "", "exitCode": 0}});
        fs::write(dir.path().join(CAPTURE_FILE), format!("{line}\nnot json\n")).unwrap();
        let capture = read(dir.path(), &redactor).unwrap();
        assert_eq!(capture.facts.len(), 1);
        assert!(capture.raw.contains("\"cwd\":\"<ws>\""), "{}", capture.raw);
        assert!(capture.raw.ends_with("not json\n"));
    }
}
