//! Server-sent events: writing them for the doubles and reading them back in tests and tools.

use serde_json::Value;

/// Appends `event: <name>\ndata: <json>\n\n`.
pub fn push_named(out: &mut String, name: &str, data: &Value) {
    out.push_str("event: ");
    out.push_str(name);
    out.push_str("\ndata: ");
    out.push_str(&data.to_string());
    out.push_str("\n\n");
}

/// Appends `data: <json>\r\n\r\n`, the framing the Gemini API uses.
pub fn push_data_crlf(out: &mut String, data: &Value) {
    out.push_str("data: ");
    out.push_str(&data.to_string());
    out.push_str("\r\n\r\n");
}

/// One parsed event: its `event:` name (if any) and its `data:` parsed as JSON (or text).
#[derive(Debug, Clone, PartialEq)]
pub struct SseEvent {
    pub name: Option<String>,
    pub data: Value,
}

/// Parses an event stream body; accepts `\n` and `\r\n` line endings.
pub fn parse(body: &str) -> Vec<SseEvent> {
    let normalized = body.replace("\r\n", "\n");
    normalized
        .split("\n\n")
        .filter(|block| !block.trim().is_empty())
        .map(|block| {
            let mut name = None;
            let mut data = Vec::new();
            for line in block.lines() {
                if let Some(rest) = line.strip_prefix("event:") {
                    name = Some(rest.trim().to_owned());
                } else if let Some(rest) = line.strip_prefix("data:") {
                    data.push(rest.strip_prefix(' ').unwrap_or(rest));
                }
            }
            let data = data.join("\n");
            let data = serde_json::from_str(&data).unwrap_or(Value::String(data));
            SseEvent { name, data }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn written_events_parse_back() {
        let mut body = String::new();
        push_named(&mut body, "ping", &json!({"type": "ping"}));
        push_data_crlf(&mut body, &json!({"a": [1, 2]}));
        let events = parse(&body);
        assert_eq!(
            events,
            vec![
                SseEvent {
                    name: Some("ping".into()),
                    data: json!({"type": "ping"})
                },
                SseEvent {
                    name: None,
                    data: json!({"a": [1, 2]})
                },
            ]
        );
    }

    #[test]
    fn non_json_data_is_kept_as_text() {
        let events = parse("data: [DONE]\n\n");
        assert_eq!(events[0].data, json!("[DONE]"));
    }
}
