//! How a tool's result or an acc error becomes a `tools/call` result.
//!
//! Both carry the same JSON object twice: as the text of the one content block (for clients
//! that show text to the model) and as `structuredContent` (for clients that read data).
//! An acc error is a successful JSON-RPC response with `isError: true`, so the model sees
//! why its call failed and can act on it; protocol faults stay JSON-RPC errors.

use crate::error::AccError;
use serde_json::{Value, json};

fn call_result(object: Value, is_error: bool) -> Value {
    json!({
        "content": [{ "type": "text", "text": object.to_string() }],
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
