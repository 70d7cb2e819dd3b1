//! Which native contract judges a client, and whether it is eligible.
//!
//! A client is judged by the `nativeDelivery` its adapter declares, whose minimum is the
//! first passing capture. Before any capture exists, `acc-certify record` names
//! `delivery.livePush` in `ACC_CERTIFY_CANDIDATES` for its sandbox: the contract is then
//! anchored at the version the session's own handshake reports, so that the handshake and
//! the offer are exercised exactly as they will be once the capture anchors them. Nothing
//! else can grant it.

use std::borrow::Cow;

use acc_sdk::define::Adapter;
use acc_sdk::install::InstallContext;
use acc_sdk::native::{
    ActivationKind, Anchor, NativeDelivery, PolicySource, ReasonCode, evaluate_native_eligibility,
};
use serde::Serialize;

/// The capability key a recorder names to exercise live delivery before it is certified.
pub const LIVE_PUSH_CANDIDATE: &str = "delivery.livePush";

/// Whether `ACC_CERTIFY_CANDIDATES` (comma-separated keys) names live push.
pub fn live_push_candidate(raw: Option<&str>) -> bool {
    raw.unwrap_or_default()
        .split(',')
        .any(|k| k.trim() == LIVE_PUSH_CANDIDATE)
}

/// The declared contract, else (for a recorder's candidate run of an adapter with native
/// session methods) one anchored at `version` for `protocol`.
pub fn contract_for<'a>(
    adapter: &'a Adapter,
    candidate: bool,
    version: Option<&str>,
    protocol: Option<&str>,
) -> Option<Cow<'a, NativeDelivery>> {
    if let Some(declared) = adapter.native_delivery() {
        return Some(Cow::Borrowed(declared));
    }
    let native = adapter.behaviour().native_session()?;
    if !candidate {
        return None;
    }
    let (version, protocol) = (version?, protocol?);
    Some(Cow::Owned(NativeDelivery {
        minimum: version.to_owned(),
        anchors: vec![Anchor {
            version: version.to_owned(),
            protocol_contract: protocol.to_owned(),
            client: None,
        }],
        known_bad: Vec::new(),
        activation_kinds: vec![ActivationKind::NativeService],
        policy_source: PolicySource::InstallationRecord,
        offer_kind: native.offer_kind(),
    }))
}

/// One client's native delivery as `acc doctor` shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NativeStatus {
    pub adapter_id: String,
    pub eligible: bool,
    pub reason_code: Option<String>,
    pub minimum_version: Option<String>,
    pub protocol_contract: Option<String>,
    /// The recorded consent (`off` when none).
    pub policy: String,
}

/// The doctor's answer for one adapter: the version rule and the machine's current
/// read-only probe (never a session handshake: doctor binds nothing).
pub fn status(
    adapter: &Adapter,
    ctx: &InstallContext,
    client_version: Option<&str>,
) -> NativeStatus {
    let policy = super::policy::recorded(&ctx.acc_data_dir, adapter.id());
    let primary = adapter.manifest().client.primary().to_owned();
    let refused = |reason: &str| NativeStatus {
        adapter_id: adapter.id().to_owned(),
        eligible: false,
        reason_code: Some(reason.to_owned()),
        minimum_version: adapter.native_delivery().map(|c| c.minimum.clone()),
        protocol_contract: None,
        policy: policy.as_str().to_owned(),
    };
    let Some(native) = adapter.behaviour().native_session() else {
        return refused(ReasonCode::NativeDeliveryUnsupported.as_str());
    };
    if adapter.native_delivery().is_none() {
        return refused(ReasonCode::NativeDeliveryUnsupported.as_str());
    }
    let probe = native.probe_native_delivery(ctx);
    match evaluate_native_eligibility(
        adapter.native_delivery(),
        &primary,
        client_version,
        probe.as_ref(),
    ) {
        Ok(e) => NativeStatus {
            adapter_id: adapter.id().to_owned(),
            eligible: e.eligible,
            reason_code: e.reason_code.map(|r| r.as_str().to_owned()),
            minimum_version: e.minimum_version,
            protocol_contract: e.protocol_contract,
            policy: policy.as_str().to_owned(),
        },
        Err(_) => refused(ReasonCode::FeatureProbeFailed.as_str()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_exact_key_names_the_candidate() {
        assert!(live_push_candidate(Some(
            "delivery.nextTurn, delivery.livePush"
        )));
        assert!(!live_push_candidate(Some("delivery.livePushX")));
        assert!(!live_push_candidate(None));
    }
}
