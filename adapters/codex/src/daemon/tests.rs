use super::*;
use std::io::{Read, Write};
use std::os::unix::net::{UnixListener, UnixStream};
use std::sync::{Arc, Mutex};

const THREAD: &str = "01a249e2-477d-72b2-9e9c-56effffac686";
const LEASE: &str = "2026-12-03T12:00:00.000Z";

/// What the fake daemon holds and what it was asked to queue.
#[derive(Default)]
struct State {
    /// Threads it knows, with whether each is loaded.
    threads: BTreeMap<String, bool>,
    /// The home it reports in `initialize`.
    home: String,
    queued: Vec<Value>,
}

/// A fake Codex daemon in this process (so `SO_PEERCRED` names this pid), speaking the
/// WebSocket JSON-RPC the real one speaks at `$CODEX_HOME/app-server-control/`.
struct FakeDaemon {
    dir: tempfile::TempDir,
    state: Arc<Mutex<State>>,
}

impl FakeDaemon {
    fn start() -> FakeDaemon {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().join("home/.codex");
        std::fs::create_dir_all(home.join("app-server-control")).unwrap();
        let listener = UnixListener::bind(home.join(SOCKET)).unwrap();
        let state = Arc::new(Mutex::new(State {
            threads: BTreeMap::from([(THREAD.to_owned(), true)]),
            home: home.display().to_string(),
            queued: Vec::new(),
        }));
        let shared = state.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming().map_while(Result::ok) {
                let shared = shared.clone();
                std::thread::spawn(move || serve(stream, &shared));
            }
        });
        FakeDaemon { dir, state }
    }

    fn home(&self) -> PathBuf {
        self.dir.path().join("home")
    }

    fn facts(&self, pid: u32) -> NativeSessionFacts {
        let mut env = BTreeMap::new();
        env.insert("HOME".into(), self.home().display().to_string());
        NativeSessionFacts {
            session_id: "session_x".into(),
            generation: "generation_x".into(),
            cwd: "/w".into(),
            client_pid: Some(pid),
            client_version: Some("0.171.0".into()),
            client_name: Some("codex".into()),
            client_session_id: THREAD.into(),
            permission_mode: None,
            env,
            lease_until: LEASE.into(),
        }
    }

    fn queued(&self) -> Vec<Value> {
        self.state.lock().unwrap().queued.clone()
    }

    fn set_loaded(&self, loaded: bool) {
        self.state
            .lock()
            .unwrap()
            .threads
            .insert(THREAD.into(), loaded);
    }
}

fn read_frame(stream: &mut UnixStream) -> Option<Value> {
    let mut head = [0u8; 2];
    stream.read_exact(&mut head).ok()?;
    let mut len = u64::from(head[1] & 0x7f);
    if len == 126 {
        let mut b = [0u8; 2];
        stream.read_exact(&mut b).ok()?;
        len = u64::from(u16::from_be_bytes(b));
    } else if len == 127 {
        let mut b = [0u8; 8];
        stream.read_exact(&mut b).ok()?;
        len = u64::from_be_bytes(b);
    }
    assert!(head[1] & 0x80 != 0, "a client frame must be masked");
    let mut mask = [0u8; 4];
    stream.read_exact(&mut mask).ok()?;
    let mut payload = vec![0u8; len as usize];
    stream.read_exact(&mut payload).ok()?;
    payload
        .iter_mut()
        .enumerate()
        .for_each(|(i, b)| *b ^= mask[i % 4]);
    serde_json::from_slice(&payload).ok()
}

fn write_frame(stream: &mut UnixStream, message: &Value) {
    let payload = message.to_string().into_bytes();
    let mut frame = vec![0x81];
    if payload.len() < 126 {
        frame.push(payload.len() as u8);
    } else {
        frame.push(126);
        frame.extend_from_slice(&(payload.len() as u16).to_be_bytes());
    }
    frame.extend_from_slice(&payload);
    let _ = stream.write_all(&frame);
}

