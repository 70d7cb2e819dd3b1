//! `live-wake`: live delivery from the real client, driven interactively.
//!
//! The client starts in its own terminal interface under tmux (no `-p`, no key typed ever),
//! with acc's hooks installed with `--delivery all` and `ACC_CERTIFY_CANDIDATES` naming
//! `delivery.livePush`, so its own hooks publish a native binding. Then, in one session:
//!
//! 1. `consent-off` (negative control): the installation record says `off`; the peer sends
//!    with the real `acc message`. Nothing may be offered and no model request may follow.
//! 2. `idle`: consent `all`; the peer sends again. The sender must be told `woken`, the
//!    session must run a turn by itself whose model request shows the message in acc's
//!    fenced peer block, and the receipt must go `queued -> offered` (read from the store).
//! 3. `busy`: a wake starts a turn whose model request the double holds for a while; during
//!    it the peer sends again. The session is busy: the receipt must stay `queued` while the
//!    turn runs, and the message must be shown by a later turn (`offered`).
//! 4. `continue`: a wake starts a held turn again; during it consent goes `off` and the peer
//!    sends once more (`notOffered`, no wake). At the turn's end acc's Stop hook holds the
//!    turn open with the body (`continue_turn_outcome`): the receipt must stay `queued` while
//!    the turn runs and be `offered` after, with no new wake.
//! 5. `killed` (negative control): the client is killed with SIGKILL (its socket stays
//!    behind); the peer sends. The sender must be told `failed`, a failed offer must be
//!    recorded and the receipt must stay `queued`.
//!
//! [`judge`] is pure: it reads only the observations.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use acc_runtime::core::{Core, Owner};
use acc_runtime::ids::MessageId;
use acc_runtime::installer::record as install_record;
use acc_sdk::capabilities::Capability;
use acc_sdk::certification::EvidenceResult;
use serde_json::{Value, json};

use crate::clients::environment::{client_path, headless_env};
use crate::clients::{InstalledClient, Sandbox};
use crate::doubles::{ModelDouble, Script};
use crate::record::kit::error::RecordError;
pub use crate::record::kit::facts::{LiveFacts, LivePhase};
use crate::record::kit::headless::recordings;
use crate::record::kit::install::install_adapter_with;
use crate::record::kit::model_text::block_names_message;
use crate::record::kit::observations::{Observations, RunFacts};
use crate::record::kit::recipe::Recipe;
use crate::record::kit::room;
use crate::record::kit::run::{RunSettings, ScenarioRun};
use crate::record::kit::terminal::launcher::{
    watch_terminal, write_err, write_interactive_config, write_launcher,
};
use crate::record::kit::terminal::processes::alive;
use crate::record::kit::terminal::stage::{observed, terminal_bundle, terminal_run};
use crate::record::kit::terminal::tmux::{Tmux, poll};
use crate::record::kit::tuple::Tuple;
use crate::record::kit::verdict::Verdict;
use crate::record::scenario::{AGENT, PEER};

/// The phases, in the order they run.
pub const CONSENT_OFF: &str = "consent-off";
pub const IDLE: &str = "idle";
pub const KILLED: &str = "killed";
pub const BUSY: &str = "busy";
pub const CONTINUE: &str = "continue";
mod hold;

use hold::{HOLD_LIMIT, Hold};

/// The peer's subject and body (untrusted peer text: never copied into a fixture).
const SUBJECT: &str = "live wake";
const BODY: &str = "Please rebase onto main before you push.";

fn phase_named<'a>(facts: &'a LiveFacts, name: &str) -> Option<&'a LivePhase> {
    facts.phases.iter().find(|p| p.name == name)
}

