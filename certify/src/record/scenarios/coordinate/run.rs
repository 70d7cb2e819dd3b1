//! One pair, end to end: one sandbox (home, data home, git workspace) wired for both
//! clients by acc's real installer, one double per client playing a skill-following model,
//! then four headless runs in turn, with acc's store and the contested file observed after
//! each.

use std::collections::BTreeMap;
use std::path::Path;

use acc_sdk::certification::digest::sha256_hex;
use serde_json::{Value, json};

use super::bundle::{PairBundle, RunFiles};
use super::judge::{CoordinationVerdict, judge};
use super::observations::{
    COORDINATION_SCHEMA, CoordinationExpect, CoordinationObservations, RunObservation, Side, Turn,
};
use super::pair::Pair;
use super::store;
use crate::clients::config_files::merge_json_file;
use crate::clients::environment::{client_path, headless_args};
use crate::clients::{Client, InstalledClient, Sandbox, run_headless_with};
use crate::doubles::shell::quote;
use crate::doubles::{Agent, ModelDouble, Script};
use crate::record::kit::error::RecordError;
use crate::record::kit::headless::redactor;
use crate::record::kit::hook_capture::{self, CAPTURE_DIR_VAR};
use crate::record::kit::install::{Binaries, install_adapter};
use crate::record::kit::observe::request_facts;
use crate::record::kit::redact::Redactor;
use crate::record::kit::room;
use crate::record::kit::run::RunSettings;
use crate::record::kit::tuple::Tuple;
use crate::record::scenario::{CLAIMED_RESOURCE, FINAL_TEXT, PROMPT};

/// The file the asker's model writes, inside the claimed tree.
pub const TARGET: &str = "src/x";
/// The bytes it writes: the judge knows the asker's write by their digest.
pub const ASKER_CONTENT: &str = "written by the asker after the owner released src/**\n";

/// A pair run, observed and judged.
#[derive(Debug, Clone)]
pub struct PairRun {
    pub pair: Pair,
    pub owner: Tuple,
    pub asker: Tuple,
    pub observations: CoordinationObservations,
    pub verdict: CoordinationVerdict,
    pub bundle: PairBundle,
}

/// The two clients of a pair, obtained.
#[derive(Debug, Clone, Copy)]
pub struct PairClients<'a> {
    pub owner: (&'a InstalledClient, &'a Tuple),
    pub asker: (&'a InstalledClient, &'a Tuple),
}

