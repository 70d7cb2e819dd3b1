//! `interactive-quit`: after the person quits the client's own terminal interface, acc must
//! stop showing the session live.
//!
//! The client starts under tmux with acc's hooks installed (and, for Codex, trusted in the
//! sandbox's `config.toml`, as a person trusts them: no bypass flag). The recorder types one
//! prompt, the double answers, then it types the client's quit command. It waits while the
//! store still shows the session open (up to [`QUIT_LIMIT`]), then reads `acc status --json
//! --all` with the real binary, as a person would, and whether the shared host the session
//! ran under (Codex's detached app-server, `client.hostPid`) is still alive.
//!
//! Judged from outcomes only, and beside the capabilities: `lifecycle.sessionEnd` is decided
//! headless by `lifecycle`; this is whether liveness follows the process the person ran.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use acc_runtime::core::Core;
use serde_json::{Value, json};

use crate::clients::config_files::merge_toml_file;
use crate::clients::environment::client_path;
use crate::clients::network::NetworkWatch;
use crate::clients::{Client, InstalledClient, Sandbox};
use crate::record::kit::error::RecordError;
pub use crate::record::kit::facts::{QuitFacts, StatusFact};
use crate::record::kit::headless::recordings;
use crate::record::kit::observations::{Observations, RunFacts};
use crate::record::kit::recipe::Recipe;
use crate::record::kit::room;
use crate::record::kit::run::{RunSettings, ScenarioRun};
use crate::record::kit::terminal::launcher::{write_err, write_launcher};
use crate::record::kit::terminal::processes::{alive, client_processes, sandbox_processes};
use crate::record::kit::terminal::stage::{
    TerminalStage, observed, stage, terminal_bundle, terminal_run,
};
use crate::record::kit::terminal::tmux::{Tmux, pane_pid, poll, send_keys};
use crate::record::kit::tuple::Tuple;
use crate::record::kit::verdict::ControlVerdict;
use crate::record::scenario::{FINAL_TEXT, PROMPT};

/// How long the recorder waits after the quit for the store to stop showing the session
/// open. Codex 0.171.0's app-server ran `SessionEnd` about 55 s after `/quit` (it unloads
/// the thread once no terminal is attached) and was still running 90 s after it.
pub const QUIT_LIMIT: Duration = Duration::from_secs(150);

/// Did the session stop showing live after the quit? Every failed outcome is a reason; no
/// reason names a time, so a rerun gives the same words. A capture that left 127.0.0.1 is
/// no evidence: it fails, and what was observed is still said after the network reason.
pub fn judge(obs: &Observations) -> ControlVerdict {
    let Some(facts) = &obs.quit else {
        return ControlVerdict {
            passed: false,
            reasons: vec!["no interactive quit facts were observed".to_owned()],
        };
    };
    let quit = &facts.quit_command;
    let mut failures = Vec::new();
    if !facts.session_opened {
        failures.push("the client's hooks opened no session in the interactive run".to_owned());
    } else if !facts.turn_ran {
        failures.push("the interactive session ran no turn with the model double".to_owned());
    }
    if facts.quit_typed && !facts.client_exited {
        failures.push(format!(
            "the client's terminal interface did not exit after {quit}"
        ));
    }
    // Without a quit there was nothing to read status about.
    if facts.quit_typed {
        if facts.status_exit != Some(0) {
            failures.push("acc status --json could not be read".to_owned());
        } else if facts.status.is_empty() {
            failures.push("acc status showed no session of the adapter".to_owned());
        } else if facts.status.iter().any(StatusFact::live) {
            failures.push(format!(
                "after {quit} the session was still shown open and live by acc status"
            ));
        }
    }
    let ended = failures.is_empty();
    let observed = if ended {
        let ended_by_hook = obs
            .hooks
            .as_ref()
            .is_some_and(|h| h.iter().any(|f| f.kind.as_deref() == Some("sessionEnd")));
        let how = match (ended_by_hook, facts.host_alive_at_status) {
            (true, Some(true)) => {
                "the client's own session-end hook closed it while its shared host still ran"
            }
            (true, _) => "the client's own session-end hook closed it",
            (false, _) => "acc found the client gone",
        };
        vec![format!(
            "after {quit} acc status showed the session no longer live: {how}"
        )]
    } else {
        failures
    };
    match obs.run.network_problem() {
        None => ControlVerdict {
            passed: ended,
            reasons: observed,
        },
        Some(problem) => ControlVerdict {
            passed: false,
            reasons: std::iter::once(problem)
                .chain(
                    observed
                        .into_iter()
                        .map(|r| format!("observed all the same: {r}")),
                )
                .collect(),
        },
    }
}

