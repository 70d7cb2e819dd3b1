//! Just enough HTTP/1.1 for a model double: one request at a time off a keep-alive
//! connection, bodies by `Content-Length` or chunked, whole responses with `Content-Length`.

use std::fmt;
use std::io::{self, BufRead, Read, Write};

use super::exchange::{Reply, split_target};

/// Requests larger than this are refused; real client requests are about 50 KB.
const MAX_BODY: usize = 64 * 1024 * 1024;
const MAX_HEAD: usize = 256 * 1024;

/// A request as it came off the wire.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawRequest {
    pub method: String,
    pub path: String,
    pub query: Option<String>,
    pub version: String,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl RawRequest {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(key, _)| key.eq_ignore_ascii_case(name))
            .map(|(_, value)| value.trim())
    }

    /// HTTP/1.1 keeps the connection unless told otherwise; HTTP/1.0 closes unless asked.
    pub fn keep_alive(&self) -> bool {
        let connection = self.header("connection").map(str::to_ascii_lowercase);
        match connection.as_deref() {
            Some(value) if value.contains("close") => false,
            Some(value) if value.contains("keep-alive") => true,
            _ => self.version != "HTTP/1.0",
        }
    }
}

#[derive(Debug)]
pub enum HttpError {
    Io(io::Error),
    /// The bytes are not an HTTP/1.x request (stable code `http.malformed`).
    Malformed(String),
    /// Head or body over the limits (stable code `http.too-large`).
    TooLarge,
}

impl HttpError {
    pub fn code(&self) -> &'static str {
        match self {
            HttpError::Io(_) => "http.io",
            HttpError::Malformed(_) => "http.malformed",
            HttpError::TooLarge => "http.too-large",
        }
    }
}

impl fmt::Display for HttpError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HttpError::Io(err) => write!(f, "{}: {err}", self.code()),
            HttpError::Malformed(what) => write!(f, "{}: {what}", self.code()),
            HttpError::TooLarge => write!(f, "{}: request over the size limit", self.code()),
        }
    }
}

impl std::error::Error for HttpError {}

impl From<io::Error> for HttpError {
    fn from(err: io::Error) -> Self {
        HttpError::Io(err)
    }
}

/// Reads one request. `Ok(None)` when the peer closed the connection between requests.
/// `continue_to` receives the interim `100 Continue` when the client asks for it.
pub fn read_request<R: BufRead, W: Write>(
    reader: &mut R,
    continue_to: &mut W,
) -> Result<Option<RawRequest>, HttpError> {
    let mut head_bytes = 0usize;
    let request_line = loop {
        match read_line(reader, &mut head_bytes)? {
            None => return Ok(None),
            // Tolerate stray empty lines between keep-alive requests (RFC 9112 §2.2).
            Some(line) if line.is_empty() => continue,
            Some(line) => break line,
        }
    };
    let mut parts = request_line.split_whitespace();
    let (Some(method), Some(target), Some(version)) = (parts.next(), parts.next(), parts.next())
    else {
        return Err(HttpError::Malformed(format!(
            "bad request line {request_line:?}"
        )));
    };
    if !version.starts_with("HTTP/1.") {
        return Err(HttpError::Malformed(format!(
            "unsupported version {version}"
        )));
    }
    let mut headers = Vec::new();
    loop {
        let line = read_line(reader, &mut head_bytes)?
            .ok_or_else(|| HttpError::Malformed("connection closed inside the head".into()))?;
        if line.is_empty() {
            break;
        }
        let (name, value) = line
            .split_once(':')
            .ok_or_else(|| HttpError::Malformed(format!("bad header line {line:?}")))?;
        headers.push((name.trim().to_owned(), value.trim().to_owned()));
    }
    let (path, query) = split_target(target);
    let mut request = RawRequest {
        method: method.to_owned(),
        path,
        query,
        version: version.to_owned(),
        headers,
        body: Vec::new(),
    };
    if request
        .header("expect")
        .is_some_and(|value| value.eq_ignore_ascii_case("100-continue"))
    {
        continue_to.write_all(b"HTTP/1.1 100 Continue\r\n\r\n")?;
        continue_to.flush()?;
    }
    let chunked = request
        .header("transfer-encoding")
        .is_some_and(|value| value.to_ascii_lowercase().contains("chunked"));
    request.body = if chunked {
        read_chunked(reader)?
    } else if let Some(length) = request.header("content-length") {
        let length: usize = length
            .parse()
            .map_err(|_| HttpError::Malformed(format!("bad content-length {length:?}")))?;
        if length > MAX_BODY {
            return Err(HttpError::TooLarge);
        }
        let mut body = vec![0; length];
        reader.read_exact(&mut body)?;
        body
    } else {
        Vec::new()
    };
    Ok(Some(request))
}