/// Runs `pair` once. `progress` hears about each client run.
pub fn run_pair(
    pair: Pair,
    clients: PairClients<'_>,
    settings: &RunSettings,
    progress: &mut dyn FnMut(&str),
) -> Result<PairRun, RecordError> {
    let (owner, owner_tuple) = clients.owner;
    let (asker, asker_tuple) = clients.asker;
    let client_error = |client: &InstalledClient| {
        let id = client.client.id().to_owned();
        move |source| RecordError::Client { client: id, source }
    };
    let home = if pair.home_client() == owner.client {
        owner
    } else {
        asker
    };
    let sandbox = Sandbox::new(home.client).map_err(client_error(home))?;
    let workspace = sandbox.workspace();
    std::fs::create_dir_all(workspace.join("src")).map_err(|e| RecordError::Write {
        message: format!("creating {}/src: {e}", workspace.display()),
    })?;
    let double_error = |e: std::io::Error| RecordError::Double {
        message: e.to_string(),
    };
    let owner_script = Script::agent(
        Agent::Owner {
            resource: CLAIMED_RESOURCE.to_owned(),
        },
        FINAL_TEXT,
    );
    let asker_script = Script::agent(
        Agent::Asker {
            path: workspace.join(TARGET),
            content: ASKER_CONTENT.to_owned(),
        },
        FINAL_TEXT,
    );
    let mut owner_double =
        ModelDouble::start(owner.client.protocol(), owner_script).map_err(double_error)?;
    let mut asker_double =
        ModelDouble::start(asker.client.protocol(), asker_script).map_err(double_error)?;
    let home_port = if home.client == owner.client {
        owner_double.port()
    } else {
        asker_double.port()
    };
    sandbox
        .write_base_config(home_port)
        .map_err(client_error(home))?;
    for client in [owner, asker] {
        allow_acc(&sandbox, client.client).map_err(client_error(client))?;
    }
    write_profile(&sandbox, &settings.binaries)?;
    let mut installed = install_adapter(owner.client.id(), &sandbox, &settings.binaries)?;
    installed.extend(install_adapter(
        asker.client.id(),
        &sandbox,
        &settings.binaries,
    )?);

    let redactor = redactor(&sandbox, owner, &settings.binaries).path(&asker.dir, "<client>");
    let mut runs = Vec::new();
    let mut files = Vec::new();
    for turn in Turn::ALL {
        let (client, double) = if turn.is_owner() {
            (owner, &owner_double)
        } else {
            (asker, &asker_double)
        };
        let capture_dir = sandbox.root().join("hook-capture").join(turn.name());
        std::fs::create_dir_all(&capture_dir).map_err(|e| RecordError::Write {
            message: format!("creating {}: {e}", capture_dir.display()),
        })?;
        let extra = extra_env(client, &settings.binaries, &capture_dir);
        let seen = double.requests().len();
        let output = run_headless_with(
            client,
            &sandbox,
            double.port(),
            PROMPT,
            settings.timeout,
            &extra,
            false,
        )
        .map_err(client_error(client))?;
        let requests: Vec<_> = double.requests()[seen..]
            .iter()
            .map(|r| redactor.request(r))
            .collect();
        let hooks = hook_capture::read(&capture_dir, &redactor);
        let after = {
            let mut core = room::open_core(&workspace, &sandbox.acc_data_home())?;
            store::snapshot(&mut core, &workspace, TARGET)?
        };
        progress(&format!(
            "coordinate {pair} {}: {} exited {}",
            turn.name(),
            client.client,
            output
                .exit_code()
                .map_or_else(|| "by a signal".to_owned(), |code| code.to_string())
        ));
        let run = RunObservation {
            turn,
            run: crate::record::kit::observations::RunFacts {
                exit_code: output.exit_code(),
                timed_out: output.timed_out,
                network: output.network.clone(),
            },
            requests: request_facts(client.client.protocol(), &requests),
            hooks: hooks.as_ref().map(|h| h.facts.clone()),
            after,
        };
        files.push(RunFiles {
            turn,
            requests,
            stdout: redactor.text(&output.stdout),
            stderr: redactor.text(&output.stderr),
            hooks: hooks.map(|h| h.raw),
            run: run_record(client, &extra, &output, &redactor),
        });
        runs.push(run);
    }
    owner_double.stop();
    asker_double.stop();

    let observations = CoordinationObservations {
        schema_version: COORDINATION_SCHEMA,
        platform: owner_tuple.platform.clone(),
        owner: side(owner, owner_tuple),
        asker: side(asker, asker_tuple),
        expect: CoordinationExpect {
            resource: CLAIMED_RESOURCE.to_owned(),
            target: TARGET.to_owned(),
            target_sha256: sha256_hex(ASKER_CONTENT.as_bytes()),
        },
        runs,
    };
    let verdict = judge(&observations);
    let installed: Vec<String> = installed
        .iter()
        .map(|p| redactor.text(&p.display().to_string()))
        .collect();
    Ok(PairRun {
        pair,
        owner: owner_tuple.clone(),
        asker: asker_tuple.clone(),
        bundle: PairBundle {
            observations: observations.clone(),
            installed,
            runs: files,
        },
        observations,
        verdict,
    })
}

/// The permission rule a Claude Code user who lets the agent run acc has in
/// `~/.claude/settings.json`: headless `acceptEdits` runs no other Bash command unasked.
pub const CLAUDE_ALLOW_ACC: &str = "Bash(acc:*)";

/// Lets the client's shell tool run `acc` without asking, as the user who set acc up has.
/// Written before acc's installer, which meets it as the user's own setting. Only Claude
/// Code asks: the other clients run headless with every tool approved.
pub fn allow_acc(sandbox: &Sandbox, client: Client) -> Result<(), crate::clients::ClientError> {
    if client != Client::ClaudeCode {
        return Ok(());
    }
    merge_json_file(
        &sandbox.home().join(".claude/settings.json"),
        &json!({"permissions": {"allow": [CLAUDE_ALLOW_ACC]}}),
    )
}

/// `~/.profile` putting acc's directory on PATH, as a user who installed acc outside the
/// system directories has it: a login shell (Codex runs its commands in one) starts from
/// `/etc/profile`'s PATH, not the client's.
pub fn write_profile(sandbox: &Sandbox, binaries: &Binaries) -> Result<(), RecordError> {
    let Some(dir) = binaries.acc.parent() else {
        return Ok(());
    };
    let path = sandbox.home().join(".profile");
    let text = format!(
        "PATH={}:\"$PATH\"\nexport PATH\n",
        quote(&dir.display().to_string())
    );
    std::fs::write(&path, text).map_err(|e| RecordError::Write {
        message: format!("writing {}: {e}", path.display()),
    })
}

