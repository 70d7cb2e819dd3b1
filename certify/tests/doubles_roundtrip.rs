//! The doubles over real loopback HTTP: a std TcpStream client posts captured client requests
//! and reads the event streams back.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::Path;

use acc_certify::doubles::log::read_jsonl;
use acc_certify::doubles::sse;
use acc_certify::doubles::{ModelDouble, Protocol, Script, Step};
use serde_json::{Value, json};

struct Response {
    status: u16,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl Response {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(key, _)| key.eq_ignore_ascii_case(name))
            .map(|(_, value)| value.as_str())
    }

    fn text(&self) -> String {
        String::from_utf8(self.body.clone()).unwrap()
    }
}

fn read_response(reader: &mut impl BufRead, head_only: bool) -> Response {
    let mut status_line = String::new();
    reader.read_line(&mut status_line).unwrap();
    let status = status_line
        .split_whitespace()
        .nth(1)
        .unwrap()
        .parse()
        .unwrap();
    let mut headers = Vec::new();
    loop {
        let mut line = String::new();
        reader.read_line(&mut line).unwrap();
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        let (name, value) = line.split_once(':').unwrap();
        headers.push((name.trim().to_owned(), value.trim().to_owned()));
    }
    let mut response = Response {
        status,
        headers,
        body: Vec::new(),
    };
    if !head_only {
        let length: usize = response.header("content-length").unwrap().parse().unwrap();
        response.body = vec![0; length];
        reader.read_exact(&mut response.body).unwrap();
    }
    response
}

fn sample_bodies(name: &str) -> Vec<Value> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name);
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str::<Value>(line).unwrap()["body"].clone())
        .collect()
}

fn post(target: &str, extra_headers: &str, body: &[u8]) -> Vec<u8> {
    let mut request = format!(
        "POST {target} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n{extra_headers}Content-Length: {}\r\n\r\n",
        body.len()
    )
    .into_bytes();
    request.extend_from_slice(body);
    request
}

fn post_chunked(target: &str, body: &[u8]) -> Vec<u8> {
    let mut request =
        format!("POST {target} HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n")
            .into_bytes();
    for chunk in body.chunks(1000) {
        request.extend_from_slice(format!("{:x}\r\n", chunk.len()).as_bytes());
        request.extend_from_slice(chunk);
        request.extend_from_slice(b"\r\n");
    }
    request.extend_from_slice(b"0\r\n\r\n");
    request
}