/// One CRLF- (or LF-) terminated line without its terminator; `None` on EOF before any byte.
fn read_line<R: BufRead>(reader: &mut R, budget: &mut usize) -> Result<Option<String>, HttpError> {
    let mut line = Vec::new();
    let read = reader
        .by_ref()
        .take((MAX_HEAD - *budget) as u64 + 1)
        .read_until(b'\n', &mut line)?;
    if read == 0 {
        return Ok(None);
    }
    *budget += read;
    if *budget > MAX_HEAD {
        return Err(HttpError::TooLarge);
    }
    if line.last() != Some(&b'\n') {
        return Err(HttpError::Malformed("connection closed mid-line".into()));
    }
    line.pop();
    if line.last() == Some(&b'\r') {
        line.pop();
    }
    String::from_utf8(line)
        .map(Some)
        .map_err(|_| HttpError::Malformed("head is not UTF-8".into()))
}

fn read_chunked<R: BufRead>(reader: &mut R) -> Result<Vec<u8>, HttpError> {
    let mut body = Vec::new();
    loop {
        // Each framing line gets its own budget: a long body may come in many chunks.
        let mut head_bytes = 0usize;
        let line = read_line(reader, &mut head_bytes)?.ok_or_else(|| {
            HttpError::Malformed("connection closed inside a chunked body".into())
        })?;
        let size_text = line.split(';').next().unwrap_or_default().trim();
        let size = usize::from_str_radix(size_text, 16)
            .map_err(|_| HttpError::Malformed(format!("bad chunk size {size_text:?}")))?;
        if size == 0 {
            // Trailers, up to the empty line.
            while let Some(trailer) = read_line(reader, &mut head_bytes)? {
                if trailer.is_empty() {
                    break;
                }
            }
            return Ok(body);
        }
        if body.len() + size > MAX_BODY {
            return Err(HttpError::TooLarge);
        }
        let start = body.len();
        body.resize(start + size, 0);
        reader.read_exact(&mut body[start..])?;
        let end = read_line(reader, &mut head_bytes)?;
        if end.as_deref() != Some("") {
            return Err(HttpError::Malformed("chunk not followed by CRLF".into()));
        }
    }
}

/// Writes a whole response. `head_only` answers a HEAD request (headers, no body).
pub fn write_response<W: Write>(
    out: &mut W,
    reply: &Reply,
    head_only: bool,
    keep_alive: bool,
) -> io::Result<()> {
    let mut head = format!(
        "HTTP/1.1 {} {}\r\ncontent-type: {}\r\ncontent-length: {}\r\ncache-control: no-cache\r\nconnection: {}\r\n\r\n",
        reply.status,
        reason_phrase(reply.status),
        reply.content_type,
        reply.body.len(),
        if keep_alive { "keep-alive" } else { "close" },
    )
    .into_bytes();
    if !head_only {
        head.extend_from_slice(&reply.body);
    }
    out.write_all(&head)?;
    out.flush()
}

