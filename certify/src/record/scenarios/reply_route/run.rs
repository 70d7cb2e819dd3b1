//! The two client runs of `reply-route`, in one sandbox against one double: the asking run
//! (the model asks the peer through the client's shell tool running the real `acc`), the
//! peer's answer while no session of the asker lives, then a new conversation of the same
//! participant.

use std::collections::BTreeMap;

use acc_runtime::core::model::MessageKind;
use acc_runtime::ids::MessageId;
use acc_runtime::{AccError, Core, Owner};

use crate::clients::run::run_headless_with;
use crate::clients::{InstalledClient, RunOutput, Sandbox};
use crate::doubles::{Agent, ModelDouble, Script};
use crate::record::kit::error::RecordError;
use crate::record::kit::facts::AskingRun;
use crate::record::kit::headless::{redactor, run_record};
use crate::record::kit::hook_capture;
use crate::record::kit::install::install_adapter;
use crate::record::kit::observations::{Observations, RunFacts};
use crate::record::kit::observe::request_facts;
use crate::record::kit::recipe::{Recipe, judged};
use crate::record::kit::room::{self, Room};
use crate::record::kit::run::{Bundle, RunSettings, ScenarioRun};
use crate::record::kit::tuple::Tuple;
use crate::record::scenario::{FINAL_TEXT, PEER, PROMPT};
use crate::record::scenarios::coordinate::run::{allow_acc, extra_env, write_profile};

use super::{ANSWER_BODY, QUESTION_BODY, QUESTION_SUBJECT, ReplyRoute, observe_reply};

/// What the recorder saw between the two runs: the question the asking run left, the
/// session that asked, and the answer the peer gave to it.
#[derive(Debug, Clone, Default)]
pub struct Asked {
    pub question: Option<MessageId>,
    pub session_harness: Option<String>,
    /// The asking session's state when the peer answered.
    pub session_state: Option<String>,
    pub answer: Option<MessageId>,
}

/// The model double of the asking run: it asks once its identity line shows.
pub fn asking_script() -> Script {
    Script::agent(
        Agent::Questioner {
            to: PEER.to_owned(),
            subject: QUESTION_SUBJECT.to_owned(),
            body: QUESTION_BODY.to_owned(),
        },
        FINAL_TEXT,
    )
}

/// The question the agent's client asked `peer`, and the peer's answer to it through the
/// core's `reply` (what `acc reply` runs), given while the asking session has ended.
pub fn answer_question(core: &mut Core, peer: &Owner) -> Result<Asked, AccError> {
    let page = core.inbox(peer, None, Some(500))?;
    let Some(question) = page
        .items
        .iter()
        .find(|item| item.kind == MessageKind::Question)
    else {
        return Ok(Asked::default());
    };
    let session = core.session(&question.from_session_id)?;
    let answer = core.reply(peer, &question.message_id, ANSWER_BODY, None, None)?;
    Ok(Asked {
        question: Some(question.message_id.clone()),
        session_harness: session.as_ref().map(|s| s.harness.clone()),
        session_state: session.map(|s| s.state.as_str().to_owned()),
        answer: Some(answer.message.message_id),
    })
}

pub fn run(
    recipe: &ReplyRoute,
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
    let mut double = ModelDouble::start(client.protocol(), asking_script()).map_err(|e| {
        RecordError::Double {
            message: e.to_string(),
        }
    })?;
    sandbox
        .write_base_config(double.port())
        .map_err(client_error)?;
    allow_acc(&sandbox, client).map_err(client_error)?;
    write_profile(&sandbox, &settings.binaries)?;
    let installed_files = install_adapter(client.id(), &sandbox, &settings.binaries)?;
    let peer = {
        let mut core = room::open_core(&workspace, &data_home)?;
        room::attach_as(&mut core, PEER)?
    };
    let capture_dir = sandbox.root().join("hook-capture");
    std::fs::create_dir_all(&capture_dir).map_err(|e| RecordError::Write {
        message: format!("creating {}: {e}", capture_dir.display()),
    })?;
    let mut extra: BTreeMap<String, String> = recipe.environment(&capture_dir);
    extra.extend(extra_env(installed, &settings.binaries, &capture_dir));

    let asking = run_headless_with(
        installed,
        &sandbox,
        double.port(),
        PROMPT,
        settings.timeout,
        &extra,
        false,
    )
    .map_err(client_error)?;
    let asking_requests = double.requests().len();
    let asked = {
        let mut core = room::open_core(&workspace, &data_home)?;
        answer_question(&mut core, &peer)?
    };
    double.set_script(Script::text_only(FINAL_TEXT));
    let coming_back = run_headless_with(
        installed,
        &sandbox,
        double.port(),
        PROMPT,
        settings.timeout,
        &extra,
        false,
    )
    .map_err(client_error)?;
    double.stop();

    let redactor = redactor(&sandbox, installed, &settings.binaries);
    let requests: Vec<_> = double
        .requests()
        .iter()
        .map(|r| redactor.request(r))
        .collect();
    let hooks = hook_capture::read(&capture_dir, &redactor);
    let protocol = client.protocol();
    let mut core = room::open_core(&workspace, &data_home)?;
    let sessions = room::sessions(&mut core)?;
    let (message, reply) = observe_reply(&mut core, &asked)?;
    let mut network = asking.network.clone();
    network.extend(coming_back.network.iter().cloned());
    let mut observations = Observations {
        sessions,
        message,
        reply,
        // The judge reads the new conversation's requests: its first is the one that counts.
        requests: request_facts(protocol, &requests[asking_requests.min(requests.len())..]),
        hooks: hooks.as_ref().map(|h| h.facts.clone()),
        ..Observations::new(
            scenario,
            recipe.expectations(),
            tuple,
            protocol,
            RunFacts {
                exit_code: coming_back.exit_code(),
                timed_out: asking.timed_out || coming_back.timed_out,
                network,
            },
        )
    };
    if let Some(reply) = observations.reply.as_mut() {
        reply.asking_run = Some(asking_facts(protocol, &asking, &requests[..asking_requests]));
    }
    let verdicts = judged(recipe, &observations);
    let room = Room {
        peer: Some(peer),
        agent: None,
        message: asked.answer.clone(),
    };
    let mut run = run_record(
        installed,
        &sandbox,
        &double,
        &extra,
        &coming_back,
        &installed_files,
        &room,
        &redactor,
        false,
    );
    run["asking"] = serde_json::json!({
        "durationMs": asking.duration.as_millis() as u64,
        "exitCode": asking.exit_code(),
        "timedOut": asking.timed_out,
        "requests": asking_requests,
    });
    let bundle = Bundle {
        requests,
        stdout: redactor.text(&format!(
            "{}\n--- new conversation ---\n{}",
            asking.stdout, coming_back.stdout
        )),
        stderr: redactor.text(&format!(
            "{}\n--- new conversation ---\n{}",
            asking.stderr, coming_back.stderr
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
        quit: None,
        bundle,
    })
}

/// What the asking run showed: how it ended and what its model's tool calls said.
fn asking_facts(
    protocol: crate::doubles::Protocol,
    output: &RunOutput,
    requests: &[crate::doubles::LoggedRequest],
) -> AskingRun {
    let facts = request_facts(protocol, requests);
    AskingRun {
        exit_code: output.exit_code(),
        timed_out: output.timed_out,
        tool_results: facts
            .last()
            .map(|r| r.tool_results.clone())
            .unwrap_or_default(),
    }
}