/// Codex runs a user's hook only once it is trusted: the hashes come from the client's own
/// `app-server` (`hooks/list`, run under the network watch) and go into the sandbox's
/// `config.toml`. Also answers the start-up model notice the way a person keeps the
/// configured model, and the folder-trust question the way a person trusts their checkout.
pub(crate) fn prepare_codex(
    installed: &InstalledClient,
    sandbox: &Sandbox,
    env: &BTreeMap<String, String>,
    watch: &NetworkWatch,
) -> Result<(), RecordError> {
    let workspace = sandbox.workspace();
    let mut child = watch
        .command(&installed.program, &["app-server".to_owned()])
        .env_clear()
        .envs(env)
        .current_dir(&workspace)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| write_err("starting codex app-server", e))?;
    let mut stdin = child.stdin.take();
    let stdout = child.stdout.take();
    let requests = [
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"clientInfo": {"name": "acc-certify", "version": env!("CARGO_PKG_VERSION")}}}),
        json!({"jsonrpc": "2.0", "method": "initialized"}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "hooks/list", "params": {"cwds": [workspace.display().to_string()]}}),
    ];
    if let Some(stdin) = stdin.as_mut() {
        for request in &requests {
            let _ = writeln!(stdin, "{request}");
        }
    }
    let (tx, rx) = mpsc::channel();
    if let Some(stdout) = stdout {
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if let Ok(value) = serde_json::from_str::<Value>(&line)
                    && value["id"] == 2
                {
                    let _ = tx.send(value);
                    return;
                }
            }
        });
    }
    // A set-up step, not a verdict: generous for a loaded machine.
    let answer = rx.recv_timeout(Duration::from_secs(120));
    // Stdio mode ends with its input.
    drop(stdin);
    let ended = poll(Duration::from_secs(30), || child.try_wait().ok().flatten());
    if ended.is_none() {
        let _ = child.kill();
        let _ = child.wait();
    }
    let answer = answer.map_err(|_| write_err("codex app-server hooks/list", "no answer"))?;
    let mut state = toml::Table::new();
    for group in answer["result"]["data"].as_array().into_iter().flatten() {
        for hook in group["hooks"].as_array().into_iter().flatten() {
            if let (Some(key), Some(hash)) = (hook["key"].as_str(), hook["currentHash"].as_str()) {
                let mut entry = toml::Table::new();
                entry.insert("trusted_hash".into(), hash.into());
                state.insert(key.to_owned(), entry.into());
            }
        }
    }
    if state.is_empty() {
        return Err(write_err(
            "codex app-server hooks/list",
            "it listed none of acc's hooks",
        ));
    }
    let mut hooks = toml::Table::new();
    hooks.insert("state".into(), state.into());
    let mut patch = toml::Table::new();
    patch.insert("hooks".into(), hooks.into());
    let notice: toml::Table = format!(
        "[model_migrations]\n\"{}\" = \"gpt-6-sol\"\n",
        crate::clients::base_config::CODEX_MODEL
    )
    .parse()
    .map_err(|e| write_err("the Codex notice table", e))?;
    patch.insert("notice".into(), notice.into());
    // The workspace is a git checkout: Codex asks once whether to trust the folder.
    let mut project = toml::Table::new();
    project.insert("trust_level".into(), "trusted".into());
    let mut projects = toml::Table::new();
    projects.insert(workspace.display().to_string(), project.into());
    patch.insert("projects".into(), projects.into());
    // The start-up tips fetch an announcement from GitHub; a recording stays offline.
    let mut tui = toml::Table::new();
    tui.insert("show_tooltips".into(), false.into());
    patch.insert("tui".into(), tui.into());
    let config = sandbox.home().join(".codex/config.toml");
    merge_toml_file(&config, &patch).map_err(|e| write_err("trusting acc's hooks", e))
}

