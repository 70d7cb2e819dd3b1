//! `sessionStart`: find the client, judge its capabilities, and open the acc session (or
//! resume the one a compaction or `--resume` left bound to this conversation).

use super::super::answer::Answer;
use super::super::bound::Bound;
use super::super::bound_workspace;
use super::super::call::Call;
use super::super::client::{self, ClientProbe};
use super::super::deadline::PROBE_CAP;
use super::super::failure::Failure;
use super::super::grants::Grants;
use super::super::hook_env::PARTICIPANT_VAR;
use super::super::owner_line::Identity;
use super::super::participant;
use super::project;
use crate::core::bindings::binding_key;
use crate::core::model::{Enforcement, Lifecycle};
use crate::core::sessions::{HOOK_CADENCE_MS, OpenSession, SessionRefresh};
use crate::core::{Core, Owner};
use crate::workspace::pin::PinFacts;
use acc_sdk::capabilities::Capability;
use acc_sdk::resolution::ClientFacts;
use serde_json::{Map, Value, json};

/// The session this conversation acts as after a start.
#[derive(Debug, Clone)]
pub struct Started {
    pub identity: Identity,
    pub grants: Grants,
    pub resumed: bool,
}

/// The handler: start, then show startup context only where the client is certified to
/// take it.
pub fn session_start(call: &Call, core: &mut Core) -> Result<Answer, Failure> {
    if let Some(answer) = super::child::subagent_turn(call, core)? {
        return Ok(answer);
    }
    // Opening and binding are two writes; the guard's snapshot is published once.
    let started = core.deferring_publication(|core| start(call, core))?;
    super::native::publish_binding(call, core);
    if !started.grants.granted(Capability::StartupInjection) {
        return Ok(Answer::silent());
    }
    call.deadline.check()?;
    project::turn_context(call, core, &started.identity, &started.grants)
}

/// Opens or resumes the session bound to the event's client session id. Also used by
/// `beforeTurn` when the conversation has no live session.
pub fn start(call: &Call, core: &mut Core) -> Result<Started, Failure> {
    let env = &call.settings.env;
    let probe = client::probe(
        call.adapter.clone(),
        call.settings.processes.clone(),
        env.vars().clone(),
        call.deadline.sub_budget(PROBE_CAP),
    );
    call.deadline.check()?;
    let primary = call.primary().to_string();
    let client_name = probe
        .certification_name
        .clone()
        .unwrap_or_else(|| primary.clone());
    let facts = ClientFacts {
        client_version: probe.version.clone(),
        platform: call.platform.clone(),
        client_name: Some(client_name.clone()).filter(|n| *n != primary),
    };
    let grants = Grants::of_call(call, facts);
    let enforcement = if grants.granted(Capability::BeforeWrite) {
        Enforcement::Guarded
    } else {
        Enforcement::Advisory
    };
    let lifecycle = if grants.granted(Capability::SessionEnd) {
        Lifecycle::Managed
    } else {
        Lifecycle::Manual
    };
    let ws = core.workspace();
    let checkout_root = Some(ws.checkout_root().display().to_string());
    let branch = ws.branch().map(str::to_string);
    let key = binding_key(&call.event.session_id);

    let bound = Bound::load(core, &call.event.session_id)?;
    if let Some(bound) = bound.as_ref().filter(|b| b.is_live()) {
        let refresh = SessionRefresh {
            pid: probe.session_pid(),
            checkout_root: checkout_root.clone(),
            branch: branch.clone(),
            enforcement,
            lifecycle,
            cadence_ms: HOOK_CADENCE_MS,
        };
        if let Some(resumed) = core.resume_session(&bound.owner(), refresh)? {
            let owner = bound.owner();
            bind(core, &key, &owner, &client_name, &probe)?;
            pin(call, core, &probe, &owner);
            return Ok(Started {
                identity: Identity {
                    owner,
                    participant: resumed.participant_id,
                },
                grants,
                resumed: true,
            });
        }
    }
    call.deadline.check()?;

    let earlier = bound
        .as_ref()
        .and_then(|b| b.session.as_ref())
        .map(|s| &s.participant_id);
    let naming = participant::resolve(env.get(PARTICIPANT_VAR), call.adapter.id(), earlier);
    let mut req = OpenSession::new(naming.preferred, call.adapter.id(), HOOK_CADENCE_MS);
    req.participant_base = naming.base;
    // A shared host's life is not the session's: such a session ends on the client's own
    // end signal, by age, or with the host (recorded as `client.hostPid`).
    req.pid = probe.session_pid();
    req.checkout_root = checkout_root;
    req.branch = branch;
    req.enforcement = enforcement;
    req.lifecycle = lifecycle;
    req.parent_session = match &call.event.parent_session_id {
        Some(parent) => Bound::load(core, parent)?.map(|b| b.binding.session_id),
        None => None,
    };
    req.extensions = extensions(call, &client_name, &probe, &grants);
    let opened = core.open_session(req)?;
    let owner = Owner::new(opened.session_id, opened.generation);
    bind(core, &key, &owner, &client_name, &probe)?;
    pin(call, core, &probe, &owner);
    Ok(Started {
        identity: Identity {
            owner,
            participant: opened.participant_id,
        },
        grants,
        resumed: false,
    })
}

fn bind(
    core: &mut Core,
    key: &str,
    owner: &Owner,
    client_name: &str,
    probe: &ClientProbe,
) -> Result<(), Failure> {
    core.put_binding(key, owner, client_name, probe.version.as_deref(), probe.pid)?;
    Ok(())
}

/// Pins the conversation to the workspace it attached in, so later calls open this store
/// whatever their cwd or the workspace's files say.
fn pin(call: &Call, core: &Core, probe: &ClientProbe, owner: &Owner) {
    let facts = PinFacts {
        client_pid: probe.pid,
        session_id: Some(owner.session.as_str().to_owned()),
    };
    if let Some(fault) = bound_workspace::pin_at_attach(
        &call.data_home,
        &call.event.session_id,
        core.workspace(),
        &facts,
    ) {
        call.report(fault);
    }
    // Opened or resumed just now: the guard's fast path need not refresh it for a while.
    super::super::beat_marker::mark(
        &call.data_home,
        &binding_key(&call.event.session_id),
        core.now_ms(),
    );
}

/// What captures and `acc status --json` show about how the session was started.
fn extensions(
    call: &Call,
    client_name: &str,
    probe: &ClientProbe,
    grants: &Grants,
) -> Map<String, Value> {
    let mut ext = Map::new();
    let mut client =
        json!({ "name": client_name, "version": probe.version, "pid": probe.session_pid() });
    if let Some(host) = probe.host_pid() {
        client["hostPid"] = json!(host);
    }
    ext.insert("client".into(), client);
    ext.insert("adapterId".into(), json!(call.adapter.id()));
    ext.insert("platform".into(), json!(call.platform));
    ext.insert("capabilities".into(), json!(grants.keys()));
    if !grants.candidates.is_empty() {
        let keys: Vec<&str> = grants.candidates.iter().map(|c| c.key()).collect();
        ext.insert("certifyCandidates".into(), json!(keys));
    }
    ext
}
