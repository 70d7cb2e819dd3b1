//! One room across machines (issue 29), against a real PostgreSQL server: two "hosts" are
//! two data homes with a checkout each of one repository (same `origin`), both naming the
//! server with `ACC_STORE_URL`.

mod hook_support;
mod pg_support;

use acc_runtime::clock::{ManualClock, parse_iso};
use acc_runtime::core::presence::SystemPidProbe;
use acc_runtime::env::Env;
use acc_runtime::error::ErrorCode;
use acc_runtime::ids::{IdSource, RandomIds};
use acc_runtime::store::OpenMode;
use acc_runtime::store::{guard_snapshot, shared_listener};
use acc_runtime::{Core, Owner, Ports, workspace};
use hook_support::{FIXED_CLOCK, HookRun, attach, bound_owner, certified, claim, git, hook};
use pg_support::PgServer;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;

const REMOTE: &str = "https://example.invalid/team/repo.git";

/// One host: its own data home and its own checkout of the repository.
struct Host {
    root: PathBuf,
    url: String,
    clock: Arc<ManualClock>,
    ids: Arc<dyn IdSource>,
}

impl Host {
    fn new(tmp: &Path, name: &str, url: &str, remote: &str) -> Host {
        let root = tmp.join(name);
        let ws = root.join("checkout");
        std::fs::create_dir_all(ws.join("src")).unwrap();
        git(&ws, &["init", "-q", "-b", "main"]);
        git(&ws, &["remote", "add", "origin", remote]);
        Host {
            root: root.canonicalize().unwrap(),
            url: url.to_string(),
            clock: Arc::new(ManualClock::at(parse_iso(FIXED_CLOCK).unwrap())),
            ids: Arc::new(RandomIds),
        }
    }

    fn ws(&self) -> PathBuf {
        self.root.join("checkout")
    }

    fn data(&self) -> PathBuf {
        self.root.join("data")
    }

    fn env(&self) -> Env {
        Env::new().with("ACC_STORE_URL", &self.url)
    }

    fn try_core(&self) -> acc_runtime::error::Result<Core> {
        let ws = workspace::discover(&self.ws(), &self.env())?;
        Core::open(
            ws,
            &self.data(),
            OpenMode::ReadWrite,
            Ports {
                clock: self.clock.clone(),
                ids: self.ids.clone(),
                pids: Arc::new(SystemPidProbe),
            },
        )
    }

    fn core(&self) -> Core {
        self.try_core().unwrap()
    }

    fn settings(&self) -> acc_runtime::hook::HookSettings {
        use acc_runtime::hook::hook_env::HookEnv;
        use acc_runtime::hook::{HookSettings, ProcessSource};
        let env = HookEnv::default()
            .with("ACC_DATA_HOME", &self.data().display().to_string())
            .with("ACC_STORE_URL", &self.url);
        let mut s = HookSettings::with_adapter(env, certified);
        s.ports = Ports {
            clock: self.clock.clone(),
            ids: self.ids.clone(),
            pids: Arc::new(SystemPidProbe),
        };
        s.processes = ProcessSource::Fixed {
            table: Arc::new(acc_sdk::identity::StaticTable::default()),
            hook_pid: 1_000_000,
        };
        s
    }

    fn hook(&self, event: &str, conv: &str, extra: Option<(&str, serde_json::Value)>) -> HookRun {
        let mut p = hook_support::payload(event, conv, &self.ws());
        if let Some((k, v)) = extra {
            p[k] = v;
        }
        hook(self.settings(), &p)
    }

    fn write(&self, conv: &str, paths: &[&str]) -> HookRun {
        hook(
            self.settings(),
            &hook_support::write_payload(conv, &self.ws(), paths),
        )
    }

    /// Starts conversation `conv` through the hook and returns its owner.
    fn start(&self, conv: &str) -> Owner {
        let run = self.hook("sessionStart", conv, None);
        assert_eq!(run.code, 0, "{}", run.stderr);
        bound_owner(&mut self.core(), conv)
    }

    fn acc(&self, args: &[&str]) -> Command {
        let mut c = Command::new(env!("CARGO_BIN_EXE_acc"));
        c.env_clear()
            .env("ACC_DATA_HOME", self.data())
            .env("ACC_STORE_URL", &self.url)
            .arg("--cwd")
            .arg(self.ws())
            .args(args);
        c
    }
}

/// A listener process (`acc-hook shared-listen`) this test started, ended when dropped.
struct Listener(std::process::Child);

