//! JSON-RPC 2.0 framing: classifying one incoming line and shaping replies.
//!
//! A line is a request (answered), a notification (never answered, even when it is wrong), or
//! a response to a request of ours (ignored: this server never sends requests). Batches are
//! refused: MCP removed JSON-RPC batching in 2025-06-18, and both versions this server speaks
//! postdate that.

use serde_json::{Map, Value, json};

/// The error codes this server answers with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// The line is not JSON (or not UTF-8, or too long to be one message).
    ParseError,
    /// Not a valid request object, a batch, or a request out of sequence (before
    /// `initialize`, or a second `initialize`).
    InvalidRequest,
    MethodNotFound,
    /// Wrong params, an unknown tool, or (under protocol 2025-06-18 only) tool arguments
    /// that break the tool's schema.
    InvalidParams,
    /// acc failed while reading a resource.
    InternalError,
    /// `resources/read` of a URI this server does not have (MCP's own code).
    ResourceNotFound,
}

impl ErrorKind {
    pub fn code(self) -> i64 {
        match self {
            ErrorKind::ParseError => -32700,
            ErrorKind::InvalidRequest => -32600,
            ErrorKind::MethodNotFound => -32601,
            ErrorKind::InvalidParams => -32602,
            ErrorKind::InternalError => -32603,
            ErrorKind::ResourceNotFound => -32002,
        }
    }
}

/// A JSON-RPC error object.
#[derive(Debug, Clone, PartialEq)]
pub struct RpcError {
    pub kind: ErrorKind,
    pub message: String,
    pub data: Option<Value>,
}

impl RpcError {
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        RpcError {
            kind,
            message: message.into(),
            data: None,
        }
    }

    pub fn with_data(mut self, data: Value) -> Self {
        self.data = Some(data);
        self
    }

    pub fn invalid_params(message: impl Into<String>) -> Self {
        RpcError::new(ErrorKind::InvalidParams, message)
    }

    fn to_json(&self) -> Value {
        let mut e = Map::new();
        e.insert("code".into(), json!(self.kind.code()));
        e.insert("message".into(), json!(self.message));
        if let Some(d) = &self.data {
            e.insert("data".into(), d.clone());
        }
        Value::Object(e)
    }
}

/// A request id: MCP allows strings and integers, never null.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RequestId {
    Number(i64),
    Text(String),
}

impl RequestId {
    fn from_json(v: &Value) -> Option<RequestId> {
        match v {
            Value::String(s) => Some(RequestId::Text(s.clone())),
            Value::Number(n) => n.as_i64().map(RequestId::Number),
            _ => None,
        }
    }

    fn to_json(&self) -> Value {
        match self {
            RequestId::Number(n) => json!(n),
            RequestId::Text(s) => json!(s),
        }
    }
}

/// What one line turned out to be.
#[derive(Debug, Clone, PartialEq)]
pub enum Incoming {
    Request {
        id: RequestId,
        method: String,
        params: Option<Map<String, Value>>,
    },
    Notification {
        method: String,
    },
    /// A response or error from the client; nothing to do.
    ClientResponse,
}

/// The error reply a line that cannot be served gets. Its id is null when the line's own id
/// could not be read, as JSON-RPC requires.
fn refuse(id: Option<&RequestId>, err: RpcError) -> Value {
    error_reply(id, &err)
}

/// Classifies one line (already known to be UTF-8, not blank). `Err` holds the error reply.
pub fn classify(line: &str) -> Result<Incoming, Value> {
    let value: Value = match serde_json::from_str(line) {
        Ok(v) => v,
        Err(e) => {
            return Err(refuse(
                None,
                RpcError::new(ErrorKind::ParseError, format!("parse error: {e}")),
            ));
        }
    };
    let obj = match value {
        Value::Object(o) => o,
        Value::Array(_) => {
            return Err(refuse(
                None,
                RpcError::new(
                    ErrorKind::InvalidRequest,
                    "JSON-RPC batches are not supported (MCP has no batching since 2025-06-18); send one message per line",
                ),
            ));
        }
        other => {
            return Err(refuse(
                None,
                RpcError::new(
                    ErrorKind::InvalidRequest,
                    format!("a JSON-RPC message is an object, got {other}"),
                ),
            ));
        }
    };
    let id = match obj.get("id") {
        None => None,
        Some(raw) => match RequestId::from_json(raw) {
            Some(id) => Some(id),
            None => {
                return Err(refuse(
                    None,
                    RpcError::new(
                        ErrorKind::InvalidRequest,
                        format!("id must be a string or an integer, got {raw}"),
                    ),
                ));
            }
        },
    };
    if obj.get("jsonrpc") != Some(&json!("2.0")) {
        return Err(refuse(
            id.as_ref(),
            RpcError::new(ErrorKind::InvalidRequest, "jsonrpc must be \"2.0\""),
        ));
    }
    let method = match obj.get("method") {
        Some(Value::String(m)) => m.clone(),
        Some(other) => {
            return Err(refuse(
                id.as_ref(),
                RpcError::new(
                    ErrorKind::InvalidRequest,
                    format!("method must be a string, got {other}"),
                ),
            ));
        }
        None if id.is_some() && (obj.contains_key("result") || obj.contains_key("error")) => {
            return Ok(Incoming::ClientResponse);
        }
        None => {
            return Err(refuse(
                id.as_ref(),
                RpcError::new(ErrorKind::InvalidRequest, "a request needs a method"),
            ));
        }
    };
    let Some(id) = id else {
        return Ok(Incoming::Notification { method });
    };
    let params = match obj.get("params") {
        None | Some(Value::Null) => None,
        Some(Value::Object(p)) => Some(p.clone()),
        Some(other) => {
            return Err(refuse(
                Some(&id),
                RpcError::invalid_params(format!("params must be an object, got {other}")),
            ));
        }
    };
    Ok(Incoming::Request { id, method, params })
}

