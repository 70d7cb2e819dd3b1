//! What every run in a client's terminal interface (the interactive quit, the idle
//! heartbeat) starts from: a sandbox with acc's adapter installed, a model double with no
//! scripted step, the store open, the hook capture directory, and the client's environment
//! under the recorder's network watch. Each run adds its own steps before it writes the
//! launcher. Every terminal run (the live wake's too) ends the same way: observations from
//! the double's requests and acc-hook's capture, and a bundle whose `run.json` names the
//! terminal session ([`observed`], [`terminal_run`], [`terminal_bundle`]).

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use acc_runtime::core::Core;

use crate::clients::environment::{client_path, headless_env};
use crate::clients::network::NetworkWatch;
use crate::clients::{Client, InstalledClient, Sandbox};
use crate::doubles::{ModelDouble, Script};
use crate::record::kit::error::RecordError;
use crate::record::kit::headless::Recordings;
use crate::record::kit::install::install_adapter;
use crate::record::kit::observations::{Observations, RunFacts};
use crate::record::kit::observe::request_facts;
use crate::record::kit::recipe::Recipe;
use crate::record::kit::redact::Redactor;
use crate::record::kit::room;
use crate::record::kit::run::Bundle;
use crate::record::kit::run::RunSettings;
use crate::record::kit::terminal::driver::{Driver, driver};
use crate::record::kit::terminal::launcher::{watch_terminal, write_err, write_interactive_config};
use crate::record::kit::tuple::Tuple;
use crate::record::scenario::FINAL_TEXT;
use serde_json::{Value, json};

pub struct TerminalStage {
    pub drive: Driver,
    pub sandbox: Sandbox,
    pub workspace: PathBuf,
    pub double: ModelDouble,
    /// What `acc install` wrote into the sandbox.
    pub installed_files: Vec<PathBuf>,
    pub core: Core,
    pub capture_dir: PathBuf,
    /// The client's environment: the headless one with a terminal type and the watch's.
    pub env: BTreeMap<String, String>,
    pub watch: NetworkWatch,
}

/// Sets up `recipe`'s terminal run of `installed`.
pub fn stage(
    recipe: &dyn Recipe,
    installed: &InstalledClient,
    settings: &RunSettings,
) -> Result<TerminalStage, RecordError> {
    let client = installed.client;
    let client_error = |source| RecordError::Client {
        client: client.id().to_owned(),
        source,
    };
    let drive = driver(client).ok_or_else(|| {
        write_err(
            recipe.scenario().name(),
            format!("the recorder cannot drive {client}'s terminal interface"),
        )
    })?;
    let sandbox = Sandbox::new(client).map_err(client_error)?;
    let workspace = sandbox.workspace();
    let script = Script::new(Vec::new(), FINAL_TEXT).map_err(|e| RecordError::Double {
        message: e.to_string(),
    })?;
    let double =
        ModelDouble::start(client.protocol(), script).map_err(|e| RecordError::Double {
            message: e.to_string(),
        })?;
    sandbox
        .write_base_config(double.port())
        .map_err(client_error)?;
    let installed_files = install_adapter(client.id(), &sandbox, &settings.binaries)?;
    if client == Client::ClaudeCode {
        write_interactive_config(&sandbox)?;
    }
    let core = room::open_core(&workspace, &sandbox.acc_data_home())?;
    let capture_dir = sandbox.root().join("hook-capture");
    std::fs::create_dir_all(&capture_dir)
        .map_err(|e| write_err(&format!("creating {}", capture_dir.display()), e))?;
    let extra = recipe.environment(&capture_dir);
    let path = client_path(std::env::var_os("PATH").as_deref());
    let mut env = headless_env(client, &path, &sandbox.env(), double.port(), &extra, false);
    env.insert("TERM".to_owned(), "xterm-256color".to_owned());
    // Watched like every recorded run, the client's own setup calls included.
    let watch = watch_terminal(&sandbox)?;
    env.extend(watch.env());
    Ok(TerminalStage {
        drive,
        sandbox,
        workspace,
        double,
        installed_files,
        core,
        capture_dir,
        env,
        watch,
    })
}

/// The observations every terminal run shares: `sessions`, and the requests and hook
/// facts of `recorded`; the run adds its own facts.
pub fn observed(
    recorded: &Recordings,
    sessions: Vec<crate::record::kit::observations::SessionFact>,
    recipe: &dyn Recipe,
    tuple: &Tuple,
    client: Client,
    run: RunFacts,
) -> Observations {
    Observations {
        sessions,
        requests: request_facts(client.protocol(), &recorded.requests),
        hooks: recorded.hooks.as_ref().map(|h| h.facts.clone()),
        ..Observations::new(
            recipe.scenario(),
            recipe.expectations(),
            tuple,
            client.protocol(),
            run,
        )
    }
}

/// `run.json` of a terminal run: what every one names, then `extra` (an object), then how
/// long it took.
pub fn terminal_run(
    installed: &InstalledClient,
    redactor: &Redactor,
    env: &BTreeMap<String, String>,
    installed_files: &[PathBuf],
    interactive: &str,
    extra: Value,
    duration: Duration,
) -> Value {
    let client = installed.client;
    let env_names: Vec<&String> = env.keys().collect();
    let mut run = json!({
        "client": client.id(),
        "version": installed.version,
        "versionOutput": installed.version_output,
        "command": [redactor.text(&installed.program.display().to_string())],
        "interactive": interactive,
        "cwd": "<ws>",
        "envNames": env_names,
        "protocol": client.protocol().id(),
        "network": crate::record::kit::headless::network_isolation(),
        "installed": installed_files.iter().map(|p| redactor.text(&p.display().to_string())).collect::<Vec<_>>(),
    });
    if let (Some(run), Value::Object(extra)) = (run.as_object_mut(), extra) {
        run.extend(extra);
        run.insert("durationMs".to_owned(), json!(duration.as_millis() as u64));
    }
    run
}

/// The bundle of a terminal run: the pane is its stdout, through the run's redactor.
pub fn terminal_bundle(
    recorded: Recordings,
    pane: &str,
    observations: &Observations,
    run: Value,
) -> Bundle {
    Bundle {
        stdout: recorded.redactor.text(pane),
        requests: recorded.requests,
        stderr: String::new(),
        hooks: recorded.hooks.map(|h| h.raw),
        observations: observations.clone(),
        run,
    }
}
