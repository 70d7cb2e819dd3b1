//! What a recorded client tried to reach. A recording runs offline: the client talks to
//! its model double on 127.0.0.1 and to nothing else. Inside the recorder's loopback-only
//! network namespace ([`super::offline`]) nothing else exists, so every other address it
//! tries is named and recorded as refused; outside one (a capture from before, or a test
//! run of the watch itself) such an attempt fails the capture, named.
//!
//! Two watchers, both without root:
//! - `strace -f` records every `connect` and `send*` of the client and every process it
//!   starts (hooks, MCP servers, shells): an IPv4 or IPv6 address other than 127.0.0.1, and
//!   the name in any DNS query, whatever the client's HTTP stack does with proxy settings;
//! - a refusing proxy on 127.0.0.1, named by `HTTP(S)_PROXY`/`ALL_PROXY` with
//!   `NO_PROXY=127.0.0.1,localhost`: a client that honours them asks it for a host by name
//!   (`CONNECT host:443`), which it records and refuses.
//!
//! The namespace makes leaving impossible; the watch says what was tried.

use std::collections::{BTreeMap, BTreeSet};
use std::ffi::OsStr;
use std::io::{Read, Write};
use std::net::{Ipv4Addr, Ipv6Addr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::environment::find_program;

/// The variables that send a client's proxied traffic to the refusing proxy.
pub const PROXY_VARS: [&str; 8] = [
    "ALL_PROXY",
    "HTTPS_PROXY",
    "HTTP_PROXY",
    "NO_PROXY",
    "all_proxy",
    "http_proxy",
    "https_proxy",
    "no_proxy",
];

/// The one address a recorded client may reach.
pub const ALLOWED: Ipv4Addr = Ipv4Addr::LOCALHOST;

/// How an attempt was seen.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum AttemptKind {
    /// A `connect` or `sendto` to an address.
    Connect,
    /// A DNS query for a name.
    DnsQuery,
    /// A request to the refusing proxy for a host.
    Proxy,
}

/// One attempt to reach something other than 127.0.0.1.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct NetworkAttempt {
    pub kind: AttemptKind,
    /// `203.0.113.7:443`, `[2001:db8::1]:443`, or the host asked for (`api.example.com:443`,
    /// `api.example.com` for a DNS query).
    pub target: String,
    /// Made inside the recorder's loopback-only network namespace, where it could reach
    /// nothing: recorded, and no reason to fail the capture (absent in captures made
    /// before the namespace, whose attempts may have left the machine).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub refused: bool,
}

impl NetworkAttempt {
    pub fn describe(&self) -> String {
        let how = match self.kind {
            AttemptKind::Connect => "connect",
            AttemptKind::DnsQuery => "DNS query",
            AttemptKind::Proxy => "asked of the proxy",
        };
        let refused = if self.refused { ", refused" } else { "" };
        format!("{} ({how}{refused})", self.target)
    }
}

/// Why the network could not be watched.
#[derive(Debug)]
pub enum WatchError {
    /// `strace` is not on PATH.
    NoStrace,
    /// The refusing proxy could not listen on 127.0.0.1.
    Proxy(std::io::Error),
}

impl std::fmt::Display for WatchError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            WatchError::NoStrace => f.write_str(
                "strace is not installed, and a recording must see every address the client tries: install it (apt-get install strace) and run again",
            ),
            WatchError::Proxy(e) => write!(f, "the refusing proxy could not listen on 127.0.0.1: {e}"),
        }
    }
}

