use super::*;
use std::io::BufRead;
use std::os::unix::net::UnixListener;

const CLIENT_SESSION: &str = "5fa4df22-0000-4000-8000-000000000001";
const LEASE: &str = "2026-12-03T12:00:00.000Z";

/// A fake running session: a home with the client's record for `pid`, and a listening
/// socket where the record says.
struct FakeSession {
    dir: tempfile::TempDir,
    pid: u32,
    socket: PathBuf,
    listener: Option<UnixListener>,
}

impl FakeSession {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let pid = 4242;
        let socks = dir.path().join("cc-socks");
        std::fs::create_dir_all(&socks).unwrap();
        let socket = socks.join(format!("{pid}.sock"));
        let listener = UnixListener::bind(&socket).unwrap();
        let s = FakeSession {
            dir,
            pid,
            socket,
            listener: Some(listener),
        };
        s.write_record(CLIENT_SESSION, 1);
        s
    }

    fn home(&self) -> PathBuf {
        self.dir.path().join("home")
    }

    fn write_record(&self, session: &str, peer_protocol: u64) {
        let sessions = self.home().join(".claude/sessions");
        std::fs::create_dir_all(&sessions).unwrap();
        std::fs::write(
            sessions.join(format!("{}.json", self.pid)),
            json!({
                "pid": self.pid, "sessionId": session, "version": "2.1.332",
                "peerProtocol": peer_protocol, "kind": "interactive", "status": "idle",
                "messagingSocketPath": self.socket,
            })
            .to_string(),
        )
        .unwrap();
    }

    fn facts(&self, permission_mode: Option<&str>) -> NativeSessionFacts {
        let mut env = BTreeMap::new();
        env.insert("HOME".into(), self.home().display().to_string());
        env.insert("CLAUDE_PID".into(), self.pid.to_string());
        env.insert(
            "CLAUDE_CODE_MESSAGING_SOCKET".into(),
            self.socket.display().to_string(),
        );
        NativeSessionFacts {
            session_id: "session_x".into(),
            generation: "g1".into(),
            cwd: "/ws".into(),
            client_pid: Some(self.pid),
            client_version: Some("2.1.332".into()),
            client_name: Some("claude-code".into()),
            client_session_id: CLIENT_SESSION.into(),
            permission_mode: permission_mode.map(str::to_owned),
            env,
            lease_until: LEASE.into(),
        }
    }

    fn offer_to(&self, handshake: &Value, text: &str) -> OfferAcceptance {
        offer(&LiveOffer {
            session_id: "session_x".into(),
            generation: "g1".into(),
            message_id: "message_1".into(),
            text: text.into(),
            endpoint_ref: handshake["opaqueEndpointRef"].as_str().map(str::to_owned),
        })
    }

    fn received_line(&self) -> Value {
        let (conn, _) = self.listener.as_ref().unwrap().accept().unwrap();
        let mut line = String::new();
        std::io::BufReader::new(conn).read_line(&mut line).unwrap();
        assert!(
            line.ends_with('\n'),
            "one newline-terminated line: {line:?}"
        );
        serde_json::from_str(&line).unwrap()
    }
}

#[test]
fn a_live_session_binds_and_a_wake_reaches_its_socket_as_one_user_frame() {
    let s = FakeSession::new();
    let hs = bind(&s.facts(Some("default")));
    assert_eq!(hs["supported"], true, "{hs}");
    assert_eq!(hs["protocolContract"], PROTOCOL);
    assert_eq!(hs["clientVersion"], "2.1.332");
    assert_eq!(hs["leaseUntil"], LEASE);
    assert_eq!(hs["modes"], json!(["livePush", "idleWake", "busyQueue"]));
    let got = s.offer_to(&hs, "acc: a message is waiting for you");
    assert_eq!(
        got,
        OfferAcceptance {
            accepted: true,
            pending_approval: false,
            reason_code: None
        }
    );
    let frame = s.received_line();
    assert_eq!(
        frame,
        json!({
            "type": "user",
            "message": {"role": "user", "content": "acc: a message is waiting for you"},
            "msg_id": "message_1",
            "session_id": CLIENT_SESSION,
        })
    );
}

#[test]
fn the_handshake_refuses_a_record_of_another_session_or_protocol() {
    let s = FakeSession::new();
    s.write_record("someone-else", 1);
    assert_eq!(
        bind(&s.facts(None))["reasonCode"],
        "session_generation_stale"
    );
    s.write_record(CLIENT_SESSION, 2);
    assert_eq!(bind(&s.facts(None))["reasonCode"], "handshake_failed");
    std::fs::remove_file(
        s.home()
            .join(".claude/sessions")
            .join(format!("{}.json", s.pid)),
    )
    .unwrap();
    let hs = bind(&s.facts(None));
    assert_eq!(hs["supported"], false);
    assert_eq!(hs["reasonCode"], "native_session_unavailable");
    assert!(hs.get("opaqueEndpointRef").is_none());
}