/// The `delivery.livePush` verdict.
pub fn judge(obs: &Observations) -> Verdict {
    let mut failures = Vec::new();
    if let Some(problem) = obs.run.network_problem() {
        failures.push(problem);
    }
    let Some(facts) = &obs.live else {
        return verdict(vec!["no live delivery facts were observed".to_owned()]);
    };
    if !facts.bound {
        failures.push("the session's own hooks published no native binding".to_owned());
    }
    match phase_named(facts, CONSENT_OFF) {
        None => failures.push("the consent-off control did not run".to_owned()),
        Some(p) => {
            if p.sender_outcome.as_deref() == Some("woken") || p.requests_after > p.requests_before
            {
                failures.push("with consent off a message still woke the session".to_owned());
            }
            if p.sender_outcome.is_none() {
                failures.push(no_live_result(&p.name));
            } else if p.sender_outcome.as_deref() != Some("notOffered")
                || p.sender_reason.as_deref() != Some("delivery_off")
            {
                failures.push("with consent off the sender was not told delivery_off".to_owned());
            }
            if p.receipt_at_end.as_deref() != Some("queued") {
                failures.push("with consent off the receipt did not stay queued".to_owned());
            }
        }
    }
    match phase_named(facts, IDLE) {
        None => failures.push("the idle phase did not run".to_owned()),
        Some(p) => {
            if p.sender_outcome.is_none() {
                failures.push(no_live_result(&p.name));
            } else if p.sender_outcome.as_deref() != Some("woken") {
                failures.push("the sender was not told that the idle session was woken".to_owned());
            }
            if p.receipt_after_send.as_deref() != Some("queued") {
                failures.push("the wake itself changed the receipt".to_owned());
            }
            if p.receipt_at_end.as_deref() != Some("offered") {
                failures.push("the receipt did not go from queued to offered".to_owned());
            }
            if !p.offers.iter().any(|o| o == "ok:next-turn") {
                failures.push("no next-turn offer was recorded for the message".to_owned());
            }
            let shown = p.message_id.as_deref().is_some_and(|id| {
                obs.requests
                    .iter()
                    .skip(p.requests_before)
                    .any(|r| r.peer_blocks.iter().any(|b| block_names_message(b, id)))
            });
            if p.requests_after <= p.requests_before {
                failures.push("the idle session ran no turn by itself".to_owned());
            } else if !shown {
                failures.push(
                    "no model request of the woken turn showed the message in acc's peer block"
                        .to_owned(),
                );
            }
        }
    }
    match phase_named(facts, BUSY) {
        None => failures.push("the busy phase did not run".to_owned()),
        Some(p) => {
            if p.sender_outcome.is_none() {
                failures.push(no_live_result(&p.name));
            } else if p.sender_outcome.as_deref() != Some("woken") {
                failures
                    .push("the sender was not told that the busy session took the wake".to_owned());
            }
            if p.receipt_while_busy.as_deref() != Some("queued") {
                failures
                    .push("the message was not left queued while the session was busy".to_owned());
            }
            if p.receipt_at_end.as_deref() != Some("offered") {
                failures.push("a later turn did not show the message sent while busy".to_owned());
            }
            let shown = p.message_id.as_deref().is_some_and(|id| {
                obs.requests
                    .iter()
                    .any(|r| r.peer_blocks.iter().any(|b| block_names_message(b, id)))
            });
            if !shown {
                failures.push(
                    "no model request showed the message sent while busy in acc's peer block"
                        .to_owned(),
                );
            }
        }
    }
    match phase_named(facts, CONTINUE) {
        None => failures.push("the continue phase did not run".to_owned()),
        Some(p) => {
            if p.sender_outcome.is_none() {
                failures.push(no_live_result(&p.name));
            } else if p.sender_outcome.as_deref() != Some("notOffered") {
                failures
                    .push("the message sent with consent off mid-turn was offered live".to_owned());
            }
            if p.receipt_while_busy.as_deref() != Some("queued") {
                failures
                    .push("the message sent mid-turn was shown before the turn ended".to_owned());
            }
            if p.receipt_at_end.as_deref() != Some("offered") {
                failures
                    .push("the turn end did not hold the turn open to show the message".to_owned());
            }
            let shown = p.message_id.as_deref().is_some_and(|id| {
                obs.requests
                    .iter()
                    .skip(p.requests_before)
                    .any(|r| r.peer_blocks.iter().any(|b| block_names_message(b, id)))
            });
            if !shown {
                failures.push(
                    "no model request of the held-open turn showed the message in acc's peer block"
                        .to_owned(),
                );
            }
        }
    }
    match phase_named(facts, KILLED) {
        None => failures.push("the killed-session control did not run".to_owned()),
        Some(p) => {
            if p.sender_outcome.is_none() {
                failures.push(no_live_result(&p.name));
            } else if p.sender_outcome.as_deref() != Some("failed") {
                failures.push(
                    "the sender was not told that the offer to a killed session failed".to_owned(),
                );
            }
            if !p.offers.iter().any(|o| o.starts_with("failed:")) {
                failures.push("no failed offer was recorded for the killed session".to_owned());
            }
            if p.receipt_at_end.as_deref() != Some("queued") {
                failures.push("the message to a killed session did not stay queued".to_owned());
            }
        }
    }
    verdict(failures)
}

