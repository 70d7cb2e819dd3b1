//! One scenario, end to end, in a fresh sandbox: the double, the client's base config, acc's
//! installer, the room, the headless run, then everything observed and judged.
//!
//! The order is the sandbox's (see [`crate::clients::sandbox`]): the base config is written
//! before the installer so that the installer meets it as a user's existing file.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use acc_sdk::capabilities::Capability;
use serde_json::{Value, json};

use super::before_read;
use super::bundle::Bundle;
use super::child_sessions;
use super::error::RecordError;
use super::heartbeat;
use super::hook_capture::{self, CAPTURE_DIR_VAR};
use super::install::{Binaries, install_adapter};
use super::judge::{ControlVerdict, Verdict, judge, judge_control};
use super::observations::{Expectations, Observations, RunFacts};
use super::observe::{file_facts, request_facts};
use super::opaque;
use super::redact::Redactor;
use super::room::{self, Room};
use super::safe_point;
use super::scenario::{FREE_FILE, PEER, PROMPT, Scenario};
use super::tuple::Tuple;
use crate::clients::environment::{DUMMY_KEY, client_path, headless_args, headless_env};
use crate::clients::{InstalledClient, RunOutput, Sandbox, run_headless_with};
use crate::doubles::{LoggedRequest, ModelDouble};

/// The variables the hook runtime reads for a recording.
pub const CANDIDATES_VAR: &str = "ACC_CERTIFY_CANDIDATES";
pub const PARTICIPANT_VAR: &str = "ACC_PARTICIPANT";
pub const WITHHELD_VAR: &str = "ACC_CERTIFY_WITHHELD";
/// Where the placeholders in a bundle point.
const PLACEHOLDERS: [(&str, &str); 5] = [
    ("workspace", "<ws>"),
    ("home", "<home>"),
    ("acc-data", "<data>"),
    ("tmp", "<tmp>"),
    ("", "<sandbox>"),
];

/// How every scenario of a recording runs.
#[derive(Debug, Clone)]
pub struct RunSettings {
    pub binaries: Binaries,
    /// The deadline of one headless client run.
    pub timeout: Duration,
}

/// A scenario run, observed and judged.
#[derive(Debug, Clone)]
pub struct ScenarioRun {
    pub scenario: Scenario,
    pub observations: Observations,
    pub verdicts: Vec<Verdict>,
    /// For the solo control.
    pub control: Option<ControlVerdict>,
    /// For `guard-opaque`: did the kernel-enforced guard hold?
    pub kernel_guard: Option<ControlVerdict>,
    /// For `interactive-quit`: did the session stop showing live after the quit?
    pub quit: Option<ControlVerdict>,
    pub bundle: Bundle,
}