#[test]
fn claude_requests_over_one_keep_alive_connection() {
    let workspace = Path::new("/sandbox/ws");
    let script = Script::write_file(&workspace.join("hello.txt"), "hello\n").unwrap();
    let mut double = ModelDouble::start(Protocol::AnthropicMessages, script).unwrap();
    assert!(double.base_url().starts_with("http://127.0.0.1:"));
    let bodies = sample_bodies("claude-deny.jsonl");
    let stream = TcpStream::connect(double.addr()).unwrap();
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut writer = stream;

    let first = serde_json::to_vec(&bodies[0]).unwrap();
    writer
        .write_all(&post(
            "/v1/messages?beta=true",
            "X-Claude-Code-Session-Id: s-1\r\n",
            &first,
        ))
        .unwrap();
    let response = read_response(&mut reader, false);
    assert_eq!(response.status, 200);
    assert_eq!(
        response.header("content-type"),
        Some("text/event-stream; charset=utf-8")
    );
    let events = sse::parse(&response.text());
    let tool_use = &events[1].data["content_block"];
    assert_eq!(tool_use["name"], "Write");
    let input: String = events
        .iter()
        .filter_map(|event| event.data["delta"]["partial_json"].as_str())
        .collect();
    assert_eq!(
        serde_json::from_str::<Value>(&input).unwrap(),
        json!({"file_path": "/sandbox/ws/hello.txt", "content": "hello\n"})
    );

    // Same connection, chunked body this time.
    let second = serde_json::to_vec(&bodies[1]).unwrap();
    writer
        .write_all(&post_chunked("/v1/messages?beta=true", &second))
        .unwrap();
    let response = read_response(&mut reader, false);
    let events = sse::parse(&response.text());
    assert_eq!(events[3].data["delta"]["text"], "Done.");
    assert_eq!(events.last().unwrap().name.as_deref(), Some("message_stop"));

    let log = double.requests();
    assert_eq!(log.len(), 2);
    assert_eq!(log.iter().map(|entry| entry.n).collect::<Vec<_>>(), [1, 2]);
    assert_eq!(log[0].path, "/v1/messages");
    assert_eq!(log[0].query.as_deref(), Some("beta=true"));
    assert_eq!(log[0].header("x-claude-code-session-id"), Some("s-1"));
    assert_eq!(log[0].body, bodies[0]);
    assert_eq!(log[1].body, bodies[1], "the chunked body was reassembled");
    assert_eq!(log[0].answered, "tool_use:Write step=0");
    assert_eq!(log[1].answered, "final_text");

    let dir = tempfile::tempdir().unwrap();
    let log_path = dir.path().join("requests.jsonl");
    double.write_log(&log_path).unwrap();
    let read_back = read_jsonl(&log_path).unwrap();
    assert_eq!(read_back.len(), log.len());
    for (back, original) in read_back.iter().zip(&log) {
        // A float's last bit may change through decimal text; the rest must be exact.
        assert!((back.t - original.t).abs() < 1e-3);
        let mut back = back.clone();
        back.t = original.t;
        assert!(
            back == *original,
            "request {} changed in the file",
            original.n
        );
    }

    double.stop();
    assert!(
        TcpStream::connect(double.addr()).is_err(),
        "a stopped double no longer listens"
    );
}

