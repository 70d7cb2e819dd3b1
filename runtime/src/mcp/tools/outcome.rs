//! How a tool's result or an acc error becomes a `tools/call` result.
//!
//! Both carry the same JSON object twice: as the text of the one content block (for clients
//! that show text to the model) and as `structuredContent` (for clients that read data).
//! An acc error is a successful JSON-RPC response with `isError: true`, so the model sees
//! why its call failed and can act on it; protocol faults stay JSON-RPC errors.

use crate::error::AccError;
use serde_json::{Value, json};

/// The text block is the object's JSON with every hidden character escaped
/// ([`acc_sdk::peer_text::json_escape_hidden`]): a client shows it to the model as it
/// stands, and a string read from the store must not reach the model as a bidi override or
/// an escape sequence. Parsed, it is still the structured object.
fn call_result(object: Value, is_error: bool) -> Value {
    let text = acc_sdk::peer_text::json_escape_hidden(&object.to_string()).into_owned();
    json!({
        "content": [{ "type": "text", "text": text }],
        "structuredContent": object,
        "isError": is_error,
    })
}

/// A successful call.
pub fn success(value: Value) -> Value {
    call_result(value, false)
}

/// `{"error":{"code":<exit class>,"reason":<stable code>,"message":…,"details":{…}}}`
pub fn error_object(e: &AccError) -> Value {
    json!({
        "error": {
            "code": e.exit_code(),
            "reason": e.code.as_str(),
            "message": e.message,
            "details": e.details,
        }
    })
}

/// A call acc refused or failed.
pub fn failure(e: &AccError) -> Value {
    call_result(error_object(e), true)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorCode;

    #[test]
    fn text_and_structured_content_carry_the_same_object() {
        let r = success(json!({"a": [1, "x"]}));
        assert_eq!(r["isError"], false);
        let text: Value = serde_json::from_str(r["content"][0]["text"].as_str().unwrap()).unwrap();
        assert_eq!(text, r["structuredContent"]);
        assert_eq!(r["content"][0]["type"], "text");
    }

    #[test]
    fn the_text_block_shows_no_hidden_character() {
        let hostile = "mallory\u{9b}2J\u{202e}\u{200b}\u{2028}";
        let r = success(json!({ "participantId": hostile }));
        let shown = r["content"][0]["text"].as_str().unwrap();
        assert!(
            !shown.chars().any(acc_sdk::peer_text::is_hidden),
            "{shown:?}"
        );
        let text: Value = serde_json::from_str(shown).unwrap();
        assert_eq!(text, r["structuredContent"]);
        assert_eq!(text["participantId"], hostile);
    }

    #[test]
    fn failures_carry_exit_class_code_and_message() {
        let e = AccError::new(ErrorCode::ReplyRequired, "answer it").with("messageId", "m1");
        let r = failure(&e);
        assert_eq!(r["isError"], true);
        assert_eq!(
            r["structuredContent"],
            json!({"error": {"code": 5, "reason": "reply_required", "message": "answer it", "details": {"messageId": "m1"}}})
        );
        let text: Value = serde_json::from_str(r["content"][0]["text"].as_str().unwrap()).unwrap();
        assert_eq!(text, r["structuredContent"]);
    }
}
