//! Pruning: removes records nobody needs any more. A dry run unless applied. Never removes
//! a live or stale session, a live claim, or anything an unread message still needs.

use super::model::{IntentState, Presence, PruneClass};
use super::sessions;
use super::{Core, events, intents};
use crate::error::Result;
use crate::ids::EventSeq;
use crate::store::engine::params;
use serde::Serialize;
use std::collections::HashSet;

#[derive(Debug, Clone, PartialEq, Default)]
pub struct PruneRequest {
    /// Delete; otherwise only report.
    pub apply: bool,
    /// Record classes to consider; empty means all four.
    pub classes: Vec<PruneClass>,
    /// Also remove events up to and including this sequence.
    pub before: Option<EventSeq>,
}

#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PruneReport {
    pub applied: bool,
    pub sessions: Vec<String>,
    pub intents: Vec<String>,
    pub claims: Vec<String>,
    pub participants: Vec<String>,
    pub events: u64,
}

impl Core {
    /// Finds (and with `apply`, removes in one transaction): expired claims; intents that are
    /// done or whose session is offline; offline sessions that hold no claim; participants
    /// with no session left and no unresolved message; and, with `before`, old events.
    pub fn prune(&mut self, req: PruneRequest) -> Result<PruneReport> {
        let wants = |c: PruneClass| req.classes.is_empty() || req.classes.contains(&c);
        let ports = &self.ports;
        let now = ports.now();
        let run = |tx: &crate::store::engine::Connection| -> Result<PruneReport> {
            let mut report = PruneReport {
                applied: req.apply,
                ..Default::default()
            };
            let sessions = sessions::load_all(tx, false)?;
            let offline: HashSet<String> = sessions
                .iter()
                .filter(|s| s.presence(ports, now) == Presence::Offline)
                .map(|s| s.session_id.as_str().to_owned())
                .collect();
            let mut stmt = tx.prepare_cached(
                "SELECT claim_id, owner_session_id, expires_at FROM claims ORDER BY rowid",
            )?;
            let claims: Vec<(String, String, i64)> = stmt
                .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?
                .collect::<rusqlite::Result<_>>()?;
            if wants(PruneClass::Claims) {
                report.claims = claims
                    .iter()
                    .filter(|c| c.2 <= now)
                    .map(|c| c.0.clone())
                    .collect();
            }
            let remaining_owners: HashSet<&str> = claims
                .iter()
                .filter(|c| !report.claims.contains(&c.0))
                .map(|c| c.1.as_str())
                .collect();
            if wants(PruneClass::Intents) {
                report.intents = intents::load_all(tx)?
                    .into_iter()
                    .filter(|i| {
                        i.state == IntentState::Done || offline.contains(i.session_id.as_str())
                    })
                    .map(|i| i.session_id.as_str().to_owned())
                    .collect();
            }
            if wants(PruneClass::Sessions) {
                report.sessions = sessions
                    .iter()
                    .filter(|s| offline.contains(s.session_id.as_str()))
                    .filter(|s| !remaining_owners.contains(s.session_id.as_str()))
                    .map(|s| s.session_id.as_str().to_owned())
                    .collect();
            }
            if wants(PruneClass::Participants) {
                let mut stmt = tx.prepare_cached(
                    "SELECT p.participant_id FROM participants p
                     WHERE NOT EXISTS (SELECT 1 FROM receipts r JOIN messages m ON m.seq = r.message_seq
                         WHERE r.recipient_participant_id = p.participant_id
                           AND (r.state IN ('queued', 'offered')
                                OR (r.state = 'retrieved' AND m.obligation <> 'none')))
                     ORDER BY p.participant_id",
                )?;
                let candidates: Vec<String> = stmt
                    .query_map([], |r| r.get(0))?
                    .collect::<rusqlite::Result<_>>()?;
                report.participants = candidates
                    .into_iter()
                    .filter(|p| {
                        sessions
                            .iter()
                            .filter(|s| s.participant_id.as_str() == p)
                            .all(|s| report.sessions.contains(&s.session_id.as_str().to_owned()))
                    })
                    .collect();
            }
            if let Some(before) = req.before {
                events::refuse_beyond_head(
                    tx,
                    "--before",
                    before,
                    "pass a cursor that `acc sync` returned",
                )?;
                report.events = tx
                    .prepare_cached("SELECT count(*) FROM events WHERE sequence <= ?1")?
                    .query_row(params![before.0 as i64], |r| r.get::<_, i64>(0))?
                    as u64;
            }
            if req.apply {
                for id in &report.claims {
                    tx.execute("DELETE FROM claims WHERE claim_id = ?1", params![id])?;
                }
                for id in &report.intents {
                    tx.execute("DELETE FROM intents WHERE session_id = ?1", params![id])?;
                }
                for id in &report.sessions {
                    tx.execute(
                        "DELETE FROM hook_bindings WHERE session_id = ?1",
                        params![id],
                    )?;
                    tx.execute("DELETE FROM intents WHERE session_id = ?1", params![id])?;
                    tx.execute("DELETE FROM sessions WHERE session_id = ?1", params![id])?;
                }
                for id in &report.participants {
                    tx.execute(
                        "DELETE FROM participants WHERE participant_id = ?1",
                        params![id],
                    )?;
                }
                if let Some(before) = req.before {
                    tx.execute(
                        "DELETE FROM events WHERE sequence <= ?1",
                        params![before.0 as i64],
                    )?;
                }
            }
            Ok(report)
        };
        if req.apply {
            self.store.write(|tx| run(tx))
        } else {
            self.store.read(|tx| run(tx))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::claims::ClaimRequest;
    use crate::core::messages::SendMessage;
    use crate::core::model::MessageKind;
    use crate::core::resources::Resource;
    use crate::core::testkit::kit;

    #[test]
    fn dry_run_reports_and_apply_removes_only_dead_records() {
        let mut k = kit();
        let a = k.attach("alice");
        let b = k.attach("bob");
        let c = k.attach("carol");
        k.core
            .claim(&a, ClaimRequest::new(Resource::parse("file:x").unwrap()))
            .unwrap();
        k.core
            .send(
                &a,
                SendMessage {
                    to: vec!["carol".into()],
                    kind: MessageKind::Note,
                    obligation: None,
                    subject: "unread".into(),
                    body: String::new(),
                    client_message_id: None,
                },
            )
            .unwrap();
        k.core.close_session(&a, None).unwrap();
        k.core.close_session(&b, None).unwrap();
        k.core.close_session(&c, None).unwrap();
        let dry = k.core.prune(PruneRequest::default()).unwrap();
        assert!(!dry.applied);
        // Alice's session still holds a live claim; carol has an unread message.
        assert_eq!(
            dry.sessions,
            vec![b.session.to_string(), c.session.to_string()]
        );
        assert_eq!(dry.participants, vec!["bob".to_string()]);
        assert!(dry.claims.is_empty());
        assert_eq!(
            k.count("SELECT count(*) FROM sessions"),
            3,
            "dry run removes nothing"
        );
        let applied = k
            .core
            .prune(PruneRequest {
                apply: true,
                ..Default::default()
            })
            .unwrap();
        assert_eq!(applied.sessions.len(), 2);
        assert_eq!(k.count("SELECT count(*) FROM sessions"), 1);
        assert_eq!(k.count("SELECT count(*) FROM participants"), 2);
        assert_eq!(
            k.count("SELECT count(*) FROM messages"),
            1,
            "messages are never pruned"
        );
        // After the lease runs out the claim and then its session go too.
        k.clock.advance_ms(1800 * 1000 + 1);
        let later = k
            .core
            .prune(PruneRequest {
                apply: true,
                ..Default::default()
            })
            .unwrap();
        assert_eq!(later.claims.len(), 1);
        assert_eq!(later.sessions, vec![a.session.to_string()]);
    }

    #[test]
    fn live_sessions_are_never_pruned_and_history_is_trimmed_by_cursor() {
        let mut k = kit();
        k.attach("alice");
        let r = k
            .core
            .prune(PruneRequest {
                apply: true,
                classes: vec![],
                before: Some(EventSeq(1)),
            })
            .unwrap();
        assert!(r.sessions.is_empty());
        assert_eq!(r.events, 1);
        assert_eq!(k.count("SELECT min(sequence) FROM events"), 2);
        let only = k
            .core
            .prune(PruneRequest {
                apply: false,
                classes: vec![PruneClass::Claims],
                before: None,
            })
            .unwrap();
        assert!(only.sessions.is_empty() && only.participants.is_empty());
    }

    #[test]
    fn a_before_cursor_beyond_the_head_is_refused_and_nothing_is_removed() {
        let mut k = kit();
        k.attach("alice");
        for apply in [false, true] {
            let e = k
                .core
                .prune(PruneRequest {
                    apply,
                    classes: vec![],
                    before: Some(EventSeq(3)),
                })
                .unwrap_err();
            assert_eq!(e.code, crate::error::ErrorCode::InvalidCursor);
            assert!(
                e.message.starts_with("--before 0000000000000003"),
                "{}",
                e.message
            );
            assert!(e.message.contains("(0000000000000002)"), "{}", e.message);
        }
        assert_eq!(k.count("SELECT count(*) FROM events"), 2);
    }
}