#[test]
fn codex_models_probe_and_connection_close() {
    let double = ModelDouble::start(Protocol::OpenAiResponses, Script::text_only("hi")).unwrap();
    let mut stream = TcpStream::connect(double.addr()).unwrap();
    stream
        .write_all(b"GET /v1/models HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        .unwrap();
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).unwrap();
    let text = String::from_utf8(raw).unwrap();
    assert!(text.starts_with("HTTP/1.1 200 OK\r\n"), "{text}");
    assert!(text.contains("connection: close"));
    assert!(
        text.ends_with(r#"{"object":"list","data":[],"models":[]}"#),
        "{text}"
    );
    assert_eq!(double.requests()[0].answered, "models");
    assert_eq!(double.requests()[0].body, Value::Null);
}

#[test]
fn codex_stream_carries_the_tool_call_in_output_item_done() {
    let script = Script::new(vec![Step::shell("echo x > src/y")], "done").unwrap();
    let double = ModelDouble::start(Protocol::OpenAiResponses, script).unwrap();
    let body = serde_json::to_vec(&sample_bodies("codex-deny-exec-command.jsonl")[0]).unwrap();
    let stream = TcpStream::connect(double.addr()).unwrap();
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut writer = stream;
    writer.write_all(&post("/v1/responses", "", &body)).unwrap();
    let response = read_response(&mut reader, false);
    let events = sse::parse(&response.text());
    let done = events
        .iter()
        .find(|event| event.name.as_deref() == Some("response.output_item.done"))
        .unwrap();
    assert_eq!(done.data["item"]["name"], "exec_command");
    let arguments: Value =
        serde_json::from_str(done.data["item"]["arguments"].as_str().unwrap()).unwrap();
    assert_eq!(arguments, json!({"cmd": "echo x > src/y"}));
}

#[test]
fn gemini_stream_uses_crlf_framing() {
    let script = Script::write_file(Path::new("/sandbox/ws/hello.txt"), "hello\n").unwrap();
    let double = ModelDouble::start(Protocol::GeminiGenerateContent, script).unwrap();
    let body = serde_json::to_vec(&sample_bodies("gemini-deny-ctx-json.jsonl")[0]).unwrap();
    let stream = TcpStream::connect(double.addr()).unwrap();
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut writer = stream;
    writer
        .write_all(&post(
            "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse",
            "x-goog-api-key: dummy\r\n",
            &body,
        ))
        .unwrap();
    let response = read_response(&mut reader, false);
    let text = response.text();
    assert!(
        text.starts_with("data: {") && text.ends_with("}\r\n\r\n"),
        "{text}"
    );
    let events = sse::parse(&text);
    assert_eq!(
        events[0].data["candidates"][0]["content"]["parts"][0]["functionCall"]["name"],
        "write_file"
    );
    let log = double.requests();
    assert_eq!(log[0].query.as_deref(), Some("alt=sse"));
    assert_eq!(log[0].answered, "functionCall:write_file step=0");
}

#[test]
fn compressed_bodies_are_refused_visibly_and_head_has_no_body() {
    let double = ModelDouble::start(Protocol::AnthropicMessages, Script::text_only("x")).unwrap();
    let stream = TcpStream::connect(double.addr()).unwrap();
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut writer = stream;
    writer
        .write_all(&post(
            "/v1/messages",
            "Content-Encoding: gzip\r\n",
            b"\x1f\x8b\x08",
        ))
        .unwrap();
    let response = read_response(&mut reader, false);
    assert_eq!(response.status, 415);
    writer
        .write_all(b"HEAD /anything HTTP/1.1\r\n\r\n")
        .unwrap();
    let response = read_response(&mut reader, true);
    assert_eq!(response.status, 200);
    assert_eq!(response.header("content-length"), Some("2"));
    let log = double.requests();
    assert_eq!(log[0].answered, "unsupported_content_encoding");
    assert_eq!(log[0].body["_undecoded"]["content_encoding"], "gzip");
    assert_eq!(log[1].method, "HEAD");
}

#[test]
fn a_script_swap_applies_to_later_requests() {
    let double =
        ModelDouble::start(Protocol::AnthropicMessages, Script::text_only("first")).unwrap();
    let body = br#"{"messages":[{"role":"user","content":"hi"}],"stream":false}"#;
    let ask = || {
        let stream = TcpStream::connect(double.addr()).unwrap();
        let mut reader = BufReader::new(stream.try_clone().unwrap());
        let mut writer = stream;
        writer.write_all(&post("/v1/messages", "", body)).unwrap();
        let response = read_response(&mut reader, false);
        serde_json::from_slice::<Value>(&response.body).unwrap()["content"][0]["text"].clone()
    };
    assert_eq!(ask(), "first");
    double.set_script(Script::text_only("second"));
    assert_eq!(ask(), "second");
}

#[test]
fn stopping_closes_idle_keep_alive_connections() {
    let mut double =
        ModelDouble::start(Protocol::GeminiGenerateContent, Script::text_only("x")).unwrap();
    let mut idle = TcpStream::connect(double.addr()).unwrap();
    idle.write_all(b"GET /v1beta/models HTTP/1.1\r\n\r\n")
        .unwrap();
    let mut reader = BufReader::new(idle.try_clone().unwrap());
    assert_eq!(read_response(&mut reader, false).status, 200);
    // The connection now idles in keep-alive; stop must not wait for the client to hang up.
    double.stop();
    let mut rest = Vec::new();
    assert_eq!(
        reader.read_to_end(&mut rest).unwrap_or(0),
        0,
        "the server closed it"
    );
}

#[test]
fn malformed_requests_are_logged_and_answered_400() {
    let double = ModelDouble::start(Protocol::OpenAiResponses, Script::text_only("x")).unwrap();
    let mut stream = TcpStream::connect(double.addr()).unwrap();
    stream.write_all(b"NOT-HTTP\r\n\r\n").unwrap();
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).unwrap();
    assert!(String::from_utf8(raw).unwrap().starts_with("HTTP/1.1 400"));
    assert_eq!(double.requests()[0].answered, "http.malformed");
}
