//! Writes the guard refused: every deny is a `claim.write_refused` event, so the claim's
//! owner learns that a peer tried (who, which target, when) in its next turn and in
//! `acc status`. Only ids, the claim's resource and the denied target are recorded; never
//! a command, a reason or any other text of the peer's.
//!
//! A write the guard could not refuse (a shell call it allowed, whose program wrote into a
//! claim anyway) is a `claim.write_detected` event of the same shape, recorded after the
//! call by the client's post-tool hook; both the claim's owner and the session whose call
//! it was are shown it.
//!
//! What a session was shown is marked with a `claim.write_refusals_shown` event (its own
//! actor, `upTo` the newest shown sequence), so each notice reaches the next turn once.

use super::events::{self, EventType};
use super::{Core, Owner};
use crate::clock::to_iso;
use crate::error::Result;
use crate::ids::{ClaimId, EventSeq, ParticipantId, SessionId};
use crate::store::engine::{OptionalExtension, params};
use serde::Serialize;
use serde_json::json;

/// The most refusals a turn or a status lists (the count says how many there were).
pub const MAX_LISTED: usize = 20;

/// A refused write, as the guard knows it when it denies.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    pub claim_id: ClaimId,
    /// The claim's resource (the owner's own text).
    pub claim_resource: String,
    pub owner_session_id: SessionId,
    pub owner_participant_id: ParticipantId,
    /// The denied target as a resource (`file:src/a.rs`): chosen by the peer, so readers
    /// render it escaped.
    pub target: String,
}

/// A refused write as readers see it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RefusedWrite {
    pub sequence: EventSeq,
    pub occurred_at: String,
    pub claim_id: String,
    pub claim_resource: String,
    pub owner_session_id: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub owner_participant_id: Option<String>,
    pub target: String,
    pub by_session_id: String,
    pub by_participant_id: Option<String>,
}

/// Refusals for one reader: the newest [`MAX_LISTED`] and how many there were.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RefusedWrites {
    pub total: u64,
    pub listed: Vec<RefusedWrite>,
}

impl RefusedWrites {
    pub fn is_empty(&self) -> bool {
        self.total == 0
    }

    /// The newest sequence listed.
    pub fn newest(&self) -> Option<EventSeq> {
        self.listed.iter().map(|r| r.sequence).max()
    }
}

/// The notices about guarded writes one session was not shown yet.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WriteNotices {
    /// Writes into its claims the guard refused.
    pub refused: RefusedWrites,
    /// Changes under its claims while a peer's allowed call ran.
    pub detected: RefusedWrites,
    /// Changes under peers' claims while its own allowed call ran.
    pub caused: RefusedWrites,
    /// Acts on it from outside its client ([`super::takeovers`]).
    pub takeovers: super::takeovers::Takeovers,
}

impl WriteNotices {
    pub fn newest(&self) -> Option<EventSeq> {
        [&self.refused, &self.detected, &self.caused]
            .into_iter()
            .filter_map(RefusedWrites::newest)
            .chain(self.takeovers.newest())
            .max()
    }
}

impl Core {
    /// Records that `by` was refused a write into `refusal`'s claim. Needs no live owner:
    /// a closed or stale session is refused too, and that is recorded as well.
    pub fn record_refused_write(
        &mut self,
        by: Option<&SessionId>,
        refusal: &Refusal,
    ) -> Result<EventSeq> {
        self.record_write_notice(by, refusal, EventType::ClaimWriteRefused)
    }

    /// Records that a file under `refusal`'s claim (its `target`) changed while `by`'s
    /// allowed shell call ran.
    pub fn record_detected_write(&mut self, by: &SessionId, refusal: &Refusal) -> Result<EventSeq> {
        self.record_write_notice(Some(by), refusal, EventType::ClaimWriteDetected)
    }