/// The refusing proxy: every request it gets is recorded by host and answered 403.
struct Sentinel {
    port: u16,
    hosts: Arc<Mutex<Vec<String>>>,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

/// The host a proxy request asks for: `CONNECT host:443 HTTP/1.1` or an absolute URI.
pub fn proxy_target(request_line: &str) -> Option<String> {
    let mut parts = request_line.split_whitespace();
    let method = parts.next()?;
    let target = parts.next()?;
    if method.eq_ignore_ascii_case("CONNECT") {
        return Some(target.to_owned());
    }
    let rest = target
        .strip_prefix("http://")
        .or_else(|| target.strip_prefix("https://"))?;
    Some(rest.split('/').next().unwrap_or(rest).to_owned())
}

fn serve(mut stream: TcpStream, hosts: &Mutex<Vec<String>>) {
    let _ = stream.set_read_timeout(Some(Duration::from_secs(2)));
    let mut buf = Vec::new();
    let mut chunk = [0u8; 1024];
    while !buf.windows(2).any(|w| w == b"\r\n") && buf.len() < 8192 {
        match stream.read(&mut chunk) {
            Ok(0) | Err(_) => break,
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
        }
    }
    let text = String::from_utf8_lossy(&buf);
    let line = text.lines().next().unwrap_or("");
    let target = proxy_target(line).unwrap_or_else(|| format!("an unreadable request {line:?}"));
    hosts.lock().expect("the sentinel's list").push(target);
    let _ = stream
        .write_all(b"HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
}

impl Sentinel {
    fn start() -> std::io::Result<Sentinel> {
        let listener = TcpListener::bind((ALLOWED, 0))?;
        listener.set_nonblocking(true)?;
        let port = listener.local_addr()?.port();
        let hosts = Arc::new(Mutex::new(Vec::new()));
        let stop = Arc::new(AtomicBool::new(false));
        let thread = {
            let hosts = Arc::clone(&hosts);
            let stop = Arc::clone(&stop);
            std::thread::spawn(move || {
                while !stop.load(Ordering::Relaxed) {
                    match listener.accept() {
                        Ok((stream, _)) => {
                            let _ = stream.set_nonblocking(false);
                            serve(stream, &hosts);
                        }
                        Err(_) => std::thread::sleep(Duration::from_millis(20)),
                    }
                }
            })
        };
        Ok(Sentinel {
            port,
            hosts,
            stop,
            thread: Some(thread),
        })
    }

    fn finish(mut self) -> Vec<String> {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
        std::mem::take(&mut *self.hosts.lock().expect("the sentinel's list"))
    }
}

/// Watches one client run: build its command with [`NetworkWatch::command`], then read
/// what it tried with [`NetworkWatch::finish`].
pub struct NetworkWatch {
    strace: PathBuf,
    log: PathBuf,
    sentinel: Sentinel,
}

impl NetworkWatch {
    /// Starts the proxy; the strace log goes to `dir`.
    pub fn start(dir: &Path, path: &OsStr) -> Result<NetworkWatch, WatchError> {
        let strace = find_program("strace", path)
            .or_else(|| find_program("strace", OsStr::new(super::environment::SYSTEM_PATH)))
            .ok_or(WatchError::NoStrace)?;
        let sentinel = Sentinel::start().map_err(WatchError::Proxy)?;
        Ok(NetworkWatch {
            strace,
            log: dir.join("network.strace"),
            sentinel,
        })
    }

    /// The proxy variables every run gets: everything but 127.0.0.1 goes to the sentinel.
    pub fn env(&self) -> BTreeMap<String, String> {
        let proxy = format!("http://{ALLOWED}:{}", self.sentinel.port);
        PROXY_VARS
            .iter()
            .map(|key| {
                let value = if key.eq_ignore_ascii_case("NO_PROXY") {
                    "127.0.0.1,localhost".to_owned()
                } else {
                    proxy.clone()
                };
                ((*key).to_owned(), value)
            })
            .collect()
    }

    /// `program args` under `strace -f`, which follows every process it starts. With
    /// `--seccomp-bpf` (strace 5.3 and later) the client stops only at the traced calls, so
    /// it runs at nearly its own speed.
    pub fn command(&self, program: &Path, args: &[String]) -> Command {
        let mut command = Command::new(&self.strace);
        command
            .args([
                "-f",
                "--seccomp-bpf",
                "-qq",
                "-xx",
                "-s",
                "512",
                "-e",
                "signal=none",
            ])
            .args(["-e", "trace=connect,sendto,sendmsg,sendmmsg"])
            .arg("-o")
            .arg(&self.log)
            .arg("--")
            .arg(program)
            .args(args);
        command
    }

    /// Every attempt, sorted and without repeats; each marked refused when this process
    /// runs in a loopback-only namespace (its clients cannot have left it).
    pub fn finish(self) -> Vec<NetworkAttempt> {
        let refused = super::offline::loopback_only();
        self.attempts()
            .into_iter()
            .map(|attempt| NetworkAttempt { refused, ..attempt })
            .collect()
    }

    fn attempts(self) -> Vec<NetworkAttempt> {
        let log = std::fs::read_to_string(&self.log).unwrap_or_default();
        let mut attempts: BTreeSet<NetworkAttempt> = strace_attempts(&log).into_iter().collect();
        for host in self.sentinel.finish() {
            if !is_loopback_host(&host) {
                attempts.insert(NetworkAttempt {
                    kind: AttemptKind::Proxy,
                    target: host,
                    refused: false,
                });
            }
        }
        attempts.into_iter().collect()
    }
}

fn is_loopback_host(host: &str) -> bool {
    let name = host
        .rsplit_once(':')
        .filter(|(_, port)| port.chars().all(|c| c.is_ascii_digit()))
        .map_or(host, |(name, _)| name);
    name == ALLOWED.to_string() || name.eq_ignore_ascii_case("localhost")
}

/// The text between `start` and the next `end` after it.
fn between<'a>(line: &'a str, start: &str, end: &str) -> Option<&'a str> {
    let from = line.find(start)? + start.len();
    let len = line[from..].find(end)?;
    Some(&line[from..from + len])
}

