//! The sender's side: after the durable commit, offer the message to each recipient's
//! bound session and tell the sender what happened. A delivery failure never fails the
//! send: the message is committed and stays queued for the next turn.

use std::borrow::Cow;
use std::path::Path;

use acc_sdk::adapter::LiveOffer;
use acc_sdk::context::{ContextInput, PeerMessage};
use acc_sdk::define::Adapter;
use acc_sdk::native::{Mode, OfferKind, evaluate_version_contract};
use acc_sdk::peer_text::{display, escape_hidden};
use serde::Serialize;

use super::contract::contract_for;
use super::policy;
use crate::core::messages::MessageRecord;
use crate::core::native::LiveTarget;
use crate::core::{Core, Owner};

/// What a wake puts in front of the recipient: no peer text, only that something waits.
/// The turn it starts runs the next-turn hook, which shows the fenced body.
pub const WAKE_NOTICE: &str =
    "acc: a message is waiting for you; it is shown to you with this turn.";
/// The budget of a message-kind offer's rendered text.
const OFFER_BUDGET: usize = 16 * 1024;

/// The outcome of one live offer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum LiveOutcome {
    /// The session was made to run a turn; the receipt stays `queued` until its next-turn
    /// hook shows the body.
    Woken,
    /// The body itself was offered; the receipt is `offered`.
    Offered,
    /// The client took the wake but holds it for its user's approval.
    PendingApproval,
    /// The offer failed (recorded as a failed offer); the receipt stays `queued`.
    Failed,
    /// Not offered (consent, eligibility); the receipt stays `queued`.
    NotOffered,
}

impl LiveOutcome {
    pub fn as_str(self) -> &'static str {
        match self {
            LiveOutcome::Woken => "woken",
            LiveOutcome::Offered => "offered",
            LiveOutcome::PendingApproval => "pendingApproval",
            LiveOutcome::Failed => "failed",
            LiveOutcome::NotOffered => "notOffered",
        }
    }
}

/// One recipient session's live delivery.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LiveResult {
    pub recipient_participant_id: String,
    pub session_id: String,
    pub adapter_id: String,
    pub outcome: LiveOutcome,
    /// True only with `pendingApproval`.
    pub pending_approval: bool,
    pub transport: String,
    pub reason_code: Option<String>,
}

/// How the router finds adapters and consent (the registry and the data home in
/// production; fixed ones in tests).
pub struct Router<'a> {
    pub adapters: &'a [Adapter],
    /// `<data home>/acc`, where the installation record lives.
    pub acc_data_dir: &'a Path,
    /// A recorder named `delivery.livePush` for this sandbox.
    pub candidate: bool,
}

impl Router<'_> {
    /// Offers `message` to every eligible bound session of its recipients, in order.
    pub fn offer_after_commit(
        &self,
        core: &mut Core,
        sender: &Owner,
        message: &MessageRecord,
    ) -> Vec<LiveResult> {
        let targets = match core.live_targets(&message.message_id) {
            Ok(t) => t,
            Err(_) => return Vec::new(),
        };
        targets
            .iter()
            .map(|t| self.offer_one(core, sender, message, t))
            .collect()
    }

    fn offer_one(
        &self,
        core: &mut Core,
        sender: &Owner,
        message: &MessageRecord,
        target: &LiveTarget,
    ) -> LiveResult {
        let b = &target.binding;
        let result = |outcome: LiveOutcome, reason: Option<&str>| LiveResult {
            recipient_participant_id: target.recipient.as_str().to_owned(),
            session_id: target.owner.session.as_str().to_owned(),
            adapter_id: b.adapter_id.clone(),
            outcome,
            pending_approval: outcome == LiveOutcome::PendingApproval,
            transport: b.protocol_contract.clone(),
            reason_code: reason.map(str::to_owned),
        };
        let Some(adapter) = self.adapters.iter().find(|a| a.id() == b.adapter_id) else {
            return result(LiveOutcome::NotOffered, Some("native_delivery_unsupported"));
        };
        let consent = policy::recorded(self.acc_data_dir, adapter.id());
        if !consent.admits(message.kind, message.obligation) {
            return result(LiveOutcome::NotOffered, Some(consent.refusal_code()));
        }
        let Some(contract) = contract_for(
            adapter,
            self.candidate,
            b.client_version.as_deref(),
            Some(&b.protocol_contract),
        ) else {
            return result(LiveOutcome::NotOffered, Some("native_delivery_unsupported"));
        };
        let primary = adapter.manifest().client.primary().to_owned();
        let rule = evaluate_version_contract(
            Some(&contract),
            &primary,
            b.client_version.as_deref(),
            Some(&b.protocol_contract),
        );
        if let Some(reason) = rule.reason_code {
            return result(LiveOutcome::NotOffered, Some(reason.as_str()));
        }
        if rule.protocol_contract.as_deref() != Some(b.protocol_contract.as_str()) {
            return result(LiveOutcome::NotOffered, Some("protocol_mismatch"));
        }
        let live_push_mode = serde_json::to_value(Mode::LivePush).unwrap_or_default();
        if !b
            .modes
            .iter()
            .any(|m| Some(m.as_str()) == live_push_mode.as_str())
        {
            return result(LiveOutcome::NotOffered, Some("handshake_failed"));
        }
        let Some(push) = adapter.behaviour().live_push() else {
            return result(LiveOutcome::NotOffered, Some("native_delivery_unsupported"));
        };
        let kind = contract.offer_kind;
        let text: Cow<'_, str> = match kind {
            OfferKind::Wake => Cow::Borrowed(WAKE_NOTICE),
            OfferKind::Message => {
                let rendered = adapter
                    .behaviour()
                    .render_context_result(&single(message), OFFER_BUDGET);
                if !rendered
                    .offered_message_ids
                    .iter()
                    .any(|id| id == message.message_id.as_str())
                {
                    return result(LiveOutcome::NotOffered, Some("handshake_failed"));
                }
                // As every injected text: what the renderer missed of the store's text is
                // escaped on the way out.
                Cow::Owned(escape_hidden(&rendered.text).into_owned())
            }
        };
        let acceptance = push.offer_message(&LiveOffer {
            session_id: target.owner.session.as_str().to_owned(),
            generation: target.owner.generation.as_str().to_owned(),
            message_id: message.message_id.as_str().to_owned(),
            text: text.into_owned(),
            endpoint_ref: Some(b.endpoint_ref.clone()),
        });
        if !acceptance.accepted {
            let reason = acceptance
                .reason_code
                .filter(|r| acc_sdk::native::ReasonCode::parse(r).is_some())
                .unwrap_or_else(|| "handshake_failed".into());
            let _ = core.record_live_failure(sender, target, &message.message_id, &reason);
            // The endpoint is gone or is another session's now: the session's own hooks
            // publish again if it lives.
            if matches!(
                reason.as_str(),
                "native_session_unavailable"
                    | "native_endpoint_unavailable"
                    | "session_generation_stale"
            ) {
                let _ = core.retire_native_binding(&target.owner.session);
            }
            return result(LiveOutcome::Failed, Some(&reason));
        }
        if kind == OfferKind::Wake || acceptance.pending_approval {
            // The wake's turn shows the body: the turn in progress need not be held open.
            let _ = core.mark_woken(&target.owner.session);
        }
        match kind {
            _ if acceptance.pending_approval => result(LiveOutcome::PendingApproval, None),
            OfferKind::Wake => result(LiveOutcome::Woken, None),
            OfferKind::Message => {
                // The protocol names the transport (a validated id, never empty).
                match core.commit_offers(
                    &target.owner,
                    std::slice::from_ref(&message.message_id),
                    &b.protocol_contract,
                ) {
                    Ok(_) => result(LiveOutcome::Offered, None),
                    Err(_) => result(LiveOutcome::Failed, Some("handshake_failed")),
                }
            }
        }
    }
}

