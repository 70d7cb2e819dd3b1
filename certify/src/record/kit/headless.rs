//! The headless run every scenario but the interactive ones shares, in a fresh sandbox: the
//! double, the client's base config, acc's installer, the room, the headless run, then
//! everything observed and judged. What differs between scenarios is asked of their
//! [`Recipe`].
//!
//! The order is the sandbox's (see [`crate::clients::sandbox`]): the base config is written
//! before the installer so that the installer meets it as a user's existing file.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::{Value, json};

use crate::clients::environment::{DUMMY_KEY, client_path, headless_args, headless_env};
use crate::clients::{InstalledClient, RunOutput, Sandbox, run_headless_with};
use crate::doubles::{LoggedRequest, ModelDouble};
use crate::record::kit::error::RecordError;
use crate::record::kit::hook_capture;
use crate::record::kit::install::{Binaries, install_adapter};
use crate::record::kit::observations::{Observations, RunFacts};
use crate::record::kit::observe::request_facts;
use crate::record::kit::recipe::{DoubleSetup, HeadlessRun, Recipe, judged};
use crate::record::kit::redact::Redactor;
use crate::record::kit::room::{self, Room};
use crate::record::kit::run::{Bundle, RunSettings, ScenarioRun};
use crate::record::kit::tuple::Tuple;
use crate::record::scenario::PROMPT;

/// Where the placeholders in a bundle point.
const PLACEHOLDERS: [(&str, &str); 5] = [
    ("workspace", "<ws>"),
    ("home", "<home>"),
    ("acc-data", "<data>"),
    ("tmp", "<tmp>"),
    ("", "<sandbox>"),
];

/// Runs `recipe` once, headless. `control` is the solo control's observations of the same
/// client, which `next-turn` embeds so that its verdicts can be judged again from one file.
pub fn run<R: Recipe + ?Sized>(
    recipe: &R,
    installed: &InstalledClient,
    tuple: &Tuple,
    settings: &RunSettings,
    control: Option<&Observations>,
) -> Result<ScenarioRun, RecordError> {
    let scenario = recipe.scenario();
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
    recipe.seed(&workspace)?;
    let script = recipe.script(&workspace).map_err(|e| RecordError::Double {
        message: e.to_string(),
    })?;
    let mut room = {
        let mut core = room::open_core(&workspace, &sandbox.acc_data_home())?;
        recipe.room(&mut core)?
    };
    let capture_dir = sandbox.root().join("hook-capture");
    std::fs::create_dir_all(&capture_dir).map_err(|e| RecordError::Write {
        message: format!("creating {}: {e}", capture_dir.display()),
    })?;
    let (mut double, mid_turn) = recipe
        .start_double(DoubleSetup {
            protocol: client.protocol(),
            script,
            workspace: &workspace,
            acc_data_home: sandbox.acc_data_home(),
            room: &room,
            capture_dir: capture_dir.clone(),
        })
        .map_err(|e| RecordError::Double {
            message: e.to_string(),
        })?;
    sandbox
        .write_base_config(double.port())
        .map_err(client_error)?;
    let installed_files = install_adapter(client.id(), &sandbox, &settings.binaries)?;
    recipe
        .wire(client, &installed_files)
        .map_err(|e| RecordError::Install {
            adapter: client.id().to_owned(),
            message: e.to_string(),
        })?;

    let extra = recipe.environment(&capture_dir);
    let output = run_headless_with(
        installed,
        &sandbox,
        double.port(),
        PROMPT,
        settings.timeout,
        &extra,
        recipe.unasked(),
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
    let mut observations = Observations {
        sessions,
        message,
        requests: request_facts(client.protocol(), &requests),
        hooks: hooks.as_ref().map(|h| h.facts.clone()),
        control: control.map(|c| Box::new(c.clone())),
        detected_writes,
        ..Observations::new(
            scenario,
            recipe.expectations(),
            tuple,
            client.protocol(),
            RunFacts {
                exit_code: output.exit_code(),
                timed_out: output.timed_out,
                network: output.network.clone(),
            },
        )
    };
    recipe.observe(
        &HeadlessRun {
            client,
            workspace: &workspace,
            acc_data_home: sandbox.acc_data_home(),
            double: &double,
        },
        &mut observations,
    )?;
    let verdicts = judged(recipe, &observations);
    let run = run_record(
        installed,
        &sandbox,
        &double,
        &extra,
        &output,
        &installed_files,
        &room,
        &redactor,
        recipe.unasked(),
    );
    let bundle = Bundle {
        requests,
        stdout: redactor.text(&output.stdout),
        stderr: redactor.text(&output.stderr),
        hooks: hooks.map(|h| h.raw),
        observations: observations.clone(),
        run,
    };
    let mut run = ScenarioRun {
        scenario,
        observations,
        verdicts,
        control: None,
        kernel_guard: None,
        bridge_guard: None,
        quit: None,
        bundle,
    };
    recipe.beside(&mut run);
    Ok(run)
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
pub fn run_record(
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
        "network": network_json(&output.network),
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

/// How the run was kept offline, and what it tried: inside the recorder's loopback-only
/// namespace every attempt is refused by construction.
pub fn network_json(tried: &[crate::clients::network::NetworkAttempt]) -> serde_json::Value {
    let mut network = network_isolation();
    network["tried"] = json!(tried);
    network
}

/// How a run was kept offline (its attempts are in `observations.json` `run.network`).
pub fn network_isolation() -> serde_json::Value {
    let isolation = if crate::clients::offline::loopback_only() {
        "a network namespace holding only loopback"
    } else {
        "none (watched only)"
    };
    json!({
        "allowed": "127.0.0.1",
        "isolatedBy": isolation,
        "watchedBy": ["strace -f", "a refusing proxy"],
    })
}
