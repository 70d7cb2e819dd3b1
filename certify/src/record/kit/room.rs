//! The room the client walks into, set up through acc's own core before the client starts,
//! and what acc's store says after it exited.

use std::path::Path;

use acc_runtime::core::claims::ClaimRequest;
use acc_runtime::core::messages::SendMessage;
use acc_runtime::core::model::{Enforcement, MessageKind};
use acc_runtime::core::resources::Resource;
use acc_runtime::core::sessions::{CLI_CADENCE_MS, OpenSession};
use acc_runtime::env::Env;
use acc_runtime::ids::{MessageId, ParticipantId};
use acc_runtime::store::OpenMode;
use acc_runtime::{AccError, Core, Owner, Ports, workspace};
use serde_json::Value;

use crate::record::kit::observations::{MessageFact, SessionFact};
use crate::record::scenario::{AGENT, CLAIMED_RESOURCE, PEER, PEER_BODY, PEER_SUBJECT};

/// The harness the recorder's own sessions are opened with, so they are never mistaken for
/// the client's.
pub const RECORDER_HARNESS: &str = "acc-certify";

/// Opens the store of the workspace at `workspace` under `data_home`, exactly as the hook
/// and the `acc` CLI find it.
pub fn open_core(workspace: &Path, data_home: &Path) -> Result<Core, AccError> {
    let descriptor = workspace::discover(workspace, &Env::new())?;
    Core::open(descriptor, data_home, OpenMode::ReadWrite, Ports::system())
}

/// What the recorder put in the store.
#[derive(Debug, Clone, Default)]
pub struct Room {
    pub peer: Option<Owner>,
    pub agent: Option<Owner>,
    pub message: Option<MessageId>,
}

/// Opens an unguarded session for `participant` as the recorder.
pub fn attach_as(core: &mut Core, participant: &str) -> Result<Owner, AccError> {
    attach(core, participant, false)
}

fn attach(core: &mut Core, participant: &str, guarded: bool) -> Result<Owner, AccError> {
    let mut req = OpenSession::new(
        ParticipantId::parse(participant)?,
        RECORDER_HARNESS,
        CLI_CADENCE_MS,
    );
    if guarded {
        req.enforcement = Enforcement::Guarded;
    }
    let session = core.open_session(req)?;
    Ok(Owner::new(session.session_id, session.generation))
}

/// The guard scenarios' room: a guarded claim on `src/**` held by the peer.
pub fn guarded_claim(core: &mut Core) -> Result<Room, AccError> {
    let peer = attach(core, PEER, true)?;
    let mut claim = ClaimRequest::new(Resource::parse(CLAIMED_RESOURCE)?);
    claim.enforcement = Enforcement::Guarded;
    claim.reason = Some("acc-certify guard scenario".to_owned());
    core.claim(&peer, claim)?;
    Ok(Room {
        peer: Some(peer),
        ..Room::default()
    })
}

/// `next-turn`'s room: the agent participant (so the message can be addressed to it) and a
/// note from the peer queued for it.
pub fn queued_note(core: &mut Core) -> Result<Room, AccError> {
    let agent = attach(core, AGENT, false)?;
    let peer = attach(core, PEER, false)?;
    let sent = core.send(
        &peer,
        SendMessage {
            to: vec![AGENT.to_owned()],
            kind: MessageKind::Note,
            obligation: None,
            subject: PEER_SUBJECT.to_owned(),
            body: PEER_BODY.to_owned(),
            client_message_id: None,
        },
    )?;
    Ok(Room {
        peer: Some(peer),
        agent: Some(agent),
        message: Some(sent.message.message_id),
    })
}

/// The agent and the peer, attached; nothing sent yet.
pub fn agent_and_peer(core: &mut Core) -> Result<Room, AccError> {
    let agent = attach(core, AGENT, false)?;
    let peer = attach(core, PEER, false)?;
    Ok(Room {
        peer: Some(peer),
        agent: Some(agent),
        message: None,
    })
}

/// The peer alone, present at start.
pub fn peer_present(core: &mut Core) -> Result<Room, AccError> {
    Ok(Room {
        peer: Some(attach(core, PEER, false)?),
        ..Room::default()
    })
}