/// Runs `scenario` once. `control` is the solo control's observations of the same client,
/// which `next-turn` embeds so that its verdicts can be judged again from one file.
pub fn run_scenario(
    installed: &InstalledClient,
    tuple: &Tuple,
    scenario: Scenario,
    settings: &RunSettings,
    control: Option<&Observations>,
) -> Result<ScenarioRun, RecordError> {
    if scenario == Scenario::LiveWake {
        return super::live::run_live_wake(installed, tuple, settings);
    }
    if scenario == Scenario::SessionResume {
        return super::resume::run_session_resume(installed, tuple, settings);
    }
    if scenario == Scenario::InteractiveQuit {
        return super::quit::run_interactive_quit(installed, tuple, settings);
    }
    if scenario == Scenario::Heartbeat && super::idle_heartbeat::drives(installed.client) {
        return super::idle_heartbeat::run_idle_heartbeat(installed, tuple, settings);
    }
    let client = installed.client;
    let client_error = |source| RecordError::Client {
        client: client.id().to_owned(),
        source,
    };
    let sandbox = Sandbox::new(client).map_err(client_error)?;
    let workspace = sandbox.workspace();
    // The shell step writes `src/y` relative to the workspace: its directory must exist.
    std::fs::create_dir_all(workspace.join("src")).map_err(|e| RecordError::Write {
        message: format!("creating {}/src: {e}", workspace.display()),
    })?;
    if scenario == Scenario::BeforeRead {
        before_read::seed(&workspace).map_err(|e| RecordError::Write {
            message: format!(
                "planting the before-read files in {}: {e}",
                workspace.display()
            ),
        })?;
    }
    if scenario == Scenario::ChildSessions {
        child_sessions::seed(&workspace).map_err(|e| RecordError::Write {
            message: format!(
                "seeding {}/{}: {e}",
                workspace.display(),
                child_sessions::CLAIMED
            ),
        })?;
    }
    if scenario == Scenario::GuardOpaque {
        opaque::seed(&workspace).map_err(|e| RecordError::Write {
            message: format!("seeding {}/{}: {e}", workspace.display(), opaque::SEEDED),
        })?;
    }
    let script = scenario
        .script(&workspace)
        .map_err(|e| RecordError::Double {
            message: e.to_string(),
        })?;
    let mut room = {
        let mut core = room::open_core(&workspace, &sandbox.acc_data_home())?;
        room::prepare(&mut core, scenario)?
    };
    let double_error = |e: std::io::Error| RecordError::Double {
        message: e.to_string(),
    };
    let (mut double, mid_turn) = match (scenario, &room.peer) {
        (Scenario::SafePoint, Some(peer)) => {
            let (double, sent) = safe_point::start_double(
                client.protocol(),
                script,
                &workspace,
                &sandbox.acc_data_home(),
                peer.clone(),
            )
            .map_err(double_error)?;
            (double, Some(sent))
        }
        (Scenario::Heartbeat, _) => (
            heartbeat::start_double(client.protocol(), script, heartbeat::HOLD)
                .map_err(double_error)?,
            None,
        ),
        _ => (
            ModelDouble::start(client.protocol(), script).map_err(double_error)?,
            None,
        ),
    };
    sandbox
        .write_base_config(double.port())
        .map_err(client_error)?;
    let installed_files = install_adapter(client.id(), &sandbox, &settings.binaries)?;
    if scenario == Scenario::BeforeRead {
        before_read::widen(client, &installed_files).map_err(|e| RecordError::Install {
            adapter: client.id().to_owned(),
            message: e.to_string(),
        })?;
    }
    if scenario == Scenario::ChildSessions {
        child_sessions::wire(client, &installed_files).map_err(|e| RecordError::Install {
            adapter: client.id().to_owned(),
            message: e.to_string(),
        })?;
    }

    let capture_dir = sandbox.root().join("hook-capture");
    std::fs::create_dir_all(&capture_dir).map_err(|e| RecordError::Write {
        message: format!("creating {}: {e}", capture_dir.display()),
    })?;
    let extra = extra_env(scenario, &capture_dir);
    let output = run_headless_with(
        installed,
        &sandbox,
        double.port(),
        PROMPT,
        settings.timeout,
        &extra,
        scenario.unasked(),
    )
    .map_err(client_error)?;
    double.stop();
    if let Some(sent) = mid_turn.as_ref().and_then(|cell| cell.get()) {
        room.message = Some(sent.clone().map_err(|message| RecordError::Write {
            message: format!("the peer's mid-turn note: {message}"),
        })?);
    }

    let Recordings {
        redactor,
        requests,
        hooks,
    } = recordings(
        &sandbox,
        installed,
        &settings.binaries,
        &double,
        &capture_dir,
    );
    let (sessions, message, detected_writes) = {
        let mut core = room::open_core(&workspace, &sandbox.acc_data_home())?;
        (
            room::sessions(&mut core)?,
            room::message(&mut core, &room)?,
            room::detected_writes(&mut core)?,
        )
    };
    let children = if scenario == Scenario::ChildSessions {
        let (delegations, child_requests) = child_sessions::request_facts(
            client.protocol(),
            &child_sessions::delegation(&workspace),
            &double.requests(),
        );
        let mut core = room::open_core(&workspace, &sandbox.acc_data_home())?;
        let (sessions, refusals) = child_sessions::store_facts(&mut core)?;
        Some(child_sessions::ChildFacts {
            delegations,
            child_requests,
            sessions,
            refusals,
        })
    } else {
        None
    };
    let mut files = Vec::new();
    if scenario == Scenario::ChildSessions {
        files = child_sessions::file_facts(&workspace);
    } else if scenario == Scenario::GuardOpaque {
        files = opaque::file_facts(&workspace);
    } else if let Some(target) = scenario.claimed_target() {
        files = file_facts(&workspace, &[target, FREE_FILE]);
    }
    let observations = Observations {
        sessions,
        message,
        files,
        requests: request_facts(client.protocol(), &requests),
        hooks: hooks.as_ref().map(|h| h.facts.clone()),
        control: control.map(|c| Box::new(c.clone())),
        detected_writes,
        children,
        ..Observations::new(
            scenario,
            tuple,
            client.protocol(),
            RunFacts {
                exit_code: output.exit_code(),
                timed_out: output.timed_out,
                network: output.network.clone(),
            },
        )
    };
    let verdicts = judge(scenario, &observations);
    let control = (scenario == Scenario::SoloControl).then(|| judge_control(&observations));
    let kernel_guard = (scenario == Scenario::GuardOpaque).then(|| opaque::judge(&observations));
    let run = run_record(
        installed,
        &sandbox,
        &double,
        &extra,
        &output,
        &installed_files,
        &room,
        &redactor,
        scenario.unasked(),
    );
    let bundle = Bundle {
        requests,
        stdout: redactor.text(&output.stdout),
        stderr: redactor.text(&output.stderr),
        hooks: hooks.map(|h| h.raw),
        observations: observations.clone(),
        run,
    };
    Ok(ScenarioRun {
        scenario,
        observations,
        verdicts,
        control,
        kernel_guard,
        quit: None,
        bundle,
    })
}

/// What the scenario set up, for the judge.
pub fn expectations(scenario: Scenario) -> Expectations {
    Expectations {
        peer: scenario.has_peer().then(|| PEER.to_owned()),
        claimed_target: scenario.claimed_target().map(str::to_owned),
        free_target: scenario.claimed_target().map(|_| FREE_FILE.to_owned()),
        deny_reason: scenario.deny_reason(),
        pinned_participant: scenario.pinned_participant().map(str::to_owned),
        candidates: candidate_keys(scenario.candidates()),
    }
}