fn serve(mut stream: UnixStream, state: &Mutex<State>) {
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        if stream.read_exact(&mut byte).is_err() {
            return;
        }
        head.push(byte[0]);
    }
    let _ = stream.write_all(
        b"HTTP/1.1 101 Switching Protocols\r\nconnection: Upgrade\r\nupgrade: websocket\r\n\r\n",
    );
    while let Some(request) = read_frame(&mut stream) {
        let Some(id) = request.get("id").cloned() else {
            continue;
        };
        // The real daemon interleaves notifications with answers.
        write_frame(
            &mut stream,
            &json!({"method": "remoteControl/status/changed", "params": {}}),
        );
        let params = &request["params"];
        let mut s = state.lock().unwrap();
        let answer = match request["method"].as_str().unwrap_or_default() {
            "initialize" => json!({"id": id, "result": {
                "userAgent": "codex-tui/0.171.0 (Debian 12.0.0; x86_64) xterm (acc; 0)",
                "codexHome": s.home,
            }}),
            "thread/read" => {
                let thread = params["threadId"].as_str().unwrap_or_default();
                match s.threads.get(thread) {
                    Some(loaded) => json!({"id": id, "result": {"thread": {
                        "id": thread,
                        "status": {"type": if *loaded { "idle" } else { "notLoaded" }},
                    }}}),
                    None => {
                        json!({"id": id, "error": {"code": -32600, "message": "thread not found"}})
                    }
                }
            }
            "thread/queue/add" => {
                s.queued.push(params.clone());
                json!({"id": id, "result": {"queuedSubmission": {"id": "q1"}}})
            }
            _ => json!({"id": id, "error": {"code": -32601, "message": "unknown"}}),
        };
        drop(s);
        write_frame(&mut stream, &answer);
    }
}

fn me() -> u32 {
    std::process::id()
}

fn offer_to(endpoint: &str, text: &str) -> OfferAcceptance {
    offer(&LiveOffer {
        session_id: "session_x".into(),
        generation: "generation_x".into(),
        message_id: "message_1".into(),
        text: text.into(),
        endpoint_ref: Some(endpoint.into()),
    })
}

#[test]
fn a_loaded_thread_of_the_daemon_that_ran_the_hook_binds() {
    let d = FakeDaemon::start();
    let h = bind(&d.facts(me()));
    assert_eq!(h["supported"], true, "{h}");
    assert_eq!(h["protocolContract"], PROTOCOL);
    assert_eq!(h["clientVersion"], "0.171.0");
    assert_eq!(h["leaseUntil"], LEASE);
    let endpoint = Endpoint::decode(h["opaqueEndpointRef"].as_str().unwrap()).unwrap();
    assert_eq!(endpoint.thread, THREAD);
    assert_eq!(endpoint.daemon_pid, me());
    assert!(d.queued().is_empty(), "a handshake queues nothing");
}

#[test]
fn a_hook_that_ran_under_another_process_does_not_bind_to_the_socket() {
    let d = FakeDaemon::start();
    assert_eq!(
        bind(&d.facts(me() + 1))["reasonCode"],
        "client_session_embedded"
    );
    let mut facts = d.facts(me());
    facts.client_pid = None;
    assert_eq!(bind(&facts)["reasonCode"], "client_process_unknown");
}

#[test]
fn an_unloaded_or_unknown_thread_does_not_bind() {
    let d = FakeDaemon::start();
    d.set_loaded(false);
    assert_eq!(
        bind(&d.facts(me()))["reasonCode"],
        "native_session_unavailable"
    );
    let mut facts = d.facts(me());
    facts.client_session_id = "01a249e2-0000-0000-0000-000000000000".into();
    assert_eq!(bind(&facts)["reasonCode"], "native_session_unavailable");
}

#[test]
fn a_daemon_of_another_home_or_none_at_all_does_not_bind() {
    let d = FakeDaemon::start();
    d.state.lock().unwrap().home = "/elsewhere/.codex".into();
    assert_eq!(bind(&d.facts(me()))["reasonCode"], "handshake_failed");
    let empty = tempfile::tempdir().unwrap();
    let mut facts = d.facts(me());
    facts
        .env
        .insert("CODEX_HOME".into(), empty.path().display().to_string());
    assert_eq!(bind(&facts)["reasonCode"], "native_endpoint_unavailable");
}

