//! The `session-resume` scenario: does a conversation the client resumes come back to acc as
//! the participant it was, without a second session?
//!
//! Before the first run the recorder holds a live session acting as the adapter's own name
//! (`codex`), so the client's conversation is numbered (`codex-2`). The recorder then closes
//! its session, and the client resumes the conversation with its own flag (`--continue`,
//! `exec resume --last`, `--resume latest`). A fresh conversation would now be `codex`; a
//! conversation acc recognised asks for `codex-2`, the name it had (or keeps the very
//! session, when it was still open). Judged from acc's store after each run, the hooks each
//! run invoked, and whether the resumed run's first model request carries the first run's
//! answer (the client really resumed).

use std::path::Path;

use acc_runtime::core::Owner;
use acc_sdk::capabilities::Capability;
use acc_sdk::event::EventKind;
use serde_json::Value;

use crate::clients::environment::headless_args;
use crate::clients::run::run_headless_args;
use crate::clients::{Client, InstalledClient, RunOutput, Sandbox};
use crate::doubles::{LoggedRequest, ModelDouble, Protocol};
use crate::record::kit::error::RecordError;
pub use crate::record::kit::facts::{ResumeFacts, ResumeRun, ResumeSession};
use crate::record::kit::headless::{redactor, run_record};
use crate::record::kit::hook_capture::{self, CAPTURE_FILE};
use crate::record::kit::install::install_adapter;
use crate::record::kit::observations::{Observations, RunFacts, SessionFact};
use crate::record::kit::observe::request_facts;
use crate::record::kit::recipe::{Recipe, judged};
use crate::record::kit::redact::Redactor;
use crate::record::kit::room::{self, Room};
use crate::record::kit::run::{RunSettings, ScenarioRun};
use crate::record::kit::tuple::Tuple;
use crate::record::kit::verdict::{Verdict, is_conversation};
use crate::record::output::bundle::Bundle;
use crate::record::scenario::PROMPT;

/// What the resumed run asks.
pub const RESUME_PROMPT: &str = "Continue with the next scripted step.";
/// The double's answer: in the resumed run's first request it can only be history. (The
/// first prompt is not a marker: Gemini CLI's resumed history drops a prompt its start hook
/// added context to.)
pub const ANSWER: &str = "Noted: the scripted task is complete.";

/// The client's own way to resume its most recent conversation in the workspace, headless.
pub fn resume_args(client: Client, prompt: &str) -> Vec<String> {
    crate::clients::RecorderFile::with_prompt(&client.recorder().resume.args, prompt)
}

/// Stable labels for ids that must not reach a fixture.
#[derive(Debug, Default)]
struct Labels {
    seen: Vec<String>,
}

impl Labels {
    fn label(&mut self, prefix: &str, id: &str) -> String {
        let at = match self.seen.iter().position(|s| s == id) {
            Some(at) => at,
            None => {
                self.seen.push(id.to_owned());
                self.seen.len() - 1
            }
        };
        format!("{prefix}{}", at + 1)
    }
}

fn store_error(e: acc_runtime::AccError) -> RecordError {
    RecordError::from(e)
}

/// The adapter's sessions in the store, labelled.
fn adapter_sessions(
    workspace: &Path,
    data_home: &Path,
    adapter: &str,
    labels: &mut Labels,
) -> Result<Vec<ResumeSession>, RecordError> {
    let mut core = room::open_core(workspace, data_home).map_err(store_error)?;
    let status = core.status(None, true).map_err(store_error)?;
    let mut out = Vec::new();
    for listed in status.sessions {
        let Some(record) = core.session(&listed.session_id).map_err(store_error)? else {
            continue;
        };
        if record.harness != adapter {
            continue;
        }
        out.push(ResumeSession {
            label: labels.label("s", record.session_id.as_str()),
            participant_id: record.participant_id.to_string(),
            state: record.state.as_str().to_owned(),
        });
    }
    out.sort_by(|a, b| a.label.cmp(&b.label));
    Ok(out)
}