/// The adapter session's shared host, from what its start hook stored.
fn adapter_session_host(core: &mut Core) -> Option<(bool, Option<u32>)> {
    let status = core.status(None, true).ok()?;
    for listed in status.sessions {
        let Ok(Some(record)) = core.session(&listed.session_id) else {
            continue;
        };
        if record.harness != room::RECORDER_HARNESS {
            let host = record
                .extensions
                .get("client")
                .and_then(|c| c.get("hostPid"))
                .and_then(Value::as_u64)
                .and_then(|p| u32::try_from(p).ok());
            return Some((record.state.as_str() == "open", host));
        }
    }
    None
}

/// `acc status --json --all`, run as the person would in the workspace.
fn read_status(
    acc: &Path,
    env: &BTreeMap<String, String>,
    workspace: &Path,
) -> (Option<i32>, Vec<StatusFact>) {
    let out = Command::new(acc)
        .env_clear()
        .envs(env)
        .current_dir(workspace)
        .args(["status", "--json", "--all"])
        .output();
    let Ok(out) = out else {
        return (None, Vec::new());
    };
    let value: Value = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
    let data = if value.get("data").is_some() {
        &value["data"]
    } else {
        &value
    };
    let mut facts: Vec<StatusFact> = data["sessions"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|s| s["harness"].as_str() != Some(room::RECORDER_HARNESS))
        .map(|s| StatusFact {
            state: s["state"].as_str().unwrap_or_default().to_owned(),
            presence: s["presence"].as_str().unwrap_or_default().to_owned(),
        })
        .collect();
    facts.sort_by(|a, b| (&a.state, &a.presence).cmp(&(&b.state, &b.presence)));
    (out.status.code(), facts)
}

