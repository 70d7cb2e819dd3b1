//! The JSON envelope every `--json` answer uses (the same as the `acc` CLI's), and the exit
//! codes it carries.

use serde_json::{Value, json};

/// What an exit code means, mapped once.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    /// The command ran and what it checked is fine (or it answered a question).
    Ok = 0,
    /// The command ran and what it checked is invalid.
    Invalid = 1,
    /// The command could not run: a usage error, a missing directory or input file.
    CouldNotRun = 2,
}

impl Exit {
    pub fn code(self) -> i32 {
        self as i32
    }
}

/// `{"envelope_version":1,"ok":true,"data":...,"meta":{}}`
pub fn success(data: Value) -> Value {
    json!({"envelope_version": 1, "ok": true, "data": data, "meta": {}})
}

/// `{"envelope_version":1,"ok":false,"error":{"code":N,"message":...,"details":...}}`
pub fn failure(exit: Exit, message: &str, details: Value) -> Value {
    json!({"envelope_version": 1, "ok": false, "error": {"code": exit.code(), "message": message, "details": details}})
}