fn candidate_keys(caps: &[Capability]) -> Vec<String> {
    caps.iter().map(|c| c.key().to_owned()).collect()
}

/// The variables the recorder adds to the client's environment (all clients pass their
/// environment through to hooks; docs/research/real-clients-env.md).
pub fn extra_env(scenario: Scenario, capture_dir: &Path) -> BTreeMap<String, String> {
    let mut env = BTreeMap::new();
    env.insert(
        CAPTURE_DIR_VAR.to_owned(),
        capture_dir.display().to_string(),
    );
    let candidates = candidate_keys(scenario.candidates());
    if !candidates.is_empty() {
        env.insert(CANDIDATES_VAR.to_owned(), candidates.join(","));
    }
    let withheld = candidate_keys(scenario.withheld());
    if !withheld.is_empty() {
        env.insert(WITHHELD_VAR.to_owned(), withheld.join(","));
    }
    if scenario == Scenario::BeforeRead {
        env.insert(
            before_read::DENY_READ_VAR.to_owned(),
            before_read::REFUSED.to_owned(),
        );
    }
    if let Some(participant) = scenario.pinned_participant() {
        env.insert(PARTICIPANT_VAR.to_owned(), participant.to_owned());
    }
    env
}

/// What a run left on record, redacted: the double's requests and acc-hook's capture.
pub struct Recordings {
    pub redactor: Redactor,
    pub requests: Vec<LoggedRequest>,
    pub hooks: Option<hook_capture::HookCapture>,
}

/// Reads the double's requests and the capture in `capture_dir` through one [`redactor`].
pub fn recordings(
    sandbox: &Sandbox,
    installed: &InstalledClient,
    binaries: &Binaries,
    double: &ModelDouble,
    capture_dir: &Path,
) -> Recordings {
    let redactor = redactor(sandbox, installed, binaries);
    let requests = double
        .requests()
        .iter()
        .map(|r| redactor.request(r))
        .collect();
    let hooks = hook_capture::read(capture_dir, &redactor);
    Recordings {
        redactor,
        requests,
        hooks,
    }
}

/// Sandbox paths, the client's directory, acc's binaries and the dummy key, replaced.
pub fn redactor(sandbox: &Sandbox, installed: &InstalledClient, binaries: &Binaries) -> Redactor {
    let mut redactor = Redactor::new().secret(DUMMY_KEY);
    for (dir, placeholder) in PLACEHOLDERS {
        let path = if dir.is_empty() {
            sandbox.root().to_path_buf()
        } else {
            sandbox.root().join(dir)
        };
        redactor = redactor.path(&path, placeholder);
    }
    redactor = redactor.path(&installed.dir, "<client>");
    if let Some(bin) = binaries.hook.parent() {
        redactor = redactor.path(bin, "<bin>");
    }
    redactor
}

/// `run.json`: how the client ran, without the prompt or any variable's value.
#[allow(clippy::too_many_arguments)]
pub(super) fn run_record(
    installed: &InstalledClient,
    sandbox: &Sandbox,
    double: &ModelDouble,
    extra: &BTreeMap<String, String>,
    output: &RunOutput,
    installed_files: &[std::path::PathBuf],
    room: &Room,
    redactor: &Redactor,
    unasked: bool,
) -> Value {
    let client = installed.client;
    let mut command = vec![redactor.text(&installed.program.display().to_string())];
    command.extend(
        headless_args(client, PROMPT, unasked)
            .into_iter()
            .map(|arg| {
                if arg == PROMPT {
                    "<prompt>".to_owned()
                } else {
                    arg
                }
            }),
    );
    let path = client_path(std::env::var_os("PATH").as_deref());
    let env = headless_env(client, &path, &sandbox.env(), double.port(), extra, unasked);
    // The network watch's proxy variables come first; the client's own win over them.
    let mut env_names: Vec<&str> = env.keys().map(String::as_str).collect();
    env_names.extend(crate::clients::network::PROXY_VARS);
    env_names.sort_unstable();
    env_names.dedup();
    let installed_files: Vec<String> = installed_files
        .iter()
        .map(|p| redactor.text(&p.display().to_string()))
        .collect();
    json!({
        "client": client.id(),
        "version": installed.version,
        "versionOutput": installed.version_output,
        "command": command,
        "cwd": "<ws>",
        "envNames": env_names,
        "protocol": client.protocol().id(),
        "network": {"allowed": "127.0.0.1", "watchedBy": ["strace -f", "a refusing proxy"], "tried": output.network},
        "installed": installed_files,
        "room": {
            "peer": room.peer.is_some(),
            "agent": room.agent.is_some(),
            "messageQueued": room.message.is_some(),
        },
        "durationMs": output.duration.as_millis() as u64,
        "exitCode": output.exit_code(),
        "timedOut": output.timed_out,
    })
}
