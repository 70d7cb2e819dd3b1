//! Sync: what changed since a cursor. `delta` returns other sessions' events, `history`
//! every event, `full` a snapshot at the current head. Sync never changes receipts.

use super::attention;
use super::claims::ClaimRecord;
use super::decisions::{self, DecisionSummary};
use super::events::{self, Event, EventType};
use super::model::{Presence, Protection, SyncScope};
use super::sessions::check_owner;
use super::status::{self, StatusSession};
use super::{Core, Owner};
use crate::error::{AccError, Result};
use crate::ids::{EventSeq, ParticipantId, SessionId};
use acc_sdk::context::AttentionItem;
use serde::Serialize;

pub const DEFAULT_LIMIT: usize = 100;
pub const MAX_LIMIT: usize = 500;

#[derive(Debug, Clone, PartialEq)]
pub struct SyncRequest {
    /// The last sequence seen; `None` starts from the beginning.
    pub cursor: Option<EventSeq>,
    pub scope: SyncScope,
    pub limit: usize,
    /// Only these event types (empty: all).
    pub types: Vec<EventType>,
}

impl Default for SyncRequest {
    fn default() -> Self {
        SyncRequest {
            cursor: None,
            scope: SyncScope::Delta,
            limit: DEFAULT_LIMIT,
            types: Vec::new(),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RosterEntry {
    pub session_id: SessionId,
    pub participant_id: ParticipantId,
    pub parent_session_id: Option<String>,
    pub harness: String,
    pub branch: Option<String>,
    pub presence: Presence,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Snapshot {
    pub sessions: Vec<StatusSession>,
    pub claims: Vec<ClaimRecord>,
    pub protection: Protection,
    /// The decisions in force the caller may read (see `core::decisions::in_force`).
    pub decisions: Vec<DecisionSummary>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SyncResult {
    /// Pass back as the next cursor.
    pub cursor: EventSeq,
    pub scope: SyncScope,
    /// No non-offline peer, no attention and no live claim.
    pub solo: bool,
    pub attention: Vec<AttentionItem>,
    pub roster: Vec<RosterEntry>,
    pub events: Vec<Event>,
    pub snapshot: Option<Snapshot>,
}

impl Core {
    /// Reads changes since `req.cursor`. With an owner, attention is the owner
    /// participant's and `delta` leaves out the owner session's own events.
    pub fn sync(&mut self, owner: Option<&Owner>, req: SyncRequest) -> Result<SyncResult> {
        if !(1..=MAX_LIMIT).contains(&req.limit) {
            return Err(AccError::usage(format!(
                "limit must be between 1 and {MAX_LIMIT}, got {}",
                req.limit
            )));
        }
        let ports = &self.ports;
        let now = ports.now();
        self.store.read(|c| {
            if let Some(cursor) = req.cursor {
                events::refuse_beyond_head(
                    c,
                    "cursor",
                    cursor,
                    "pass a cursor a previous sync returned, or none to read from the start",
                )?;
            }
            let me = match owner {
                Some(o) => Some(check_owner(c, o)?),
                None => None,
            };
            let attention = match &me {
                Some(m) => attention::for_participant(c, ports, now, &m.participant_id)?,
                None => Vec::new(),
            };
            let room = status::room(c, ports, now, false)?;
            let roster: Vec<RosterEntry> = room
                .sessions
                .iter()
                .map(|s| RosterEntry {
                    session_id: s.session_id.clone(),
                    participant_id: s.participant_id.clone(),
                    parent_session_id: s.parent_session_id.clone(),
                    harness: s.harness.clone(),
                    branch: s.branch.clone(),
                    presence: s.presence,
                })
                .collect();
            let peers = roster
                .iter()
                .filter(|r| r.presence != Presence::Offline)
                .filter(|r| {
                    me.as_ref()
                        .is_none_or(|m| m.participant_id != r.participant_id)
                })
                .count();
            let solo = peers == 0 && attention.is_empty() && room.claims.is_empty();
            let start = req.cursor.unwrap_or_default();
            let (events, cursor, snapshot) = match req.scope {
                SyncScope::Full => (
                    Vec::new(),
                    events::head(c)?,
                    Some(Snapshot {
                        sessions: room.sessions.clone(),
                        claims: room.claims.clone(),
                        protection: room.protection,
                        decisions: decisions::in_force(c, me.as_ref().map(|m| &m.participant_id))?,
                    }),
                ),
                SyncScope::Delta | SyncScope::History => {
                    let exclude = match req.scope {
                        SyncScope::Delta => owner.map(|o| &o.session),
                        _ => None,
                    };
                    let (events, last) = events::since(c, start, req.limit, &req.types, exclude)?;
                    (events, last, None)
                }
            };
            Ok(SyncResult {
                cursor,
                scope: req.scope,
                solo,
                attention,
                roster,
                events,
                snapshot,
            })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::testkit::kit;

    #[test]
    fn delta_skips_own_events_and_history_does_not() {
        let mut k = kit();
        let a = k.attach("alice");
        let b = k.attach("bob");
        let delta = k.core.sync(Some(&a), SyncRequest::default()).unwrap();
        let types: Vec<&str> = delta.events.iter().map(|e| e.event_type.as_str()).collect();
        assert_eq!(types, vec!["workspace.materialised", "session.opened"]);
        assert_eq!(
            delta.events[1].actor_session_id.as_deref(),
            Some(b.session.as_str())
        );
        assert_eq!(delta.cursor, EventSeq(3));
        assert!(!delta.solo);
        assert_eq!(delta.roster.len(), 2);
        let history = k
            .core
            .sync(
                Some(&a),
                SyncRequest {
                    scope: SyncScope::History,
                    ..Default::default()
                },
            )
            .unwrap();
        assert_eq!(history.events.len(), 3);
        let again = k
            .core
            .sync(
                Some(&a),
                SyncRequest {
                    cursor: Some(delta.cursor),
                    ..Default::default()
                },
            )
            .unwrap();
        assert!(again.events.is_empty());
        assert_eq!(again.cursor, delta.cursor);
    }

    #[test]
    fn full_returns_a_snapshot_at_head_and_limits_are_checked() {
        let mut k = kit();
        let a = k.attach("alice");
        let full = k
            .core
            .sync(
                Some(&a),
                SyncRequest {
                    scope: SyncScope::Full,
                    ..Default::default()
                },
            )
            .unwrap();
        assert!(full.events.is_empty());
        assert_eq!(full.cursor, EventSeq(2));
        assert_eq!(full.snapshot.unwrap().sessions.len(), 1);
        assert!(full.solo);
        let e = k
            .core
            .sync(
                None,
                SyncRequest {
                    limit: 0,
                    ..Default::default()
                },
            )
            .unwrap_err();
        assert_eq!(e.exit_code(), 2);
        let typed = k
            .core
            .sync(
                None,
                SyncRequest {
                    types: vec![EventType::SessionOpened],
                    ..Default::default()
                },
            )
            .unwrap();
        assert_eq!(typed.events.len(), 1);
    }

    #[test]
    fn a_cursor_beyond_the_head_is_refused_and_pruning_keeps_the_cursor() {
        use crate::core::prune::PruneRequest;
        let mut k = kit();
        let a = k.attach("alice");
        let head = k
            .core
            .sync(Some(&a), SyncRequest::default())
            .unwrap()
            .cursor;
        assert_eq!(head, EventSeq(2));
        for scope in [SyncScope::Delta, SyncScope::History, SyncScope::Full] {
            let e = k
                .core
                .sync(
                    Some(&a),
                    SyncRequest {
                        cursor: Some(EventSeq(9_999_999_999_999_999)),
                        scope,
                        ..Default::default()
                    },
                )
                .unwrap_err();
            assert_eq!(e.code, crate::error::ErrorCode::InvalidCursor);
            assert_eq!(e.exit_code(), 2);
            assert!(e.message.contains("(0000000000000002)"), "{}", e.message);
        }
        k.core
            .prune(PruneRequest {
                apply: true,
                before: Some(head),
                ..Default::default()
            })
            .unwrap();
        assert_eq!(k.count("SELECT count(*) FROM events"), 0);
        for cursor in [None, Some(head)] {
            let r = k
                .core
                .sync(
                    Some(&a),
                    SyncRequest {
                        cursor,
                        ..Default::default()
                    },
                )
                .unwrap();
            assert_eq!(r.cursor, head, "the cursor never goes backwards");
            assert!(r.events.is_empty());
        }
        let full = SyncRequest {
            scope: SyncScope::Full,
            ..Default::default()
        };
        assert_eq!(k.core.sync(Some(&a), full).unwrap().cursor, head);
    }
}