/// After a durable commit by a CLI or MCP sender: offers `m` live to each recipient's bound
/// session, with adapters from the registry and consent from the data home `env` names.
/// Never fails the send; a duplicate (nothing new was written) is not offered again.
pub fn offer_committed(
    env: &crate::env::Env,
    core: &mut Core,
    owner: &Owner,
    m: &MessageRecord,
    duplicate: bool,
) -> Vec<LiveResult> {
    if duplicate
        || !core
            .live_targets(&m.message_id)
            .is_ok_and(|t| !t.is_empty())
    {
        return Vec::new();
    }
    let Ok(home) = crate::paths::data_home(env) else {
        return Vec::new();
    };
    let adapters = crate::registry::all();
    Router {
        adapters: &adapters,
        acc_data_dir: &home.join("acc"),
        candidate: super::contract::live_push_candidate(
            env.get(crate::hook::hook_env::CERTIFY_CANDIDATES_VAR),
        ),
    }
    .offer_after_commit(core, owner, m)
}

/// The projector's input for one message alone.
fn single(m: &MessageRecord) -> ContextInput {
    ContextInput {
        peer_count: 1,
        solo: false,
        messages: vec![PeerMessage {
            message_id: m.message_id.as_str().to_owned(),
            thread_id: m.thread_id.as_str().to_owned(),
            kind: m.kind.as_str().to_owned(),
            sender_participant_id: m.from_participant_id.as_str().to_owned(),
            sender_session_id: m.from_session_id.as_str().to_owned(),
            obligation: m.obligation.as_str().to_owned(),
            subject: m.subject.clone(),
            body: m.body.clone(),
            repeat: None,
        }],
        repeats: Vec::new(),
        attention: Vec::new(),
        reminder_message_ids: Vec::new(),
    }
}

/// The sender's line: one clause per offered session, or nothing when none was bound. The
/// recipient is read back from the store, so it is shown by the one renderer of peer text.
pub fn human_summary(results: &[LiveResult]) -> Option<String> {
    if results.is_empty() {
        return None;
    }
    let parts: Vec<String> = results
        .iter()
        .map(|r| {
            let to = display(&r.recipient_participant_id);
            let why = || display(r.reason_code.as_deref().unwrap_or("unknown"));
            match r.outcome {
                LiveOutcome::Woken => format!("woke {to}'s idle session"),
                LiveOutcome::Offered => format!("offered live to {to}"),
                LiveOutcome::PendingApproval => {
                    format!("{to}'s session holds the wake for its user's approval")
                }
                LiveOutcome::Failed => format!(
                    "live offer to {to} failed ({}); queued for its next turn",
                    why()
                ),
                LiveOutcome::NotOffered => format!(
                    "not offered live to {to} ({}); queued for its next turn",
                    why()
                ),
            }
        })
        .collect();
    Some(parts.join("; "))
}

#[cfg(test)]
mod tests;