impl Drop for Listener {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

impl Host {
    fn store_file(&self) -> PathBuf {
        let ws = workspace::discover(&self.ws(), &self.env()).unwrap();
        acc_runtime::paths::store_file(&self.data(), &ws.id)
    }

    /// This host's listener, as a hook that connected would start it.
    fn listen(&self) -> Listener {
        let ws = workspace::discover(&self.ws(), &self.env()).unwrap();
        let mut c = Command::new(env!("CARGO_BIN_EXE_acc-hook"));
        c.env_clear()
            .env("ACC_STORE_URL", &self.url)
            .arg(shared_listener::SUBCOMMAND)
            .arg("--data-home")
            .arg(self.data())
            .arg("--workspace")
            .arg(ws.id.as_str());
        if let Some(repo) = ws.shared.as_ref().and_then(|s| s.repository.as_ref()) {
            c.arg("--repository").arg(repo);
        }
        Listener(c.stdin(Stdio::null()).spawn().unwrap())
    }

    /// The claims of this host's snapshot when its token seals it and the listener's lease
    /// vouches for it (what the fast path would answer from), with the lease's expiry.
    fn vouched_claims(&self) -> Option<(Vec<String>, i64)> {
        let store = self.store_file();
        let (token, text) = guard_snapshot::vouched_text(&store)?;
        if !shared_listener::leased(&store, &token.tag) {
            return None;
        }
        let lease =
            std::fs::read_to_string(store.with_file_name(shared_listener::LEASE_FILE)).ok()?;
        let until = lease.trim_end().split_once('\t')?.1.parse().ok()?;
        let parsed = guard_snapshot::SnapshotText::parse(&text)?;
        let claims = parsed
            .claims()
            .map(|c| c.map(|c| c.resource.to_string()))
            .collect::<Option<Vec<_>>>()?;
        Some((claims, until))
    }

