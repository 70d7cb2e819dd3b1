//! The `heartbeat` scenario for a client whose only between-turns hook fires once its own
//! terminal prompt has sat idle (Claude Code's `Notification` with `idle_prompt`, sent after
//! `messageIdleNotifThresholdMs`, 60 s by default). A headless run never sits at a prompt,
//! so this variant drives the client's terminal interface under tmux, as `interactive-quit`
//! does: one short turn with the double, then nothing typed until an idle notification
//! reaches acc (at most [`IDLE_LIMIT`]), then the client's quit command.
//!
//! Judged from observation: acc-hook was invoked with a `heartbeat`-kind event after the
//! turn had ended and before another began, acc answered it, and the session's heartbeat
//! time in acc's store moved forward with it while nothing else had moved it during the idle.
//!
//! The idle begins [`ECHO`] after the turn's end hook was captured, never sooner: a client
//! that sends its idle notification as its prompt returns (Qwen Code does, well under a
//! second after `Stop`, and 2.6 s after it once under CI's load) is answering the turn's
//! end, which says nothing a turn end does not. Counting from a fixed window makes the
//! verdict depend on what the client does, not on how fast the machine delivered it.

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use acc_runtime::core::Core;
use acc_sdk::capabilities::Capability;
use serde_json::{Value, json};

use crate::clients::{Client, InstalledClient};
use crate::record::kit::error::RecordError;
pub use crate::record::kit::facts::IdleFacts;
use crate::record::kit::headless::recordings;
use crate::record::kit::hook_capture::CAPTURE_FILE;
use crate::record::kit::observations::{HookFact, Observations, RunFacts};
use crate::record::kit::recipe::{Recipe, judged};
use crate::record::kit::room;
use crate::record::kit::run::{RunSettings, ScenarioRun};
use crate::record::kit::terminal::launcher::write_launcher;
use crate::record::kit::terminal::processes::{alive, client_processes, sandbox_processes};
use crate::record::kit::terminal::stage::{
    TerminalStage, observed, stage, terminal_bundle, terminal_run,
};
use crate::record::kit::terminal::tmux::{Tmux, pane_pid, poll, send_keys};
use crate::record::kit::tuple::Tuple;
use crate::record::kit::verdict::{Verdict, conversation_requests};
use crate::record::scenario::{FINAL_TEXT, PROMPT};

/// How long the prompt is left idle at most: past Claude Code's 60 s threshold with margin.
/// The wait ends as soon as a heartbeat-kind invocation is captured.
pub const IDLE_LIMIT: Duration = Duration::from_secs(100);

/// How long after the turn's end hook a heartbeat-kind invocation is still the turn's echo.
/// Far below Claude Code's 60 s idle threshold, far above the 2.6 s the slowest echo took.
pub const ECHO: Duration = Duration::from_secs(15);

/// The normalised kind an idle notification is given.
const KIND: &str = "heartbeat";

/// The clients whose heartbeat is their idle prompt's notification, so the scenario runs
/// their terminal interface instead of a headless run.
pub fn drives(client: Client) -> bool {
    client.recorder().scenarios.heartbeat_idle_prompt
}