/// `{"jsonrpc":"2.0","id":…,"result":…}`
pub fn result_reply(id: &RequestId, result: Value) -> Value {
    json!({ "jsonrpc": "2.0", "id": id.to_json(), "result": result })
}

/// `{"jsonrpc":"2.0","id":…|null,"error":{code,message,data?}}`
pub fn error_reply(id: Option<&RequestId>, err: &RpcError) -> Value {
    json!({
        "jsonrpc": "2.0",
        "id": id.map(RequestId::to_json).unwrap_or(Value::Null),
        "error": err.to_json(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refused(line: &str) -> Value {
        classify(line).unwrap_err()
    }

    #[test]
    fn requests_notifications_and_responses() {
        assert_eq!(
            classify(r#"{"jsonrpc":"2.0","id":7,"method":"ping"}"#).unwrap(),
            Incoming::Request {
                id: RequestId::Number(7),
                method: "ping".into(),
                params: None
            }
        );
        let with_params =
            classify(r#"{"jsonrpc":"2.0","id":"a","method":"x","params":{"k":1}}"#).unwrap();
        match with_params {
            Incoming::Request { id, params, .. } => {
                assert_eq!(id, RequestId::Text("a".into()));
                assert_eq!(params.unwrap()["k"], 1);
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(
            classify(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#).unwrap(),
            Incoming::Notification {
                method: "notifications/initialized".into()
            }
        );
        assert_eq!(
            classify(r#"{"jsonrpc":"2.0","id":3,"result":{}}"#).unwrap(),
            Incoming::ClientResponse
        );
    }

    #[test]
    fn malformed_lines_get_the_right_codes() {
        let e = refused("{nope");
        assert_eq!(e["error"]["code"], -32700);
        assert_eq!(e["id"], Value::Null);
        let e = refused(r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#);
        assert_eq!(e["error"]["code"], -32600);
        assert!(e["error"]["message"].as_str().unwrap().contains("batches"));
        assert_eq!(refused("42")["error"]["code"], -32600);
        let e = refused(r#"{"jsonrpc":"1.0","id":5,"method":"ping"}"#);
        assert_eq!(
            (e["error"]["code"].as_i64(), e["id"].as_i64()),
            (Some(-32600), Some(5))
        );
        let e = refused(r#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#);
        assert_eq!(
            (e["error"]["code"].as_i64(), &e["id"]),
            (Some(-32600), &Value::Null)
        );
        let e = refused(r#"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#);
        assert_eq!(e["error"]["code"], -32600);
        let e = refused(r#"{"jsonrpc":"2.0","id":2,"method":9}"#);
        assert_eq!(
            (e["error"]["code"].as_i64(), e["id"].as_i64()),
            (Some(-32600), Some(2))
        );
        let e = refused(r#"{"jsonrpc":"2.0","id":2}"#);
        assert_eq!(e["error"]["code"], -32600);
        let e = refused(r#"{"jsonrpc":"2.0","id":2,"method":"x","params":[1]}"#);
        assert_eq!(
            (e["error"]["code"].as_i64(), e["id"].as_i64()),
            (Some(-32602), Some(2))
        );
    }

    #[test]
    fn replies_have_the_wire_shape() {
        let ok = result_reply(&RequestId::Text("r".into()), json!({}));
        assert_eq!(ok.to_string(), r#"{"jsonrpc":"2.0","id":"r","result":{}}"#);
        let err = RpcError::new(ErrorKind::ResourceNotFound, "gone").with_data(json!({"uri": "x"}));
        assert_eq!(
            error_reply(Some(&RequestId::Number(1)), &err).to_string(),
            r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32002,"message":"gone","data":{"uri":"x"}}}"#
        );
    }
}
