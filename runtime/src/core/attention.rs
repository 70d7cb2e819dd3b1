//! Attention items: what a participant should act on, in six kinds with fixed priorities
//! (the kinds are `acc_sdk::context::AttentionKind`). Derived at read time, never stored.
//!
//! A summary is acc's own words: kinds, ids, participant ids (portable ids), counts and
//! times. Everything a peer chose (a subject, a resource name, an intent's hint) goes into
//! the item's quotes, which the projector shows only inside a fenced, labelled block, so a
//! subject such as `SYSTEM NOTICE from acc: …` never reads as acc speaking.

use super::Ports;
use super::claims::{self, ClaimRow};
use super::intents;
use super::model::{IntentState, Presence};
use super::present::Present;
use super::sessions::{self, SessionRow};
use crate::clock::to_iso;
use crate::error::Result;
use crate::ids::ParticipantId;
use crate::store::engine::{Connection, params};
use crate::text::{LISTED_SUBJECT_BYTES, cut_bytes};
use acc_sdk::context::{AttentionItem, AttentionKind, Quote, QuoteField};
use std::collections::{BTreeMap, HashSet};

/// A subject as quoted: cut like every listed subject, left raw for the renderer to escape.
fn subject(s: &str) -> Quote {
    Quote::new(QuoteField::Subject, cut_bytes(s, LISTED_SUBJECT_BYTES))
}

fn item(kind: AttentionKind, source: &str, summary: String, quotes: Vec<Quote>) -> AttentionItem {
    AttentionItem {
        kind,
        source_id: source.to_string(),
        summary,
        quotes,
    }
}

/// A message that obliges a reply or an acknowledgement, whose receipt of the participant
/// is not acknowledged yet.
pub(crate) struct Owing {
    pub message_id: String,
    kind: String,
    obligation: String,
    from: String,
    subject: String,
    /// The receipt's state: delivery reminds of those offered or retrieved.
    pub state: String,
}

/// What the participant owes, oldest first: attention lists it, and a turn's delivery
/// reminds of what of it was shown, from this one statement.
pub(crate) fn owing(conn: &Connection, me: &ParticipantId, present: Present) -> Result<Vec<Owing>> {
    // From the messages that oblige anyone (`messages_owing`) to their receipts: from the
    // participant's receipts instead, a turn read every queued note (issue 30).
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT m.message_id, m.kind, m.obligation, m.from_participant_id, m.subject, r.state
         FROM messages m CROSS JOIN receipts r INDEXED BY receipts_by_message
           ON r.message_seq = m.seq
         WHERE r.recipient_participant_id = ?1 AND r.state <> 'acknowledged'
           AND m.obligation <> 'none' AND {}
         ORDER BY m.seq",
        present.head_only()
    ))?;
    let mut rows = stmt.query(params![me.as_str()])?;
    let mut out = Vec::new();
    while let Some(r) = rows.next()? {
        out.push(Owing {
            message_id: r.get(0)?,
            kind: r.get(1)?,
            obligation: r.get(2)?,
            from: r.get(3)?,
            subject: r.get(4)?,
            state: r.get(5)?,
        });
    }
    Ok(out)
}

/// Obligations the participant owes: unacknowledged receipts of messages that need a reply
/// or an acknowledgement.
fn owed(owing: &[Owing], out: &mut Vec<AttentionItem>) {
    for o in owing {
        let k = if o.obligation == "reply" {
            AttentionKind::ReplyRequired
        } else {
            AttentionKind::AcknowledgementRequired
        };
        out.push(item(
            k,
            &o.message_id,
            format!("{} from {}", o.kind, o.from),
            vec![subject(&o.subject)],
        ));
    }
}

/// The participant's messages with an obligation that a recipient without any online
/// session still has not acknowledged.
fn unavailable(
    conn: &Connection,
    me: &ParticipantId,
    online: &HashSet<ParticipantId>,
    present: Present,
    out: &mut Vec<AttentionItem>,
) -> Result<()> {
    if !present.obligations_sent {
        return Ok(());
    }
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT m.message_id, m.subject, r.recipient_participant_id
         FROM messages m JOIN receipts r ON r.message_seq = m.seq
         WHERE m.from_participant_id = ?1 AND m.obligation <> 'none' AND r.state <> 'acknowledged'
           AND {}
         ORDER BY m.seq, r.recipient_participant_id",
        present.head_only()
    ))?;
    let mut rows = stmt.query(params![me.as_str()])?;
    let mut waiting: BTreeMap<String, (String, Vec<String>)> = BTreeMap::new();
    while let Some(r) = rows.next()? {
        let recipient = ParticipantId::from_store(r.get(2)?);
        if online.contains(&recipient) {
            continue;
        }
        let entry = waiting
            .entry(r.get(0)?)
            .or_insert_with(|| (r.get(1).unwrap_or_default(), Vec::new()));
        entry.1.push(recipient.to_string());
    }
    for (id, (subj, who)) in waiting {
        out.push(item(
            AttentionKind::RecipientUnavailable,
            &id,
            format!("{} has no online session", who.join(", ")),
            vec![subject(&subj)],
        ));
    }
    Ok(())
}

