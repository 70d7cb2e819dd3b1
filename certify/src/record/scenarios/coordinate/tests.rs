//! The doubles' agents against the requests real clients sent in the committed pair
//! recordings: each request gets the `acc` command its store facts call for.

use std::path::{Path, PathBuf};

use super::bundle::judge_committed;
use super::observations::{CoordinationObservations, Turn};
use crate::doubles::exchange::DoubleRequest;
use crate::doubles::log::read_jsonl;
use crate::doubles::{Agent, LoggedRequest, Protocol, Script};
use crate::record::kit::verdict::is_conversation;
use crate::record::output::bundle::OBSERVATIONS_FILE;
use crate::record::scenario::CLAIMED_RESOURCE;

fn pair_dirs() -> Vec<PathBuf> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../captures/coordinate");
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&root)
        .unwrap_or_else(|e| panic!("{}: {e}", root.display()))
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.is_dir())
        .collect();
    dirs.sort();
    dirs
}

fn observations(dir: &Path) -> CoordinationObservations {
    serde_json::from_slice(&std::fs::read(dir.join(OBSERVATIONS_FILE)).unwrap()).unwrap()
}

/// The run's conversation requests, as the double received them.
fn conversation(dir: &Path, turn: Turn, protocol: Protocol) -> Vec<LoggedRequest> {
    read_jsonl(&dir.join(turn.name()).join("requests.jsonl"))
        .unwrap()
        .into_iter()
        .filter(|r| is_conversation(protocol, &r.method, &r.path))
        .collect()
}

fn answer(protocol: Protocol, logged: &LoggedRequest, agent: Agent) -> String {
    let mut request = DoubleRequest::post(&logged.path, logged.body.clone());
    request.query = logged.query.clone();
    protocol
        .respond(&request, &Script::agent(agent, "Done."))
        .text()
}

#[test]
fn both_pairs_are_recorded_and_judge_again_as_recorded() {
    let dirs = pair_dirs();
    assert_eq!(dirs.len(), super::PAIRS.len(), "{dirs:?}");
    for dir in &dirs {
        let obs = observations(dir);
        assert_eq!(judge_committed(dir).unwrap(), super::judge(&obs));
        assert_eq!(
            obs.runs.iter().map(|r| r.turn).collect::<Vec<_>>(),
            Turn::ALL
        );
    }
}

#[test]
fn the_owner_claims_with_the_flags_of_its_first_request() {
    for dir in pair_dirs() {
        let obs = observations(&dir);
        let protocol: Protocol = obs.owner.protocol.parse().unwrap();
        let first = &conversation(&dir, Turn::OwnerClaims, protocol)[0];
        let reply = answer(
            protocol,
            first,
            Agent::Owner {
                resource: CLAIMED_RESOURCE.into(),
            },
        );
        let flags = crate::doubles::reading::cli_flags(&protocol.model_visible_text(&first.body))
            .unwrap_or_else(|| panic!("{}: the first request has no identity", dir.display()));
        assert!(reply.contains("acc claim --resource"), "{reply}");
        assert!(
            reply.contains(flags.get("session").unwrap()),
            "{}: the claim carries this request's session",
            dir.display()
        );
    }
}

#[test]
fn the_asker_asks_the_participant_the_store_says_holds_the_claim() {
    let mut checked = 0;
    for dir in pair_dirs() {
        let obs = observations(&dir);
        let Some(holder) = obs
            .run(Turn::OwnerClaims)
            .and_then(|run| run.after.claims.first())
        else {
            continue;
        };
        let protocol: Protocol = obs.asker.protocol.parse().unwrap();
        let refused = conversation(&dir, Turn::AskerWrites, protocol)
            .into_iter()
            .find(|r| protocol.tool_results(&r.body).len() == 1)
            .expect("a request carrying the refused write's result");
        let reply = answer(
            protocol,
            &refused,
            Agent::Asker {
                path: "/ws/src/x".into(),
                content: "x\n".into(),
            },
        );
        let expected = format!(
            "acc message --to {} --type question",
            holder.owner_participant_id
        );
        assert!(reply.contains(&expected), "{}: {reply}", dir.display());
        checked += 1;
    }
    assert!(checked > 0, "no recorded pair got this far");
}

#[test]
fn the_owner_answers_the_question_id_the_store_recorded() {
    let mut checked = 0;
    for dir in pair_dirs() {
        let obs = observations(&dir);
        let Some(question) = obs
            .run(Turn::AskerWrites)
            .and_then(|run| run.after.messages.iter().find(|m| m.kind == "question"))
        else {
            continue;
        };
        let protocol: Protocol = obs.owner.protocol.parse().unwrap();
        let first = &conversation(&dir, Turn::OwnerAnswers, protocol)[0];
        let reply = answer(
            protocol,
            first,
            Agent::Owner {
                resource: CLAIMED_RESOURCE.into(),
            },
        );
        let expected = format!("acc reply --message {} ", question.message_id);
        assert!(reply.contains(&expected), "{}: {reply}", dir.display());
        checked += 1;
    }
    assert!(checked > 0, "no recorded pair got this far");
}
