//! The server glue: a std-only HTTP/1.1 listener on `127.0.0.1:0` that feeds each request to a
//! pure responder and logs it.

use std::io::{self, BufReader};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError, RwLock};
use std::thread::{self, JoinHandle};
use std::time::{SystemTime, UNIX_EPOCH};

use serde_json::{Map, Value, json};

use super::Protocol;
use super::exchange::{DoubleRequest, Reply, parse_body};
use super::http::{self, HttpError, RawRequest};
use super::log::{LoggedRequest, header_map, write_jsonl};
use super::script::Script;

/// Turns a request into a reply under the current script.
pub type Responder = dyn Fn(&DoubleRequest, &Script) -> Reply + Send + Sync;

struct Connection {
    stream: TcpStream,
    worker: JoinHandle<()>,
}

struct Shared {
    responder: Box<Responder>,
    script: RwLock<Script>,
    log: Mutex<Vec<LoggedRequest>>,
    next_n: AtomicU64,
    stopping: AtomicBool,
    connections: Mutex<Vec<Connection>>,
}

/// A running model double. Stops on [`ModelDouble::stop`] or on drop.
pub struct ModelDouble {
    addr: SocketAddr,
    shared: Arc<Shared>,
    acceptor: Option<JoinHandle<()>>,
}

impl ModelDouble {
    /// Starts a double for `protocol` following `script`, on an ephemeral loopback port.
    pub fn start(protocol: Protocol, script: Script) -> io::Result<ModelDouble> {
        ModelDouble::start_with(
            Box::new(move |request, script| protocol.respond(request, script)),
            script,
        )
    }

    /// Starts a double with a custom responder (a logging probe for an unknown client, say).
    pub fn start_with(responder: Box<Responder>, script: Script) -> io::Result<ModelDouble> {
        let listener = TcpListener::bind(("127.0.0.1", 0))?;
        let addr = listener.local_addr()?;
        let shared = Arc::new(Shared {
            responder,
            script: RwLock::new(script),
            log: Mutex::new(Vec::new()),
            next_n: AtomicU64::new(1),
            stopping: AtomicBool::new(false),
            connections: Mutex::new(Vec::new()),
        });
        let acceptor = {
            let shared = Arc::clone(&shared);
            thread::Builder::new()
                .name("model-double-accept".into())
                .spawn(move || accept_loop(&listener, &shared))?
        };
        Ok(ModelDouble {
            addr,
            shared,
            acceptor: Some(acceptor),
        })
    }

    pub fn port(&self) -> u16 {
        self.addr.port()
    }

    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// `http://127.0.0.1:<port>`, without a trailing slash.
    pub fn base_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Replaces the script for the requests that arrive from now on.
    pub fn set_script(&self, script: Script) {
        *self
            .shared
            .script
            .write()
            .unwrap_or_else(PoisonError::into_inner) = script;
    }

    /// The requests so far, in arrival order.
    pub fn requests(&self) -> Vec<LoggedRequest> {
        let mut entries = self
            .shared
            .log
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        entries.sort_by_key(|entry| entry.n);
        entries
    }

    /// Writes the request log as JSON lines.
    pub fn write_log(&self, path: &Path) -> io::Result<()> {
        write_jsonl(path, &self.requests())
    }

    /// Stops accepting, closes every open connection and waits for the worker threads.
    pub fn stop(&mut self) {
        let Some(acceptor) = self.acceptor.take() else {
            return;
        };
        self.shared.stopping.store(true, Ordering::SeqCst);
        // The acceptor blocks in accept(); one connection wakes it to see the flag.
        let _ = TcpStream::connect(self.addr);
        let _ = acceptor.join();
        let connections = std::mem::take(
            &mut *self
                .shared
                .connections
                .lock()
                .unwrap_or_else(PoisonError::into_inner),
        );
        for connection in connections {
            let _ = connection.stream.shutdown(Shutdown::Both);
            let _ = connection.worker.join();
        }
    }
}

impl Drop for ModelDouble {
    fn drop(&mut self) {
        self.stop();
    }
}

