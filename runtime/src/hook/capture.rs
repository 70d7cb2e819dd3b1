//! A recorder's view of one invocation: with `ACC_HOOK_CAPTURE_DIR` set, acc-hook appends
//! `{adapter, args, payload, kind, refusal, outcome: {stdout, stderr, exitCode}}` as one JSON
//! line to `<dir>/hooks.jsonl` after answering.
//!
//! `acc-certify record` sets the variable in a sandboxed client's environment so a capture
//! can show which hook events the real client sent and what acc answered. Nothing on the
//! answer's path depends on it: the record is written after stdout and stderr, and any
//! failure to write it is ignored.

use super::args::{self, Command};
use super::failure::{Failure, Refusal};
use super::payload;
use super::runner;
use super::settings::HookSettings;
use serde_json::{Value, json};
use std::fs::OpenOptions;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// The variable naming the capture directory.
pub const CAPTURE_DIR_VAR: &str = "ACC_HOOK_CAPTURE_DIR";
/// The file appended to in that directory.
pub const CAPTURE_FILE: &str = "hooks.jsonl";

/// Runs the hook like [`runner::run`], appending a capture line when `settings` name a
/// capture directory.
pub fn run(
    argv: &[String],
    stdin: Box<dyn Read + Send>,
    stdout: &mut dyn Write,
    stderr: &mut dyn Write,
    settings: HookSettings,
) -> i32 {
    let Some(dir) = capture_dir(&settings) else {
        return runner::run(argv, stdin, stdout, stderr, settings);
    };
    let adapters = settings.adapters.clone();
    let read = Arc::new(Mutex::new(Vec::new()));
    let stdin = Box::new(TeeReader {
        inner: stdin,
        copy: Arc::clone(&read),
    });
    let mut out = TeeWriter {
        inner: stdout,
        copy: Vec::new(),
    };
    let mut err = TeeWriter {
        inner: stderr,
        copy: Vec::new(),
    };
    let code = runner::run(argv, stdin, &mut out, &mut err, settings);
    let bytes = read.lock().map(|b| b.clone()).unwrap_or_default();
    let line = record(argv, &bytes, &out.copy, &err.copy, code, |id| adapters(id));
    let _ = append(&dir, &line);
    code
}

fn capture_dir(settings: &HookSettings) -> Option<PathBuf> {
    let dir = PathBuf::from(settings.env.get(CAPTURE_DIR_VAR)?);
    dir.is_absolute().then_some(dir)
}

/// The capture line for one invocation. The normalised kind (or the refusal) is derived
/// again from the payload, outside the deadline, so the answer's path stays untouched.
fn record(
    argv: &[String],
    stdin: &[u8],
    stdout: &[u8],
    stderr: &[u8],
    exit_code: i32,
    adapter: impl Fn(&str) -> Option<acc_sdk::define::Adapter>,
) -> Value {
    let parsed = match args::parse(argv) {
        Ok(Command::Hook(a)) => Some(a),
        _ => None,
    };
    let payload = payload::parse(stdin).ok();
    let (kind, refusal) = match (&parsed, &payload) {
        (Some(a), Some(p)) => match adapter(&a.adapter_id) {
            Some(adapter) => match adapter.behaviour().normalize_hook(p, &a.rest) {
                Ok(event) => (Some(event.kind.as_str()), None),
                Err(e) => (None, Some(Failure::Refused(Refusal::from(&e)).code())),
            },
            None => (None, Some(Failure::UnknownAdapter.code())),
        },
        _ => (None, None),
    };
    json!({
        "adapter": parsed.as_ref().map(|a| a.adapter_id.clone()),
        "args": parsed.as_ref().map(|a| a.rest.clone()).unwrap_or_default(),
        "payload": payload,
        "kind": kind,
        "refusal": refusal,
        "outcome": {
            "stdout": String::from_utf8_lossy(stdout),
            "stderr": String::from_utf8_lossy(stderr),
            "exitCode": exit_code,
        },
    })
}