/// Did the idle prompt's hook reach acc and refresh the session's presence?
pub fn judge(obs: &Observations, facts: &IdleFacts) -> Verdict {
    let mut reasons = Vec::new();
    if obs.adapter_sessions().next().is_none() || !facts.session_opened {
        reasons.push(format!(
            "no session of the {} adapter reached acc's store",
            obs.adapter
        ));
    } else if !facts.turn_ran || conversation_requests(obs).is_empty() {
        reasons.push("the interactive session ran no turn with the model double".to_owned());
    }
    match &obs.hooks {
        None => reasons.push("acc-hook's invocations were not captured".to_owned()),
        Some(hooks) => {
            let echoes = facts.echo_beats.unwrap_or(0);
            let idle_beats: Vec<&HookFact> = beats_while_idle(hooks, echoes);
            if facts.idled && idle_beats.is_empty() && !beats_while_idle(hooks, 0).is_empty() {
                reasons.push(format!(
                    "the only heartbeat-kind invocation after the turn came within {} s of its end, an echo of the turn ending rather than a beat on idle, and none reached acc while the prompt then sat idle up to {} s",
                    ECHO.as_secs(),
                    IDLE_LIMIT.as_secs()
                ));
            } else if facts.idled && idle_beats.is_empty() {
                reasons.push(format!(
                    "no heartbeat-kind invocation reached acc while the prompt sat idle up to {} s after the turn",
                    IDLE_LIMIT.as_secs()
                ));
            } else if !idle_beats.is_empty()
                && !idle_beats.iter().any(|h| h.outcome.exit_code == Some(0))
            {
                reasons.push("the heartbeat hook never exited 0".to_owned());
            }
            if !idle_beats.is_empty() {
                if facts.moved_before_beat {
                    reasons.push(
                        "the session's heartbeat time moved during the idle before the heartbeat hook, so the move is not the hook's"
                            .to_owned(),
                    );
                } else if !facts.moved_by_beat {
                    reasons.push(
                        "the heartbeat hook did not move the session's heartbeat time in acc's store"
                            .to_owned(),
                    );
                }
            }
        }
    }
    Verdict::new(
        Capability::Heartbeat,
        reasons,
        "with the client's terminal prompt left idle after a turn, its idle notification reached acc-hook as a heartbeat while no turn or tool was in flight, and the session's heartbeat time in acc's store moved forward with it",
    )
}

/// The heartbeat-kind invocations that came while no turn was in flight: after a turn's end
/// and before the next turn or tool began, leaving out the first `echoes` heartbeat-kind
/// invocations of the capture (those already captured when the idle began).
pub fn beats_while_idle(hooks: &[HookFact], echoes: usize) -> Vec<&HookFact> {
    let mut turn_ended = false;
    let mut seen = 0;
    let mut out = Vec::new();
    for hook in hooks {
        match hook.kind.as_deref() {
            Some("turnEnd") => turn_ended = true,
            Some("beforeTurn" | "beforeTool" | "afterTool") => turn_ended = false,
            Some(KIND) => {
                seen += 1;
                if turn_ended && seen > echoes {
                    out.push(hook);
                }
            }
            _ => {}
        }
    }
    out
}

/// The adapter session's heartbeat time as stored (ISO, milliseconds).
fn heartbeat_at(core: &mut Core) -> Option<String> {
    let status = core.status(None, true).ok()?;
    status.sessions.into_iter().find_map(|listed| {
        let record = core.session(&listed.session_id).ok()??;
        (record.harness != room::RECORDER_HARNESS).then_some(record.heartbeat_at)
    })
}

fn later(after: Option<&str>, before: Option<&str>) -> bool {
    let ms = |s: Option<&str>| s.and_then(acc_runtime::clock::parse_iso);
    matches!((ms(after), ms(before)), (Some(a), Some(b)) if a > b)
}

/// The captured invocations' kinds and the notification types, read while the client runs.
fn captured(capture: &Path) -> (Vec<String>, Vec<String>) {
    let text = std::fs::read_to_string(capture).unwrap_or_default();
    let mut kinds = Vec::new();
    let mut types = Vec::new();
    for line in text.lines() {
        let Ok(value) = serde_json::from_str::<Value>(line) else {
            continue;
        };
        kinds.push(value["kind"].as_str().unwrap_or_default().to_owned());
        if value["payload"]["hook_event_name"] == "Notification" {
            types.push(
                value["payload"]["notification_type"]
                    .as_str()
                    .unwrap_or_default()
                    .to_owned(),
            );
        }
    }
    (kinds, types)
}

