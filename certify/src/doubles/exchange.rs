//! The protocol-neutral request a double sees and the reply it gives, so that every protocol
//! is a pure function that can be tested without a socket.

use serde_json::Value;

/// One HTTP request as a double sees it: the body already parsed as JSON when it is JSON.
#[derive(Debug, Clone, PartialEq)]
pub struct DoubleRequest {
    pub method: String,
    /// The path without the query string.
    pub path: String,
    /// The raw query string without `?`, if there was one.
    pub query: Option<String>,
    /// Header names as the client sent them, in order.
    pub headers: Vec<(String, String)>,
    /// `Null` for an empty body, the JSON value when the body parses, else the text (lossy).
    pub body: Value,
}

impl DoubleRequest {
    /// A POST with a JSON body; handy for the pure protocol functions and their tests.
    pub fn post(path_and_query: &str, body: Value) -> DoubleRequest {
        let (path, query) = split_target(path_and_query);
        DoubleRequest {
            method: "POST".to_owned(),
            path,
            query,
            headers: Vec::new(),
            body,
        }
    }

    pub fn get(path_and_query: &str) -> DoubleRequest {
        let (path, query) = split_target(path_and_query);
        DoubleRequest {
            method: "GET".to_owned(),
            path,
            query,
            headers: Vec::new(),
            body: Value::Null,
        }
    }

    /// The first header of that name, compared without case.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(key, _)| key.eq_ignore_ascii_case(name))
            .map(|(_, value)| value.as_str())
    }

    pub fn is_read_only(&self) -> bool {
        self.method == "GET" || self.method == "HEAD"
    }
}

/// Splits a request target into path and query.
pub fn split_target(target: &str) -> (String, Option<String>) {
    match target.split_once('?') {
        Some((path, query)) => (path.to_owned(), Some(query.to_owned())),
        None => (target.to_owned(), None),
    }
}

/// Parses a request body the way the log keeps it.
pub fn parse_body(bytes: &[u8]) -> Value {
    if bytes.is_empty() {
        return Value::Null;
    }
    serde_json::from_slice(bytes)
        .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(bytes).into_owned()))
}

/// What a double answers: the HTTP response and a short label for the request log.
#[derive(Debug, Clone, PartialEq)]
pub struct Reply {
    pub status: u16,
    pub content_type: String,
    pub body: Vec<u8>,
    /// What the double decided, e.g. `tool_use:Write step=0` or `final_text`; logged.
    pub answered: String,
}

pub const SSE_CONTENT_TYPE: &str = "text/event-stream; charset=utf-8";

impl Reply {
    pub fn json(status: u16, value: &Value, answered: impl Into<String>) -> Reply {
        Reply {
            status,
            content_type: "application/json".to_owned(),
            body: serde_json::to_vec(value).expect("a JSON value always serializes"),
            answered: answered.into(),
        }
    }

    pub fn event_stream(body: String, answered: impl Into<String>) -> Reply {
        Reply {
            status: 200,
            content_type: SSE_CONTENT_TYPE.to_owned(),
            body: body.into_bytes(),
            answered: answered.into(),
        }
    }

    /// The body as text (tests and diagnostics).
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn bodies_parse_as_json_or_fall_back_to_text() {
        assert_eq!(parse_body(b""), Value::Null);
        assert_eq!(parse_body(br#"{"a":1}"#), json!({"a": 1}));
        assert_eq!(parse_body(b"not json"), json!("not json"));
    }

    #[test]
    fn targets_split_into_path_and_query() {
        let request = DoubleRequest::post("/v1/messages?beta=true", Value::Null);
        assert_eq!(request.path, "/v1/messages");
        assert_eq!(request.query.as_deref(), Some("beta=true"));
        assert_eq!(
            split_target("/v1/responses"),
            ("/v1/responses".into(), None)
        );
    }

    #[test]
    fn header_lookup_ignores_case() {
        let mut request = DoubleRequest::get("/");
        request
            .headers
            .push(("X-Claude-Code-Session-Id".into(), "abc".into()));
        assert_eq!(request.header("x-claude-code-session-id"), Some("abc"));
        assert_eq!(request.header("session-id"), None);
    }
}
