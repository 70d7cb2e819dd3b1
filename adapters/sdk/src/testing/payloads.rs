//! Building payloads for tests, and reading the real payloads copied from captures into
//! `fixtures/payloads/<adapter id>/`.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::adapter::AdapterBehaviour;
use crate::event::{EventKind, NormalizedEvent, Targets, ToolCall, ToolClass};

/// The working directory every capture ran in.
pub const SANDBOX_CWD: &str = "/sandbox/ws";

/// `payload` without `key`.
pub fn without(mut payload: Value, key: &str) -> Value {
    payload
        .as_object_mut()
        .expect("only an object payload has keys to remove")
        .remove(key);
    payload
}

/// `payload` with `key` set to `value`.
pub fn with(mut payload: Value, key: &str, value: Value) -> Value {
    payload[key] = value;
    payload
}

/// An event of `kind` in `session` at [`SANDBOX_CWD`], carrying nothing else: the base a
/// captured payload's expected event is built on.
pub fn in_sandbox(kind: EventKind, session: &str) -> NormalizedEvent {
    NormalizedEvent {
        kind,
        session_id: session.to_owned(),
        cwd: SANDBOX_CWD.to_owned(),
        model: None,
        parent_session_id: None,
        tool: None,
        permission_mode: None,
        end_reason: None,
    }
}

/// A tool call of `name` in `class` that writes `target`.
pub fn tool_call(name: &str, class: ToolClass, target: &str) -> ToolCall {
    ToolCall {
        name: name.to_owned(),
        class,
        targets: Targets::Paths(vec![target.to_owned()]),
        call_id: None,
        writes_only_targets: false,
    }
}

/// One copied payload file and the event each payload in it must normalise to, whole.
#[derive(Debug, Clone, PartialEq)]
pub struct PayloadCase {
    /// Relative to the adapter's payload directory.
    pub file: String,
    pub event: NormalizedEvent,
    /// How many payloads the file holds, when the capture fixed it.
    pub lines: Option<usize>,
}

impl PayloadCase {
    pub fn new(file: impl Into<String>, event: NormalizedEvent) -> Self {
        PayloadCase {
            file: file.into(),
            event,
            lines: None,
        }
    }

    pub fn with_lines(mut self, lines: usize) -> Self {
        self.lines = Some(lines);
        self
    }
}

/// An adapter's directory of real payloads: one JSON payload a line in `.jsonl` files,
/// grouped by run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PayloadFixtures {
    root: PathBuf,
}