/// A string as strace printed it with `-xx` (`\x31\x32` is `12`), or as written.
fn unescape(text: &str) -> String {
    if !text.starts_with("\\x") {
        return text.to_owned();
    }
    let bytes: Vec<u8> = text
        .split("\\x")
        .filter(|h| h.len() == 2)
        .filter_map(|h| u8::from_str_radix(h, 16).ok())
        .collect();
    String::from_utf8_lossy(&bytes).into_owned()
}

/// The address a strace line passes to `connect`/`sendto`, when it is IPv4 or IPv6.
fn address(line: &str) -> Option<String> {
    if line.contains("sa_family=AF_INET6") {
        let port = between(line, "sin6_port=htons(", ")")?;
        let ip = unescape(between(line, "inet_pton(AF_INET6, \"", "\"")?);
        let ip: Ipv6Addr = ip.parse().ok()?;
        if ip.to_ipv4_mapped() == Some(ALLOWED) {
            return None;
        }
        return Some(format!("[{ip}]:{port}"));
    }
    if line.contains("sa_family=AF_INET,") {
        let port = between(line, "sin_port=htons(", ")")?;
        let ip = unescape(between(line, "sin_addr=inet_addr(\"", "\"")?);
        let ip: Ipv4Addr = ip.parse().ok()?;
        if ip == ALLOWED {
            return None;
        }
        return Some(format!("{ip}:{port}"));
    }
    None
}

/// The bytes of every `"\x.."` string strace printed on the line (`-xx`).
fn buffers(line: &str) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    let mut rest = line;
    while let Some(at) = rest.find("\"\\x") {
        let body = &rest[at + 1..];
        let end = body.find('"').unwrap_or(body.len());
        let bytes: Vec<u8> = body[..end]
            .split("\\x")
            .filter(|h| h.len() == 2)
            .filter_map(|h| u8::from_str_radix(h, 16).ok())
            .collect();
        out.push(bytes);
        rest = &body[end..];
    }
    out
}

/// The name a DNS query asks for, when `bytes` is one.
pub fn dns_query_name(bytes: &[u8]) -> Option<String> {
    if bytes.len() < 17 || bytes[2] & 0x80 != 0 {
        return None;
    }
    let questions = u16::from_be_bytes([bytes[4], bytes[5]]);
    if questions == 0 {
        return None;
    }
    let mut at = 12;
    let mut labels = Vec::new();
    loop {
        let len = usize::from(*bytes.get(at)?);
        at += 1;
        if len == 0 {
            break;
        }
        if len > 63 {
            return None;
        }
        let label = bytes.get(at..at + len)?;
        if !label
            .iter()
            .all(|b| b.is_ascii_alphanumeric() || *b == b'-' || *b == b'_')
        {
            return None;
        }
        labels.push(String::from_utf8_lossy(label).into_owned());
        at += len;
    }
    let class = u16::from_be_bytes([*bytes.get(at + 2)?, *bytes.get(at + 3)?]);
    (class == 1 && !labels.is_empty()).then(|| labels.join("."))
}

