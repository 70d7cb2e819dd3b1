//! Shared helpers for the CLI tests: a sandbox with its own data home and workspace, an
//! `acc` runner with an explicit environment, and a redactor that makes ids and temporary
//! paths stable for snapshots.
#![allow(dead_code)]

mod run;
pub mod transcript;

pub use run::Run;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The fixed time every command of a snapshot test sees (test-only hook).
pub const FIXED_CLOCK: &str = "2026-12-02T12:00:00.000Z";

pub struct Sandbox {
    /// Holds `data/` (the data home, created by acc on first write) and `project/` (the
    /// workspace), so names under it are stable across runs.
    pub tmp: tempfile::TempDir,
    pub clock: Option<String>,
    /// Runs commands on a pseudo-terminal, as a person typing them would ([`in_terminal`]).
    pub terminal: std::cell::Cell<bool>,
}

/// Runs `cmd` on a pseudo-terminal (util-linux `script`), so its stdin, stdout and stderr
/// are terminals, as when a person types it. The terminal merges stdout and stderr: both
/// come back as stdout, with the terminal's `\r\n` turned back into `\n`.
pub fn in_terminal(cmd: &Command) -> Run {
    let mut line = shell_quote(cmd.get_program().to_str().unwrap());
    for a in cmd.get_args() {
        line.push(' ');
        line.push_str(&shell_quote(a.to_str().unwrap()));
    }
    let mut script = Command::new("script");
    script.env_clear();
    for (k, v) in cmd.get_envs() {
        if let Some(v) = v {
            script.env(k, v);
        }
    }
    script.args(["-q", "-e", "-c", &line, "/dev/null"]);
    script.stdin(std::process::Stdio::null());
    let mut run = Run::from(script.output().expect("util-linux script runs"));
    run.stdout = run.stdout.replace("\r\n", "\n");
    run
}

fn shell_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "'\\''"))
}

pub fn acc_bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_acc"))
}

impl Sandbox {
    pub fn new() -> Sandbox {
        let tmp = tempfile::tempdir().unwrap();
        std::fs::create_dir(tmp.path().join("project")).unwrap();
        Sandbox {
            tmp,
            clock: Some(FIXED_CLOCK.to_string()),
            terminal: Default::default(),
        }
    }

    pub fn data_path(&self) -> PathBuf {
        self.tmp.path().canonicalize().unwrap().join("data")
    }

    /// A sandbox whose commands see the real clock.
    pub fn with_real_clock() -> Sandbox {
        Sandbox {
            clock: None,
            ..Sandbox::new()
        }
    }

    pub fn ws_path(&self) -> PathBuf {
        self.tmp.path().canonicalize().unwrap().join("project")
    }

    /// An `acc` command with a clean environment: only the data home, the test clock and
    /// `--cwd` to the workspace.
    pub fn cmd(&self, args: &[&str]) -> Command {
        let mut c = Command::new(acc_bin());
        c.env_clear();
        c.env("ACC_DATA_HOME", self.data_path());
        if let Some(clock) = &self.clock {
            c.env("ACC_TEST_CLOCK", clock);
        }
        c.arg("--cwd").arg(self.ws_path());
        c.args(args);
        c
    }

    pub fn run(&self, args: &[&str]) -> Run {
        self.output(self.cmd(args))
    }

    fn output(&self, mut c: Command) -> Run {
        if self.terminal.get() {
            in_terminal(&c)
        } else {
            Run::from(c.output().unwrap())
        }
    }

    /// Runs as a session (through ACC_SESSION / ACC_GENERATION).
    pub fn run_as(&self, owner: &(String, String), args: &[&str]) -> Run {
        let mut c = self.cmd(args);
        c.env("ACC_SESSION", &owner.0)
            .env("ACC_GENERATION", &owner.1);
        self.output(c)
    }

    /// `owner` claims `resource` guarded.
    pub fn claim_guarded(&self, owner: &(String, String), resource: &str) {
        let r = self.run_as(
            owner,
            &["claim", "--resource", resource, "--enforcement", "guarded"],
        );
        assert_eq!(r.code, 0, "claim failed: {}", r.stderr);
    }

