//! Native delivery bindings: which open sessions a sender may offer a message to live, as
//! each session's own hooks published them after the adapter's handshake.
//!
//! Core holds closed facts only: the protocol, the modes, the lease and the adapter's
//! opaque endpoint reference, which it hands back to the same adapter unread.

use super::events::{self, EventType};
use super::sessions::check_owner;
use super::{Core, Owner};
use crate::clock::to_iso;
use crate::error::Result;
use crate::ids::{Generation, MessageId, ParticipantId, SessionId, check_portable_id};
use crate::store::engine::{OptionalExtension, params};
use crate::text;
use serde::Serialize;
use serde_json::json;

/// A published binding.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NativeBinding {
    pub session_id: SessionId,
    pub generation: Generation,
    pub adapter_id: String,
    pub client_version: Option<String>,
    pub protocol_contract: String,
    pub modes: Vec<String>,
    /// The adapter's own text; never read by core.
    #[serde(skip)]
    pub endpoint_ref: String,
    pub lease_until: String,
    pub updated_at: String,
}

/// What a session publishes after a successful handshake.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PublishBinding<'a> {
    pub adapter_id: &'a str,
    pub client_version: Option<&'a str>,
    pub protocol_contract: &'a str,
    pub modes: &'a [String],
    pub endpoint_ref: &'a str,
    pub lease_until_ms: i64,
}

/// A session a message may be offered to live.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LiveTarget {
    pub recipient: ParticipantId,
    pub owner: Owner,
    pub binding: NativeBinding,
}

const BINDING_COLUMNS: &str = "n.session_id, n.generation, n.adapter_id, n.client_version,
    n.protocol_contract, n.modes, n.endpoint_ref, n.lease_until, n.updated_at";

fn binding_row(r: &crate::store::engine::Row<'_>, at: usize) -> rusqlite::Result<NativeBinding> {
    let modes: String = r.get(at + 5)?;
    Ok(NativeBinding {
        session_id: SessionId::from_store(r.get(at)?),
        generation: Generation::from_store(r.get(at + 1)?),
        adapter_id: r.get(at + 2)?,
        client_version: r.get(at + 3)?,
        protocol_contract: r.get(at + 4)?,
        modes: serde_json::from_str(&modes).unwrap_or_default(),
        endpoint_ref: r.get(at + 6)?,
        lease_until: to_iso(r.get(at + 7)?),
        updated_at: to_iso(r.get(at + 8)?),
    })
}

/// One recorded offer of a message (`message.offer_succeeded` / `message.offer_failed`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct OfferEvent {
    pub succeeded: bool,
    pub transport: Option<String>,
    pub reason_code: Option<String>,
}

impl Core {
    /// Every offer recorded for `message_id`, oldest first.
    pub fn offer_history(&mut self, message_id: &MessageId) -> Result<Vec<OfferEvent>> {
        self.store.read(|c| {
            let mut stmt = c.prepare_cached(
                "SELECT type, json_extract(payload, '$.transport'),
                    json_extract(payload, '$.safeErrorCode')
                 FROM events WHERE type IN ('message.offer_succeeded', 'message.offer_failed')
                   AND json_extract(payload, '$.messageId') = ?1 ORDER BY sequence",
            )?;
            let rows = stmt
                .query_map(params![message_id.as_str()], |r| {
                    Ok(OfferEvent {
                        succeeded: r.get::<_, String>(0)? == "message.offer_succeeded",
                        transport: r.get(1)?,
                        reason_code: r.get(2)?,
                    })
                })?
                .collect::<rusqlite::Result<Vec<_>>>()?;
            Ok(rows)
        })
    }