    /// Waits (up to 20 s) until this host's vouched snapshot satisfies `ok`.
    fn await_snapshot(&self, what: &str, ok: impl Fn(&[String]) -> bool) -> i64 {
        let start = std::time::Instant::now();
        loop {
            if let Some((claims, until)) = self.vouched_claims()
                && ok(&claims)
            {
                return until;
            }
            assert!(
                start.elapsed() < std::time::Duration::from_secs(20),
                "{what}: {:?}",
                self.vouched_claims()
            );
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
    }
}

fn wall_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64
}

/// The stderr line of an answer the guard gave from its copy because the store could not
/// be read (the server was asked and did not answer).
const FROM_THE_COPY: &str = "the store could not be read in time";

#[test]
fn each_host_answers_allows_from_its_own_snapshot_and_refuses_covered_writes_without_the_server() {
    let Some((pg, tmp)) = server() else { return };
    let a = Host::new(tmp.path(), "a", &pg.url(), REMOTE);
    let b = Host::new(tmp.path(), "b", &pg.url(), REMOTE);
    let alice = a.start("conv-a");
    b.start("conv-b");
    let _listener = b.listen();
    b.await_snapshot("host B's listener publishes", |c| c.is_empty());

    // A claim taken on host A is in host B's published snapshot before B allows a write
    // into it: the listener heard of it from the server, not from a hook of B's.
    claim(&mut a.core(), &alice, "file:src/**", true);
    let until = b.await_snapshot("the claim reaches host B's snapshot", |c| {
        c == ["file:src/**"]
    });
    assert!(until > wall_ms(), "leased");

    pg.stop();
    // Within the lease, an uncovered write is answered from the snapshot: no connection.
    let lease_left = b.vouched_claims().map(|(_, until)| until - wall_ms());
    let free = b.write("conv-b", &["docs/notes.md"]);
    assert_eq!(free.code, 0, "{free:?}");
    match lease_left {
        Some(left) if left > 500 => assert!(
            !free.stderr.contains(FROM_THE_COPY),
            "answered from the snapshot, without the server: {free:?}"
        ),
        _ => eprintln!("the lease ran out while the server stopped (a loaded machine)"),
    }
    // A covered write is refused: the fast path never denies, and the server is away.
    let refused = b.write("conv-b", &["src/x.rs"]);
    assert_eq!(refused.code, 2, "{refused:?}");
    assert!(refused.stderr.contains("file:src/x.rs"), "{refused:?}");

    // Unconfirmed past its lease, the snapshot no longer answers: the server is asked, and
    // the answer comes from the copy (covered writes still refused).
    std::thread::sleep(shared_listener::LEASE + std::time::Duration::from_millis(300));
    assert!(b.vouched_claims().is_none(), "the lease ran out unrenewed");
    let asked = b.write("conv-b", &["docs/notes.md"]);
    assert_eq!(asked.code, 0, "{asked:?}");
    assert!(asked.stderr.contains(FROM_THE_COPY), "{asked:?}");
    assert_eq!(b.write("conv-b", &["src/x.rs"]).code, 2);

    // The server returns: the listener publishes again, and a release on host A frees the
    // path on host B from its snapshot.
    pg.start_again();
    b.await_snapshot("host B's listener is back", |c| c == ["file:src/**"]);
    let mut core_a = a.core();
    let claims = core_a.live_claims().unwrap();
    core_a.release_claim(&alice, &claims[0].claim_id).unwrap();
    b.await_snapshot("the release reaches host B's snapshot", |c| c.is_empty());
    let free = b.write("conv-b", &["src/x.rs"]);
    assert_eq!(free.code, 0, "{free:?}");
    assert!(!free.stderr.contains(FROM_THE_COPY), "{free:?}");
}

#[test]
fn a_hook_starts_one_listener_per_host_and_room() {
    let Some((pg, tmp)) = server() else { return };
    let b = Host::new(tmp.path(), "b", &pg.url(), REMOTE);
    b.start("conv-b");
    let ws = workspace::discover(&b.ws(), &b.env()).unwrap();
    let exe = Path::new(env!("CARGO_BIN_EXE_acc-hook"));
    let store = b.store_file();
    assert_eq!(shared_listener::running(&store), None);
    shared_listener::ensure_running(exe, &b.data(), &ws);
    let start = std::time::Instant::now();
    let pid = loop {
        if let Some(pid) = shared_listener::running(&store) {
            break pid;
        }
        assert!(start.elapsed() < std::time::Duration::from_secs(20));
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    b.await_snapshot("the started listener publishes", |c| c.is_empty());
    // A second start while it runs starts nothing.
    shared_listener::ensure_running(exe, &b.data(), &ws);
    std::thread::sleep(std::time::Duration::from_millis(300));
    assert_eq!(shared_listener::running(&store), Some(pid));
    // SAFETY: a pid this test's call started; SIGTERM ends it.
    unsafe { libc::kill(pid as i32, libc::SIGTERM) };
    let start = std::time::Instant::now();
    while shared_listener::running(&store).is_some() {
        assert!(start.elapsed() < std::time::Duration::from_secs(20));
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

fn server() -> Option<(PgServer, tempfile::TempDir)> {
    Some((PgServer::start()?, tempfile::tempdir().unwrap()))
}

#[test]
fn two_checkouts_of_one_repository_are_one_room_and_another_repository_is_not() {
    let Some((pg, tmp)) = server() else { return };
    let a = Host::new(tmp.path(), "a", &pg.url(), REMOTE);
    let b = Host::new(
        tmp.path(),
        "b",
        &pg.url(),
        "git@example.invalid:team/repo.git",
    );
    let other = Host::new(
        tmp.path(),
        "c",
        &pg.url(),
        "https://example.invalid/team/other",
    );
    let ws_a = workspace::discover(&a.ws(), &a.env()).unwrap();
    let ws_b = workspace::discover(&b.ws(), &b.env()).unwrap();
    let ws_c = workspace::discover(&other.ws(), &other.env()).unwrap();
    assert_eq!(ws_a.id, ws_b.id, "one repository, one room");
    assert_ne!(ws_a.id, ws_c.id, "another repository, another room");

    let mut core_a = a.core();
    let owner = attach(&mut core_a, "alice", true);
    claim(&mut core_a, &owner, "file:src/**", true);
    let seen: Vec<String> = b
        .core()
        .live_claims()
        .unwrap()
        .into_iter()
        .map(|c| c.resource.to_string())
        .collect();
    assert_eq!(seen, ["file:src/**"]);
    assert!(
        other.core().live_claims().unwrap().is_empty(),
        "another repository sees nothing of it"
    );
    // Nothing was stored on either host's disk but the guard's copy of the claims.
    assert!(
        !a.data()
            .join("acc/workspaces")
            .join(ws_a.id.as_str())
            .join("acc.db")
            .exists()
    );

    // A checkout of another repository that names the same workspaceId is refused.
    for host in [&a, &other] {
        std::fs::write(
            host.ws().join("acc.workspace.json"),
            r#"{"schemaVersion":1,"workspaceId":"team-room"}"#,
        )
        .unwrap();
    }
    drop(a.core());
    let err = other.try_core().err().expect("refused");
    assert_eq!(err.code, ErrorCode::StoreForeign, "{}", err.message);
    assert!(
        err.message
            .contains("a different repository is never the same room"),
        "{}",
        err.message
    );
}

#[test]
fn a_write_on_host_b_into_a_claim_held_on_host_a_is_refused_and_a_message_crosses_at_the_next_turn()
{
    let Some((pg, tmp)) = server() else { return };
    let a = Host::new(tmp.path(), "a", &pg.url(), REMOTE);
    let b = Host::new(tmp.path(), "b", &pg.url(), REMOTE);
    let alice = a.start("conv-a");
    b.start("conv-b");
    let mut core_a = a.core();
    claim(&mut core_a, &alice, "file:src/**", true);
    std::fs::write(b.ws().join("src/lib.rs"), "kept").unwrap();
    let status = b.acc(&["status", "--json"]).output().unwrap();
    let status: serde_json::Value = serde_json::from_slice(&status.stdout).unwrap();
    assert_eq!(
        status["data"]["sessions"][0]["host"],
        acc_runtime::store::engine::config::host_id(),
        "status says which host each session runs on"
    );

    let run = b.write("conv-b", &["src/lib.rs"]);
    assert_eq!(run.code, 2, "refused: {run:?}");
    assert!(
        run.stderr.contains("file:src/lib.rs is claimed by"),
        "{}",
        run.stderr
    );
    assert!(b.write("conv-b", &["docs/notes.md"]).code == 0);

    // A message from host A reaches host B's conversation at its next turn.
    let to = {
        let mut core_b = b.core();
        let owner = bound_owner(&mut core_b, "conv-b");
        core_b
            .session(&owner.session)
            .unwrap()
            .unwrap()
            .participant_id
    };
    hook_support::send(&mut core_a, &alice, to.as_str(), "crossing", "from host a");
    let turn = b.hook("beforeTurn", "conv-b", None);
    assert_eq!(turn.code, 0, "{}", turn.stderr);
    assert!(
        turn.stdout.contains("from host a"),
        "{turn:?} {}",
        std::fs::read_to_string(b.data().join("acc/hook-failures.jsonl")).unwrap_or_default()
    );
    // Exactly once: the next turn does not repeat it.
    let again = b.hook("beforeTurn", "conv-b", None);
    assert!(!again.stdout.contains("from host a"), "{}", again.stdout);
}

#[test]
fn the_status_line_names_the_host_of_each_session() {
    let Some((pg, tmp)) = server() else { return };
    let a = Host::new(tmp.path(), "a", &pg.url(), REMOTE);
    let b = Host::new(tmp.path(), "b", &pg.url(), REMOTE);
    let alice = attach(&mut a.core(), "alice", true);
    attach(&mut b.core(), "bob", true);
    claim(&mut a.core(), &alice, "file:src/**", true);
    // Host names as two machines would record them (both "hosts" here are one machine).
    let schema = format!("acc_{}", workspace::discover(&a.ws(), &a.env()).unwrap().id);
    let mut admin = postgres::Client::connect(&pg.url(), postgres::NoTls).unwrap();
    admin
        .batch_execute(&format!(
            "UPDATE \"{schema}\".sessions SET extensions = '{{\"host\":\"' ||
                CASE participant_id WHEN 'alice' THEN 'laptop.invalid' ELSE 'ci-runner-7.invalid' END
                || '\"}}'"
        ))
        .unwrap();
    let out = b
        .acc(&["status"])
        .env("ACC_TEST_CLOCK", FIXED_CLOCK)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    insta::assert_snapshot!(String::from_utf8_lossy(&out.stdout));
}

#[test]
fn eight_processes_per_host_race_for_each_claim_and_exactly_one_wins() {
    let Some((pg, tmp)) = server() else { return };
    let hosts = [
        Host::new(tmp.path(), "a", &pg.url(), REMOTE),
        Host::new(tmp.path(), "b", &pg.url(), REMOTE),
    ];
    let mut racers = Vec::new();
    for (h, host) in hosts.iter().enumerate() {
        for i in 0..8 {
            let out = host
                .acc(&["attach", "--participant", &format!("racer-{h}-{i}")])
                .output()
                .unwrap();
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
            let text = String::from_utf8_lossy(&out.stdout).to_string();
            let mut parts = text.split_whitespace();
            racers.push((
                host,
                parts.next().unwrap().to_string(),
                parts.next().unwrap().to_string(),
            ));
        }
    }
    for round in 0..5 {
        let resource = format!("file:race/{round}.rs");
        let children: Vec<_> = racers
            .iter()
            .map(|(host, s, g)| {
                host.acc(&["claim", "--resource", &resource])
                    .env("ACC_SESSION", s)
                    .env("ACC_GENERATION", g)
                    .stdout(Stdio::piped())
                    .stderr(Stdio::piped())
                    .spawn()
                    .unwrap()
            })
            .collect();
        let mut winners = 0;
        for child in children {
            let out = child.wait_with_output().unwrap();
            let stderr = String::from_utf8_lossy(&out.stderr);
            match out.status.code() {
                Some(0) => winners += 1,
                Some(5) => assert!(stderr.contains("conflicts with"), "round {round}: {stderr}"),
                other => panic!("round {round}: unexpected exit {other:?}: {stderr}"),
            }
        }
        assert_eq!(winners, 1, "round {round}: 0 double grants");
    }
    let claims = hosts[1].core().live_claims().unwrap();
    assert_eq!(claims.len(), 5);
}

#[test]
fn with_the_server_away_covered_writes_are_refused_and_everything_resumes_when_it_returns() {
    let Some((pg, tmp)) = server() else { return };
    let a = Host::new(tmp.path(), "a", &pg.url(), REMOTE);
    let b = Host::new(tmp.path(), "b", &pg.url(), REMOTE);
    let alice = a.start("conv-a");
    b.start("conv-b");
    claim(&mut a.core(), &alice, "file:src/**", true);
    // Host B learns of the claim at its next call (its copy of the guarded claims).
    assert_eq!(b.write("conv-b", &["src/x.rs"]).code, 2);

    pg.stop();
    let refused = b.write("conv-b", &["src/x.rs"]);
    assert_eq!(
        refused.code, 2,
        "refused while the server is away: {refused:?}"
    );
    assert!(
        refused.stderr.contains("file:src/x.rs"),
        "{}",
        refused.stderr
    );
    let err = b.try_core().err().expect("unreachable");
    assert_eq!(err.code, ErrorCode::StoreUnreachable, "{}", err.message);
    assert!(err.message.contains("unreachable"), "{}", err.message);

    // `acc doctor` says what is wrong in one line.
    let doctor = b
        .acc(&["doctor"])
        .env("HOME", b.root.join("home"))
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&doctor.stdout);
    let line: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("shared store: "))
        .collect();
    assert_eq!(
        line.len(),
        1,
        "{text}{}",
        String::from_utf8_lossy(&doctor.stderr)
    );
    assert!(
        line[0].starts_with(&format!(
            "shared store: the acc store server is unreachable: cannot reach postgres://127.0.0.1:{}/postgres",
            pg.port
        )),
        "{text}"
    );

    pg.start_again();
    let doctor = b
        .acc(&["doctor"])
        .env("HOME", b.root.join("home"))
        .output()
        .unwrap();
    assert!(
        String::from_utf8_lossy(&doctor.stdout).contains(&format!(
            "shared store: postgres://127.0.0.1:{}/postgres answers; workspace repo_",
            pg.port
        )),
        "{}",
        String::from_utf8_lossy(&doctor.stdout)
    );
    // Nothing was lost, and both hosts go on.
    let claims = b.core().live_claims().unwrap();
    assert_eq!(claims.len(), 1);
    assert_eq!(b.write("conv-b", &["src/x.rs"]).code, 2);
    assert_eq!(b.write("conv-b", &["docs/y.md"]).code, 0);
    let mut core_a = a.core();
    core_a.release_claim(&alice, &claims[0].claim_id).unwrap();
    let free = b.write("conv-b", &["src/x.rs"]);
    assert_eq!(free.code, 0, "released on host A, free on host B: {free:?}");
}

#[test]
fn a_connection_closed_under_an_open_core_fails_its_next_call_as_unreachable() {
    let Some((pg, tmp)) = server() else { return };
    let a = Host::new(tmp.path(), "a", &pg.url(), REMOTE);
    let mut core = a.core();
    let owner = attach(&mut core, "alice", true);
    // The partition: the server drops every other connection of this database.
    let mut admin = postgres::Client::connect(&pg.url(), postgres::NoTls).unwrap();
    admin
        .execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity
             WHERE application_name = 'acc' AND pid <> pg_backend_pid()",
            &[],
        )
        .unwrap();
    let err = core
        .claim(
            &owner,
            acc_runtime::core::claims::ClaimRequest::new(
                acc_runtime::core::resources::Resource::parse("file:src/a.rs").unwrap(),
            ),
        )
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::StoreUnreachable, "{}", err.message);
    // Nothing half-done: a new connection claims it once.
    let mut fresh = a.core();
    fresh
        .claim(
            &owner,
            acc_runtime::core::claims::ClaimRequest::new(
                acc_runtime::core::resources::Resource::parse("file:src/a.rs").unwrap(),
            ),
        )
        .unwrap();
    assert_eq!(fresh.live_claims().unwrap().len(), 1);
}