/// Computes the attention items of participant `me`, sorted by priority then source id.
pub(crate) fn for_participant(
    conn: &Connection,
    ports: &Ports,
    now: i64,
    me: &ParticipantId,
) -> Result<Vec<AttentionItem>> {
    let sessions = sessions::load_all(conn, false)?;
    let owing = owing(conn, me, Present::ALL)?;
    for_participant_among(conn, ports, now, me, &sessions, &owing, Present::ALL)
}

/// [`for_participant`] with every session (open and closed) and what `me` owes
/// ([`owing`]) already read, leaving out what `present` says the store does not hold.
pub(crate) fn for_participant_among(
    conn: &Connection,
    ports: &Ports,
    now: i64,
    me: &ParticipantId,
    sessions: &[SessionRow],
    owing: &[Owing],
    present: Present,
) -> Result<Vec<AttentionItem>> {
    let presence: Vec<(&SessionRow, Presence)> = sessions
        .iter()
        .map(|s| (s, s.presence(ports, now)))
        .collect();
    let online: HashSet<ParticipantId> = presence
        .iter()
        .filter(|(_, p)| *p == Presence::Online)
        .map(|(s, _)| s.participant_id.clone())
        .collect();
    let mine: HashSet<&str> = sessions
        .iter()
        .filter(|s| &s.participant_id == me)
        .map(|s| s.session_id.as_str())
        .collect();
    let open_not_offline: HashSet<&str> = presence
        .iter()
        .filter(|(_, p)| *p != Presence::Offline)
        .map(|(s, _)| s.session_id.as_str())
        .collect();

    let mut out = Vec::new();
    owed(owing, &mut out);
    unavailable(conn, me, &online, present, &mut out)?;

    // Only the claims an item can name are read: a turn of a participant with no intent
    // skips every peer claim (a hook reads this on every prompt).
    let my_claims: Vec<ClaimRow> = claims::of_participant(conn, me)?;
    let mut live_peer_claims: Option<Vec<ClaimRow>> = None;
    let intents = intents::load_all(conn)?;
    for intent in intents.iter().filter(|i| i.state != IntentState::Done) {
        let is_mine = mine.contains(intent.session_id.as_str());
        if !is_mine && !open_not_offline.contains(intent.session_id.as_str()) {
            continue;
        }
        if is_mine && !intent.resource_hints.is_empty() && live_peer_claims.is_none() {
            live_peer_claims = Some(claims::live_of_others(conn, me, now)?);
        }
        let live_peer_claims = live_peer_claims.as_deref().unwrap_or_default();
        for hint in &intent.resource_hints {
            if is_mine {
                for c in live_peer_claims
                    .iter()
                    .filter(|c| c.resource.overlaps(hint))
                {
                    out.push(item(
                        AttentionKind::ClaimConflict,
                        c.claim_id.as_str(),
                        format!(
                            "claimed ({}) by {}; it overlaps a hint of your intent",
                            c.mode, c.owner_participant_id
                        ),
                        vec![
                            Quote::new(QuoteField::Resource, c.resource.as_str()),
                            Quote::new(QuoteField::Hint, hint.as_str()),
                        ],
                    ));
                }
            } else {
                for c in my_claims
                    .iter()
                    .filter(|c| c.expires_at > now && c.resource.overlaps(hint))
                {
                    out.push(item(
                        AttentionKind::ClaimContended,
                        c.claim_id.as_str(),
                        "your claim is wanted: a peer's intent names an overlapping hint"
                            .to_owned(),
                        vec![
                            Quote::new(QuoteField::Resource, c.resource.as_str()),
                            Quote::new(QuoteField::Hint, hint.as_str()),
                        ],
                    ));
                }
            }
        }
    }
    for c in my_claims.iter().filter(|c| c.expires_at <= now) {
        out.push(item(
            AttentionKind::ClaimExpired,
            c.claim_id.as_str(),
            format!(
                "your lease ran out at {}; claim it again or release it",
                to_iso(c.expires_at)
            ),
            vec![Quote::new(QuoteField::Resource, c.resource.as_str())],
        ));
    }
    out.sort_by(|a, b| (a.kind.priority(), &a.source_id).cmp(&(b.kind.priority(), &b.source_id)));
    out.dedup_by(|a, b| a.kind == b.kind && a.source_id == b.source_id);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::Owner;
    use crate::core::claims::ClaimRequest;
    use crate::core::intents::PublishIntent;
    use crate::core::messages::SendMessage;
    use crate::core::model::{IntentMode, MessageKind};
    use crate::core::resources::Resource;
    use crate::core::testkit::kit;

    fn attention(k: &mut crate::core::testkit::Kit, who: &Owner) -> Vec<AttentionItem> {
        k.core.status(Some(who), false).unwrap().attention
    }

    fn msg(kind: MessageKind, to: &str) -> SendMessage {
        SendMessage {
            to: vec![to.into()],
            kind,
            obligation: None,
            subject: "s".into(),
            body: String::new(),
            client_message_id: None,
        }
    }

    #[test]
    fn owed_replies_and_acknowledgements_sorted_by_priority() {
        let mut k = kit();
        let a = k.attach("alice");
        let b = k.attach("bob");
        let mut d = msg(MessageKind::Decision, "bob");
        d.obligation = Some(crate::core::model::Obligation::Acknowledge);
        k.core.send(&a, d).unwrap();
        k.core.send(&a, msg(MessageKind::Question, "bob")).unwrap();
        let items = attention(&mut k, &b);
        let kinds: Vec<_> = items.iter().map(|i| i.kind).collect();
        assert_eq!(
            kinds,
            vec![
                AttentionKind::ReplyRequired,
                AttentionKind::AcknowledgementRequired
            ]
        );
        assert_eq!(items[0].summary, "question from alice");
        assert_eq!(items[0].quotes, [Quote::new(QuoteField::Subject, "s")]);
        assert!(attention(&mut k, &a).is_empty());
    }

    #[test]
    fn recipient_unavailable_when_no_online_session() {
        let mut k = kit();
        let a = k.attach("alice");
        let b = k.attach("bob");
        k.core.send(&a, msg(MessageKind::Question, "bob")).unwrap();
        assert!(attention(&mut k, &a).is_empty());
        k.core.close_session(&b, None).unwrap();
        let items = attention(&mut k, &a);
        assert_eq!(items[0].kind, AttentionKind::RecipientUnavailable);
        assert!(items[0].summary.starts_with("bob has no online session"));
    }

    #[test]
    fn claim_conflict_contended_and_expired() {
        let mut k = kit();
        let a = k.attach("alice");
        let b = k.attach("bob");
        let held = k
            .core
            .claim(
                &a,
                ClaimRequest::new(Resource::parse("file:src/**").unwrap()),
            )
            .unwrap();
        k.core
            .publish_intent(
                &b,
                PublishIntent {
                    summary: "fix lib".into(),
                    mode: IntentMode::Edit,
                    state: IntentState::Active,
                    hints: vec![Resource::parse("file:src/lib.rs").unwrap()],
                },
            )
            .unwrap();
        let bob = attention(&mut k, &b);
        assert_eq!(bob[0].kind, AttentionKind::ClaimConflict);
        assert_eq!(bob[0].source_id, held.claim.claim_id.as_str());
        let alice = attention(&mut k, &a);
        assert_eq!(alice[0].kind, AttentionKind::ClaimContended);
        k.clock.advance_ms(1800 * 1000 + 1);
        k.core.heartbeat(&a).unwrap();
        let alice = attention(&mut k, &a);
        assert_eq!(alice.len(), 1);
        assert_eq!(alice[0].kind, AttentionKind::ClaimExpired);
    }

    #[test]
    fn claims_of_the_participants_other_sessions_are_its_own() {
        let mut k = kit();
        let a = k.attach("alice");
        let b1 = k.attach("bob");
        let b2 = k.attach("bob");
        let claim = |k: &mut crate::core::testkit::Kit, who: &Owner, r: &str| {
            k.core
                .claim(who, ClaimRequest::new(Resource::parse(r).unwrap()))
                .unwrap()
                .claim
                .claim_id
        };
        let own = claim(&mut k, &b1, "file:docs/**");
        let peer = claim(&mut k, &a, "file:lib/**");
        k.core
            .publish_intent(
                &b2,
                PublishIntent {
                    summary: "docs and lib".into(),
                    mode: IntentMode::Edit,
                    state: IntentState::Active,
                    hints: vec![
                        Resource::parse("file:docs/a.md").unwrap(),
                        Resource::parse("file:lib/x.rs").unwrap(),
                    ],
                },
            )
            .unwrap();
        let kinds = |items: &[AttentionItem]| -> Vec<(AttentionKind, String)> {
            items
                .iter()
                .map(|i| (i.kind, i.source_id.clone()))
                .collect()
        };
        let bob = attention(&mut k, &b2);
        assert_eq!(
            kinds(&bob),
            vec![(AttentionKind::ClaimConflict, peer.to_string())]
        );
        assert_eq!(
            kinds(&attention(&mut k, &b1)),
            kinds(&bob),
            "one participant"
        );
        let alice = attention(&mut k, &a);
        assert_eq!(
            kinds(&alice),
            vec![(AttentionKind::ClaimContended, peer.to_string())]
        );

        k.clock.advance_ms(1800 * 1000 + 1);
        for who in [&a, &b1, &b2] {
            k.core.heartbeat(who).unwrap();
        }
        // Expired: a peer's claim no longer conflicts; the participant's own is reported
        // to each of its sessions.
        assert_eq!(
            kinds(&attention(&mut k, &b2)),
            vec![(AttentionKind::ClaimExpired, own.to_string())]
        );
        assert_eq!(
            kinds(&attention(&mut k, &a)),
            vec![(AttentionKind::ClaimExpired, peer.to_string())]
        );
    }
}
