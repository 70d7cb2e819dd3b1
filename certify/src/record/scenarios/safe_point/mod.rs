//! The `safe-point` scenario: does context added after a tool call reach the model's next
//! request within the same turn?
//!
//! The agent participant and a peer are in the room, nothing queued. The double asks for a
//! shell call; the moment it has decided to (before its answer leaves), the peer sends the
//! agent a note, so the body is queued while the call is in flight and after the turn's
//! own context was built. Where the client's post-tool hook can add context, acc shows the
//! body there: the judge wants it in the request that carries the call's result, not in
//! the one before, and once only in the conversation's last request (the second call's
//! post-tool hook must not show it again), with its receipt offered.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use acc_runtime::Owner;
use acc_runtime::core::messages::SendMessage;
use acc_runtime::core::model::MessageKind;
use acc_runtime::ids::MessageId;
use acc_sdk::capabilities::Capability;

use crate::doubles::{ModelDouble, Protocol, Script, Step};
use crate::record::kit::model_text::block_names_message;
use crate::record::kit::observations::{Observations, RequestFact};
use crate::record::kit::room;
use crate::record::kit::verdict::{Verdict, conversation_requests};
use crate::record::scenario::{AGENT, FREE_FILE};

/// The note the peer sends mid-turn (untrusted peer text: never copied into a fixture).
pub const SUBJECT: &str = "sent while your tool call ran";
pub const BODY: &str = "I am about to rename src/; hold your edits there.";
/// Written by the second call, whose post-tool hook must not show the body again.
pub const AFTER: &str = "after.txt";

/// Two shell calls, each into an unclaimed file.
pub fn steps() -> Vec<Step> {
    vec![
        Step::shell(format!("echo ok > {FREE_FILE}")),
        Step::shell(format!("echo ok > {AFTER}")),
    ]
}

/// Whether the double's answer is the first tool call of the scripted turn (`answered` is
/// e.g. `tool_use:Bash step=0`); side calls and text answers are not.
pub fn is_first_call(answered: &str) -> bool {
    answered.ends_with(" step=0")
        && !answered.starts_with("side_call")
        && !answered.starts_with("text")
}

/// The note's id once the double had the peer send it, or why the send failed.
pub type Sent = Arc<OnceLock<Result<MessageId, String>>>;

/// Where the peer's note is sent from, once.
struct Sender {
    workspace: PathBuf,
    data_home: PathBuf,
    peer: Owner,
}

/// Starts a double that, on deciding the turn's first tool call, has the peer send its note
/// before the answer leaves. The returned cell holds the note's id once sent.
pub fn start_double(
    protocol: Protocol,
    script: Script,
    workspace: &Path,
    data_home: &Path,
    peer: Owner,
) -> std::io::Result<(ModelDouble, Sent)> {
    let sent: Sent = Arc::new(OnceLock::new());
    let sender = Mutex::new(Some(Sender {
        workspace: workspace.to_path_buf(),
        data_home: data_home.to_path_buf(),
        peer,
    }));
    let cell = Arc::clone(&sent);
    let double = ModelDouble::start_with(
        Box::new(move |request, script| {
            let reply = protocol.respond(request, script);
            if is_first_call(&reply.answered)
                && let Some(sender) = sender.lock().unwrap_or_else(PoisonError::into_inner).take()
            {
                let _ = cell.set(send(&sender));
            }
            reply
        }),
        script,
    )?;
    Ok((double, sent))
}

fn send(sender: &Sender) -> Result<MessageId, String> {
    let mut core =
        room::open_core(&sender.workspace, &sender.data_home).map_err(|e| e.to_string())?;
    core.send(
        &sender.peer,
        SendMessage {
            to: vec![AGENT.to_owned()],
            kind: MessageKind::Note,
            obligation: None,
            subject: SUBJECT.to_owned(),
            body: BODY.to_owned(),
            client_message_id: None,
        },
    )
    .map(|sent| sent.message.message_id)
    .map_err(|e| e.to_string())
}

fn names(request: &RequestFact, message_id: &str) -> usize {
    request
        .peer_blocks
        .iter()
        .filter(|block| block_names_message(block, message_id))
        .count()
}