    fn record_write_notice(
        &mut self,
        by: Option<&SessionId>,
        refusal: &Refusal,
        kind: EventType,
    ) -> Result<EventSeq> {
        let now = self.ports.now();
        let ids = self.ports.ids.clone();
        self.store.write(|tx| {
            let participant: Option<String> = match by {
                Some(by) => tx
                    .prepare_cached("SELECT participant_id FROM sessions WHERE session_id = ?1")?
                    .query_row(params![by.as_str()], |r| r.get(0))
                    .optional()?,
                None => None,
            };
            events::append(
                tx,
                ids.as_ref(),
                now,
                by,
                kind,
                json!({
                    "claimId": refusal.claim_id.as_str(),
                    "claimResource": refusal.claim_resource,
                    "ownerSessionId": refusal.owner_session_id.as_str(),
                    "ownerParticipantId": refusal.owner_participant_id.as_str(),
                    "target": refusal.target,
                    "byParticipantId": participant,
                }),
            )
        })
    }

    /// Refusals into the claims of `owner_session` (every session's without one), after
    /// `after`, newest last.
    pub fn refused_writes(
        &mut self,
        owner_session: Option<&SessionId>,
        after: EventSeq,
    ) -> Result<RefusedWrites> {
        self.write_notices(EventType::ClaimWriteRefused, owner_session, None, after)
    }

    /// Changes detected under the claims of `owner_session` (every session's without one),
    /// after `after`, newest last.
    pub fn detected_writes(
        &mut self,
        owner_session: Option<&SessionId>,
        after: EventSeq,
    ) -> Result<RefusedWrites> {
        self.write_notices(EventType::ClaimWriteDetected, owner_session, None, after)
    }

    fn write_notices(
        &mut self,
        kind: EventType,
        owner_session: Option<&SessionId>,
        by: Option<&SessionId>,
        after: EventSeq,
    ) -> Result<RefusedWrites> {
        let owner = owner_session.map(|s| s.as_str().to_string());
        let by = by.map(|s| s.as_str().to_string());
        self.store.read(|c| {
            let filter = "type = ?4 AND sequence > ?1
                 AND (?2 IS NULL OR json_extract(payload, '$.ownerSessionId') = ?2)
                 AND (?5 IS NULL OR actor_session_id = ?5)";
            // Both statements bind the same five parameters; the count names the limit only
            // so that it is bound.
            let total: i64 = c
                .prepare_cached(&format!(
                    "SELECT count(*) FROM events WHERE {filter} AND ?3 IS NOT NULL"
                ))?
                .query_row(
                    params![after.0 as i64, owner, MAX_LISTED as i64, kind.as_str(), by],
                    |r| r.get(0),
                )?;
            let mut stmt = c.prepare_cached(&format!(
                "SELECT sequence, occurred_at, actor_session_id, payload FROM events
                 WHERE {filter} ORDER BY sequence DESC LIMIT ?3"
            ))?;
            let mut listed: Vec<RefusedWrite> = stmt
                .query_map(
                    params![after.0 as i64, owner, MAX_LISTED as i64, kind.as_str(), by],
                    |r| {
                        let payload: String = r.get(3)?;
                        let p: serde_json::Value =
                            serde_json::from_str(&payload).unwrap_or(serde_json::Value::Null);
                        let text = |k: &str| p[k].as_str().unwrap_or_default().to_string();
                        Ok(RefusedWrite {
                            sequence: EventSeq(r.get::<_, i64>(0)? as u64),
                            occurred_at: to_iso(r.get(1)?),
                            by_session_id: r.get::<_, Option<String>>(2)?.unwrap_or_default(),
                            claim_id: text("claimId"),
                            claim_resource: text("claimResource"),
                            owner_session_id: text("ownerSessionId"),
                            owner_participant_id: p["ownerParticipantId"]
                                .as_str()
                                .map(str::to_string),
                            target: text("target"),
                            by_participant_id: p["byParticipantId"].as_str().map(str::to_string),
                        })
                    },
                )?
                .collect::<rusqlite::Result<_>>()?;
            listed.reverse();
            Ok(RefusedWrites {
                total: total.max(0) as u64,
                listed,
            })
        })
    }

