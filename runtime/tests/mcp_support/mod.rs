//! Drives the real `acc-mcp` binary over pipes: a long-lived server for conversations, and a
//! one-shot script runner (assert_cmd) for framing tests. Servers run in a
//! [`Sandbox`](crate::common::Sandbox): its data home, its workspace, its fixed clock.
#![allow(dead_code)]

use crate::common::Sandbox;
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::Duration;

/// Only to fail instead of hanging when the server does not answer; never asserted.
const ANSWER_DEADLINE: Duration = Duration::from_secs(60);

pub fn mcp_bin() -> std::path::PathBuf {
    assert_cmd::cargo::cargo_bin("acc-mcp")
}

/// The server's environment in `sb`: nothing but the data home, the workspace, the
/// participant and the test clock.
pub fn command(sb: &Sandbox, participant: Option<&str>) -> Command {
    let mut c = Command::new(mcp_bin());
    c.env_clear();
    c.env("ACC_DATA_HOME", sb.data_path());
    c.env("ACC_MCP_WORKSPACE", sb.ws_path());
    if let Some(p) = participant {
        c.env("ACC_MCP_PARTICIPANT", p);
    }
    if let Some(clock) = &sb.clock {
        c.env("ACC_TEST_CLOCK", clock);
    }
    // The workspace comes from ACC_MCP_WORKSPACE, never from where the server runs.
    c.current_dir(sb.tmp.path());
    c
}

/// How a server process ended.
pub struct Ended {
    pub code: Option<i32>,
    /// Lines written after the last one a test read.
    pub stdout_rest: Vec<String>,
    pub stderr: String,
}

/// A running server and the lines it wrote.
pub struct Server {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    next_id: i64,
}