#[test]
fn a_socket_the_env_and_record_disagree_on_or_that_is_gone_is_refused() {
    let s = FakeSession::new();
    let mut f = s.facts(None);
    f.env.insert(
        "CLAUDE_CODE_MESSAGING_SOCKET".into(),
        "/elsewhere/1.sock".into(),
    );
    assert_eq!(bind(&f)["reasonCode"], "handshake_failed");
    std::fs::remove_file(&s.socket).unwrap();
    assert_eq!(
        bind(&s.facts(None))["reasonCode"],
        "native_endpoint_unavailable"
    );
}

#[test]
fn a_killed_session_refuses_the_offer_and_an_ended_one_too() {
    let mut s = FakeSession::new();
    let hs = bind(&s.facts(None));
    // SIGKILL leaves the socket file without a listener.
    s.listener = None;
    assert_eq!(
        s.offer_to(&hs, "wake").reason_code.as_deref(),
        Some("native_session_unavailable")
    );
    // An ended session removed it.
    std::fs::remove_file(&s.socket).unwrap();
    let got = s.offer_to(&hs, "wake");
    assert!(!got.accepted);
    assert_eq!(
        got.reason_code.as_deref(),
        Some("native_endpoint_unavailable")
    );
}

#[test]
fn a_bypass_session_holds_the_wake_unless_its_settings_accept_inbound() {
    let s = FakeSession::new();
    let hs = bind(&s.facts(Some("bypassPermissions")));
    let got = s.offer_to(&hs, "wake");
    assert!(got.accepted && got.pending_approval);
    s.received_line();
    std::fs::write(
        s.home().join(".claude/settings.json"),
        r#"{"crossSessionInbound":"accept"}"#,
    )
    .unwrap();
    let hs = bind(&s.facts(Some("bypassPermissions")));
    let got = s.offer_to(&hs, "wake");
    assert!(got.accepted && !got.pending_approval);
}

#[test]
fn an_unreadable_endpoint_or_empty_text_is_never_written() {
    let s = FakeSession::new();
    let hs = bind(&s.facts(None));
    assert_eq!(
        s.offer_to(&hs, "  ").reason_code.as_deref(),
        Some("handshake_failed")
    );
    let got = offer(&LiveOffer {
        session_id: "s".into(),
        generation: "g".into(),
        message_id: "m".into(),
        text: "wake".into(),
        endpoint_ref: Some("/tmp/x.sock".into()),
    });
    assert_eq!(
        got.reason_code.as_deref(),
        Some("native_endpoint_unavailable")
    );
}

#[test]
fn the_probe_reads_the_marker_from_the_real_executable_behind_a_link() {
    let dir = tempfile::tempdir().unwrap();
    let exe = dir.path().join("claude.exe");
    let mut bytes = vec![0u8; (1 << 20) - 5];
    bytes.extend_from_slice(b"xx uds_inbox_listening yy");
    std::fs::write(&exe, &bytes).unwrap();
    let link = dir.path().join("claude");
    std::os::unix::fs::symlink(&exe, &link).unwrap();
    let detection = acc_sdk::install::Detection {
        present: true,
        version: Some("2.1.332".into()),
        executable: Some(link),
        detail: String::new(),
    };
    let ctx = InstallContext {
        home: dir.path().into(),
        acc_data_dir: dir.path().join("acc"),
        hook_executable: "/bin/true".into(),
        acc_executable: "/bin/true".into(),
        pinned_data_home: None,
        env: BTreeMap::new(),
        platform: "linux-x64".into(),
        receiver_sockets: Vec::new(),
        acc_version: "0".into(),
        recorded_hooks: Vec::new(),
    };
    let p = probe(&ctx, &detection);
    assert_eq!(p["supported"], true, "{p}");
    assert_eq!(p["protocolContract"], PROTOCOL);
    std::fs::write(&exe, b"an older build").unwrap();
    let p = probe(&ctx, &detection);
    assert_eq!(p["supported"], false);
    assert_eq!(p["reasonCode"], "native_delivery_unsupported");
}

#[test]
fn a_frame_goes_only_to_a_socket_the_clients_record_still_names_for_the_session() {
    let s = FakeSession::new();
    let hs = bind(&s.facts(None));
    // The pid now belongs to another session: nothing is written.
    s.write_record("another-session", 1);
    assert_eq!(
        s.offer_to(&hs, "wake").reason_code.as_deref(),
        Some("session_generation_stale")
    );
    // The record is gone (the session ended).
    std::fs::remove_file(
        s.home()
            .join(".claude/sessions")
            .join(format!("{}.json", s.pid)),
    )
    .unwrap();
    assert_eq!(
        s.offer_to(&hs, "wake").reason_code.as_deref(),
        Some("native_endpoint_unavailable")
    );
    // A forged reference to some other socket of this user is refused the same way.
    let forged = Endpoint {
        socket: s.socket.clone(),
        session: CLIENT_SESSION.into(),
        record: s.dir.path().join("nowhere.json"),
        hold: false,
    };
    let got = offer(&LiveOffer {
        session_id: "s".into(),
        generation: "g".into(),
        message_id: "m".into(),
        text: "wake".into(),
        endpoint_ref: Some(forged.encode()),
    });
    assert_eq!(
        got.reason_code.as_deref(),
        Some("native_endpoint_unavailable")
    );
}