/// The capture's lines from `skip` on: their kinds and client session ids.
fn hook_lines(
    capture_dir: &Path,
    skip: usize,
    labels: &mut Labels,
) -> (usize, Vec<String>, Vec<String>) {
    let text = std::fs::read_to_string(capture_dir.join(CAPTURE_FILE)).unwrap_or_default();
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    let mut kinds = Vec::new();
    let mut ids = Vec::new();
    for line in lines.iter().skip(skip) {
        let Ok(value) = serde_json::from_str::<Value>(line) else {
            continue;
        };
        if let Some(kind) = value.get("kind").and_then(Value::as_str) {
            kinds.push(kind.to_owned());
        }
        let id = value.get("payload").and_then(|p| {
            ["session_id", "sessionId", "conversation_id"]
                .into_iter()
                .find_map(|k| p.get(k).and_then(Value::as_str))
        });
        if let Some(id) = id {
            let label = labels.label("c", id);
            if !ids.contains(&label) {
                ids.push(label);
            }
        }
    }
    (lines.len(), kinds, ids)
}

fn run_facts(
    protocol: Protocol,
    output: &RunOutput,
    requests: &[LoggedRequest],
    kinds: Vec<String>,
    client_sessions: Vec<String>,
    sessions: Vec<ResumeSession>,
) -> ResumeRun {
    let turns: Vec<&LoggedRequest> = requests
        .iter()
        .filter(|r| is_conversation(protocol, &r.method, &r.path))
        .collect();
    ResumeRun {
        run: RunFacts {
            exit_code: output.exit_code(),
            timed_out: output.timed_out,
            network: output.network.clone(),
        },
        conversation_requests: turns.len(),
        carries_first_answer: turns
            .first()
            .is_some_and(|r| protocol.model_visible_text(&r.body).contains(ANSWER)),
        hook_kinds: kinds,
        client_sessions,
        sessions,
    }
}