/// The sender's `acc message` named no live result at all: it found no bound session of the
/// recipient to judge (the binding was never published, or was retired since).
fn no_live_result(phase: &str) -> String {
    format!("{phase}: the sender found no bound session to offer the message to (no live result)")
}

fn verdict(failures: Vec<String>) -> Verdict {
    if failures.is_empty() {
        Verdict {
            capability: Capability::LivePush,
            result: EvidenceResult::Pass,
            reasons: vec![
                "an idle interactive session ran a turn by itself for a wake and its next-turn hook showed the body; a busy one showed it in the turn after; a message that arrived mid-turn without a wake was shown by holding the turn open at its end; consent off and a killed session left the message queued"
                    .to_owned(),
            ],
        }
    } else {
        Verdict {
            capability: Capability::LivePush,
            result: EvidenceResult::Fail,
            reasons: failures,
        }
    }
}

fn set_policy(sandbox: &Sandbox, adapter: &str, policy: &str) -> Result<(), RecordError> {
    let path = install_record::record_path(&sandbox.acc_data_home().join("acc"));
    let mut record =
        install_record::load(&path).map_err(|e| write_err("the install record", e.message))?;
    let mut entry = record
        .entry(adapter)
        .cloned()
        .ok_or_else(|| write_err("the install record", format!("{adapter} is not installed")))?;
    entry.delivery = Some(policy.to_owned());
    record.put(entry);
    install_record::save(&path, &record).map_err(|e| write_err("the install record", e.message))
}

/// The open session the client's hooks opened for the agent.
fn agent_owner(core: &mut Core) -> Option<Owner> {
    let status = core.status(None, true).ok()?;
    for listed in status.sessions {
        let Ok(Some(record)) = core.session(&listed.session_id) else {
            continue;
        };
        if record.participant_id.as_str() == AGENT && record.harness != room::RECORDER_HARNESS {
            return Some(Owner::new(record.session_id, record.generation));
        }
    }
    None
}

fn receipt_state(core: &mut Core, agent: &Owner, id: &MessageId) -> Option<String> {
    let page = core.inbox(agent, None, Some(500)).ok()?;
    page.items
        .iter()
        .find(|i| i.message_id == *id)
        .map(|i| i.receipt_state.as_str().to_owned())
}

fn offers(core: &mut Core, id: &MessageId) -> Vec<String> {
    core.offer_history(id)
        .unwrap_or_default()
        .into_iter()
        .map(|o| match o.succeeded {
            true => format!("ok:{}", o.transport.unwrap_or_default()),
            false => format!("failed:{}", o.reason_code.unwrap_or_default()),
        })
        .collect()
}

struct Sender<'a> {
    acc: &'a Path,
    env: BTreeMap<String, String>,
    workspace: PathBuf,
    peer: Owner,
}

impl Sender<'_> {
    /// `acc message --json` as the peer; returns the exit code and the parsed output.
    fn send(&self, n: usize) -> (Option<i32>, Value) {
        let out = Command::new(self.acc)
            .env_clear()
            .envs(&self.env)
            .current_dir(&self.workspace)
            .args(["message", "--json", "--to", AGENT, "--subject", SUBJECT])
            .args(["--body", &format!("{BODY} ({n})")])
            .args(["--session", self.peer.session.as_str()])
            .args(["--generation", self.peer.generation.as_str()])
            .output();
        match out {
            Ok(o) => (
                o.status.code(),
                serde_json::from_slice(&o.stdout).unwrap_or(Value::Null),
            ),
            Err(_) => (None, Value::Null),
        }
    }
}