fn accept_loop(listener: &TcpListener, shared: &Arc<Shared>) {
    for stream in listener.incoming() {
        if shared.stopping.load(Ordering::SeqCst) {
            break;
        }
        let Ok(stream) = stream else { continue };
        let Ok(handle) = stream.try_clone() else {
            continue;
        };
        let worker = {
            let shared = Arc::clone(shared);
            thread::Builder::new()
                .name("model-double-conn".into())
                .spawn(move || serve(stream, &shared))
        };
        let Ok(worker) = worker else { continue };
        let mut connections = shared
            .connections
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        connections.retain(|connection| !connection.worker.is_finished());
        connections.push(Connection {
            stream: handle,
            worker,
        });
    }
}

/// Seconds since the epoch, to the microsecond (finer digits are noise in a log).
fn now() -> f64 {
    let micros = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|elapsed| elapsed.as_micros())
        .unwrap_or_default();
    micros as f64 / 1e6
}

fn serve(stream: TcpStream, shared: &Shared) {
    if let Ok(read_half) = stream.try_clone() {
        exchange_requests(BufReader::new(read_half), &stream, shared);
    }
    // The registry of open connections holds another handle to this socket, so dropping
    // ours would not close it: shut it down explicitly for the client to see the end.
    let _ = stream.shutdown(Shutdown::Both);
}

fn exchange_requests(mut reader: BufReader<TcpStream>, stream: &TcpStream, shared: &Shared) {
    let mut writer = stream;
    while !shared.stopping.load(Ordering::SeqCst) {
        let t = now();
        let result = http::read_request(&mut reader, &mut writer);
        let n = || shared.next_n.fetch_add(1, Ordering::SeqCst);
        match result {
            Ok(None) | Err(HttpError::Io(_)) => return,
            Err(err) => {
                // Logged so a client speaking something unexpected shows up in the evidence.
                let reply = Reply::json(
                    400,
                    &json!({"error": {"message": err.to_string()}}),
                    err.code(),
                );
                let entry = LoggedRequest {
                    t,
                    n: n(),
                    method: "?".into(),
                    path: "?".into(),
                    query: None,
                    headers: Map::new(),
                    body: Value::Null,
                    answered: reply.answered.clone(),
                };
                push(shared, entry);
                let _ = http::write_response(&mut writer, &reply, false, false);
                return;
            }
            Ok(Some(raw)) => {
                let n = n();
                let keep_alive = raw.keep_alive();
                let head_only = raw.method == "HEAD";
                let (request, reply) = answer(shared, raw);
                let entry = LoggedRequest {
                    t,
                    n,
                    headers: header_map(&request.headers),
                    method: request.method,
                    path: request.path,
                    query: request.query,
                    body: request.body,
                    answered: reply.answered.clone(),
                };
                // Logged before the reply leaves, so a client that has its answer can rely
                // on the log holding the request.
                push(shared, entry);
                if http::write_response(&mut writer, &reply, head_only, keep_alive).is_err()
                    || !keep_alive
                {
                    return;
                }
            }
        }
    }
}

fn answer(shared: &Shared, raw: RawRequest) -> (DoubleRequest, Reply) {
    let encoding = raw
        .header("content-encoding")
        .map(str::to_ascii_lowercase)
        .filter(|encoding| !encoding.is_empty() && encoding != "identity");
    let body = match &encoding {
        // The observed clients send plain bodies; a compressed one is refused visibly
        // rather than guessed at.
        Some(encoding) => {
            json!({"_undecoded": {"content_encoding": encoding, "bytes": raw.body.len()}})
        }
        None => parse_body(&raw.body),
    };
    let request = DoubleRequest {
        method: raw.method,
        path: raw.path,
        query: raw.query,
        headers: raw.headers,
        body,
    };
    let reply = match encoding {
        Some(encoding) => Reply::json(
            415,
            &json!({"error": {"message": format!("model double: content-encoding {encoding} is not supported")}}),
            "unsupported_content_encoding",
        ),
        None => {
            let script = shared.script.read().unwrap_or_else(PoisonError::into_inner);
            (shared.responder)(&request, &script)
        }
    };
    (request, reply)
}

fn push(shared: &Shared, entry: LoggedRequest) {
    shared
        .log
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .push(entry);
}