impl PayloadFixtures {
    /// `fixtures/payloads/<adapter_id>/` of the repository that holds the crate at
    /// `manifest_dir` (an adapter crate's `CARGO_MANIFEST_DIR`).
    pub fn of(manifest_dir: &str, adapter_id: &str) -> Self {
        PayloadFixtures {
            root: Path::new(manifest_dir)
                .join("../../fixtures/payloads")
                .join(adapter_id),
        }
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Every non-blank line of `rel` as JSON.
    pub fn lines(&self, rel: &str) -> Vec<Value> {
        let path = self.root.join(rel);
        let text =
            std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        text.lines()
            .enumerate()
            .filter(|(_, line)| !line.trim().is_empty())
            .map(|(i, line)| {
                serde_json::from_str(line)
                    .unwrap_or_else(|e| panic!("{rel}:{}: not JSON: {e}", i + 1))
            })
            .collect()
    }

    /// Each payload of `rel` with the event `behaviour` makes of it (the hook command's
    /// arguments empty, as for clients that name the event in the payload). A refusal fails
    /// naming the file.
    pub fn normalised(
        &self,
        behaviour: &dyn AdapterBehaviour,
        rel: &str,
    ) -> Vec<(Value, NormalizedEvent)> {
        self.lines(rel)
            .into_iter()
            .map(|payload| match behaviour.normalize_hook(&payload, &[]) {
                Ok(event) => (payload, event),
                Err(e) => panic!("{rel}: refused: {e}"),
            })
            .collect()
    }

    /// Asserts that every payload of each case's file normalises to exactly the case's
    /// event, naming the file that did not.
    #[track_caller]
    pub fn assert_normalise(&self, behaviour: &dyn AdapterBehaviour, cases: &[PayloadCase]) {
        self.assert_cases(behaviour, cases, None);
    }

    /// Like [`PayloadFixtures::assert_normalise`], for a client whose payloads name each tool
    /// call under `key`: a tool event carries the digest of the payload's id
    /// ([`ToolCall::with_call_id`]), and every tool event's payload names one.
    #[track_caller]
    pub fn assert_normalise_naming_calls(
        &self,
        behaviour: &dyn AdapterBehaviour,
        cases: &[PayloadCase],
        key: &str,
    ) {
        self.assert_cases(behaviour, cases, Some(key));
    }

    #[track_caller]
    fn assert_cases(
        &self,
        behaviour: &dyn AdapterBehaviour,
        cases: &[PayloadCase],
        call_key: Option<&str>,
    ) {
        for case in cases {
            let all = self.normalised(behaviour, &case.file);
            assert!(!all.is_empty(), "{}: no payload", case.file);
            if let Some(lines) = case.lines {
                assert_eq!(all.len(), lines, "{}: payloads", case.file);
            }
            for (payload, event) in all {
                let mut expected = case.event.clone();
                if let Some(key) = call_key
                    && let Some(tool) = expected.tool.take()
                {
                    let id = payload.get(key).and_then(Value::as_str);
                    assert!(id.is_some(), "{}: names no {key}", case.file);
                    let tool = tool.with_call_id(id);
                    assert!(tool.call_id.is_some(), "{}: {key} {id:?}", case.file);
                    expected.tool = Some(tool);
                }
                // Whether a command writes only its targets is the shell reader's judgment
                // (tested with the reader); a fixture names the targets. Only a shell call
                // may be so judged.
                if let (Some(want), Some(got)) = (expected.tool.as_mut(), event.tool.as_ref()) {
                    assert!(
                        !got.writes_only_targets || got.class == ToolClass::Shell,
                        "{}: only a shell call writes only its targets",
                        case.file
                    );
                    want.writes_only_targets = got.writes_only_targets;
                }
                assert_eq!(event, expected, "{}", case.file);
            }
        }
    }

    /// Asserts, for every payload of every case, that the event holds nothing the payload
    /// has under `keys` and none of `texts` (see [`assert_nothing_leaks`]).
    #[track_caller]
    pub fn assert_nothing_leaks_from(
        &self,
        behaviour: &dyn AdapterBehaviour,
        cases: &[PayloadCase],
        keys: &[&str],
        texts: &[&str],
    ) {
        for case in cases {
            for (payload, event) in self.normalised(behaviour, &case.file) {
                assert_nothing_leaks(&case.file, &payload, &event, keys, texts);
            }
        }
    }

    /// Asserts that every copied payload file is one of `cases`, so none goes untested.
    #[track_caller]
    pub fn assert_all_cased(&self, cases: &[PayloadCase]) {
        let listed: Vec<&str> = cases.iter().map(|c| c.file.as_str()).collect();
        self.assert_all_listed(&listed);
    }

    /// Every `.jsonl` file below the root, relative to it, sorted.
    pub fn files(&self) -> Vec<String> {
        let mut out: Vec<String> = walk(&self.root)
            .into_iter()
            .filter(|path| path.extension().is_some_and(|e| e == "jsonl"))
            .map(|path| {
                path.strip_prefix(&self.root)
                    .expect("walked below the root")
                    .to_string_lossy()
                    .into_owned()
            })
            .collect();
        out.sort();
        out
    }

    /// Asserts that every copied payload file is in `listed`, so none goes untested.
    #[track_caller]
    pub fn assert_all_listed<S: AsRef<str>>(&self, listed: &[S]) {
        let files = self.files();
        assert!(
            !files.is_empty(),
            "no payload under {}",
            self.root.display()
        );
        for rel in files {
            assert!(
                listed.iter().any(|l| l.as_ref() == rel),
                "{rel} is not in the table"
            );
        }
    }
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    for entry in entries {
        let path = entry.expect("a readable directory entry").path();
        if path.is_dir() {
            out.extend(walk(&path));
        } else {
            out.push(path);
        }
    }
    out
}

/// Asserts that the event, as debug text and as JSON, holds none of the string values
/// `payload` has under `keys` and none of `texts`: the normaliser whitelists, never copies.
#[track_caller]
pub fn assert_nothing_leaks(
    what: &str,
    payload: &Value,
    event: &NormalizedEvent,
    keys: &[&str],
    texts: &[&str],
) {
    let shown = format!(
        "{event:?}\n{}",
        serde_json::to_string(event).expect("an event serialises")
    );
    for key in keys {
        if let Some(value) = payload.get(key).and_then(Value::as_str) {
            assert!(!shown.contains(value), "{what}: {key} leaked into {shown}");
        }
    }
    for text in texts {
        assert!(!shown.contains(text), "{what}: {text} leaked into {shown}");
    }
}

/// What marks a payload field a normaliser must drop: a string holding `<NAME>-MARK`.
pub const MARK_SUFFIX: &str = "-MARK";

/// Asserts that no mark (`PROMPT-MARK`, `TRANSCRIPT-MARK`, ...) anywhere in `payload`
/// shows in the event, so a test lists each whitelisted-out field once, in its payload.
#[track_caller]
pub fn assert_marks_dropped(payload: &Value, event: &NormalizedEvent) {
    let mut marks = Vec::new();
    collect_marks(payload, &mut marks);
    assert!(!marks.is_empty(), "the payload carries no mark: {payload}");
    let texts: Vec<&str> = marks.iter().map(String::as_str).collect();
    assert_nothing_leaks("the whitelist", payload, event, &[], &texts);
}

fn collect_marks(value: &Value, marks: &mut Vec<String>) {
    match value {
        Value::String(text) => marks.extend(
            text.split(|c: char| !(c.is_ascii_uppercase() || c == '-'))
                .filter(|word| word.len() > MARK_SUFFIX.len() && word.ends_with(MARK_SUFFIX))
                .map(str::to_owned),
        ),
        Value::Array(items) => items.iter().for_each(|v| collect_marks(v, marks)),
        Value::Object(fields) => fields.values().for_each(|v| collect_marks(v, marks)),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn marks_are_found_wherever_they_sit_in_a_string() {
        let payload = json!({
            "a": "/secret/TRANSCRIPT-MARK.jsonl",
            "b": ["<q>PROMPT-MARK</q> and more", {"c": "x FUTURE-MARK"}],
            "d": "not-a-mark -MARK MARK",
            "e": 1
        });
        let mut marks = Vec::new();
        collect_marks(&payload, &mut marks);
        assert_eq!(marks, ["TRANSCRIPT-MARK", "PROMPT-MARK", "FUTURE-MARK"]);
    }

    #[test]
    #[should_panic(expected = "PROMPT-MARK leaked")]
    fn a_mark_in_the_event_fails() {
        let payload = json!({"prompt": "PROMPT-MARK"});
        let mut event = crate::testing::outcomes::event(EventKind::BeforeTurn);
        event.model = Some("PROMPT-MARK".into());
        assert_marks_dropped(&payload, &event);
    }

    #[test]
    fn an_event_without_marks_passes() {
        let payload = json!({"prompt": "PROMPT-MARK", "session_id": "s-1"});
        let event = crate::testing::outcomes::event(EventKind::BeforeTurn);
        assert_marks_dropped(&payload, &event);
    }
}