/// Was the note shown after the first call, in the same turn, once?
pub fn judge(obs: &Observations) -> Verdict {
    let cap = Capability::SafePointInjection;
    let Some(message) = &obs.message else {
        return Verdict::new(
            cap,
            vec![
                "the peer's note was not sent: the double never issued the turn's first tool call"
                    .to_owned(),
            ],
            "",
        );
    };
    let id = message.message_id.as_str();
    let requests = conversation_requests(obs);
    let mut reasons = Vec::new();
    let before = requests.iter().find(|r| r.tool_results.is_empty());
    if before.is_some_and(|r| names(r, id) > 0) {
        reasons.push(
            "the request that issued the tool call already showed the note: it was not sent mid-turn"
                .to_owned(),
        );
    }
    match requests.iter().find(|r| !r.tool_results.is_empty()) {
        None => reasons.push("the client sent no tool result back".to_owned()),
        Some(after) if names(after, id) == 0 => {
            let later = requests.iter().any(|r| names(r, id) > 0);
            reasons.push(if later {
                "the request carrying the tool call's result did not show the note; a later request did".to_owned()
            } else {
                "no model request showed the fenced acc-peer-message block naming the note: the post-tool hook's context did not reach the model".to_owned()
            });
        }
        Some(_) => {}
    }
    if let Some(last) = requests.last() {
        let shown = names(last, id);
        if shown > 1 {
            reasons.push(format!(
                "the conversation's last request shows the note {shown} times: it was shown again"
            ));
        }
    }
    match message.receipt_state.as_deref() {
        Some("offered") => {}
        Some(state) => reasons.push(format!("the receipt is {state}, not offered")),
        None => reasons.push("the receipt is no longer listed as unresolved".to_owned()),
    }
    Verdict::new(
        cap,
        reasons,
        "a note sent while the turn's tool call ran reached the model in the request carrying that call's result, once, and its receipt became offered",
    )
}

/// A peer's note sent while the turn's tool call runs must reach the next request, once.
pub struct SafePoint;

impl crate::record::kit::recipe::Recipe for SafePoint {
    fn scenario(&self) -> crate::record::scenario::Scenario {
        crate::record::scenario::Scenario::SafePoint
    }

    fn run(
        &self,
        installed: &crate::clients::InstalledClient,
        tuple: &crate::record::kit::tuple::Tuple,
        settings: &crate::record::kit::run::RunSettings,
        control: Option<&crate::record::kit::observations::Observations>,
    ) -> Result<crate::record::kit::run::ScenarioRun, crate::record::kit::error::RecordError> {
        crate::record::kit::headless::run(self, installed, tuple, settings, control)
    }

    fn capabilities(&self) -> &'static [acc_sdk::capabilities::Capability] {
        &[acc_sdk::capabilities::Capability::SafePointInjection]
    }

    fn judge(
        &self,
        obs: &crate::record::kit::observations::Observations,
    ) -> Vec<crate::record::kit::verdict::Verdict> {
        vec![judge(obs)]
    }

    fn candidates(&self) -> &'static [acc_sdk::capabilities::Capability] {
        &[acc_sdk::capabilities::Capability::SafePointInjection]
    }

    fn has_peer(&self) -> bool {
        true
    }

    fn pinned_participant(&self) -> Option<&'static str> {
        Some(crate::record::scenario::AGENT)
    }

    fn decisive_hook(&self) -> acc_sdk::event::EventKind {
        acc_sdk::event::EventKind::AfterTool
    }

    fn script(&self, _workspace: &Path) -> Result<Script, crate::doubles::ScriptError> {
        Script::new(steps(), crate::record::scenario::FINAL_TEXT)
    }

    fn room(
        &self,
        core: &mut acc_runtime::Core,
    ) -> Result<crate::record::kit::room::Room, acc_runtime::AccError> {
        crate::record::kit::room::agent_and_peer(core)
    }

    /// The double has the peer send its note when it decides the turn's first tool call.
    fn start_double(
        &self,
        setup: crate::record::kit::recipe::DoubleSetup<'_>,
    ) -> std::io::Result<(ModelDouble, crate::record::kit::run::MidTurn)> {
        let Some(peer) = setup.room.peer.clone() else {
            return Ok((ModelDouble::start(setup.protocol, setup.script)?, None));
        };
        let (double, sent) = start_double(
            setup.protocol,
            setup.script,
            setup.workspace,
            &setup.acc_data_home,
            peer,
        )?;
        Ok((double, Some(sent)))
    }
}

#[cfg(test)]
mod tests;