/// Runs `heartbeat` in the client's terminal interface.
pub fn run_idle_heartbeat(
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
    let capture = capture_dir.join(CAPTURE_FILE);
    let launcher = write_launcher(&sandbox, &env, &watch, &installed.program)?;

    let started = Instant::now();
    let tmux = Tmux::start(&workspace, &launcher)?;
    let limit = Duration::from_secs(settings.timeout.as_secs().clamp(30, 120));
    let pane_pid = pane_pid(&tmux);
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
    // The idle starts [`ECHO`] after the turn's end hook was captured: whatever came before
    // is the turn's own echo.
    poll(limit, || {
        captured(&capture)
            .0
            .iter()
            .any(|k| k == "turnEnd")
            .then_some(())
    });
    std::thread::sleep(ECHO);
    let echo_beats = beats(&capture);
    let session_opened = heartbeat_at(&mut core).is_some();
    let mut facts = IdleFacts {
        session_opened,
        turn_ran,
        idled: session_opened && turn_ran,
        notification_types: Vec::new(),
        requests_while_idle: 0,
        moved_before_beat: false,
        moved_by_beat: false,
        echo_beats: Some(echo_beats),
    };
    let mut beat_after = None;
    if facts.idled {
        let idle_from = heartbeat_at(&mut core);
        let requests_at_idle = double.requests().len();
        let idle_at = Instant::now();
        let beats_before = echo_beats;
        beat_after = poll(IDLE_LIMIT, || {
            if exited.exists() {
                return Some(None);
            }
            // Read before the capture, so a move seen here happened before the beat.
            let now = heartbeat_at(&mut core);
            if beats(&capture) > beats_before {
                facts.requests_while_idle =
                    double.requests().len().saturating_sub(requests_at_idle);
                // acc-hook writes its capture line after it answered: the store is written.
                facts.moved_by_beat =
                    later(heartbeat_at(&mut core).as_deref(), idle_from.as_deref());
                return Some(Some(idle_at.elapsed()));
            }
            if now != idle_from {
                facts.moved_before_beat = true;
            }
            None
        })
        .flatten();
        if beat_after.is_none() {
            facts.requests_while_idle = double.requests().len().saturating_sub(requests_at_idle);
        }
    }
    let mut pane = tmux.pane();
    let mut client_exited = false;
    if session_opened {
        let processes = pane_pid.map(client_processes).unwrap_or_default();
        send_keys(&tmux, drive.quit);
        client_exited = !processes.is_empty()
            && poll(limit, || {
                (!processes.iter().any(|pid| alive(*pid))).then_some(())
            })
            .is_some();
        pane = tmux.pane();
    }
    for pid in sandbox_processes(&sandbox.home()) {
        let _ = Command::new("kill").args(["-9", &pid.to_string()]).status();
    }
    drop(tmux);
    let duration = started.elapsed();
    double.stop();
    facts.notification_types = captured(&capture).1;

    let recorded = recordings(
        &sandbox,
        installed,
        &settings.binaries,
        &double,
        &capture_dir,
    );
    let observations = Observations {
        idle: Some(facts),
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
    let verdicts = judged(recipe, &observations);
    let interactive = format!(
        "tmux new-session (200x50); typed: <prompt>, then nothing for {} s after the turn's end, then nothing until a heartbeat-kind hook or {} s, then {}",
        ECHO.as_secs(),
        IDLE_LIMIT.as_secs(),
        drive.quit
    );
    let run = terminal_run(
        installed,
        &recorded.redactor,
        &env,
        &installed_files,
        &interactive,
        json!({
            "idleLimitMs": IDLE_LIMIT.as_millis() as u64,
            "echoWindowMs": ECHO.as_millis() as u64,
            // Measured, never judged: how long the prompt sat idle before the first beat.
            "beatAfterIdleMs": beat_after.map(|d| d.as_millis() as u64),
            "clientExitedAfterQuit": client_exited,
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

/// How many heartbeat-kind invocations the capture holds so far.
fn beats(capture: &Path) -> usize {
    captured(capture).0.iter().filter(|k| *k == KIND).count()
}

#[cfg(test)]
mod tests;