#[test]
fn only_the_host_a_session_runs_on_judges_its_process() {
    use acc_runtime::core::model::{Presence, SessionState};
    use acc_runtime::core::sessions::OpenSession;
    use acc_runtime::ids::ParticipantId;
    let Some((pg, tmp)) = server() else { return };
    let a = Host::new(tmp.path(), "a", &pg.url(), REMOTE);
    let b = Host::new(tmp.path(), "b", &pg.url(), REMOTE);
    let mut req = OpenSession::new(ParticipantId::parse("alice").unwrap(), "cli", 30_000);
    // A pid no process has here.
    req.pid = Some(4_000_000);
    let opened = a.core().open_session(req).unwrap();
    let schema = format!("acc_{}", workspace::discover(&a.ws(), &a.env()).unwrap().id);
    let mut admin = postgres::Client::connect(&pg.url(), postgres::NoTls).unwrap();
    let host_of = |admin: &mut postgres::Client| -> String {
        admin
            .query_one(
                &format!("SELECT extensions FROM \"{schema}\".sessions WHERE session_id = $1"),
                &[&opened.session_id.as_str()],
            )
            .unwrap()
            .get(0)
    };
    assert!(
        host_of(&mut admin).contains("\"host\""),
        "the host is recorded"
    );
    // As if it had been opened on another machine: host B never judges that pid.
    admin
        .execute(
            &format!(
                "UPDATE \"{schema}\".sessions SET extensions = '{{\"host\":\"elsewhere.invalid\"}}'"
            ),
            &[],
        )
        .unwrap();
    let seen = b.core().session(&opened.session_id).unwrap().unwrap();
    assert_eq!(seen.state, SessionState::Open);
    assert_eq!(seen.presence, Presence::Online);
    // Its own host does: the same row with this host's name is gone.
    admin
        .execute(
            &format!("UPDATE \"{schema}\".sessions SET extensions = $1"),
            &[&format!(
                "{{\"host\":\"{}\"}}",
                acc_runtime::store::engine::config::host_id()
            )],
        )
        .unwrap();
    let seen = b.core().session(&opened.session_id).unwrap().unwrap();
    assert_eq!(seen.presence, Presence::Offline);
}

