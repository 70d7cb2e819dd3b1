//! Shared helpers for the hook tests: a sandbox (data home + a git workspace), a scripted
//! test adapter with evidence, and an in-process `acc-hook` runner with a fixed clock.
#![allow(dead_code)]

use acc_runtime::clock::{ManualClock, parse_iso};
use acc_runtime::core::claims::ClaimRequest;
use acc_runtime::core::inbox::InboxItem;
use acc_runtime::core::messages::SendMessage;
use acc_runtime::core::model::{Enforcement, MessageKind};
use acc_runtime::core::presence::SystemPidProbe;
use acc_runtime::core::resources::Resource;
use acc_runtime::core::sessions::OpenSession;
use acc_runtime::hook::hook_env::HookEnv;
use acc_runtime::hook::{HookSettings, ProcessSource};
use acc_runtime::ids::{MessageId, ParticipantId, SequentialIds};
use acc_runtime::store::OpenMode;
use acc_runtime::{Core, Owner, Ports, workspace};
use acc_sdk::adapter::{
    AdapterBehaviour, AdapterError, OwnerLine, ProcessEntry, ReplyRoute, ToolGuard,
};
use acc_sdk::capabilities::Capability;
use acc_sdk::context::{ContextInput, ContextResult};
use acc_sdk::define::testing::{TestBehaviour, certification_json, evidence_row, manifest_json};
use acc_sdk::define::{Adapter, define_adapter};
use acc_sdk::event::{EventKind, NormalizeError, NormalizedEvent, Targets, ToolCall, ToolClass};
use acc_sdk::identity::StaticTable;
use acc_sdk::install::{Detection, DoctorReport, InstallContext, InstallPlan, InstallReport};
use acc_sdk::outcome::HookOutcome;
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::time::Duration;

/// The fixed time every in-process hook and setup call sees.
pub const FIXED_CLOCK: &str = "2026-12-02T12:00:00.000Z";
pub const ADAPTER_ID: &str = "scenario";
pub const CLIENT: &str = "scenarioclient-cli";

/// Runs `git` quietly in `dir`, asserting success.
pub fn git(dir: &Path, args: &[&str]) {
    let out = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@example.invalid")
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@example.invalid")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("HOME", dir)
        .output()
        .expect("git runs");
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A temporary data home and a git workspace next to it (never inside it).
pub struct Sandbox {
    pub tmp: tempfile::TempDir,
    pub clock: Arc<ManualClock>,
    pub ids: Arc<SequentialIds>,
}

impl Sandbox {
    pub fn new() -> Sandbox {
        let tmp = tempfile::tempdir().unwrap();
        let ws = tmp.path().join("project");
        std::fs::create_dir_all(ws.join("src")).unwrap();
        git(&ws, &["init", "-q", "-b", "main"]);
        Sandbox {
            tmp,
            clock: Arc::new(ManualClock::at(parse_iso(FIXED_CLOCK).unwrap())),
            ids: Arc::new(SequentialIds::default()),
        }
    }

    pub fn root(&self) -> PathBuf {
        self.tmp.path().canonicalize().unwrap()
    }

    pub fn ws(&self) -> PathBuf {
        self.root().join("project")
    }

    pub fn data(&self) -> PathBuf {
        self.root().join("data")
    }

    pub fn ports(&self) -> Ports {
        Ports {
            clock: self.clock.clone(),
            ids: self.ids.clone(),
            pids: Arc::new(SystemPidProbe),
        }
    }

    /// The core of the workspace `dir` belongs to, on this sandbox's clock and ids.
    pub fn core_at(&self, dir: &Path) -> Core {
        let ws = workspace::discover(dir, &acc_runtime::env::Env::new()).unwrap();
        Core::open(ws, &self.data(), OpenMode::ReadWrite, self.ports()).unwrap()
    }

    pub fn core(&self) -> Core {
        self.core_at(&self.ws())
    }

    /// Settings for an in-process hook run with `adapter` only, no process walk and the
    /// sandbox's data home.
    pub fn settings(&self, adapter: fn() -> Adapter, extra_env: &[(&str, &str)]) -> HookSettings {
        let mut env = HookEnv::default().with("ACC_DATA_HOME", &self.data().display().to_string());
        for (k, v) in extra_env {
            env = env.with(k, v);
        }
        let mut s = HookSettings::with_adapter(env, adapter);
        s.ports = self.ports();
        s.processes = ProcessSource::Fixed {
            table: Arc::new(StaticTable::default()),
            hook_pid: 1_000_000,
        };
        s
    }
}

/// What one in-process invocation produced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HookRun {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl From<std::process::Output> for HookRun {
    /// What a whole `acc-hook` process produced.
    fn from(out: std::process::Output) -> HookRun {
        HookRun {
            code: out.status.code().unwrap_or(-1),
            stdout: String::from_utf8(out.stdout).unwrap(),
            stderr: String::from_utf8(out.stderr).unwrap(),
        }
    }
}