fn sent_fields(out: &Value) -> (Option<String>, Option<String>, Option<String>) {
    let data = if out.get("data").is_some() {
        &out["data"]
    } else {
        out
    };
    let id = data["message"]["messageId"].as_str().map(str::to_owned);
    let live = &data["live"][0];
    (
        id,
        live["outcome"].as_str().map(str::to_owned),
        live["reasonCode"].as_str().map(str::to_owned),
    )
}

/// Runs `live-wake` against `installed`.
pub fn run_live_wake(
    recipe: &dyn Recipe,
    installed: &InstalledClient,
    tuple: &Tuple,
    settings: &RunSettings,
) -> Result<ScenarioRun, RecordError> {
    let scenario = recipe.scenario();
    let client = installed.client;
    let client_error = |source| RecordError::Client {
        client: client.id().to_owned(),
        source,
    };
    let sandbox = Sandbox::new(client).map_err(client_error)?;
    let workspace = sandbox.workspace();
    let hold = Hold::default();
    let protocol = client.protocol();
    let responder_hold = hold.clone();
    let capture_dir = sandbox.root().join("hook-capture");
    let arrivals = Arrivals::new(&capture_dir);
    let noted = arrivals.clone();
    let double = ModelDouble::start_with(
        Box::new(move |request, script| {
            noted.note(&request.body);
            responder_hold.hold_if_armed(HOLD_LIMIT);
            protocol.respond(request, script)
        }),
        Script::new(Vec::new(), crate::record::scenario::FINAL_TEXT).map_err(|e| {
            RecordError::Double {
                message: e.to_string(),
            }
        })?,
    )
    .map_err(|e| RecordError::Double {
        message: e.to_string(),
    })?;
    let mut double = double;
    sandbox
        .write_base_config(double.port())
        .map_err(client_error)?;
    let installed_files =
        install_adapter_with(client.id(), &sandbox, &settings.binaries, Some("off"))?;
    let mut core = room::open_core(&workspace, &sandbox.acc_data_home())?;
    let peer = room::attach_as(&mut core, PEER)?;

    std::fs::create_dir_all(&capture_dir)
        .map_err(|e| write_err(&format!("creating {}", capture_dir.display()), e))?;
    let extra = recipe.environment(&capture_dir);
    let path = client_path(std::env::var_os("PATH").as_deref());
    let mut env = headless_env(client, &path, &sandbox.env(), double.port(), &extra, false);
    env.insert("TERM".to_owned(), "xterm-256color".to_owned());
    // Watched like every recorded run: the terminal runs the client under the network watch,
    // and any address but 127.0.0.1 it tries fails the capture.
    let watch = watch_terminal(&sandbox)?;
    env.extend(watch.env());
    codex::prepare(installed, &sandbox, &env, &watch)?;
    let launcher = write_launcher(&sandbox, &env, &watch, &installed.program)?;

    let started = Instant::now();
    let tmux = Tmux::start(&workspace, &launcher)?;
    let limit = Duration::from_secs(settings.timeout.as_secs().clamp(30, 120));
    // A client that exits (or never starts) ends the wait at once.
    let exited = launcher.with_extension("exited");
    codex::open_session(client, &tmux, &double, &exited, limit);
    let agent = poll(limit, || {
        if exited.exists() {
            return Some(None);
        }
        let owner = agent_owner(&mut core)?;
        core.native_binding(&owner.session)
            .ok()
            .flatten()
            .map(|b| Some((owner, b)))
    })
    .flatten();
    let mut facts = LiveFacts {
        bound: agent.is_some(),
        protocol_contract: agent.as_ref().map(|(_, b)| b.protocol_contract.clone()),
        phases: Vec::new(),
    };
    let mut sender_env = sandbox.env();
    sender_env.insert("PATH".to_owned(), path.clone());
    sender_env.insert(
        crate::record::kit::recipe::CANDIDATES_VAR.to_owned(),
        "delivery.livePush".to_owned(),
    );
    let sender = Sender {
        acc: &settings.binaries.acc,
        env: sender_env,
        workspace: workspace.clone(),
        peer: peer.clone(),
    };
    let pane;
    if let Some((agent, _)) = &agent {
        // The session is at its prompt once its screen stops changing.
        settled(&tmux, limit);
        let phases = [(CONSENT_OFF, "off"), (IDLE, "all")];
        for (n, (name, policy)) in phases.into_iter().enumerate() {
            set_policy(&sandbox, client.id(), policy)?;
            let phase = run_phase(
                &mut core,
                &double,
                &sender,
                agent,
                name,
                policy,
                n,
                |core, id| {
                    if name == IDLE {
                        // Until the receipt is offered and the turn ended, or the limit.
                        poll(limit, || {
                            (receipt_state(core, agent, id).as_deref() == Some("offered"))
                                .then_some(())
                        });
                        arrivals.await_turn_end(id, limit);
                    } else {
                        // A negative control: nothing may happen in this window.
                        std::thread::sleep(Duration::from_secs(6));
                    }
                },
            );
            facts.phases.push(phase);
        }
        // Busy: the next wake's model request is held; the peer sends during it.
        hold.arm();
        let (_, first) = sender.send(10);
        let first = sent_fields(&first)
            .0
            .and_then(|i| MessageId::parse(&i).ok());
        // The turn is busy once the double holds the request that shows the message.
        if let Some(first) = &first {
            arrivals.await_carried(first, limit);
        }
        let phase = held_phase(
            &mut core, &double, &sender, &arrivals, &hold, agent, BUSY, "all", 11, limit,
        );
        facts.phases.push(phase);
        // Continue: a held turn again; the next message comes with consent off (no wake).
        hold.arm();
        let (_, first) = sender.send(30);
        let first = sent_fields(&first)
            .0
            .and_then(|i| MessageId::parse(&i).ok());
        if let Some(first) = &first {
            arrivals.await_carried(first, limit);
        }
        set_policy(&sandbox, client.id(), "off")?;
        let phase = held_phase(
            &mut core, &double, &sender, &arrivals, &hold, agent, CONTINUE, "off", 31, limit,
        );
        facts.phases.push(phase);
        set_policy(&sandbox, client.id(), "all")?;
        pane = tmux.pane();
        // Killed: SIGKILL leaves the socket file behind with no listener.
        let pids = core.hooked_client_pids().unwrap_or_default();
        for pid in &pids {
            let _ = Command::new("kill").args(["-9", &pid.to_string()]).status();
        }
        // Sent only once the client is gone, every thread of it: a leader that is already
        // a zombie does not mean its socket is closed.
        poll(limit, || pids.iter().all(|pid| !alive(*pid)).then_some(()));
        let phase = run_phase(
            &mut core,
            &double,
            &sender,
            agent,
            KILLED,
            "all",
            20,
            |_, _| {
                std::thread::sleep(Duration::from_secs(3));
            },
        );
        facts.phases.push(phase);
    } else {
        pane = tmux.pane();
    }
    drop(tmux);
    codex::clean_up(client, &sandbox);
    let duration = started.elapsed();
    double.stop();

    let recorded = recordings(
        &sandbox,
        installed,
        &settings.binaries,
        &double,
        &capture_dir,
    );
    let observations = Observations {
        live: Some(facts),
        ..observed(
            &recorded,
            room::sessions(&mut core)?,
            recipe,
            tuple,
            client,
            RunFacts {
                exit_code: None,
                timed_out: agent.is_none(),
                network: watch.finish(),
            },
        )
    };
    let verdicts = vec![judge(&observations)];
    let run = terminal_run(
        installed,
        &recorded.redactor,
        &env,
        &installed_files,
        codex::typed(client),
        json!({
            "delivery": "acc install --delivery, then the install record's policy per phase",
        }),
        duration,
    );
    let bundle = terminal_bundle(recorded, &pane, &observations, run);
    Ok(ScenarioRun {
        scenario,
        observations,
        verdicts,
        control: None,
        kernel_guard: None,
        bridge_guard: None,
        quit: None,
        bundle,
    })
}