/// Runs `interactive-quit` against `installed`.
pub fn run_interactive_quit(
    recipe: &dyn Recipe,
    installed: &InstalledClient,
    tuple: &Tuple,
    settings: &RunSettings,
) -> Result<ScenarioRun, RecordError> {
    let scenario = recipe.scenario();
    let client = installed.client;
    let TerminalStage {
        drive,
        sandbox,
        workspace,
        mut double,
        installed_files,
        mut core,
        capture_dir,
        env,
        watch,
    } = stage(recipe, installed, settings)?;
    if client == Client::Codex {
        prepare_codex(installed, &sandbox, &env, &watch)?;
    }
    let launcher = write_launcher(&sandbox, &env, &watch, &installed.program)?;

    let started = Instant::now();
    let tmux = Tmux::start(&workspace, &launcher)?;
    let limit = Duration::from_secs(settings.timeout.as_secs().clamp(30, 120));
    let pane_pid = pane_pid(&tmux);
    // A client that exits (or never starts) ends every wait at once.
    let exited = launcher.with_extension("exited");
    poll(limit, || {
        (exited.exists() || tmux.pane().contains(drive.ready)).then_some(())
    });
    send_keys(&tmux, PROMPT);
    let turn_ran = poll(limit, || {
        if exited.exists() {
            return Some(false);
        }
        (!double.requests().is_empty() && tmux.pane().contains(FINAL_TEXT)).then_some(true)
    })
    .unwrap_or(false);
    let host = adapter_session_host(&mut core)
        .or_else(|| poll(limit, || adapter_session_host(&mut core)));
    // The person leaves once the turn's end hook has answered (seen in acc-hook's capture),
    // however long that takes on a loaded machine.
    if turn_ran {
        poll(limit, || {
            (exited.exists() || crate::record::kit::hook_capture::turn_ends(&capture_dir) > 0)
                .then_some(())
        });
    }
    let session_opened = host.is_some();
    let mut facts = QuitFacts {
        quit_command: drive.quit.to_owned(),
        session_opened,
        turn_ran,
        quit_typed: session_opened,
        client_exited: false,
        shared_host: host.is_some_and(|(_, h)| h.is_some()),
        host_alive_at_status: None,
        status_exit: None,
        status: Vec::new(),
    };
    let mut pane = tmux.pane();
    let mut closed_after = None;
    if session_opened {
        let client = pane_pid.map(client_processes).unwrap_or_default();
        send_keys(&tmux, drive.quit);
        let quit_at = Instant::now();
        // Exited once none of them runs (an unreaped zombie has exited too).
        facts.client_exited = !client.is_empty()
            && poll(limit, || {
                (!client.iter().any(|pid| alive(*pid))).then_some(())
            })
            .is_some();
        pane = tmux.pane();
        // Until the store no longer shows the session open, or the limit.
        closed_after = poll(QUIT_LIMIT.saturating_sub(quit_at.elapsed()), || {
            adapter_session_host(&mut core)
                .is_some_and(|(open, _)| !open)
                .then(|| quit_at.elapsed())
        });
        let mut status_env = sandbox.env();
        status_env.insert(
            "PATH".to_owned(),
            client_path(std::env::var_os("PATH").as_deref()),
        );
        let (exit, status) = read_status(&settings.binaries.acc, &status_env, &workspace);
        facts.host_alive_at_status = host.and_then(|(_, h)| h).map(alive);
        facts.status_exit = exit;
        facts.status = status;
    }
    // The client's daemons are the recorder's to end, by pid.
    for pid in sandbox_processes(&sandbox.home()) {
        let _ = Command::new("kill").args(["-9", &pid.to_string()]).status();
    }
    drop(tmux);
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
        quit: Some(facts),
        ..observed(
            &recorded,
            room::sessions(&mut core)?,
            recipe,
            tuple,
            client,
            RunFacts {
                exit_code: None,
                timed_out: !session_opened,
                network: watch.finish(),
            },
        )
    };
    let verdict = judge(&observations);
    let run = terminal_run(
        installed,
        &recorded.redactor,
        &env,
        &installed_files,
        &format!(
            "tmux new-session (200x50); typed: <prompt>, then {}",
            drive.quit
        ),
        json!({
            "hookTrust": if client == Client::Codex { "config.toml [hooks.state] from codex app-server hooks/list" } else { "not needed" },
            "statusReadAfterQuitWithinMs": QUIT_LIMIT.as_millis() as u64,
            // Measured, never judged: how long the store showed the session open after the quit.
            "closedAfterQuitMs": closed_after.map(|d| d.as_millis() as u64),
        }),
        duration,
    );
    let bundle = terminal_bundle(recorded, &pane, &observations, run);
    Ok(ScenarioRun {
        scenario,
        observations,
        verdicts: Vec::new(),
        control: None,
        kernel_guard: None,
        bridge_guard: None,
        quit: Some(verdict),
        bundle,
    })
}

/// The person quits the client's own terminal interface; is the session then no longer live?
pub struct InteractiveQuit;

impl crate::record::kit::recipe::Recipe for InteractiveQuit {
    fn scenario(&self) -> crate::record::scenario::Scenario {
        crate::record::scenario::Scenario::InteractiveQuit
    }

    fn run(
        &self,
        installed: &crate::clients::InstalledClient,
        tuple: &crate::record::kit::tuple::Tuple,
        settings: &crate::record::kit::run::RunSettings,
        control: Option<&crate::record::kit::observations::Observations>,
    ) -> Result<crate::record::kit::run::ScenarioRun, crate::record::kit::error::RecordError> {
        let _ = control;
        run_interactive_quit(self, installed, tuple, settings)
    }

    /// Only for clients whose terminal interface the recorder knows how to drive.
    fn applies_to(&self, adapter_id: &str) -> bool {
        adapter_id
            .parse::<Client>()
            .is_ok_and(|client| crate::record::kit::terminal::driver::driver(client).is_some())
    }
}

#[cfg(test)]
mod tests;