/// Runs the hook runtime in-process with `argv` and `payload` as stdin.
pub fn run_hook(settings: HookSettings, argv: &[&str], payload: &[u8]) -> HookRun {
    let argv: Vec<String> = argv.iter().map(|s| s.to_string()).collect();
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let stdin: Box<dyn std::io::Read + Send> = Box::new(std::io::Cursor::new(payload.to_vec()));
    let code = acc_runtime::hook::run(&argv, stdin, &mut out, &mut err, settings);
    HookRun {
        code,
        stdout: String::from_utf8(out).unwrap(),
        stderr: String::from_utf8(err).unwrap(),
    }
}

/// A client behaviour scripted by its payload:
/// `{"event", "session_id", "cwd", "tool"?: {"name", "paths"?: [...]} , "end_reason"?,
///   "continue"?: bool}`. A tool without `paths` has unreadable targets; the tool `shell`
/// is a shell call, any other a file tool.
/// Deny: exit 2 with the reason on stderr; inject: plain stdout.
/// The second field is the reply route it declares (none by default).
pub struct ScenarioBehaviour(TestBehaviour, Option<&'static dyn ReplyRoute>);

struct NoGuard;
impl ToolGuard for NoGuard {
    fn targets(&self, _: &str, _: &Value) -> Option<Targets> {
        None
    }
}
static NO_GUARD: NoGuard = NoGuard;

impl AdapterBehaviour for ScenarioBehaviour {
    fn reply_route(&self) -> Option<&dyn ReplyRoute> {
        self.1
    }
    fn detect(&self, ctx: &InstallContext) -> Detection {
        self.0.detect(ctx)
    }
    fn plan_install(&self, ctx: &InstallContext) -> Result<InstallPlan, AdapterError> {
        self.0.plan_install(ctx)
    }
    fn install(&self, ctx: &InstallContext) -> Result<InstallReport, AdapterError> {
        self.0.install(ctx)
    }
    fn uninstall(
        &self,
        ctx: &InstallContext,
        keep: &[PathBuf],
    ) -> Result<InstallReport, AdapterError> {
        self.0.uninstall(ctx, keep)
    }
    fn doctor(&self, ctx: &InstallContext) -> DoctorReport {
        self.0.doctor(ctx)
    }
    fn normalize_hook(
        &self,
        payload: &Value,
        _args: &[String],
    ) -> Result<NormalizedEvent, NormalizeError> {
        let obj = payload
            .as_object()
            .ok_or_else(|| NormalizeError::ForeignShape("not an object".into()))?;
        let event = obj.get("event").and_then(Value::as_str).unwrap_or_default();
        if event == "panic" {
            panic!("scripted panic with peer text that must never reach stderr");
        }
        let kind = EventKind::ALL
            .into_iter()
            .find(|k| k.as_str() == event)
            .ok_or_else(|| NormalizeError::UnknownEvent(event.to_owned()))?;
        let text = |k: &str| {
            obj.get(k)
                .and_then(Value::as_str)
                .filter(|s| !s.is_empty())
                .map(str::to_owned)
        };
        let tool = obj.get("tool").map(|t| ToolCall {
            name: t
                .get("name")
                .and_then(Value::as_str)
                .unwrap_or("write")
                .to_owned(),
            class: match t.get("name").and_then(Value::as_str) {
                Some("shell") => ToolClass::Shell,
                _ => ToolClass::Write,
            },
            targets: match t.get("paths").and_then(Value::as_array) {
                Some(paths) => Targets::Paths(
                    paths
                        .iter()
                        .filter_map(Value::as_str)
                        .map(str::to_owned)
                        .collect(),
                ),
                None => Targets::unreadable("the test payload names no path"),
            },
            call_id: t.get("call_id").and_then(Value::as_str).map(str::to_owned),
            // What a reader says of a command of `cat`s and `grep`s.
            writes_only_targets: t
                .get("writesOnlyTargets")
                .and_then(Value::as_bool)
                .unwrap_or(false),
        });
        Ok(NormalizedEvent {
            kind,
            session_id: text("session_id").ok_or(NormalizeError::MissingSessionId)?,
            cwd: text("cwd").ok_or(NormalizeError::MissingCwd)?,
            model: None,
            parent_session_id: text("parent_session_id"),
            tool,
            permission_mode: None,
            end_reason: text("end_reason"),
        })
    }
    fn render_context_result(&self, input: &ContextInput, budget_bytes: usize) -> ContextResult {
        acc_sdk::projector::project_context_result(input, budget_bytes)
    }
    fn renders_with_the_projector(&self) -> bool {
        true
    }
    fn deny_outcome(&self, _event: &NormalizedEvent, reason: &str) -> HookOutcome {
        HookOutcome {
            stdout: String::new(),
            stderr: reason.to_owned(),
            exit_code: 2,
        }
    }
    fn inject_outcome(&self, _event: &NormalizedEvent, text: &str) -> HookOutcome {
        HookOutcome::stdout(text)
    }
    fn inject_tool_owner_outcome(&self, owner: &OwnerLine, tool: &str) -> Option<HookOutcome> {
        (tool == "owner-echo").then(|| HookOutcome {
            stdout: format!("owner {} {}", owner.session_id, owner.generation),
            stderr: String::new(),
            exit_code: 2,
        })
    }
    fn continue_turn_outcome(&self, context: &str, payload: &Value) -> Option<HookOutcome> {
        (payload.get("continue") == Some(&Value::Bool(true)))
            .then(|| HookOutcome::stdout(format!("CONTINUE\n{context}")))
    }
    fn client_version_of(
        &self,
        pid: u32,
        entry: &ProcessEntry,
        env: &BTreeMap<String, String>,
    ) -> Option<String> {
        self.0.client_version_of(pid, entry, env)
    }
    fn guard_write(&self) -> Option<&dyn ToolGuard> {
        Some(&NO_GUARD)
    }
}

/// A scenario adapter declaring `caps`, each with a passing capture of the test client.
pub fn adapter_with(caps: &[Capability]) -> Adapter {
    adapter_routing(caps, None)
}

/// [`adapter_with`], whose answers at the next turn go the way `route` says.
pub fn adapter_routing(caps: &[Capability], route: Option<&'static dyn ReplyRoute>) -> Adapter {
    let rows = caps
        .iter()
        .map(|c| evidence_row(CLIENT, "1.0.0", "linux-x64", *c, true))
        .collect();
    define_adapter(
        &manifest_json(ADAPTER_ID, "scenarioclient", caps),
        &certification_json(rows),
        Box::new(ScenarioBehaviour(TestBehaviour::new(), route)),
    )
    .expect("the scenario adapter is valid")
}

/// Certified for next-turn delivery, the write guard and session end.
pub fn certified() -> Adapter {
    adapter_with(&[
        Capability::NextTurn,
        Capability::BeforeWrite,
        Capability::SessionEnd,
    ])
}

/// Declares nothing, like every shipped adapter before its first capture.
pub fn uncertified() -> Adapter {
    adapter_with(&[])
}

pub fn payload(event: &str, session: &str, cwd: &Path) -> Value {
    json!({"event": event, "session_id": session, "cwd": cwd.display().to_string()})
}

pub fn write_payload(session: &str, cwd: &Path, paths: &[&str]) -> Value {
    let mut p = payload("beforeTool", session, cwd);
    p["tool"] = json!({"name": "write", "paths": paths});
    p
}

/// Runs one scripted event through the in-process runtime.
pub fn hook(settings: HookSettings, p: &Value) -> HookRun {
    run_hook(settings, &[ADAPTER_ID], p.to_string().as_bytes())
}

/// Asserts that `run` allowed its call in silence: exit 0, nothing on stdout or stderr.
#[allow(dead_code)]
pub fn assert_silent_allow(run: &HookRun) {
    assert_eq!(
        (run.code, run.stdout.as_str(), run.stderr.as_str()),
        (0, "", ""),
        "{run:?}"
    );
}

/// A sandbox in which "me" started its conversation and a guarded peer holds a guarded
/// claim on each of `resources`: the guard tests' usual start.
#[allow(dead_code)]
pub fn me_beside_a_guarded_peer<R: AsRef<str>>(
    resources: impl IntoIterator<Item = R>,
) -> (Sandbox, Owner) {
    let sb = Sandbox::new();
    let run = hook(
        sb.settings(certified, &[]),
        &payload("sessionStart", "me", &sb.ws()),
    );
    assert_eq!(run.code, 0, "{run:?}");
    let mut core = sb.core();
    let peer = attach(&mut core, "peer", true);
    for r in resources {
        claim(&mut core, &peer, r.as_ref(), true);
    }
    (sb, peer)
}

/// Opens a session for `participant` directly through the core (a peer outside any hook).
pub fn attach(core: &mut Core, participant: &str, guarded: bool) -> Owner {
    let mut req = OpenSession::new(ParticipantId::parse(participant).unwrap(), "cli", 30_000);
    if guarded {
        req.enforcement = Enforcement::Guarded;
    }
    let s = core.open_session(req).unwrap();
    Owner::new(s.session_id, s.generation)
}

pub fn claim(core: &mut Core, owner: &Owner, resource: &str, guarded: bool) {
    let mut req = ClaimRequest::new(Resource::parse(resource).unwrap());
    if guarded {
        req.enforcement = Enforcement::Guarded;
    }
    core.claim(owner, req).unwrap();
}

pub fn send(core: &mut Core, from: &Owner, to: &str, subject: &str, body: &str) -> MessageId {
    core.send(
        from,
        SendMessage {
            to: vec![to.to_string()],
            kind: MessageKind::Note,
            obligation: None,
            subject: subject.into(),
            body: body.into(),
            client_message_id: None,
        },
    )
    .unwrap()
    .message
    .message_id
}

/// The owner a hooked conversation is bound to.
pub fn bound_owner(core: &mut Core, client_session: &str) -> Owner {
    let key = acc_runtime::core::bindings::binding_key(client_session);
    let b = core
        .binding(&key)
        .unwrap()
        .expect("the conversation is bound");
    Owner::new(b.session_id, b.generation)
}

pub fn inbox(core: &mut Core, owner: &Owner) -> Vec<InboxItem> {
    core.inbox(owner, None, Some(500)).unwrap().items
}

pub const GENEROUS: Duration = Duration::from_secs(20);

/// Replaces generated ids with `<kind>#<n>` (numbered by first appearance) and the
/// sandbox's paths with placeholders, so snapshots pin everything else exactly.
pub struct Redactor {
    names: std::collections::HashMap<String, String>,
    counters: std::collections::HashMap<&'static str, usize>,
    paths: Vec<(String, &'static str)>,
}

const ID_KINDS: [&str; 5] = ["session_", "generation_", "message_", "claim_", "event_"];
const ID_LEN: usize = 22;

fn id_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'-' || c == b'_'
}

impl Redactor {
    pub fn new(sb: &Sandbox) -> Redactor {
        Redactor {
            names: Default::default(),
            counters: Default::default(),
            paths: vec![
                (sb.data().display().to_string(), "[DATA]"),
                (sb.ws().display().to_string(), "[WS]"),
            ],
        }
    }

    pub fn apply(&mut self, text: &str) -> String {
        let mut s = text.to_string();
        for (p, name) in &self.paths {
            s = s.replace(p.as_str(), name);
        }
        let b = s.as_bytes();
        let mut out = String::with_capacity(s.len());
        let mut i = 0;
        'outer: while i < b.len() {
            if i == 0 || !id_char(b[i - 1]) {
                for prefix in ID_KINDS {
                    let end = i + prefix.len() + ID_LEN;
                    if s[i..].starts_with(prefix)
                        && end <= b.len()
                        && b[i + prefix.len()..end].iter().all(|c| id_char(*c))
                        && (end == b.len() || !id_char(b[end]))
                    {
                        let kind = prefix.trim_end_matches('_');
                        let id = s[i..end].to_string();
                        let next = self.counters.get(kind).copied().unwrap_or(0) + 1;
                        let name = self
                            .names
                            .entry(id)
                            .or_insert_with(|| format!("{kind}#{next}"))
                            .clone();
                        if name == format!("{kind}#{next}") {
                            self.counters.insert(kind, next);
                        }
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
}

/// Whether a client would take `run` as a refusal: exit 2, or a deny or block decision in any
/// shipped client's JSON shape.
pub fn is_deny(run: &HookRun) -> bool {
    if run.code == 2 {
        return true;
    }
    let Ok(v) = serde_json::from_str::<Value>(run.stdout.trim()) else {
        return false;
    };
    v.pointer("/hookSpecificOutput/permissionDecision") == Some(&json!("deny"))
        || v.get("decision") == Some(&json!("block"))
        || v.get("decision") == Some(&json!("deny"))
        || v.get("permissionDecision") == Some(&json!("deny"))
}
