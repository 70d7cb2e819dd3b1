//! A minimal behaviour and JSON builders, so other crates can define test adapters (with
//! evidence) for end-to-end tests. Compiled for tests and with the `testing` feature.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde_json::{Value, json};

use crate::adapter::{
    AdapterBehaviour, AdapterError, ClientIdentity, LiveOffer, LivePush, NativeSession,
    NativeSessionFacts, OfferAcceptance, ProcessEntry, ReplyRoute, ReplyRouting, RouteOutcome,
    ToolGuard,
};
use crate::capabilities::Capability;
use crate::context::{ContextInput, ContextResult};
use crate::event::{EventKind, NormalizeError, NormalizedEvent, Targets};
use crate::install::{Detection, DoctorReport, InstallContext, InstallPlan, InstallReport};
use crate::outcome::HookOutcome;

/// A guard that treats every tool named `write`/`read`/`shell` (per family) as one whose
/// `path` input is the target.
#[derive(Debug, Clone, Copy)]
pub struct NamedToolGuard(pub &'static str);

impl ToolGuard for NamedToolGuard {
    fn targets(&self, tool_name: &str, tool_input: &Value) -> Option<Targets> {
        (tool_name == self.0).then(|| match tool_input.get("path").and_then(Value::as_str) {
            Some(p) => Targets::Paths(vec![p.to_owned()]),
            None => Targets::unreadable("the test payload names no path"),
        })
    }
}

/// Accepts every offer and routes every reply; records nothing.
#[derive(Debug, Clone, Copy, Default)]
pub struct AcceptAll;

impl LivePush for AcceptAll {
    fn offer_message(&self, _offer: &LiveOffer) -> OfferAcceptance {
        OfferAcceptance {
            accepted: true,
            pending_approval: false,
            reason_code: None,
        }
    }
}

impl ReplyRoute for AcceptAll {
    fn route_reply(&self, _reply: &ReplyRouting) -> RouteOutcome {
        RouteOutcome {
            routed: true,
            reason_code: None,
        }
    }
}

/// Answers the probe and handshake with fixed JSON.
#[derive(Debug, Clone, PartialEq)]
pub struct FixedNative {
    pub probe: Option<Value>,
    pub handshake: Option<Value>,
}

impl NativeSession for FixedNative {
    fn probe_native_delivery(&self, _ctx: &InstallContext) -> Option<Value> {
        self.probe.clone()
    }

    fn bind_native_session(&self, _session: &NativeSessionFacts) -> Option<Value> {
        self.handshake.clone()
    }
}

type Identify = fn(&ProcessEntry) -> Option<ClientIdentity>;
type VersionOf = fn(u32, &ProcessEntry, &BTreeMap<String, String>) -> Option<String>;

/// A behaviour whose optional methods are switched on by builder calls.
#[derive(Clone, Default)]
pub struct TestBehaviour {
    guard_read: Option<NamedToolGuard>,
    guard_write: Option<NamedToolGuard>,
    guard_shell: Option<NamedToolGuard>,
    live_push: Option<AcceptAll>,
    reply_route: Option<AcceptAll>,
    native: Option<FixedNative>,
    identify: Option<Identify>,
    version_of: Option<VersionOf>,
}

impl TestBehaviour {
    pub fn new() -> Self {
        Self::default()
    }

    /// Provides the backing method of `cap` (a no-op for capabilities backed by required
    /// methods).
    pub fn backing(mut self, cap: Capability) -> Self {
        match cap {
            Capability::BeforeRead => self.guard_read = Some(NamedToolGuard("read")),
            Capability::BeforeWrite => self.guard_write = Some(NamedToolGuard("write")),
            Capability::BeforeShell => self.guard_shell = Some(NamedToolGuard("shell")),
            Capability::LivePush => self.live_push = Some(AcceptAll),
            Capability::ReplyRoute => self.reply_route = Some(AcceptAll),
            _ => {}
        }
        self
    }

    /// Provides every optional backing method.
    pub fn backing_all(self) -> Self {
        Capability::ALL.into_iter().fold(self, Self::backing)
    }

    pub fn native(mut self, probe: Option<Value>, handshake: Option<Value>) -> Self {
        self.native = Some(FixedNative { probe, handshake });
        self
    }

    pub fn identify(mut self, f: Identify) -> Self {
        self.identify = Some(f);
        self
    }

    pub fn version_of(mut self, f: VersionOf) -> Self {
        self.version_of = Some(f);
        self
    }

    pub fn boxed(self) -> Box<dyn AdapterBehaviour> {
        Box::new(self)
    }
}

impl AdapterBehaviour for TestBehaviour {
    fn detect(&self, _ctx: &InstallContext) -> Detection {
        Detection {
            present: false,
            version: None,
            executable: None,
            detail: "test behaviour detects nothing".into(),
        }
    }

    fn plan_install(&self, _ctx: &InstallContext) -> Result<InstallPlan, AdapterError> {
        Ok(InstallPlan::default())
    }

    fn install(&self, _ctx: &InstallContext) -> Result<InstallReport, AdapterError> {
        Ok(InstallReport::default())
    }

    fn uninstall(
        &self,
        _ctx: &InstallContext,
        _keep: &[PathBuf],
    ) -> Result<InstallReport, AdapterError> {
        Ok(InstallReport::default())
    }

    fn doctor(&self, _ctx: &InstallContext) -> DoctorReport {
        DoctorReport {
            ok: true,
            diagnostics: Vec::new(),
        }
    }

    /// Reads `{"event": <kind>, "session_id", "cwd"}` and nothing else.
    fn normalize_hook(
        &self,
        payload: &Value,
        _args: &[String],
    ) -> Result<NormalizedEvent, NormalizeError> {
        let obj = payload
            .as_object()
            .ok_or_else(|| NormalizeError::ForeignShape("not an object".into()))?;
        let event = obj.get("event").and_then(Value::as_str).unwrap_or_default();
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
        Ok(NormalizedEvent {
            kind,
            session_id: text("session_id").ok_or(NormalizeError::MissingSessionId)?,
            cwd: text("cwd").ok_or(NormalizeError::MissingCwd)?,
            model: None,
            parent_session_id: None,
            tool: None,
            permission_mode: None,
            end_reason: None,
        })
    }

    /// One line per message (`<id>: <subject>`) while it fits the budget.
    fn render_context_result(&self, input: &ContextInput, budget_bytes: usize) -> ContextResult {
        let mut result = ContextResult::default();
        for m in &input.messages {
            let line = format!("{}: {}\n", m.message_id, m.subject);
            if result.text.len() + line.len() > budget_bytes {
                break;
            }
            result.text.push_str(&line);
            result.offered_message_ids.push(m.message_id.clone());
        }
        result
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

    fn identify_client_process(&self, entry: &ProcessEntry) -> Option<ClientIdentity> {
        self.identify.and_then(|f| f(entry))
    }

    fn client_version_of(
        &self,
        pid: u32,
        entry: &ProcessEntry,
        env: &BTreeMap<String, String>,
    ) -> Option<String> {
        self.version_of.and_then(|f| f(pid, entry, env))
    }

    fn guard_read(&self) -> Option<&dyn ToolGuard> {
        self.guard_read.as_ref().map(|g| g as &dyn ToolGuard)
    }

    fn guard_write(&self) -> Option<&dyn ToolGuard> {
        self.guard_write.as_ref().map(|g| g as &dyn ToolGuard)
    }

    fn guard_shell(&self) -> Option<&dyn ToolGuard> {
        self.guard_shell.as_ref().map(|g| g as &dyn ToolGuard)
    }

    fn live_push(&self) -> Option<&dyn LivePush> {
        self.live_push.as_ref().map(|l| l as &dyn LivePush)
    }

    fn reply_route(&self) -> Option<&dyn ReplyRoute> {
        self.reply_route.as_ref().map(|r| r as &dyn ReplyRoute)
    }

    fn native_session(&self) -> Option<&dyn NativeSession> {
        self.native.as_ref().map(|n| n as &dyn NativeSession)
    }
}

/// An `adapter.json` value declaring `caps` true for client `command` (its certification
/// name is `<command>-cli`).
pub fn manifest_json(id: &str, command: &str, caps: &[Capability]) -> Value {
    let mut groups = serde_json::Map::new();
    for cap in caps {
        let group = groups
            .entry(cap.group().as_str())
            .or_insert_with(|| json!({}));
        group[cap.name()] = json!(true);
    }
    json!({
        "id": id,
        "displayName": format!("{id} (test)"),
        "client": {"command": command, "certificationName": format!("{command}-cli"), "versionArgs": ["--version"]},
        "capabilities": groups,
    })
}

/// One evidence row, with a deterministic fixture path and provenance id.
pub fn evidence_row(
    client: &str,
    version: &str,
    platform: &str,
    cap: Capability,
    pass: bool,
) -> Value {
    let id = format!(
        "{client}-{}-{}-{}",
        version.replace(['.', '+'], "-"),
        platform,
        cap.name().to_lowercase()
    );
    json!({
        "client": client, "version": version, "platform": platform, "observedAt": "2026-12-02",
        "capability": cap.key(), "fixture": format!("fixtures/{id}.json"),
        "provenance": "fixtures/certification-provenance.json", "provenanceId": id.to_lowercase(),
        "idleBehavior": "observed", "busyBehavior": "unobserved", "authorityLevel": "blocking",
        "limitations": [], "result": if pass { "pass" } else { "fail" }
    })
}

/// A `certification.json` value holding `rows`.
pub fn certification_json(rows: Vec<Value>) -> Value {
    json!({ "evidence": rows })
}