/// Every attempt a strace log shows: addresses other than 127.0.0.1, and DNS queries for
/// names other than `localhost`.
pub fn strace_attempts(log: &str) -> Vec<NetworkAttempt> {
    let mut found = Vec::new();
    for line in log.lines() {
        if let Some(target) = address(line) {
            found.push(NetworkAttempt {
                kind: AttemptKind::Connect,
                target,
                refused: false,
            });
        }
        if line.contains("send") {
            for bytes in buffers(line) {
                if let Some(name) = dns_query_name(&bytes)
                    && !name.eq_ignore_ascii_case("localhost")
                {
                    found.push(NetworkAttempt {
                        kind: AttemptKind::DnsQuery,
                        target: name,
                        refused: false,
                    });
                }
            }
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strace_lines_give_addresses_other_than_127_0_0_1() {
        let log = r#"101 connect(3, {sa_family=AF_INET, sin_port=htons(443), sin_addr=inet_addr("203.0.113.7")}, 16) = -1 ENETUNREACH (Network is unreachable)
101 connect(4, {sa_family=AF_INET, sin_port=htons(8080), sin_addr=inet_addr("127.0.0.1")}, 16) = 0
102 connect(5, {sa_family=AF_INET6, sin6_port=htons(443), sin6_flowinfo=htonl(0), inet_pton(AF_INET6, "2001:db8::1", &sin6_addr), sin6_scope_id=0}, 28) = -1 ENETUNREACH
102 connect(6, {sa_family=AF_INET6, sin6_port=htons(80), sin6_flowinfo=htonl(0), inet_pton(AF_INET6, "::ffff:127.0.0.1", &sin6_addr), sin6_scope_id=0}, 28) = 0
103 connect(7, {sa_family=AF_UNIX, sun_path="/tmp/x.sock"}, 110) = 0
104 connect(3, {sa_family=AF_INET, sin_port=htons(53), sin_addr=inet_addr("\x31\x30\x2e\x30\x2e\x30\x2e\x35\x33")}, 16) = 0
104 connect(3, {sa_family=AF_INET, sin_port=htons(9), sin_addr=inet_addr("\x31\x32\x37\x2e\x30\x2e\x30\x2e\x31")}, 16) = 0
"#;
        let targets: Vec<String> = strace_attempts(log).into_iter().map(|a| a.target).collect();
        assert_eq!(
            targets,
            ["203.0.113.7:443", "[2001:db8::1]:443", "10.0.0.53:53"],
            "strace -xx prints addresses in hex too"
        );
    }

    #[test]
    fn a_dns_query_is_named_by_the_host_it_asks_for() {
        // A query for api.example.com, type A, class IN.
        let mut query = vec![0x12, 0x34, 0x01, 0x00, 0, 1, 0, 0, 0, 0, 0, 0];
        for label in ["api", "example", "com"] {
            query.push(label.len() as u8);
            query.extend_from_slice(label.as_bytes());
        }
        query.extend_from_slice(&[0, 0, 1, 0, 1]);
        assert_eq!(dns_query_name(&query).as_deref(), Some("api.example.com"));
        let hex: String = query.iter().map(|b| format!("\\x{b:02x}")).collect();
        let line = format!(
            "104 sendmmsg(3, [{{msg_hdr={{msg_name=NULL, msg_namelen=0, msg_iov=[{{iov_base=\"{hex}\", iov_len={}}}]}}}}], 1, MSG_NOSIGNAL) = 1",
            query.len()
        );
        assert_eq!(
            strace_attempts(&line),
            [NetworkAttempt {
                kind: AttemptKind::DnsQuery,
                target: "api.example.com".into(),
                refused: false,
            }]
        );
        assert_eq!(dns_query_name(b"GET / HTTP/1.1\r\nHost: x\r\n"), None);
    }

    #[test]
    fn proxy_requests_name_their_host() {
        assert_eq!(
            proxy_target("CONNECT api.example.com:443 HTTP/1.1").as_deref(),
            Some("api.example.com:443")
        );
        assert_eq!(
            proxy_target("GET http://update.example.com/v1/latest HTTP/1.1").as_deref(),
            Some("update.example.com")
        );
        assert!(is_loopback_host("127.0.0.1:4000"));
        assert!(is_loopback_host("localhost"));
        assert!(!is_loopback_host("127.0.0.2:80"));
    }
}
