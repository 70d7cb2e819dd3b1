//! What acc's store and the workspace hold between two client runs, read through acc's
//! own core (the way `acc status` and `acc sync` read it).

use std::path::Path;

use acc_runtime::core::events::EventType;
use acc_runtime::core::model::SyncScope;
use acc_runtime::core::sync::{MAX_LIMIT, SyncRequest};
use acc_runtime::ids::MessageId;
use acc_runtime::{AccError, Core};
use acc_sdk::certification::digest::sha256_hex;

use super::observations::{ClaimFact, FileState, MessageFact, StoreFacts};
use crate::record::kit::room;

/// The store's sessions, live claims and message envelopes, and the state of `target`
/// (workspace-relative).
pub fn snapshot(core: &mut Core, workspace: &Path, target: &str) -> Result<StoreFacts, AccError> {
    let sessions = room::sessions(core)?;
    let mut claims: Vec<ClaimFact> = core
        .live_claims()?
        .into_iter()
        .map(|c| ClaimFact {
            resource: c.resource.as_str().to_owned(),
            owner_participant_id: c.owner_participant_id.as_str().to_owned(),
            enforcement: c.enforcement.as_str().to_owned(),
        })
        .collect();
    claims.sort_by(|a, b| {
        (&a.resource, &a.owner_participant_id).cmp(&(&b.resource, &b.owner_participant_id))
    });
    Ok(StoreFacts {
        sessions,
        claims,
        messages: messages(core)?,
        target: file_state(&workspace.join(target)),
    })
}

/// Every recorded message, oldest first, from the event log's `message.recorded` entries.
fn messages(core: &mut Core) -> Result<Vec<MessageFact>, AccError> {
    let mut facts = Vec::new();
    let mut cursor = None;
    loop {
        let page = core.sync(
            None,
            SyncRequest {
                cursor,
                scope: SyncScope::History,
                limit: MAX_LIMIT,
                types: vec![EventType::MessageRecorded],
            },
        )?;
        for event in &page.events {
            let Some(id) = event.payload.get("messageId").and_then(|v| v.as_str()) else {
                continue;
            };
            let Some(message) = core.message(&MessageId::parse(id)?)? else {
                continue;
            };
            facts.push(MessageFact {
                message_id: message.message_id.as_str().to_owned(),
                from_participant_id: message.from_participant_id.as_str().to_owned(),
                to_participant_ids: message
                    .to_participant_ids
                    .iter()
                    .map(|p| p.as_str().to_owned())
                    .collect(),
                kind: message.kind.as_str().to_owned(),
                in_reply_to: message.in_reply_to.as_ref().map(|m| m.as_str().to_owned()),
            });
        }
        if page.events.len() < MAX_LIMIT || cursor == Some(page.cursor) {
            break;
        }
        cursor = Some(page.cursor);
    }
    Ok(facts)
}

/// The file's digest, or `None` when it does not exist (or is not a readable file).
pub fn file_state(path: &Path) -> FileState {
    FileState {
        sha256: std::fs::read(path).ok().map(|bytes| sha256_hex(&bytes)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use acc_runtime::Owner;
    use acc_runtime::core::claims::ClaimRequest;
    use acc_runtime::core::messages::SendMessage;
    use acc_runtime::core::model::{Enforcement, MessageKind};
    use acc_runtime::core::resources::Resource;
    use acc_runtime::core::sessions::{CLI_CADENCE_MS, OpenSession};
    use acc_runtime::ids::ParticipantId;

    fn attach(core: &mut Core, participant: &str) -> Owner {
        let session = core
            .open_session(OpenSession::new(
                ParticipantId::parse(participant).unwrap(),
                "claude-code",
                CLI_CADENCE_MS,
            ))
            .unwrap();
        Owner::new(session.session_id, session.generation)
    }

    #[test]
    fn the_snapshot_holds_claims_message_envelopes_and_the_files_digest() {
        let dir = tempfile::tempdir().unwrap();
        let ws = dir.path().join("ws");
        std::fs::create_dir_all(ws.join("src")).unwrap();
        let ok = std::process::Command::new("git")
            .args(["init", "-q"])
            .current_dir(&ws)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .status()
            .unwrap();
        assert!(ok.success());
        let mut core = room::open_core(&ws, &dir.path().join("data")).unwrap();
        let alice = attach(&mut core, "alice");
        let bob = attach(&mut core, "bob");
        let mut claim = ClaimRequest::new(Resource::parse("file:src/**").unwrap());
        claim.enforcement = Enforcement::Guarded;
        core.claim(&alice, claim).unwrap();
        let asked = core
            .send(
                &bob,
                SendMessage {
                    to: vec!["alice".into()],
                    kind: MessageKind::Question,
                    obligation: None,
                    subject: "secret subject".into(),
                    body: "secret body".into(),
                    client_message_id: None,
                },
            )
            .unwrap();
        core.reply(&alice, &asked.message.message_id, "yes", None, None)
            .unwrap();

        let before = snapshot(&mut core, &ws, "src/x").unwrap();
        assert_eq!(before.target.sha256, None);
        assert_eq!(
            before.claims,
            [ClaimFact {
                resource: "file:src/**".into(),
                owner_participant_id: "alice".into(),
                enforcement: "guarded".into()
            }]
        );
        let kinds: Vec<(&str, &str, Option<&str>)> = before
            .messages
            .iter()
            .map(|m| {
                (
                    m.kind.as_str(),
                    m.from_participant_id.as_str(),
                    m.in_reply_to.as_deref(),
                )
            })
            .collect();
        let question = asked.message.message_id.as_str();
        assert_eq!(
            kinds,
            [
                ("question", "bob", None),
                ("answer", "alice", Some(question))
            ]
        );
        assert_eq!(before.messages[0].to_participant_ids, ["alice"]);
        let json = serde_json::to_string(&before).unwrap();
        assert!(!json.contains("secret"), "no peer text is kept: {json}");
        assert_eq!(before.participants_of("claude-code"), ["alice", "bob"]);

        core.release_resource(&alice, &Resource::parse("file:src/**").unwrap())
            .unwrap();
        std::fs::write(ws.join("src/x"), "bytes\n").unwrap();
        let after = snapshot(&mut core, &ws, "src/x").unwrap();
        assert!(after.claims.is_empty());
        assert_eq!(after.target.sha256, Some(sha256_hex(b"bytes\n")));
    }
}