    /// Publishes (or replaces) the owner session's binding. The session must be open at that
    /// generation, and the lease must lie ahead.
    pub fn publish_native_binding(&mut self, owner: &Owner, b: &PublishBinding<'_>) -> Result<()> {
        check_portable_id("adapter id", b.adapter_id)?;
        check_portable_id("protocol contract", b.protocol_contract)?;
        if let Some(v) = b.client_version {
            text::check_line("client version", v)?;
        }
        text::check_line("endpoint reference", b.endpoint_ref)?;
        for m in b.modes {
            check_portable_id("mode", m)?;
        }
        let now = self.ports.now();
        if b.lease_until_ms <= now {
            return Err(crate::error::AccError::usage(
                "a native lease must lie ahead",
            ));
        }
        let modes = serde_json::to_string(b.modes).unwrap_or_else(|_| "[]".into());
        self.store.write(|tx| {
            check_owner(tx, owner)?;
            tx.execute(
                "INSERT INTO native_bindings (session_id, generation, adapter_id, client_version,
                    protocol_contract, modes, endpoint_ref, lease_until, updated_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)
                 ON CONFLICT (session_id) DO UPDATE SET generation = excluded.generation,
                    adapter_id = excluded.adapter_id, client_version = excluded.client_version,
                    protocol_contract = excluded.protocol_contract, modes = excluded.modes,
                    endpoint_ref = excluded.endpoint_ref, lease_until = excluded.lease_until,
                    updated_at = excluded.updated_at",
                params![
                    owner.session.as_str(),
                    owner.generation.as_str(),
                    b.adapter_id,
                    b.client_version,
                    b.protocol_contract,
                    modes,
                    b.endpoint_ref,
                    b.lease_until_ms,
                    now
                ],
            )?;
            Ok(())
        })
    }

    /// Marks a turn's start on the owner session's binding without a new handshake (one that
    /// ran out of time keeps the binding it had): [`Core::wake_pending`] reads a wake as this
    /// turn's when it came after the binding's last update, so without the mark a wake that
    /// started an earlier turn would read as pending and the turn end would not hold the turn
    /// open for a message sent meanwhile. Returns whether there was a binding.
    pub fn mark_native_turn(&mut self, owner: &Owner) -> Result<bool> {
        let now = self.ports.now();
        self.store.write(|tx| {
            Ok(tx.execute(
                "UPDATE native_bindings SET updated_at = ?3
                 WHERE session_id = ?1 AND generation = ?2 AND updated_at < ?3",
                params![owner.session.as_str(), owner.generation.as_str(), now],
            )? > 0)
        })
    }

    /// Removes a session's binding (a refused handshake, a session that ended). Returns
    /// whether there was one.
    pub fn retire_native_binding(&mut self, session: &SessionId) -> Result<bool> {
        // A client whose handshake never succeeds retires at every turn: a read finds
        // nothing to retire at a fraction of a write's cost (its lock, the claims checks, the
        // commit).
        let held = self.store.read(|c| {
            Ok(c.prepare_cached(
                "SELECT EXISTS (SELECT 1 FROM native_bindings WHERE session_id = ?1)",
            )?
            .query_row(params![session.as_str()], |r| r.get::<_, bool>(0))?)
        })?;
        if !held {
            return Ok(false);
        }
        self.store.write(|tx| {
            Ok(tx.execute(
                "DELETE FROM native_bindings WHERE session_id = ?1",
                params![session.as_str()],
            )? > 0)
        })
    }

    /// The binding of `session`, whatever its lease.
    pub fn native_binding(&mut self, session: &SessionId) -> Result<Option<NativeBinding>> {
        self.store.read(|c| {
            Ok(c.prepare_cached(&format!(
                "SELECT {BINDING_COLUMNS} FROM native_bindings n WHERE n.session_id = ?1"
            ))?
            .query_row(params![session.as_str()], |r| binding_row(r, 0))
            .optional()?)
        })
    }

    /// The sessions `message_id` may be offered to live: for each addressed recipient whose
    /// copy nobody has been shown yet (receipt `queued`), its open session with a current
    /// binding at the session's generation, the most recently bound one only (one wake per
    /// recipient). Room messages, the sender's own session and expired leases never qualify.
    pub fn live_targets(&mut self, message_id: &MessageId) -> Result<Vec<LiveTarget>> {
        let now = self.ports.now();
        self.store.read(|c| {
            let mut stmt = c.prepare_cached(&format!(
                "SELECT r.recipient_participant_id, {BINDING_COLUMNS}
                 FROM messages m
                 JOIN receipts r ON r.message_seq = m.seq
                 JOIN sessions s ON s.participant_id = r.recipient_participant_id
                     AND s.state = 'open'
                 JOIN native_bindings n ON n.session_id = s.session_id
                     AND n.generation = s.generation
                 WHERE m.message_id = ?1 AND r.state = 'queued' AND m.to_participant_ids <> '[]'
                   AND s.session_id <> m.from_session_id AND n.lease_until > ?2
                 ORDER BY r.recipient_participant_id, n.updated_at DESC, n.session_id"
            ))?;
            let rows = stmt
                .query_map(params![message_id.as_str(), now], |r| {
                    Ok((ParticipantId::from_store(r.get(0)?), binding_row(r, 1)?))
                })?
                .collect::<rusqlite::Result<Vec<_>>>()?;
            let mut out: Vec<LiveTarget> = Vec::new();
            for (recipient, binding) in rows {
                if out.last().is_some_and(|t| t.recipient == recipient) {
                    continue;
                }
                out.push(LiveTarget {
                    recipient,
                    owner: Owner::new(binding.session_id.clone(), binding.generation.clone()),
                    binding,
                });
            }
            Ok(out)
        })
    }

    /// Notes that a wake reached `session` (taken, or held for approval).
    pub fn mark_woken(&mut self, session: &SessionId) -> Result<()> {
        let now = self.ports.now();
        self.store.write(|tx| {
            tx.execute(
                "UPDATE native_bindings SET woken_at = ?2 WHERE session_id = ?1",
                params![session.as_str(), now],
            )?;
            Ok(())
        })
    }

    /// Whether a wake reached `session` since its binding was last published (each turn
    /// start publishes it): that wake will run a turn that shows what is waiting.
    pub fn wake_pending(&mut self, session: &SessionId) -> Result<bool> {
        self.store.read(|c| {
            Ok(c.prepare_cached(
                "SELECT woken_at IS NOT NULL AND woken_at >= updated_at
                 FROM native_bindings WHERE session_id = ?1",
            )?
            .query_row(params![session.as_str()], |r| r.get::<_, bool>(0))
            .optional()?
            .unwrap_or(false))
        })
    }

    /// Records a live offer that failed (`message.offer_failed`, acted by the sender); the
    /// receipt stays queued and the recipient's heartbeat is not touched.
    pub fn record_live_failure(
        &mut self,
        sender: &Owner,
        target: &LiveTarget,
        message_id: &MessageId,
        reason_code: &str,
    ) -> Result<()> {
        check_portable_id("reason code", reason_code)?;
        let ports = &self.ports;
        let now = ports.now();
        self.store.write(|tx| {
            check_owner(tx, &target.owner)?;
            events::append(
                tx,
                ports.ids.as_ref(),
                now,
                Some(&sender.session),
                EventType::MessageOfferFailed,
                json!({
                    "messageId": message_id.as_str(),
                    "recipientParticipantId": target.recipient.as_str(),
                    "targetSessionId": target.owner.session.as_str(),
                    "transport": target.binding.protocol_contract,
                    "adapterId": target.binding.adapter_id,
                    "safeErrorCode": reason_code,
                }),
            )?;
            Ok(())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::messages::SendMessage;
    use crate::core::model::MessageKind;
    use crate::core::testkit::{Kit, kit};

    fn send(k: &mut Kit, from: &Owner, to: &[&str]) -> MessageId {
        k.core
            .send(
                from,
                SendMessage {
                    to: to.iter().map(|t| t.to_string()).collect(),
                    kind: MessageKind::Note,
                    obligation: None,
                    subject: "s".into(),
                    body: "b".into(),
                    client_message_id: None,
                },
            )
            .unwrap()
            .message
            .message_id
    }

    fn publish(k: &mut Kit, o: &Owner, lease_ms: i64) {
        let now = k.core.ports.now();
        k.core
            .publish_native_binding(
                o,
                &PublishBinding {
                    adapter_id: "example",
                    client_version: Some("1.2.3"),
                    protocol_contract: "example-inbox-v1",
                    modes: &["livePush".to_owned()],
                    endpoint_ref: "opaque",
                    lease_until_ms: now + lease_ms,
                },
            )
            .unwrap();
    }

    #[test]
    fn only_a_queued_addressed_copy_at_a_current_binding_is_a_target_once_per_recipient() {
        let mut k = kit();
        let a = k.attach("alice");
        let b1 = k.attach("bob");
        let b2 = k.attach("bob");
        let c = k.attach("carol");
        publish(&mut k, &b1, 60_000);
        k.clock.advance_ms(10);
        publish(&mut k, &b2, 60_000);
        publish(&mut k, &a, 60_000);
        let m = send(&mut k, &a, &["bob", "carol", "alice"]);
        let targets = k.core.live_targets(&m).unwrap();
        // carol has no binding; alice is the sender's own session; bob's newest binding wins.
        assert_eq!(targets.len(), 1);
        assert_eq!(targets[0].owner, b2);
        assert_eq!(targets[0].binding.endpoint_ref, "opaque");

        // A room message never wakes anyone.
        let room = send(&mut k, &a, &[]);
        assert!(k.core.live_targets(&room).unwrap().is_empty());

        // Once shown, no longer a target.
        k.core
            .commit_offers(&b2, std::slice::from_ref(&m), "next-turn")
            .unwrap();
        assert!(k.core.live_targets(&m).unwrap().is_empty());

        // An expired lease or a closed session is no target either.
        let m2 = send(&mut k, &c, &["bob"]);
        k.clock.advance_ms(60_000);
        assert!(k.core.live_targets(&m2).unwrap().is_empty());
        publish(&mut k, &b1, 60_000);
        assert_eq!(k.core.live_targets(&m2).unwrap()[0].owner, b1);
        k.core.close_session(&b1, None).unwrap();
        assert!(k.core.live_targets(&m2).unwrap().is_empty());
    }

    #[test]
    fn a_failure_is_recorded_and_the_receipt_stays_queued() {
        let mut k = kit();
        let a = k.attach("alice");
        let b = k.attach("bob");
        publish(&mut k, &b, 60_000);
        let m = send(&mut k, &a, &["bob"]);
        let t = k.core.live_targets(&m).unwrap().remove(0);
        k.core
            .record_live_failure(&a, &t, &m, "native_session_unavailable")
            .unwrap();
        assert_eq!(
            k.core.offer_history(&m).unwrap(),
            vec![OfferEvent {
                succeeded: false,
                transport: Some("example-inbox-v1".into()),
                reason_code: Some("native_session_unavailable".into()),
            }]
        );
        assert_eq!(
            k.count(
                "SELECT count(*) FROM events WHERE type = 'message.offer_failed'
                     AND json_extract(payload, '$.safeErrorCode') = 'native_session_unavailable'"
            ),
            1
        );
        assert_eq!(
            k.count("SELECT count(*) FROM receipts WHERE state = 'queued'"),
            1
        );
        assert!(!k.core.wake_pending(&b.session).unwrap());
        k.clock.advance_ms(5);
        k.core.mark_woken(&b.session).unwrap();
        assert!(k.core.wake_pending(&b.session).unwrap());
        // The woken turn publishes the binding again: nothing is pending after it.
        k.clock.advance_ms(5);
        publish(&mut k, &b, 60_000);
        assert!(!k.core.wake_pending(&b.session).unwrap());
        assert!(k.core.retire_native_binding(&b.session).unwrap());
        assert!(k.core.native_binding(&b.session).unwrap().is_none());
    }

    #[test]
    fn a_lease_in_the_past_or_a_foreign_generation_is_refused() {
        let mut k = kit();
        let b = k.attach("bob");
        let now = k.core.ports.now();
        let bad = PublishBinding {
            adapter_id: "example",
            client_version: None,
            protocol_contract: "example-inbox-v1",
            modes: &[],
            endpoint_ref: "x",
            lease_until_ms: now,
        };
        assert!(k.core.publish_native_binding(&b, &bad).is_err());
        let stale = Owner::new(b.session.clone(), Generation::parse("other").unwrap());
        let ok = PublishBinding {
            lease_until_ms: now + 1,
            ..bad
        };
        assert!(k.core.publish_native_binding(&stale, &ok).is_err());
    }
}