fn append(dir: &Path, line: &Value) -> io::Result<()> {
    std::fs::create_dir_all(dir)?;
    let mut text = serde_json::to_string(line).map_err(io::Error::other)?;
    text.push('\n');
    // One write of the whole line, so concurrent hooks of one client do not interleave.
    OpenOptions::new()
        .create(true)
        .append(true)
        .open(dir.join(CAPTURE_FILE))?
        .write_all(text.as_bytes())
}

struct TeeReader {
    inner: Box<dyn Read + Send>,
    copy: Arc<Mutex<Vec<u8>>>,
}

impl Read for TeeReader {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        if let Ok(mut copy) = self.copy.lock() {
            copy.extend_from_slice(&buf[..n]);
        }
        Ok(n)
    }
}

struct TeeWriter<'a> {
    inner: &'a mut dyn Write,
    copy: Vec<u8>,
}

impl Write for TeeWriter<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.copy.extend_from_slice(&buf[..n]);
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hook::hook_env::HookEnv;
    use std::collections::BTreeMap;

    fn settings(dir: Option<&Path>) -> HookSettings {
        let mut vars = BTreeMap::new();
        if let Some(d) = dir {
            vars.insert(CAPTURE_DIR_VAR.to_string(), d.display().to_string());
        }
        HookSettings::system(HookEnv::from_vars(vars))
    }

    #[test]
    fn a_refused_payload_is_captured_with_its_answer() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("capture");
        let argv = vec!["claude-code".to_string(), "PreToolUse".to_string()];
        let payload = br#"{"hook_event_name":"NoSuchEvent","session_id":"s","cwd":"/"}"#;
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let code = run(
            &argv,
            Box::new(&payload[..]),
            &mut out,
            &mut err,
            settings(Some(&dir)),
        );
        assert_eq!(code, 0);
        assert!(out.is_empty());
        let text = std::fs::read_to_string(dir.join(CAPTURE_FILE)).unwrap();
        let line: Value = serde_json::from_str(text.trim_end()).unwrap();
        assert_eq!(line["adapter"], "claude-code");
        assert_eq!(line["args"], json!(["PreToolUse"]));
        assert_eq!(line["payload"]["hook_event_name"], "NoSuchEvent");
        assert_eq!(line["kind"], Value::Null);
        assert_eq!(line["refusal"], "event_unknown");
        assert_eq!(line["outcome"]["exitCode"], 0);
        assert_eq!(line["outcome"]["stderr"], String::from_utf8(err).unwrap());
    }

    #[test]
    fn garbage_is_captured_with_a_null_payload_and_each_call_appends() {
        let tmp = tempfile::tempdir().unwrap();
        let argv = vec!["codex".to_string()];
        for _ in 0..2 {
            let (mut out, mut err) = (Vec::new(), Vec::new());
            run(
                &argv,
                Box::new(&b"\xff\x00garbage"[..]),
                &mut out,
                &mut err,
                settings(Some(tmp.path())),
            );
        }
        let text = std::fs::read_to_string(tmp.path().join(CAPTURE_FILE)).unwrap();
        let lines: Vec<Value> = text
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(lines.len(), 2);
        assert_eq!(lines[0]["payload"], Value::Null);
        assert_eq!(lines[0]["refusal"], Value::Null);
        assert!(
            lines[0]["outcome"]["stderr"]
                .as_str()
                .unwrap()
                .contains("payload_not_utf8")
        );
    }

    #[test]
    fn only_an_absolute_directory_turns_capture_on() {
        assert_eq!(capture_dir(&settings(None)), None);
        assert_eq!(
            capture_dir(&settings(Some(Path::new("relative/dir")))),
            None
        );
        assert_eq!(
            capture_dir(&settings(Some(Path::new("/abs/dir")))),
            Some(PathBuf::from("/abs/dir"))
        );
    }
}