    /// The newest sequence of notices `owner` was shown.
    fn notices_shown(&mut self, owner: &Owner) -> Result<EventSeq> {
        self.store.read(|c| {
            let up_to: Option<i64> = c
                .prepare_cached(
                    "SELECT max(CAST(json_extract(payload, '$.upTo') AS INTEGER)) FROM events
                     WHERE type = 'claim.write_refusals_shown' AND actor_session_id = ?1",
                )?
                .query_row(params![owner.session.as_str()], |r| r.get(0))?;
            Ok(EventSeq(up_to.unwrap_or(0).max(0) as u64))
        })
    }

    /// The newest sequence of notices `owner` was shown, and whether any event a notice is
    /// made of came after it (for anyone): one statement, where reading each kind of notice
    /// is five to compile and run at every turn, almost always for nothing.
    fn notices_shown_and_since(&mut self, owner: &Owner) -> Result<(EventSeq, bool)> {
        let sql = format!(
            "SELECT s.up_to, EXISTS (SELECT 1 FROM events
                 WHERE type IN ('{}', '{}', '{}') AND sequence > coalesce(s.up_to, 0))
             FROM (SELECT max(CAST(json_extract(payload, '$.upTo') AS INTEGER)) AS up_to
                   FROM events
                   WHERE type = '{}' AND actor_session_id = ?1) s",
            EventType::ClaimWriteRefused.as_str(),
            EventType::ClaimWriteDetected.as_str(),
            EventType::SessionTakeover.as_str(),
            EventType::ClaimWriteRefusalsShown.as_str(),
        );
        self.store.read(|c| {
            let (up_to, since): (Option<i64>, bool) = c
                .prepare_cached(&sql)?
                .query_row(params![owner.session.as_str()], |r| {
                    Ok((r.get(0)?, r.get(1)?))
                })?;
            Ok((EventSeq(up_to.unwrap_or(0).max(0) as u64), since))
        })
    }

    /// What `owner` was not shown yet about writes into or by it: refusals into its claims,
    /// changes detected under its claims, and changes detected while its own calls ran.
    pub fn unshown_write_notices(&mut self, owner: &Owner) -> Result<WriteNotices> {
        let (shown, since) = self.notices_shown_and_since(owner)?;
        if !since {
            return Ok(WriteNotices::default());
        }
        let me = Some(&owner.session);
        Ok(WriteNotices {
            refused: self.write_notices(EventType::ClaimWriteRefused, me, None, shown)?,
            detected: self.write_notices(EventType::ClaimWriteDetected, me, None, shown)?,
            caused: self.write_notices(EventType::ClaimWriteDetected, None, me, shown)?,
            takeovers: self.takeovers(me, shown)?,
        })
    }

    /// Refusals into `owner`'s claims it was not shown yet.
    pub fn unshown_refused_writes(&mut self, owner: &Owner) -> Result<RefusedWrites> {
        let shown = self.notices_shown(owner)?;
        self.refused_writes(Some(&owner.session), shown)
    }

    /// Marks every refusal into `owner`'s claims up to `up_to` as shown to it.
    pub fn mark_refused_writes_shown(&mut self, owner: &Owner, up_to: EventSeq) -> Result<()> {
        let now = self.ports.now();
        let ids = self.ports.ids.clone();
        self.store.write(|tx| {
            events::append(
                tx,
                ids.as_ref(),
                now,
                Some(&owner.session),
                EventType::ClaimWriteRefusalsShown,
                json!({ "upTo": up_to.0 }),
            )?;
            Ok(())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::testkit::kit;

    fn refusal(owner: &Owner, target: &str) -> Refusal {
        Refusal {
            claim_id: ClaimId::from_store("claim_AAAAAAAAAAAAAAAAAAAAAA".into()),
            claim_resource: "file:src/**".into(),
            owner_session_id: owner.session.clone(),
            owner_participant_id: ParticipantId::parse("alice").unwrap(),
            target: target.into(),
        }
    }

    #[test]
    fn each_refusal_is_listed_for_its_owner_until_shown() {
        let mut k = kit();
        let alice = k.attach("alice");
        let bob = k.attach("bob");
        let carol = k.attach("carol");
        k.core
            .record_refused_write(Some(&bob.session), &refusal(&alice, "file:src/a.rs"))
            .unwrap();
        k.core
            .record_refused_write(Some(&bob.session), &refusal(&carol, "file:src/c.rs"))
            .unwrap();
        let mine = k.core.unshown_refused_writes(&alice).unwrap();
        assert_eq!(mine.total, 1);
        let r = &mine.listed[0];
        assert_eq!(r.target, "file:src/a.rs");
        assert_eq!(r.by_session_id, bob.session.as_str());
        assert_eq!(r.by_participant_id.as_deref(), Some("bob"));
        assert_eq!(r.claim_id, "claim_AAAAAAAAAAAAAAAAAAAAAA");
        assert_eq!(k.core.refused_writes(None, EventSeq(0)).unwrap().total, 2);
        k.core
            .mark_refused_writes_shown(&alice, mine.newest().unwrap())
            .unwrap();
        assert!(k.core.unshown_refused_writes(&alice).unwrap().is_empty());
        // Still listed for status, and a new one shows again.
        assert_eq!(
            k.core
                .refused_writes(Some(&alice.session), EventSeq(0))
                .unwrap()
                .total,
            1
        );
        k.core
            .record_refused_write(Some(&bob.session), &refusal(&alice, "file:src/b.rs"))
            .unwrap();
        let again = k.core.unshown_refused_writes(&alice).unwrap();
        assert_eq!(again.total, 1);
        assert_eq!(again.listed[0].target, "file:src/b.rs");
    }

    /// The turn reads its notices only when an event of theirs came after what it was
    /// shown: whatever came, of each kind, is read whole, and the shown mark still counts.
    #[test]
    fn a_turn_skips_its_notices_only_when_none_came_since_it_was_shown() {
        let mut k = kit();
        let alice = k.attach("alice");
        let bob = k.attach("bob");
        assert_eq!(
            k.core.unshown_write_notices(&alice).unwrap(),
            WriteNotices::default()
        );
        // Another session's notice is read (the check is for anyone's) and not listed.
        k.core
            .record_refused_write(Some(&alice.session), &refusal(&bob, "file:src/x.rs"))
            .unwrap();
        assert_eq!(
            k.core.unshown_write_notices(&alice).unwrap(),
            WriteNotices::default()
        );
        k.core
            .record_refused_write(Some(&bob.session), &refusal(&alice, "file:src/a.rs"))
            .unwrap();
        k.core
            .record_detected_write(&bob.session, &refusal(&alice, "file:src/d.rs"))
            .unwrap();
        let both = k.core.unshown_write_notices(&alice).unwrap();
        assert_eq!((both.refused.total, both.detected.total), (1, 1));
        k.core
            .mark_refused_writes_shown(&alice, both.newest().unwrap())
            .unwrap();
        assert_eq!(
            k.core.unshown_write_notices(&alice).unwrap(),
            WriteNotices::default()
        );
        // A detection after the mark, while alice's own call ran: listed as caused.
        let seq = k
            .core
            .record_detected_write(&alice.session, &refusal(&bob, "file:src/e.rs"))
            .unwrap();
        let caused = k.core.unshown_write_notices(&alice).unwrap();
        assert_eq!(caused.caused.total, 1);
        assert_eq!(caused.newest(), Some(seq));
        assert!(caused.refused.is_empty() && caused.detected.is_empty());
    }
}
