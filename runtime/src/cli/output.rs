//! What a command prints: one human line (or nothing) on stdout and one line on stderr for
//! errors, or exactly one JSON envelope with `--json`.
//!
//! Much of it is text read from the store, which any local process can write. Each field is
//! rendered where a line is composed (ids and resources by their `Display`, peer text by
//! [`acc_sdk::peer_text::display`]); what is written is then passed through
//! [`escape_hidden`] (human text) or [`json_escape_hidden`] (JSON, same value, safe bytes),
//! so no escape sequence, control or bidi character reaches a terminal whatever a renderer
//! missed.

use crate::error::AccError;
use acc_sdk::peer_text::{escape_hidden, json_escape_hidden};
use serde::Serialize;
use serde_json::{Map, Value, json};
use std::io::Write;

/// The JSON envelope's version.
pub const ENVELOPE_VERSION: u32 = 1;

/// A command's successful result. The JSON data is serialised only when `--json` asks for
/// it, so human mode never pays for rendering a large status.
pub struct Output {
    /// The one human line; `None` prints nothing.
    pub human: Option<String>,
    data: Box<dyn FnOnce() -> String>,
}

impl Output {
    pub fn new(human: impl Into<String>, data: impl Serialize + 'static) -> Self {
        Output {
            human: Some(human.into()),
            data: Box::new(move || serde_json::to_string(&data).expect("results serialise")),
        }
    }

    pub fn silent(data: impl Serialize + 'static) -> Self {
        Output {
            human: None,
            data: Box::new(move || serde_json::to_string(&data).expect("results serialise")),
        }
    }

    /// The envelope's `data`, serialised.
    pub fn data_json(self) -> String {
        (self.data)()
    }
}

/// `{"envelope_version":1,"ok":true,"data":…,"meta":{}}`
pub fn success_envelope(data_json: &str) -> String {
    format!(r#"{{"envelope_version":{ENVELOPE_VERSION},"ok":true,"data":{data_json},"meta":{{}}}}"#)
}

/// `{"envelope_version":1,"ok":false,"error":{"code":N,"message":…,"details":{…}}}`; the
/// details always carry the stable string code as `reason`.
pub fn error_envelope(e: &AccError) -> Value {
    let mut details = Map::new();
    details.insert("reason".into(), Value::String(e.code.as_str().into()));
    for (k, v) in &e.details {
        details.insert(k.clone(), v.clone());
    }
    json!({
        "envelope_version": ENVELOPE_VERSION,
        "ok": false,
        "error": { "code": e.exit_code(), "message": e.message, "details": details },
    })
}

/// Writes a result and returns the exit code. Write failures (a closed pipe) are ignored:
/// the exit code still tells the truth.
pub fn emit(
    result: Result<Output, AccError>,
    json_mode: bool,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> i32 {
    match result {
        Ok(o) => {
            if json_mode {
                let envelope = success_envelope(&o.data_json());
                let _ = writeln!(out, "{}", json_escape_hidden(&envelope));
            } else if let Some(line) = o.human {
                let _ = writeln!(out, "{}", escape_hidden(&line));
            }
            0
        }
        Err(e) => {
            if json_mode {
                let envelope = error_envelope(&e).to_string();
                let _ = writeln!(out, "{}", json_escape_hidden(&envelope));
            } else {
                // One write: `writeln!` wrote the message and its newline apart, two system
                // calls on the unbuffered stderr of every refused claim, and a line another
                // process's output could split.
                let mut line = escape_hidden(&e.message).to_string();
                line.push('\n');
                let _ = err.write_all(line.as_bytes());
            }
            e.exit_code()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorCode;

    #[test]
    fn envelopes_have_the_contract_shape() {
        let ok = success_envelope(&json!({"x": 1}).to_string());
        assert_eq!(
            ok,
            r#"{"envelope_version":1,"ok":true,"data":{"x":1},"meta":{}}"#
        );
        let parsed: Value = serde_json::from_str(&ok).unwrap();
        assert_eq!(parsed["data"]["x"], 1);
        let e = AccError::new(ErrorCode::ClaimConflict, "taken").with("claimId", "claim_x");
        assert_eq!(
            error_envelope(&e).to_string(),
            r#"{"envelope_version":1,"ok":false,"error":{"code":5,"message":"taken","details":{"reason":"claim_conflict","claimId":"claim_x"}}}"#
        );
    }

    #[test]
    fn emit_writes_one_line_to_the_right_stream() {
        let (mut out, mut err) = (Vec::new(), Vec::new());
        assert_eq!(
            emit(
                Ok(Output::new("hi", json!(null))),
                false,
                &mut out,
                &mut err
            ),
            0
        );
        assert_eq!(String::from_utf8(out).unwrap(), "hi\n");
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let code = emit(Err(AccError::usage("bad")), false, &mut out, &mut err);
        assert_eq!((code, out.len()), (2, 0));
        assert_eq!(String::from_utf8(err).unwrap(), "bad\n");
        let (mut out, mut err) = (Vec::new(), Vec::new());
        emit(Ok(Output::silent(json!(1))), false, &mut out, &mut err);
        assert!(out.is_empty() && err.is_empty());
    }

    /// Records each `write` it is given, as the unbuffered stderr would make a system call.
    #[derive(Default)]
    struct Writes(Vec<Vec<u8>>);

    impl Write for Writes {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0.push(buf.to_vec());
            Ok(buf.len())
        }

        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn a_refusal_is_one_write_of_its_whole_line() {
        let (mut out, mut err) = (Vec::new(), Writes::default());
        let refused = AccError::new(ErrorCode::ClaimConflict, "file:a conflicts\u{1b}[2J");
        assert_eq!(emit(Err(refused), false, &mut out, &mut err), 5);
        assert_eq!(err.0, vec![b"file:a conflicts\\u001b[2J\n".to_vec()]);
    }

    #[test]
    fn nothing_hidden_is_written_in_either_mode() {
        let hostile = "mallory\u{1b}[2J\u{1b}]52;c;aGk=\u{7}\u{9b}\u{202e}\u{200b}";
        for json_mode in [false, true] {
            let (mut out, mut err) = (Vec::new(), Vec::new());
            emit(
                Ok(Output::new(hostile, json!({ "id": hostile }))),
                json_mode,
                &mut out,
                &mut err,
            );
            let e = AccError::usage(hostile).with("participant", hostile);
            emit(Err(e), json_mode, &mut out, &mut err);
            for bytes in [out, err] {
                let text = String::from_utf8(bytes).unwrap();
                assert!(
                    !text.chars().any(acc_sdk::peer_text::is_hidden),
                    "{json_mode}: {text:?}"
                );
                if json_mode && !text.is_empty() {
                    let first: Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
                    assert_eq!(first["data"]["id"], hostile, "the value is kept");
                }
            }
        }
    }
}