/// The screen of a client at rest: two captures a second apart that agree, or `limit`.
fn settled(tmux: &Tmux, limit: Duration) {
    let mut last = String::new();
    poll(limit, || {
        std::thread::sleep(Duration::from_millis(800));
        let now = tmux.pane();
        let same = !now.trim().is_empty() && now == last;
        last = now;
        same.then_some(())
    });
}

/// A phase sent while the agent's turn is held: the receipt is read while the turn runs,
/// then awaited as offered by the turn after.
#[allow(clippy::too_many_arguments)]
fn held_phase(
    core: &mut Core,
    double: &ModelDouble,
    sender: &Sender<'_>,
    arrivals: &Arrivals,
    hold: &Hold,
    agent: &Owner,
    name: &str,
    policy: &str,
    n: usize,
    limit: Duration,
) -> LivePhase {
    let mut during = None;
    let mut phase = run_phase(core, double, sender, agent, name, policy, n, |core, id| {
        // The held request has arrived and is not let go before this read: the turn is
        // busy however long the send took.
        during = receipt_state(core, agent, id);
        hold.release();
        poll(limit, || {
            (receipt_state(core, agent, id).as_deref() == Some("offered")).then_some(())
        });
        arrivals.await_turn_end(id, limit);
    });
    phase.receipt_while_busy = during;
    phase
}