fn side(client: &InstalledClient, tuple: &Tuple) -> Side {
    Side {
        adapter: tuple.adapter.clone(),
        client: tuple.client.clone(),
        version: tuple.version.clone(),
        protocol: client.client.protocol().id().to_owned(),
    }
}

/// The hook capture directory, and a PATH that finds `acc` the way a user who installed
/// it finds it: the directory of the `acc` the hooks were wired with, then the client's
/// own, then the system's.
pub fn extra_env(
    client: &InstalledClient,
    binaries: &Binaries,
    capture_dir: &Path,
) -> BTreeMap<String, String> {
    let mut dirs = Vec::new();
    for dir in [binaries.acc.parent(), client.program.parent()]
        .into_iter()
        .flatten()
    {
        if !dir.as_os_str().is_empty() {
            dirs.push(dir.display().to_string());
        }
    }
    dirs.push(client_path(std::env::var_os("PATH").as_deref()));
    BTreeMap::from([
        (
            CAPTURE_DIR_VAR.to_owned(),
            capture_dir.display().to_string(),
        ),
        ("PATH".to_owned(), dirs.join(":")),
    ])
}

/// `run.json` of one client run: no prompt, no variable's value.
fn run_record(
    client: &InstalledClient,
    extra: &BTreeMap<String, String>,
    output: &crate::clients::RunOutput,
    redactor: &Redactor,
) -> Value {
    let mut command = vec![redactor.text(&client.program.display().to_string())];
    command.extend(
        headless_args(client.client, PROMPT, false)
            .into_iter()
            .map(|arg| {
                if arg == PROMPT {
                    "<prompt>".to_owned()
                } else {
                    arg
                }
            }),
    );
    json!({
        "client": client.client.id(),
        "version": client.version,
        "command": command,
        "cwd": "<ws>",
        "extraEnvNames": extra.keys().collect::<Vec<_>>(),
        "durationMs": output.duration.as_millis() as u64,
        "exitCode": output.exit_code(),
        "timedOut": output.timed_out,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    #[test]
    fn acc_comes_first_on_the_clients_path() {
        let installed = InstalledClient {
            client: Client::Codex,
            version: "0.171.0".into(),
            version_output: String::new(),
            dir: PathBuf::from("/cache/codex"),
            program: PathBuf::from("/cache/codex/bin/codex"),
        };
        let binaries = Binaries {
            acc: PathBuf::from("/build/release/acc"),
            hook: PathBuf::from("/build/release/acc-hook"),
        };
        let env = extra_env(&installed, &binaries, Path::new("/sb/capture"));
        let path: Vec<&str> = env["PATH"].split(':').collect();
        assert_eq!(path[..2], ["/build/release", "/cache/codex/bin"]);
        assert!(path.contains(&"/usr/bin"), "{path:?}");
        assert_eq!(env[CAPTURE_DIR_VAR], "/sb/capture");
        assert_eq!(env.len(), 2);
    }

    #[test]
    fn a_login_shell_finds_acc_through_the_profile() {
        let sandbox = Sandbox::new(Client::Codex).unwrap();
        let bin = sandbox.root().join("it's bin");
        std::fs::create_dir_all(&bin).unwrap();
        let binaries = Binaries {
            acc: bin.join("acc"),
            hook: bin.join("acc-hook"),
        };
        write_profile(&sandbox, &binaries).unwrap();
        let out = std::process::Command::new("sh")
            .arg("-c")
            .arg(". \"$HOME/.profile\"; printf %s \"$PATH\"")
            .env("HOME", sandbox.home())
            .env("PATH", "/usr/bin:/bin")
            .output()
            .unwrap();
        let path = String::from_utf8(out.stdout).unwrap();
        assert_eq!(path, format!("{}:/usr/bin:/bin", bin.display()));
    }

    #[test]
    fn only_claude_code_is_told_to_let_acc_run() {
        let sandbox = Sandbox::new(Client::Codex).unwrap();
        allow_acc(&sandbox, Client::Codex).unwrap();
        let settings = sandbox.home().join(".claude/settings.json");
        assert!(!settings.exists());
        std::fs::create_dir_all(settings.parent().unwrap()).unwrap();
        std::fs::write(&settings, r#"{"permissions": {"deny": ["Bash(rm:*)"]}}"#).unwrap();
        allow_acc(&sandbox, Client::ClaudeCode).unwrap();
        let merged: Value =
            serde_json::from_str(&std::fs::read_to_string(&settings).unwrap()).unwrap();
        assert_eq!(merged["permissions"]["allow"], json!([CLAUDE_ALLOW_ACC]));
        assert_eq!(merged["permissions"]["deny"], json!(["Bash(rm:*)"]));
    }
}
