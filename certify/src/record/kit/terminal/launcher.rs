//! What a terminal run starts from: the network watch, the launcher script the terminal
//! runs, and the client's first-run answers for an interactive session.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::clients::Sandbox;
use crate::clients::environment::DUMMY_KEY;
use crate::clients::network::{NetworkWatch, WatchError};
use crate::record::kit::error::RecordError;

/// The network watch every terminal run is under: the terminal runs the client under it,
/// and any address but 127.0.0.1 the client tries fails the capture.
pub fn watch_terminal(sandbox: &Sandbox) -> Result<NetworkWatch, RecordError> {
    NetworkWatch::start(sandbox.root(), &std::env::var_os("PATH").unwrap_or_default()).map_err(
        |e| RecordError::Write {
            message: match e {
                WatchError::NoStrace => {
                    "strace is needed to watch the client's network: install it (apt-get install strace)".to_owned()
                }
                WatchError::Proxy(source) => {
                    format!("starting the refusing proxy on 127.0.0.1 that watches the client: {source}")
                }
            },
        },
    )
}

/// Writes the sandbox's `launch.sh`, which the terminal runs: `program` under `watch`, with
/// exactly `env` (nothing of the recorder's own environment).
pub fn write_launcher(
    sandbox: &Sandbox,
    env: &BTreeMap<String, String>,
    watch: &NetworkWatch,
    program: &Path,
) -> Result<PathBuf, RecordError> {
    let launcher = sandbox.root().join("launch.sh");
    let mut script = String::from("exec env -i");
    for (k, v) in env {
        script.push_str(&format!(" {}={}", k, shell_quote(v)));
    }
    let watched = watch.command(program, &[]);
    for word in std::iter::once(watched.get_program()).chain(watched.get_args()) {
        script.push(' ');
        script.push_str(&shell_quote(&word.to_string_lossy()));
    }
    script.push('\n');
    std::fs::write(&launcher, script).map_err(|e| write_err("writing the launcher", e))?;
    Ok(launcher)
}

pub fn shell_quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', "'\\''"))
}

pub fn write_err(what: &str, e: impl std::fmt::Display) -> RecordError {
    RecordError::Write {
        message: format!("{what}: {e}"),
    }
}

/// The client's first-run answers for an interactive session in `workspace`, merged into
/// `~/.claude.json` (the installer may have written it).
pub fn write_interactive_config(sandbox: &Sandbox) -> Result<(), RecordError> {
    let path = sandbox.home().join(".claude.json");
    let mut config: Value = std::fs::read(&path)
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .unwrap_or_else(|| json!({}));
    let ws = sandbox.workspace().display().to_string();
    config["hasCompletedOnboarding"] = json!(true);
    config["theme"] = json!("dark");
    config["customApiKeyResponses"] = json!({"approved": [DUMMY_KEY], "rejected": []});
    if !config["projects"].is_object() {
        config["projects"] = json!({});
    }
    config["projects"][&ws]["hasTrustDialogAccepted"] = json!(true);
    config["projects"][&ws]["hasCompletedProjectOnboarding"] = json!(true);
    std::fs::write(
        &path,
        serde_json::to_vec_pretty(&config).unwrap_or_default(),
    )
    .map_err(|e| write_err(&format!("writing {}", path.display()), e))
}
