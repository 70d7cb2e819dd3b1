//! What a logged request tells a recorder: the tool results the client sent back and every
//! text the model was shown. Pure functions over the logged JSON body.

use serde_json::Value;

/// A tool result as the client reported it to the model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolResult {
    /// The id that ties the result to the tool call (Claude `tool_use_id`, Codex `call_id`,
    /// Gemini `functionResponse.id`, falling back to the function name).
    pub call_id: String,
    /// The result text the model reads.
    pub text: String,
    /// Whether the client marked the result as an error (see each protocol for how).
    pub is_error: bool,
}

/// Collects text for [`model_visible_text`]-style searches: one piece per line.
#[derive(Debug, Default)]
pub(crate) struct TextSink {
    pieces: Vec<String>,
}

impl TextSink {
    pub fn push(&mut self, text: &str) {
        if !text.is_empty() {
            self.pieces.push(text.to_owned());
        }
    }

    /// A string is pushed as is; anything else as its compact JSON (tool arguments).
    pub fn push_value(&mut self, value: &Value) {
        match value {
            Value::Null => {}
            Value::String(text) => self.push(text),
            other => self.push(&other.to_string()),
        }
    }

    pub fn finish(self) -> String {
        self.pieces.join("\n")
    }
}

/// The text of a content value that is either a string or a list of `{type, text}` blocks.
pub(crate) fn text_of_content(content: &Value) -> String {
    match content {
        Value::String(text) => text.clone(),
        Value::Array(blocks) => blocks
            .iter()
            .filter_map(|block| match block {
                Value::String(text) => Some(text.as_str()),
                _ => block.get("text").and_then(Value::as_str),
            })
            .collect::<Vec<_>>()
            .join("\n"),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

pub(crate) fn str_field<'a>(value: &'a Value, key: &str) -> &'a str {
    value.get(key).and_then(Value::as_str).unwrap_or_default()
}

pub(crate) fn array_field<'a>(value: &'a Value, key: &str) -> &'a [Value] {
    value
        .get(key)
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn content_text_accepts_strings_and_block_lists() {
        assert_eq!(text_of_content(&json!("plain")), "plain");
        assert_eq!(
            text_of_content(
                &json!([{"type": "text", "text": "a"}, {"type": "image"}, {"type": "input_text", "text": "b"}])
            ),
            "a\nb"
        );
        assert_eq!(text_of_content(&Value::Null), "");
    }

    #[test]
    fn the_sink_skips_empty_pieces_and_serializes_structures() {
        let mut sink = TextSink::default();
        sink.push("one");
        sink.push("");
        sink.push_value(&json!({"cmd": "ls"}));
        sink.push_value(&Value::Null);
        assert_eq!(sink.finish(), "one\n{\"cmd\":\"ls\"}");
    }
}