/// Runs the scenario: the first conversation, then the same one resumed, in one sandbox.
pub fn run_session_resume(
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
    let data_home = sandbox.acc_data_home();
    let script = recipe.script(&workspace).map_err(|e| RecordError::Double {
        message: e.to_string(),
    })?;
    let mut double =
        ModelDouble::start(client.protocol(), script).map_err(|e| RecordError::Double {
            message: e.to_string(),
        })?;
    sandbox
        .write_base_config(double.port())
        .map_err(client_error)?;
    let installed_files = install_adapter(client.id(), &sandbox, &settings.binaries)?;
    let held: Owner = {
        let mut core = room::open_core(&workspace, &data_home).map_err(store_error)?;
        room::attach_as(&mut core, client.id()).map_err(store_error)?
    };
    let capture_dir = sandbox.root().join("hook-capture");
    std::fs::create_dir_all(&capture_dir).map_err(|e| RecordError::Write {
        message: format!("creating {}: {e}", capture_dir.display()),
    })?;
    let extra = recipe.environment(&capture_dir);
    let first_args = headless_args(client, PROMPT, false);
    let first = run_headless_args(
        installed,
        &sandbox,
        double.port(),
        &first_args,
        settings.timeout,
        &extra,
        false,
    )
    .map_err(client_error)?;
    let first_requests = double.requests();
    let mut session_labels = Labels::default();
    let mut client_labels = Labels::default();
    let first_sessions =
        adapter_sessions(&workspace, &data_home, client.id(), &mut session_labels)?;
    let (first_lines, first_kinds, first_ids) = hook_lines(&capture_dir, 0, &mut client_labels);
    {
        let mut core = room::open_core(&workspace, &data_home).map_err(store_error)?;
        core.close_session(&held, None).map_err(store_error)?;
    }

    let second_args = resume_args(client, RESUME_PROMPT);
    let second = run_headless_args(
        installed,
        &sandbox,
        double.port(),
        &second_args,
        settings.timeout,
        &extra,
        false,
    )
    .map_err(client_error)?;
    double.stop();
    let all_requests = double.requests();
    let second_requests = &all_requests[first_requests.len().min(all_requests.len())..];
    let second_sessions =
        adapter_sessions(&workspace, &data_home, client.id(), &mut session_labels)?;
    let (_, second_kinds, second_ids) = hook_lines(&capture_dir, first_lines, &mut client_labels);

    let protocol = client.protocol();
    let facts = ResumeFacts {
        held_name: client.id().to_owned(),
        first: run_facts(
            protocol,
            &first,
            &first_requests,
            first_kinds,
            first_ids,
            first_sessions,
        ),
        second: run_facts(
            protocol,
            &second,
            second_requests,
            second_kinds,
            second_ids,
            second_sessions,
        ),
    };

    let redactor: Redactor = redactor(&sandbox, installed, &settings.binaries);
    let requests: Vec<_> = all_requests.iter().map(|r| redactor.request(r)).collect();
    let hooks = hook_capture::read(&capture_dir, &redactor);
    let sessions: Vec<SessionFact> = {
        let mut core = room::open_core(&workspace, &data_home).map_err(store_error)?;
        room::sessions(&mut core).map_err(store_error)?
    };
    let mut network = first.network.clone();
    network.extend(second.network.iter().cloned());
    let observations = Observations {
        sessions,
        requests: request_facts(protocol, &requests),
        hooks: hooks.as_ref().map(|h| h.facts.clone()),
        resume: Some(facts),
        ..Observations::new(
            scenario,
            recipe.expectations(),
            tuple,
            protocol,
            RunFacts {
                exit_code: second.exit_code(),
                timed_out: first.timed_out || second.timed_out,
                network,
            },
        )
    };
    let verdicts = judged(recipe, &observations);
    let mut run = run_record(
        installed,
        &sandbox,
        &double,
        &extra,
        &first,
        &installed_files,
        &Room::default(),
        &redactor,
        false,
    );
    let mut resumed_command = vec![redactor.text(&installed.program.display().to_string())];
    resumed_command.extend(second_args.into_iter().map(|arg| {
        if arg == RESUME_PROMPT {
            "<prompt>".to_owned()
        } else {
            arg
        }
    }));
    run["resumed"] = serde_json::json!({
        "command": resumed_command,
        "durationMs": second.duration.as_millis() as u64,
        "exitCode": second.exit_code(),
        "timedOut": second.timed_out,
    });
    let bundle = Bundle {
        requests,
        stdout: redactor.text(&format!(
            "{}\n--- resumed ---\n{}",
            first.stdout, second.stdout
        )),
        stderr: redactor.text(&format!(
            "{}\n--- resumed ---\n{}",
            first.stderr, second.stderr
        )),
        hooks: hooks.map(|h| h.raw),
        observations: observations.clone(),
        run,
    };
    Ok(ScenarioRun {
        scenario,
        observations,
        verdicts,
        control: None,
        kernel_guard: None,
        bridge_guard: None,
        bundle,
        quit: None,
    })
}