#[allow(clippy::too_many_arguments)]
fn run_phase(
    core: &mut Core,
    double: &ModelDouble,
    sender: &Sender<'_>,
    agent: &Owner,
    name: &str,
    policy: &str,
    n: usize,
    wait: impl FnOnce(&mut Core, &MessageId),
) -> LivePhase {
    let requests_before = double.requests().len();
    let (exit, out) = sender.send(n);
    let (id, outcome, reason) = sent_fields(&out);
    let id = id.and_then(|i| MessageId::parse(&i).ok());
    let receipt_after_send = id.as_ref().and_then(|i| receipt_state(core, agent, i));
    if let Some(i) = &id {
        wait(core, i);
    }
    LivePhase {
        receipt_while_busy: None,
        name: name.to_owned(),
        message_id: id.as_ref().map(|i| i.to_string()),
        policy: policy.to_owned(),
        sender_exit: exit,
        sender_outcome: outcome,
        sender_reason: reason,
        receipt_after_send,
        receipt_at_end: id.as_ref().and_then(|i| receipt_state(core, agent, i)),
        offers: id.as_ref().map(|i| offers(core, i)).unwrap_or_default(),
        requests_before,
        requests_after: double.requests().len(),
    }
}

mod codex;
pub(crate) use codex::captured_how;
mod turns;
use turns::Arrivals;

/// An idle interactive session woken by a peer's message through native delivery.
pub struct LiveWake;

impl crate::record::kit::recipe::Recipe for LiveWake {
    fn scenario(&self) -> crate::record::scenario::Scenario {
        crate::record::scenario::Scenario::LiveWake
    }

    fn run(
        &self,
        installed: &crate::clients::InstalledClient,
        tuple: &crate::record::kit::tuple::Tuple,
        settings: &crate::record::kit::run::RunSettings,
        control: Option<&crate::record::kit::observations::Observations>,
    ) -> Result<crate::record::kit::run::ScenarioRun, crate::record::kit::error::RecordError> {
        let _ = control;
        run_live_wake(self, installed, tuple, settings)
    }

    fn capabilities(&self) -> &'static [acc_sdk::capabilities::Capability] {
        &[acc_sdk::capabilities::Capability::LivePush]
    }

    fn judge(
        &self,
        obs: &crate::record::kit::observations::Observations,
    ) -> Vec<crate::record::kit::verdict::Verdict> {
        vec![judge(obs)]
    }

    fn candidates(&self) -> &'static [acc_sdk::capabilities::Capability] {
        &[
            acc_sdk::capabilities::Capability::NextTurn,
            acc_sdk::capabilities::Capability::BeforeTurnInjection,
            acc_sdk::capabilities::Capability::LivePush,
        ]
    }

    fn pinned_participant(&self) -> Option<&'static str> {
        Some(crate::record::scenario::AGENT)
    }

    fn decisive_hook(&self) -> acc_sdk::event::EventKind {
        acc_sdk::event::EventKind::BeforeTurn
    }

    /// Only for clients whose adapter has native session methods (the others keep
    /// `delivery.livePush` false, with the reason in their COMPATIBILITY.md).
    fn applies_to(&self, adapter_id: &str) -> bool {
        acc_runtime::registry::find(adapter_id)
            .is_some_and(|a| a.behaviour().native_session().is_some())
    }
}

#[cfg(test)]
mod tests;