fn reason_phrase(status: u16) -> &'static str {
    match status {
        200 => "OK",
        400 => "Bad Request",
        404 => "Not Found",
        413 => "Payload Too Large",
        415 => "Unsupported Media Type",
        _ => "Status",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Cursor;

    fn read(bytes: &[u8]) -> (Result<Option<RawRequest>, HttpError>, Vec<u8>) {
        let mut sink = Vec::new();
        let result = read_request(&mut Cursor::new(bytes.to_vec()), &mut sink);
        (result, sink)
    }

    #[test]
    fn content_length_bodies_and_headers_are_read() {
        let (request, _) = read(
            b"POST /v1/messages?beta=true HTTP/1.1\r\nHost: x\r\nContent-Length: 7\r\n\r\n{\"a\":1}",
        );
        let request = request.unwrap().unwrap();
        assert_eq!(request.method, "POST");
        assert_eq!(request.path, "/v1/messages");
        assert_eq!(request.query.as_deref(), Some("beta=true"));
        assert_eq!(request.header("host"), Some("x"));
        assert_eq!(request.body, b"{\"a\":1}");
        assert!(request.keep_alive());
    }

    #[test]
    fn chunked_bodies_are_reassembled() {
        let (request, _) = read(
            b"POST /v1/responses HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n4\r\n{\"a\"\r\n3;ext=1\r\n:1}\r\n0\r\nX-Trailer: t\r\n\r\n",
        );
        assert_eq!(request.unwrap().unwrap().body, b"{\"a\":1}");
    }

    #[test]
    fn two_requests_share_one_connection() {
        let bytes = b"GET /a HTTP/1.1\r\n\r\nGET /b HTTP/1.1\r\nConnection: close\r\n\r\n";
        let mut cursor = Cursor::new(bytes.to_vec());
        let mut sink = Vec::new();
        let first = read_request(&mut cursor, &mut sink).unwrap().unwrap();
        let second = read_request(&mut cursor, &mut sink).unwrap().unwrap();
        assert_eq!((first.path.as_str(), first.keep_alive()), ("/a", true));
        assert_eq!((second.path.as_str(), second.keep_alive()), ("/b", false));
        assert!(read_request(&mut cursor, &mut sink).unwrap().is_none());
    }

    #[test]
    fn expect_continue_gets_an_interim_response() {
        let (request, sink) =
            read(b"POST /x HTTP/1.1\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\n{}");
        assert_eq!(request.unwrap().unwrap().body, b"{}");
        assert_eq!(sink, b"HTTP/1.1 100 Continue\r\n\r\n");
    }

    #[test]
    fn malformed_input_is_refused_with_a_code() {
        let (request, _) = read(b"garbage\r\n\r\n");
        assert_eq!(request.unwrap_err().code(), "http.malformed");
        let (request, _) = read(b"POST / HTTP/1.1\r\nContent-Length: nope\r\n\r\n");
        assert_eq!(request.unwrap_err().code(), "http.malformed");
        let (request, _) = read(b"POST / HTTP/1.1\r\nContent-Length: 999999999999\r\n\r\n");
        assert_eq!(request.unwrap_err().code(), "http.too-large");
    }

    #[test]
    fn http_1_0_closes_unless_asked() {
        let (request, _) = read(b"GET / HTTP/1.0\r\n\r\n");
        assert!(!request.unwrap().unwrap().keep_alive());
        let (request, _) = read(b"GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n");
        assert!(request.unwrap().unwrap().keep_alive());
    }

    #[test]
    fn responses_carry_their_length_and_head_omits_the_body() {
        let reply = Reply::json(200, &serde_json::json!({}), "probe");
        let mut out = Vec::new();
        write_response(&mut out, &reply, false, true).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(text.starts_with("HTTP/1.1 200 OK\r\n"));
        assert!(text.contains("content-length: 2\r\n"));
        assert!(text.contains("connection: keep-alive\r\n"));
        assert!(text.ends_with("\r\n\r\n{}"));
        let mut out = Vec::new();
        write_response(&mut out, &reply, true, false).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(text.ends_with("connection: close\r\n\r\n"));
    }
}