    /// A core on this sandbox's store, on the real clock.
    pub fn core(&self) -> acc_runtime::Core {
        let ws = acc_runtime::workspace::discover(&self.ws_path(), &acc_runtime::env::Env::new())
            .unwrap();
        acc_runtime::Core::open(
            ws,
            &self.data_path(),
            acc_runtime::store::OpenMode::ReadWrite,
            acc_runtime::Ports::system(),
        )
        .unwrap()
    }

    /// A hooked conversation whose client process is this test process: every `acc` the
    /// test starts from now on (through `script` too) runs as that client's agent would.
    /// Returns the agent's session and generation.
    pub fn hooked_client_is_this_test(&self) -> (String, String) {
        use acc_runtime::core::bindings::binding_key;
        use acc_runtime::core::sessions::OpenSession;
        use acc_runtime::ids::ParticipantId;
        let mut core = self.core();
        let s = core
            .open_session(OpenSession::new(
                ParticipantId::parse("agent").unwrap(),
                "scenario",
                30_000,
            ))
            .unwrap();
        let owner = acc_runtime::Owner::new(s.session_id.clone(), s.generation.clone());
        core.put_binding(
            &binding_key("agent-conversation"),
            &owner,
            "scenarioclient",
            None,
            Some(std::process::id()),
        )
        .unwrap();
        (
            s.session_id.as_str().to_string(),
            s.generation.as_str().to_string(),
        )
    }

    /// Records, as a hook would, that `owner`'s conversation runs in client process `pid`.
    pub fn bind_client(&self, owner: &(String, String), pid: u32) {
        use acc_runtime::core::bindings::binding_key;
        let owner = acc_runtime::Owner::new(
            acc_runtime::ids::SessionId::parse(&owner.0).unwrap(),
            acc_runtime::ids::Generation::parse(&owner.1).unwrap(),
        );
        self.core()
            .put_binding(
                &binding_key(&format!("conversation-{pid}-{}", owner.session)),
                &owner,
                "scenarioclient",
                None,
                Some(pid),
            )
            .unwrap();
    }

    /// Runs `acc` as an agent's escaped process would: `setsid -f` starts it in a session of
    /// its own and returns at once, so it is re-parented away from this test (its client
    /// ancestry is gone). Waits for it to finish.
    pub fn run_escaped(&self, owner: Option<&(String, String)>, args: &[&str]) -> Run {
        let mut c = self.cmd(args);
        if let Some(owner) = owner {
            c.env("ACC_SESSION", &owner.0)
                .env("ACC_GENERATION", &owner.1);
        }
        let out = tempfile::tempdir().unwrap();
        let dir = out.path();
        let mut setsid = Command::new("setsid");
        setsid.env_clear();
        for (k, v) in c.get_envs() {
            if let Some(v) = v {
                setsid.env(k, v);
            }
        }
        setsid
            .arg("-f")
            .arg("sh")
            .arg("-c")
            .arg(r#"d="$1"; shift; "$@" > "$d/out" 2> "$d/err"; echo $? > "$d/rc.tmp"; mv "$d/rc.tmp" "$d/rc""#)
            .arg("sh")
            .arg(dir)
            .arg(c.get_program())
            .args(c.get_args());
        let status = setsid.status().expect("setsid runs");
        assert!(status.success(), "setsid -f failed");
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
        while !dir.join("rc").exists() {
            assert!(
                std::time::Instant::now() < deadline,
                "the escaped acc never finished"
            );
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        let read = |n: &str| std::fs::read_to_string(dir.join(n)).unwrap_or_default();
        Run {
            code: read("rc").trim().parse().unwrap(),
            stdout: read("out"),
            stderr: read("err"),
        }
    }

    pub fn attach(&self, participant: &str, extra: &[&str]) -> (String, String) {
        let mut args = vec!["attach", "--participant", participant];
        args.extend_from_slice(extra);
        let r = self.run(&args);
        assert_eq!(r.code, 0, "attach failed: {}", r.stderr);
        let mut parts = r.stdout.split_whitespace();
        (
            parts.next().unwrap().to_string(),
            parts.next().unwrap().to_string(),
        )
    }

    /// Every file under the data home (none when it was never created).
    pub fn store_files(&self) -> Vec<PathBuf> {
        if !self.data_path().exists() {
            return Vec::new();
        }
        walk(&self.data_path())
    }

    /// The workspace's `acc.db` (a store must exist).
    pub fn db_path(&self) -> PathBuf {
        self.store_files()
            .into_iter()
            .find(|p| p.file_name().is_some_and(|n| n == "acc.db"))
            .expect("a store exists")
    }

    /// The store file's bytes (after every process closed it, WAL is checkpointed away).
    pub fn store_bytes(&self) -> Vec<u8> {
        std::fs::read(self.db_path()).unwrap()
    }
}

pub fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in walkdir::WalkDir::new(dir).min_depth(1) {
        let e = e.unwrap();
        if e.file_type().is_file() {
            out.push(e.path().to_path_buf());
        }
    }
    out.sort();
    out
}

/// Replaces generated ids with stable `<kind>#<n>` names (numbered by first appearance) and
/// temporary paths with placeholders, so snapshots pin everything else exactly.
pub struct Redactor {
    names: HashMap<String, String>,
    counters: HashMap<String, usize>,
    paths: Vec<(String, String)>,
}

const KINDS: [(&str, usize); 8] = [
    ("session_", 22),
    ("generation_", 22),
    ("message_", 22),
    ("claim_", 22),
    ("cmid_", 22),
    ("event_", 22),
    ("receipt_", 43),
    ("workspace_", 32),
];

fn is_id_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'-' || c == b'_'
}