#[test]
fn a_room_dropped_from_the_server_is_never_recreated_over_what_this_host_saw() {
    let Some((pg, tmp)) = server() else { return };
    let a = Host::new(tmp.path(), "a", &pg.url(), REMOTE);
    let b = Host::new(tmp.path(), "b", &pg.url(), REMOTE);
    let alice = a.start("conv-a");
    b.start("conv-b");
    claim(&mut a.core(), &alice, "file:src/**", true);
    assert_eq!(b.write("conv-b", &["src/x.rs"]).code, 2);
    let schema = format!("acc_{}", workspace::discover(&b.ws(), &b.env()).unwrap().id);
    let files: Vec<_> = walkdir(&b.data());
    assert!(
        files.iter().any(|f| f.ends_with("shared-claims-version")),
        "{files:?}"
    );
    let mut admin = postgres::Client::connect(&pg.url(), postgres::NoTls).unwrap();
    admin
        .batch_execute(&format!("DROP SCHEMA \"{schema}\" CASCADE"))
        .unwrap();
    let err = b.try_core().err().expect("refused");
    assert_eq!(err.code, ErrorCode::StoreCorrupt, "{}", err.message);
    assert!(
        err.message.contains("acc will not recreate it"),
        "{}",
        err.message
    );
    let exists: bool = admin
        .query_one(
            "SELECT EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = $1)",
            &[&schema],
        )
        .unwrap()
        .get(0);
    assert!(!exists, "nothing was recreated");
    // The guard still refuses the claim this host last saw.
    let refused = b.write("conv-b", &["src/x.rs"]);
    assert_eq!(refused.code, 2, "{refused:?}");
}