#[test]
fn an_offer_queues_the_text_once_on_the_bound_thread() {
    let d = FakeDaemon::start();
    let h = bind(&d.facts(me()));
    let got = offer_to(h["opaqueEndpointRef"].as_str().unwrap(), "  wake up  ");
    assert!(got.accepted, "{got:?}");
    assert!(!got.pending_approval);
    assert_eq!(
        d.queued(),
        vec![json!({
            "threadId": THREAD,
            "clientUserMessageId": "message_1",
            "input": [{"type": "text", "text": "wake up", "text_elements": []}],
        })]
    );
}

#[test]
fn an_offer_queues_nothing_where_the_session_is_gone_or_another() {
    let d = FakeDaemon::start();
    let h = bind(&d.facts(me()));
    let endpoint = h["opaqueEndpointRef"].as_str().unwrap().to_owned();
    // A daemon that restarted under another pid holds none of the old threads.
    let mut other = Endpoint::decode(&endpoint).unwrap();
    other.daemon_pid = me() + 1;
    let got = offer_to(&other.encode(), "wake");
    assert_eq!(got.reason_code.as_deref(), Some("session_generation_stale"));
    // The daemon unloaded the thread (the terminal left a minute ago).
    d.set_loaded(false);
    let got = offer_to(&endpoint, "wake");
    assert_eq!(
        got.reason_code.as_deref(),
        Some("native_session_unavailable")
    );
    d.set_loaded(true);
    // Nothing to say, too much to say, or an endpoint acc never published.
    assert!(!offer_to(&endpoint, "  ").accepted);
    assert!(!offer_to(&endpoint, &"x".repeat(MAX_TEXT + 1)).accepted);
    let got = offer_to(
        r#"{"v":1,"socket":"relative","thread":"t","daemonPid":1}"#,
        "wake",
    );
    assert_eq!(
        got.reason_code.as_deref(),
        Some("native_endpoint_unavailable")
    );
    assert!(d.queued().is_empty(), "{:?}", d.queued());
}

#[test]
fn a_killed_daemon_refuses_the_offer() {
    let dir = tempfile::tempdir().unwrap();
    let socket = dir.path().join("dead.sock");
    // SIGKILL leaves the socket file with no listener.
    drop(UnixListener::bind(&socket).unwrap());
    let endpoint = Endpoint {
        socket: socket.clone(),
        thread: THREAD.into(),
        daemon_pid: me(),
    };
    let got = offer_to(&endpoint.encode(), "wake");
    assert_eq!(
        got.reason_code.as_deref(),
        Some("native_session_unavailable")
    );
    std::fs::remove_file(&socket).unwrap();
    let got = offer_to(&endpoint.encode(), "wake");
    assert_eq!(
        got.reason_code.as_deref(),
        Some("native_endpoint_unavailable")
    );
}

#[test]
fn a_silent_socket_times_out_within_the_budget() {
    let dir = tempfile::tempdir().unwrap();
    let socket = dir.path().join("silent.sock");
    let listener = UnixListener::bind(&socket).unwrap();
    std::thread::spawn(move || {
        let held: Vec<UnixStream> = listener.incoming().map_while(Result::ok).collect();
        drop(held);
    });
    let endpoint = Endpoint {
        socket,
        thread: THREAD.into(),
        daemon_pid: me(),
    };
    let started = std::time::Instant::now();
    let got = offer_to(&endpoint.encode(), "wake");
    assert_eq!(got.reason_code.as_deref(), Some("handshake_timeout"));
    assert!(started.elapsed() < OFFER_BUDGET + Duration::from_secs(2));
}

#[test]
fn a_lease_is_renewed_only_for_the_same_daemon_and_thread() {
    let d = FakeDaemon::start();
    let first = bind(&d.facts(me()));
    let again = Daemon
        .refresh_native_session(&d.facts(me()), &first)
        .unwrap();
    assert_eq!(again["supported"], true);
    let mut moved = d.facts(me());
    moved.client_session_id = "01a249e2-0000-0000-0000-000000000001".into();
    d.state
        .lock()
        .unwrap()
        .threads
        .insert(moved.client_session_id.clone(), true);
    let stale = Daemon.refresh_native_session(&moved, &first).unwrap();
    assert_eq!(stale["reasonCode"], "session_generation_stale");
}