/// Every session in the store, closed ones included, with what the hook runtime kept in its
/// extensions.
pub fn sessions(core: &mut Core) -> Result<Vec<SessionFact>, AccError> {
    let status = core.status(None, true)?;
    let mut facts = Vec::new();
    for listed in status.sessions {
        let Some(record) = core.session(&listed.session_id)? else {
            continue;
        };
        let ext = &record.extensions;
        let text = |v: Option<&Value>| v.and_then(Value::as_str).map(str::to_owned);
        let client = ext.get("client");
        facts.push(SessionFact {
            participant_id: record.participant_id.to_string(),
            harness: record.harness.clone(),
            state: record.state.as_str().to_owned(),
            adapter_id: text(ext.get("adapterId")),
            client_name: text(client.and_then(|c| c.get("name"))),
            client_version: text(client.and_then(|c| c.get("version"))),
            end_reason: text(ext.get("endReason")),
            certify_candidates: ext
                .get("certifyCandidates")
                .and_then(Value::as_array)
                .map(|items| {
                    items
                        .iter()
                        .filter_map(Value::as_str)
                        .map(str::to_owned)
                        .collect()
                })
                .unwrap_or_default(),
        });
    }
    // The store lists by start time; equal times must not reorder a bundle between runs.
    facts.sort_by(|a, b| {
        (&a.harness, &a.participant_id, &a.state).cmp(&(&b.harness, &b.participant_id, &b.state))
    });
    Ok(facts)
}

/// The queued message's receipt for the agent participant, read through the agent's own
/// session (a read leaves receipts as they are).
/// The targets of every write into a peer's guarded claim the post-tool hook noticed.
pub fn detected_writes(core: &mut Core) -> Result<Vec<String>, AccError> {
    let status = core.status(None, true)?;
    Ok(status
        .detected_writes
        .listed
        .into_iter()
        .map(|d| d.target)
        .collect())
}

pub fn message(core: &mut Core, room: &Room) -> Result<Option<MessageFact>, AccError> {
    let (Some(agent), Some(id)) = (&room.agent, &room.message) else {
        return Ok(None);
    };
    let page = core.inbox(agent, None, Some(500))?;
    let state = page
        .items
        .iter()
        .find(|item| item.message_id == *id)
        .map(|item| item.receipt_state.as_str().to_owned());
    Ok(Some(MessageFact {
        message_id: id.to_string(),
        recipient: AGENT.to_owned(),
        receipt_state: state,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::process::Command;

    fn workspace() -> (tempfile::TempDir, std::path::PathBuf, std::path::PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let ws = dir.path().join("ws");
        std::fs::create_dir_all(&ws).unwrap();
        let ok = Command::new("git")
            .args(["init", "-q"])
            .current_dir(&ws)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .status()
            .unwrap();
        assert!(ok.success());
        let data = dir.path().join("data");
        (dir, ws, data)
    }

    #[test]
    fn the_guard_room_holds_a_guarded_claim_of_the_peer() {
        let (_dir, ws, data) = workspace();
        let mut core = open_core(&ws, &data).unwrap();
        let room = guarded_claim(&mut core).unwrap();
        assert!(room.peer.is_some() && room.message.is_none());
        let claims = core.live_claims().unwrap();
        assert_eq!(claims.len(), 1);
        assert_eq!(claims[0].resource.as_str(), CLAIMED_RESOURCE);
        assert_eq!(claims[0].enforcement, Enforcement::Guarded);
        assert_eq!(claims[0].owner_participant_id.as_str(), PEER);
        let sessions = sessions(&mut core).unwrap();
        assert_eq!(sessions.len(), 1);
        assert_eq!(sessions[0].harness, RECORDER_HARNESS);
    }

    #[test]
    fn the_next_turn_room_queues_one_note_for_the_agent() {
        let (_dir, ws, data) = workspace();
        let mut core = open_core(&ws, &data).unwrap();
        let room = queued_note(&mut core).unwrap();
        let fact = message(&mut core, &room).unwrap().unwrap();
        assert_eq!(fact.receipt_state.as_deref(), Some("queued"));
        assert_eq!(fact.recipient, AGENT);
        let participants: Vec<String> = sessions(&mut core)
            .unwrap()
            .into_iter()
            .map(|s| s.participant_id)
            .collect();
        assert_eq!(participants, [AGENT, PEER]);
    }
}