/// Runs `openssl` with `args` in `dir`.
fn openssl(dir: &Path, args: &[&str]) {
    let out = Command::new("openssl")
        .args(args)
        .current_dir(dir)
        .output()
        .expect("openssl is installed");
    assert!(
        out.status.success(),
        "openssl {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A self-signed CA named `name` (`<name>.pem`, `<name>.key`) in `dir`.
fn make_ca(dir: &Path, name: &str) -> PathBuf {
    openssl(
        dir,
        &[
            "req",
            "-x509",
            "-newkey",
            "ec",
            "-pkeyopt",
            "ec_paramgen_curve:prime256v1",
            "-nodes",
            "-keyout",
            &format!("{name}.key"),
            "-out",
            &format!("{name}.pem"),
            "-days",
            "2",
            "-subj",
            &format!("/CN={name}"),
            "-addext",
            "basicConstraints=critical,CA:TRUE",
            "-addext",
            "keyUsage=critical,keyCertSign,cRLSign",
        ],
    );
    dir.join(format!("{name}.pem"))
}

/// A server certificate for 127.0.0.1 signed by the CA `ca`: (`server.pem`, `server.key`).
fn make_server_cert(dir: &Path, ca: &str) -> (PathBuf, PathBuf) {
    std::fs::write(
        dir.join("server.ext"),
        "subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n",
    )
    .unwrap();
    openssl(
        dir,
        &[
            "req",
            "-newkey",
            "ec",
            "-pkeyopt",
            "ec_paramgen_curve:prime256v1",
            "-nodes",
            "-keyout",
            "server.key",
            "-out",
            "server.csr",
            "-subj",
            "/CN=127.0.0.1",
        ],
    );
    openssl(
        dir,
        &[
            "x509",
            "-req",
            "-in",
            "server.csr",
            "-CA",
            &format!("{ca}.pem"),
            "-CAkey",
            &format!("{ca}.key"),
            "-CAcreateserial",
            "-out",
            "server.pem",
            "-days",
            "2",
            "-extfile",
            "server.ext",
        ],
    );
    (dir.join("server.pem"), dir.join("server.key"))
}

#[test]
fn tls_verify_full_accepts_the_servers_ca_and_refuses_another_naming_the_fix() {
    use acc_runtime::store::engine::postgres::PgConnection;
    let Some((pg, tmp)) = server() else { return };
    let certs = tmp.path().join("certs");
    std::fs::create_dir_all(&certs).unwrap();
    let ca = make_ca(&certs, "room-ca");
    let other = make_ca(&certs, "other-ca");
    let (cert, key) = make_server_cert(&certs, "room-ca");
    pg.enable_tls(&cert, &key);
    let with = |host: &str, mode: &str, ca: Option<&Path>| {
        let mut url = format!("postgres://acc@{host}:{}/postgres?sslmode={mode}", pg.port);
        if let Some(ca) = ca {
            url.push_str(&format!("&sslrootcert={}", ca.display()));
        }
        url
    };

    // verify-full with the CA that signed the server's certificate: the room works, and
    // its connection is encrypted.
    let good = with("127.0.0.1", "verify-full", Some(&ca));
    let a = Host::new(tmp.path(), "a", &good, REMOTE);
    let alice = attach(&mut a.core(), "alice", true);
    claim(&mut a.core(), &alice, "file:src/**", true);
    let conn = PgConnection::connect(&good, "public", std::time::Duration::from_secs(3)).unwrap();
    let ssl = conn
        .query(
            "SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()",
            &[],
        )
        .unwrap();
    assert_eq!(ssl, vec![vec![rusqlite::types::Value::Integer(1)]]);

    // Another CA: refused before anything is read, the reason naming the fix.
    let b = Host::new(
        tmp.path(),
        "b",
        &with("127.0.0.1", "verify-full", Some(&other)),
        REMOTE,
    );
    let err = b.try_core().err().expect("refused");
    assert_eq!(err.code, ErrorCode::StoreUnreachable, "{}", err.message);
    assert!(
        err.message
            .contains("is not signed by the CA in sslrootcert=")
            && err
                .message
                .contains("point sslrootcert at the CA that signed"),
        "{}",
        err.message
    );
    // The right CA, but a host name the certificate does not name: verify-full refuses,
    // verify-ca (the CA alone) accepts.
    let c = Host::new(
        tmp.path(),
        "c",
        &with("localhost", "verify-full", Some(&ca)),
        REMOTE,
    );
    let err = c.try_core().err().expect("refused");
    assert_eq!(err.code, ErrorCode::StoreUnreachable, "{}", err.message);
    assert!(
        err.message.contains("does not name the host"),
        "{}",
        err.message
    );
    let d = Host::new(
        tmp.path(),
        "d",
        &with("localhost", "verify-ca", Some(&ca)),
        REMOTE,
    );
    assert_eq!(d.core().live_claims().unwrap().len(), 1);
    // require encrypts without checking who answers (libpq's meaning).
    let e = Host::new(tmp.path(), "e", &with("127.0.0.1", "require", None), REMOTE);
    assert_eq!(e.core().live_claims().unwrap().len(), 1);
}

/// Every table's columns, index, constraint and trigger of `schema`, its name written `S`.
fn catalog(admin: &mut postgres::Client, schema: &str) -> Vec<String> {
    let queries = [
        "SELECT table_name || '.' || column_name || ' ' || ordinal_position || ' ' || data_type
                || ' ' || is_nullable || ' ' || coalesce(column_default, '')
         FROM information_schema.columns
         WHERE table_schema = $1 AND table_name <> 'acc_schema_version'
         ORDER BY table_name, ordinal_position",
        "SELECT indexname || ' ' || indexdef FROM pg_indexes
         WHERE schemaname = $1 AND tablename <> 'acc_schema_version' ORDER BY indexname",
        "SELECT c.conrelid::regclass::text || ' ' || c.conname || ' ' || pg_get_constraintdef(c.oid)
         FROM pg_constraint c JOIN pg_namespace n ON n.oid = c.connamespace
         WHERE n.nspname = $1 ORDER BY c.conname",
        "SELECT event_object_table || ' ' || trigger_name || ' ' || event_manipulation || ' '
                || action_timing || ' ' || action_orientation
         FROM information_schema.triggers WHERE trigger_schema = $1
         ORDER BY trigger_name, event_manipulation",
        "SELECT key || '=' || value FROM meta WHERE key = 'claims_version'",
    ];
    admin
        .batch_execute(&format!("SET search_path TO \"{schema}\""))
        .unwrap();
    let mut out = Vec::new();
    for (i, q) in queries.iter().enumerate() {
        let rows = if i == queries.len() - 1 {
            admin.query(*q, &[]).unwrap()
        } else {
            admin.query(*q, &[&schema]).unwrap()
        };
        for r in rows {
            let line: String = r.get(0);
            out.push(line.replace('"', "").replace(schema, "S"));
        }
    }
    out
}

#[test]
fn a_room_created_from_the_one_schema_source_is_a_room_created_before_it() {
    let Some((pg, tmp)) = server() else { return };
    let a = Host::new(tmp.path(), "a", &pg.url(), REMOTE);
    // Created now: store/schema.rs's migrations, translated.
    drop(a.core());
    let schema = format!("acc_{}", workspace::discover(&a.ws(), &a.env()).unwrap().id);
    let mut admin = postgres::Client::connect(&pg.url(), postgres::NoTls).unwrap();
    admin
        .batch_execute(&format!(
            "CREATE SCHEMA before_one_source; SET search_path TO before_one_source; {}",
            include_str!("pg_support/schema_v6_before_single_source.sql")
        ))
        .unwrap();
    let now = catalog(&mut admin, &schema);
    let before = catalog(&mut admin, "before_one_source");
    assert!(now.len() > 60, "{now:?}");
    // The twin was written by hand up to version 6; what a room has beyond it is exactly
    // migration 7's counter of claim rows, which only the one source ever held, and
    // migration 8's triggers, each doing what two did on the same event before.
    let missing: Vec<&str> = before
        .iter()
        .filter(|l| !now.contains(l))
        .map(String::as_str)
        .collect();
    assert_eq!(
        missing,
        [
            "claims claims_version_on_delete DELETE AFTER ROW",
            "claims claims_version_on_insert INSERT AFTER ROW",
            "claims claims_version_on_update UPDATE AFTER ROW",
            "sessions guard_version_on_session_delete DELETE AFTER ROW",
        ],
        "lost from version 6"
    );
    let added: Vec<&str> = now
        .iter()
        .filter(|l| !before.contains(l))
        .map(String::as_str)
        .collect();
    assert_eq!(
        added,
        [
            "sessions claim_rows_on_session_update UPDATE AFTER ROW",
            "claims claim_versions_on_delete DELETE AFTER ROW",
            "claims claim_versions_on_insert INSERT AFTER ROW",
            "claims claim_versions_on_update UPDATE AFTER ROW",
            "sessions versions_on_session_delete DELETE AFTER ROW",
        ]
    );
}

fn walkdir(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        if e.path().is_dir() {
            out.extend(walkdir(&e.path()));
        } else {
            out.push(e.path());
        }
    }
    out
}