impl Server {
    pub fn spawn(mut cmd: Command) -> Server {
        cmd.stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = cmd.spawn().expect("acc-mcp starts");
        let stdin = child.stdin.take();
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { return };
                if tx.send(line).is_err() {
                    return;
                }
            }
        });
        Server {
            child,
            stdin,
            lines: rx,
            next_id: 0,
        }
    }

    /// A server for `participant` in `sb`, initialized with protocol 2025-11-25.
    pub fn start(sb: &Sandbox, participant: &str) -> Server {
        Server::start_with(sb, participant, "2025-11-25")
    }

    /// A server for `participant` in `sb`, initialized with protocol `version`.
    pub fn start_with(sb: &Sandbox, participant: &str, version: &str) -> Server {
        let mut s = Server::spawn(command(sb, Some(participant)));
        let init = s.initialize(version);
        assert_eq!(init["result"]["protocolVersion"], version, "{init}");
        s.notify("notifications/initialized");
        s
    }

    pub fn send_raw(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().expect("stdin is open");
        stdin.write_all(line.as_bytes()).unwrap();
        stdin.write_all(b"\n").unwrap();
        stdin.flush().unwrap();
    }

    pub fn send(&mut self, message: &Value) {
        self.send_raw(&message.to_string());
    }

    /// The next line the server writes, which must be one JSON-RPC 2.0 message.
    pub fn recv(&mut self) -> Value {
        match self.lines.recv_timeout(ANSWER_DEADLINE) {
            Ok(line) => {
                let v: Value = serde_json::from_str(&line)
                    .unwrap_or_else(|e| panic!("stdout line is not JSON ({e}): {line}"));
                assert_eq!(v["jsonrpc"], "2.0", "{line}");
                v
            }
            Err(RecvTimeoutError::Timeout) => panic!("acc-mcp did not answer"),
            Err(RecvTimeoutError::Disconnected) => panic!("acc-mcp closed its output"),
        }
    }

    /// Sends a request with a fresh id and returns the whole reply, whose id must match.
    pub fn request(&mut self, method: &str, params: Option<Value>) -> Value {
        self.next_id += 1;
        let mut msg = json!({ "jsonrpc": "2.0", "id": self.next_id, "method": method });
        if let Some(p) = params {
            msg["params"] = p;
        }
        self.send(&msg);
        let reply = self.recv();
        assert_eq!(reply["id"], self.next_id, "{reply}");
        reply
    }

    pub fn notify(&mut self, method: &str) {
        self.send(&json!({ "jsonrpc": "2.0", "method": method }));
    }

    pub fn initialize(&mut self, version: &str) -> Value {
        self.request(
            "initialize",
            Some(json!({
                "protocolVersion": version,
                "capabilities": {},
                "clientInfo": { "name": "acc-tests", "version": "1" },
            })),
        )
    }

    /// A tools/call reply (JSON-RPC level).
    pub fn call_raw(&mut self, tool: &str, args: Value) -> Value {
        self.request(
            "tools/call",
            Some(json!({ "name": tool, "arguments": args })),
        )
    }

    /// A tools/call result, checked for its shape: one text block holding the same object
    /// as `structuredContent`. Returns `(isError, structuredContent)`.
    pub fn call_result(&mut self, tool: &str, args: Value) -> (bool, Value) {
        let reply = self.call_raw(tool, args);
        let result = &reply["result"];
        assert!(result.is_object(), "{tool}: a result, got {reply}");
        let content = result["content"].as_array().expect("content");
        assert_eq!(content.len(), 1, "{reply}");
        assert_eq!(content[0]["type"], "text");
        let text: Value = serde_json::from_str(content[0]["text"].as_str().unwrap()).unwrap();
        assert_eq!(
            text, result["structuredContent"],
            "text and structuredContent agree"
        );
        (
            result["isError"].as_bool().expect("isError"),
            result["structuredContent"].clone(),
        )
    }

    /// A successful tool call's object.
    pub fn call(&mut self, tool: &str, args: Value) -> Value {
        let (is_error, v) = self.call_result(tool, args.clone());
        assert!(!is_error, "{tool} {args} failed: {v}");
        v
    }

    /// A failed tool call's `error` object.
    pub fn call_err(&mut self, tool: &str, args: Value) -> Value {
        let (is_error, v) = self.call_result(tool, args.clone());
        assert!(is_error, "{tool} {args} should fail: {v}");
        v["error"].clone()
    }

    /// The parsed document of a resource.
    pub fn read(&mut self, uri: &str) -> Value {
        let reply = self.request("resources/read", Some(json!({ "uri": uri })));
        let c = &reply["result"]["contents"];
        assert_eq!(c.as_array().map(Vec::len), Some(1), "{reply}");
        assert_eq!(c[0]["uri"], uri);
        assert_eq!(c[0]["mimeType"], "application/json");
        serde_json::from_str(c[0]["text"].as_str().unwrap()).unwrap()
    }

    /// Closes stdin and waits for the process to end.
    pub fn close(mut self) -> Ended {
        drop(self.stdin.take());
        let status = self.child.wait().unwrap();
        let mut stderr = String::new();
        if let Some(mut e) = self.child.stderr.take() {
            e.read_to_string(&mut stderr).unwrap();
        }
        let stdout_rest = self.lines.iter().collect();
        Ended {
            code: status.code(),
            stdout_rest,
            stderr,
        }
    }
}

impl Server {
    /// Kills the process (no end of input: the server gets no chance to close its session).
    pub fn kill(mut self) {
        self.child.kill().unwrap();
        self.child.wait().unwrap();
    }

    /// Sends `signal` with stdin still open and waits for the process to end; returns its
    /// exit code (`None` when the signal itself ended it).
    pub fn signal(mut self, signal: i32) -> Option<i32> {
        let pid = self.child.id() as i32;
        // SAFETY: kill(2) on the pid of our own child, which has not been waited for.
        assert_eq!(
            unsafe { libc::kill(pid, signal) },
            0,
            "signal {signal} sent"
        );
        self.child.wait().unwrap().code()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        // A failed assertion must not leave a server behind.
        drop(self.stdin.take());
        if matches!(self.child.try_wait(), Ok(None)) {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// Runs a whole conversation at once: writes `input`, closes stdin, collects the output.
pub fn script(sb: &Sandbox, participant: Option<&str>, input: &str) -> assert_cmd::assert::Assert {
    assert_cmd::Command::from_std(command(sb, participant))
        .write_stdin(input.to_string())
        .assert()
}

/// The stdout lines of an assert, each parsed as one JSON-RPC 2.0 message.
pub fn replies(assert: &assert_cmd::assert::Assert) -> Vec<Value> {
    String::from_utf8(assert.get_output().stdout.clone())
        .unwrap()
        .lines()
        .map(|l| {
            let v: Value = serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}"));
            assert_eq!(v["jsonrpc"], "2.0", "{l}");
            v
        })
        .collect()
}

pub const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"acc-tests","version":"1"}}}"#;