impl Redactor {
    pub fn new(sb: &Sandbox) -> Redactor {
        let mut paths = vec![
            (sb.data_path().display().to_string(), "[DATA]".to_string()),
            (
                sb.tmp.path().join("data").display().to_string(),
                "[DATA]".to_string(),
            ),
            (sb.ws_path().display().to_string(), "[WS]".to_string()),
            (
                sb.tmp.path().join("project").display().to_string(),
                "[WS]".to_string(),
            ),
        ];
        paths.sort_by_key(|p| std::cmp::Reverse(p.0.len()));
        Redactor {
            names: HashMap::new(),
            counters: HashMap::new(),
            paths,
        }
    }

    pub fn apply(&mut self, text: &str) -> String {
        let mut s = text.to_string();
        for (p, name) in &self.paths {
            s = s.replace(p, name);
        }
        let bytes = s.as_bytes();
        let mut out = String::with_capacity(s.len());
        let mut i = 0;
        'outer: while i < bytes.len() {
            let boundary = i == 0 || !is_id_char(bytes[i - 1]);
            if boundary {
                for (prefix, len) in KINDS {
                    let end = i + prefix.len() + len;
                    if s[i..].starts_with(prefix)
                        && end <= bytes.len()
                        && bytes[i + prefix.len()..end].iter().all(|&c| is_id_char(c))
                        && (end == bytes.len() || !is_id_char(bytes[end]))
                    {
                        let id = &s[i..end];
                        let kind = prefix.trim_end_matches('_');
                        let name = match self.names.get(id) {
                            Some(n) => n.clone(),
                            None => {
                                let n = self.counters.entry(kind.to_string()).or_insert(0);
                                *n += 1;
                                let name = format!("{kind}#{n}");
                                self.names.insert(id.to_string(), name.clone());
                                name
                            }
                        };
                        out.push_str(&name);
                        i = end;
                        continue 'outer;
                    }
                }
            }
            let ch = s[i..].chars().next().unwrap();
            out.push(ch);
            i += ch.len_utf8();
        }
        out
    }

    /// Pretty JSON, redacted.
    pub fn json(&mut self, r: &Run) -> String {
        let mut v = r.json();
        redact_process_chains(&mut v);
        self.apply(&serde_json::to_string_pretty(&v).unwrap())
    }
}

/// A takeover's `process` (the caller's process chain: pids and programs of this run) is
/// written as a placeholder.
fn redact_process_chains(v: &mut serde_json::Value) {
    match v {
        serde_json::Value::Object(map) => {
            for (k, val) in map.iter_mut() {
                if k == "process" && val.is_array() {
                    let empty = val.as_array().is_some_and(Vec::is_empty);
                    if !empty {
                        *val = serde_json::Value::String("[the caller's processes]".into());
                    }
                } else {
                    redact_process_chains(val);
                }
            }
        }
        serde_json::Value::Array(items) => items.iter_mut().for_each(redact_process_chains),
        _ => {}
    }
}
