//! What every run in a client's terminal interface (the interactive quit, the idle
//! heartbeat) starts from: a sandbox with acc's adapter installed, a model double with no
//! scripted step, the store open, the hook capture directory, and the client's environment
//! under the recorder's network watch. Each run adds its own steps before it writes the
//! launcher.

use std::collections::BTreeMap;
use std::path::PathBuf;

use acc_runtime::core::Core;

use super::error::RecordError;
use super::install::install_adapter;
use super::live::{write_err, write_interactive_config};
use super::quit::{Driver, driver};
use super::room;
use super::runner::{RunSettings, extra_env};
use super::scenario::{FINAL_TEXT, Scenario};
use crate::clients::environment::{client_path, headless_env};
use crate::clients::network::NetworkWatch;
use crate::clients::{Client, InstalledClient, Sandbox};
use crate::doubles::{ModelDouble, Script};

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

/// Sets up `scenario`'s terminal run of `installed`.
pub fn stage(
    installed: &InstalledClient,
    settings: &RunSettings,
    scenario: Scenario,
) -> Result<TerminalStage, RecordError> {
    let client = installed.client;
    let client_error = |source| RecordError::Client {
        client: client.id().to_owned(),
        source,
    };
    let drive = driver(client).ok_or_else(|| {
        write_err(
            scenario.name(),
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
    let extra = extra_env(scenario, &capture_dir);
    let path = client_path(std::env::var_os("PATH").as_deref());
    let mut env = headless_env(client, &path, &sandbox.env(), double.port(), &extra, false);
    env.insert("TERM".to_owned(), "xterm-256color".to_owned());
    // Watched like every recorded run, the client's own setup calls included.
    let watch = super::live::watch_terminal(&sandbox)?;
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