/// The verdict on `lifecycle.sessionResume`.
pub fn judge(obs: &Observations) -> Verdict {
    let cap = Capability::SessionResume;
    let Some(facts) = &obs.resume else {
        return Verdict::new(
            cap,
            vec!["the observations carry no facts of the two runs".to_owned()],
            "",
        );
    };
    let mut failures = Vec::new();
    for (name, run) in [("first", &facts.first), ("resumed", &facts.second)] {
        if let Some(problem) = run.run.network_problem() {
            failures.push(problem);
        }
        if run.conversation_requests == 0 {
            failures.push(format!("the {name} run made no model request"));
        }
    }
    let first_participants: Vec<&str> = facts
        .first
        .sessions
        .iter()
        .map(|s| s.participant_id.as_str())
        .collect();
    let Some(participant) = first_participants.first().copied() else {
        failures.push(format!(
            "the first run opened no session of the {} adapter",
            obs.adapter
        ));
        return Verdict::new(cap, failures, "");
    };
    if first_participants.len() > 1 {
        failures.push(format!(
            "the first run opened {} sessions",
            first_participants.len()
        ));
    }
    if facts.second.conversation_requests > 0 && !facts.second.carries_first_answer {
        failures.push(
            "the client did not resume the conversation: the resumed run's first model request does not carry the first run's answer"
                .to_owned(),
        );
    }
    let acted = facts
        .second
        .hook_kinds
        .iter()
        .any(|k| k == EventKind::SessionStart.as_str() || k == EventKind::BeforeTurn.as_str());
    if !acted {
        failures
            .push("no session-start or before-turn hook of the resumed run reached acc".to_owned());
    }
    let known: Vec<&str> = facts
        .first
        .sessions
        .iter()
        .map(|s| s.label.as_str())
        .collect();
    let opened: Vec<&ResumeSession> = facts
        .second
        .sessions
        .iter()
        .filter(|s| !known.contains(&s.label.as_str()))
        .collect();
    for session in &opened {
        if session.participant_id != participant {
            let fresh = if session.participant_id == facts.held_name {
                " (the name a new conversation gets)"
            } else {
                ""
            };
            failures.push(format!(
                "the resumed run acted as {}{fresh}, not as {participant}, the first run's participant: acc did not recognise the conversation",
                session.participant_id
            ));
        }
    }
    if opened.len() > 1 {
        failures.push(format!(
            "the resumed run opened {} sessions for one conversation",
            opened.len()
        ));
    }
    let still_open = facts.first.sessions.iter().any(|s| s.state == "open");
    if still_open && !opened.is_empty() {
        failures.push(
            "the first run's session was still open, but the resumed run opened another one"
                .to_owned(),
        );
    }
    if !failures.is_empty()
        && let (Some(first), Some(second)) = (
            facts.first.client_sessions.first(),
            facts.second.client_sessions.first(),
        )
        && first != second
    {
        failures.push(
            "the client gave the resumed conversation a new session id, so acc could not find the first run's binding"
                .to_owned(),
        );
    }
    let success = if opened.is_empty() {
        "the resumed conversation's hooks acted in the first run's session, and no session was added"
    } else {
        "the resumed conversation came back as the first run's participant in one new session (the first had ended), where a new conversation would have taken the free default name"
    };
    Verdict::new(cap, failures, success)
}

/// A headless conversation, then the same one resumed by the client's own flag.
pub struct SessionResume;

impl crate::record::kit::recipe::Recipe for SessionResume {
    fn scenario(&self) -> crate::record::scenario::Scenario {
        crate::record::scenario::Scenario::SessionResume
    }

    fn run(
        &self,
        installed: &crate::clients::InstalledClient,
        tuple: &crate::record::kit::tuple::Tuple,
        settings: &crate::record::kit::run::RunSettings,
        control: Option<&crate::record::kit::observations::Observations>,
    ) -> Result<crate::record::kit::run::ScenarioRun, crate::record::kit::error::RecordError> {
        let _ = control;
        run_session_resume(self, installed, tuple, settings)
    }

    fn capabilities(&self) -> &'static [acc_sdk::capabilities::Capability] {
        &[acc_sdk::capabilities::Capability::SessionResume]
    }

    fn judge(
        &self,
        obs: &crate::record::kit::observations::Observations,
    ) -> Vec<crate::record::kit::verdict::Verdict> {
        vec![judge(obs)]
    }

    fn script(
        &self,
        _workspace: &Path,
    ) -> Result<crate::doubles::Script, crate::doubles::ScriptError> {
        crate::doubles::Script::new(Vec::new(), ANSWER)
    }
}

#[cfg(test)]
mod tests;
